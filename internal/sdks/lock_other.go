//go:build !unix

package sdks

import "context"

// lockKey does not lock where flock is missing: concurrent runs must not share a cache there.
func lockKey(context.Context, string) (func(), error) { return func() {}, nil }

// tryLockKey always succeeds where flock is missing.
func tryLockKey(string) (func(), error) { return func() {}, nil }

// tryShareKey always succeeds where flock is missing.
func tryShareKey(string) (func(), error) { return func() {}, nil }
