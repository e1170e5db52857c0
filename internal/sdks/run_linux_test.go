//go:build linux

package sdks

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup/subreaper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuildStepLeavesNothing: a preparation step whose children outlive it (cargo's rustc and
// linker, npm's scripts), one that fails and one cancelled (the run interrupted), leaves no
// process behind (this test process is a subreaper, so an orphan would be found).
func TestBuildStepLeavesNothing(t *testing.T) {
	require.NoError(t, subreaper.Become())
	for _, tc := range []struct {
		name, script string
		cancel       bool
	}{
		{name: "succeeds", script: "sleep 300 >/dev/null 2>&1 & exit 0"},
		{name: "fails", script: "sleep 300 >/dev/null 2>&1 & exit 1"},
		{name: "cancelled", script: "sh -c 'sleep 300' & sleep 300", cancel: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			_ = run(ctx, io.Discard, "test", t.TempDir(), 0, nil, "sh", "-c", tc.script)
			assert.Empty(t, subreaper.Settled(5*time.Second), "processes left behind")
		})
	}
}
