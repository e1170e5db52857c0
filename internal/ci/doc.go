// Package ci checks the project's CI definitions (.github/workflows): it has only tests.
package ci
