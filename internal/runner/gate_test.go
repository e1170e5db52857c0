package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Every target passes the gate once the last has arrived; none waits for a target that never
// arrives longer than the patience; an ended context lets everyone through.
func TestStartGate(t *testing.T) {
	tests := []struct {
		name     string
		targets  int
		arriving int
		patience time.Duration
		cancel   bool
	}{
		{name: "all arrive", targets: 3, arriving: 3, patience: time.Hour},
		{name: "one never arrives", targets: 3, arriving: 2, patience: time.Millisecond},
		{name: "interrupted", targets: 3, arriving: 2, patience: time.Hour, cancel: true},
		{name: "a single target", targets: 1, arriving: 1, patience: time.Hour},
		{name: "no patience, all arrive", targets: 3, arriving: 3},
		{name: "no patience, interrupted", targets: 3, arriving: 2, cancel: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := NewStartGate(tt.targets, tt.patience)
			var wg sync.WaitGroup
			passed := make(chan struct{}, tt.arriving)
			for range tt.arriving {
				wg.Add(1)
				go func() {
					defer wg.Done()
					g.Arrive(ctx)
					passed <- struct{}{}
				}()
			}
			if tt.cancel {
				cancel()
			}
			wg.Wait()
			assert.Len(t, passed, tt.arriving)
		})
	}
}

// Without a patience the gate holds every target until the last has arrived, however long it
// takes (every SDK prepared before any scenario runs).
func TestStartGateWithoutPatienceWaitsForTheLast(t *testing.T) {
	g := NewStartGate(2, 0)
	passed := make(chan struct{}, 2)
	go func() { g.Arrive(context.Background()); passed <- struct{}{} }()
	assert.Never(t, func() bool { return len(passed) > 0 }, 200*time.Millisecond, 10*time.Millisecond, "the first passed before the last arrived")
	g.Arrive(context.Background())
	<-passed
}
