//go:build linux

package main

import (
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup/subreaper"
	"github.com/stretchr/testify/require"
)

func becomeSubreaper(t *testing.T) { require.NoError(t, subreaper.Become()) }

// leftBehind lists this test process's live descendants, once they had a moment to go.
func leftBehind() []string { return subreaper.Settled(5 * time.Second) }
