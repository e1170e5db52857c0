package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

func TestPoolWorthStarting(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		p    *pool
		left int // 0: unknown
		want bool
	}{
		{name: "no driver at all", p: &pool{size: 8, patience: time.Second}, want: true},
		{name: "full", p: &pool{size: 2, running: 2, patience: ms, holds: []time.Duration{time.Second, time.Second}, waiting: 5}, want: false},
		{name: "one scenario seen: not yet", p: &pool{size: 8, running: 1, patience: ms, holds: []time.Duration{time.Second}, waiting: 7}, want: false},
		{name: "no hold seen, but the one driver is held by a long scenario", p: &pool{size: 8, running: 1, patience: 100 * ms,
			held: map[*driver.Client]time.Time{nil: time.Now().Add(-time.Second)}, waiting: 1}, want: true},
		{name: "no hold seen, the one driver busy with a cold start", p: &pool{size: 8, running: 1, patience: 100 * ms,
			held: map[*driver.Client]time.Time{nil: time.Now().Add(-200 * ms)}, waiting: 7}, want: false},
		{name: "long holds, many left (Python's slow stop)", p: &pool{size: 8, running: 1, patience: 800 * ms,
			holds: []time.Duration{1200 * ms, 1050 * ms}, waiting: 7}, left: 39, want: true},
		{name: "a cold first scenario, then quick ones (a JVM)", p: &pool{size: 8, running: 1, patience: 400 * ms,
			holds: []time.Duration{time.Second, 15 * ms, 20 * ms}, waiting: 7}, left: 20, want: false},
		{name: "one slow scenario among quick ones does not count", p: &pool{size: 8, running: 1, patience: 400 * ms,
			holds: []time.Duration{time.Second, 15 * ms, 900 * ms, 20 * ms}, waiting: 7}, left: 20, want: false},
		{name: "few left, long holds", p: &pool{size: 8, running: 4, patience: 800 * ms,
			holds: []time.Duration{time.Second, time.Second}, waiting: 1}, left: 5, want: false},
		{name: "without a count, the waiting scenarios stand for the rest", p: &pool{size: 8, running: 1, patience: 800 * ms,
			holds: []time.Duration{time.Second, time.Second}, waiting: 3}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			if tt.left > 0 {
				p.left = func() int { return tt.left }
			}
			assert.Equal(t, tt.want, p.worthStarting())
		})
	}
}
