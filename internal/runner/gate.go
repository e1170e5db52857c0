package runner

import (
	"context"
	"sync"
	"time"
)

// StartGate holds every SDK's scenarios until each SDK's first driver has started: a driver
// that starts while other SDKs' scenarios already run shares the cores with them, and the
// slowest start (an interpreter importing a large SDK, a JVM) then takes several times its CPU
// time in wall time and lengthens the whole run (measured under load: Python's first hello
// 9.4 s while Node and Go ran; 1.9 s alone). With a patience, a target that takes longer than
// that after the first was ready does not hold the others longer; without one (0), every target
// is prepared (or known unavailable) before any scenario runs.
type StartGate struct {
	mu       sync.Mutex
	left     int
	open     chan struct{}
	deadline chan struct{} // closed once patience has passed since the first arrival
	patience time.Duration
}

// NewStartGate is a gate for targets, each waiting at most patience after the first arrived
// (0: until every target has arrived).
func NewStartGate(targets int, patience time.Duration) *StartGate {
	g := &StartGate{left: targets, open: make(chan struct{}), patience: patience}
	if targets == 0 {
		close(g.open)
	}
	return g
}

// Arrive says one target is ready to run its scenarios (or cannot run any), then waits for the
// gate to open: every target arrived, patience passed since the first did, or ctx ended.
func (g *StartGate) Arrive(ctx context.Context) {
	g.mu.Lock()
	if g.deadline == nil {
		d := make(chan struct{})
		g.deadline = d
		if g.patience > 0 {
			time.AfterFunc(g.patience, func() { close(d) })
		}
	}
	deadline := g.deadline
	if g.left--; g.left == 0 {
		close(g.open)
	}
	g.mu.Unlock()
	select {
	case <-g.open:
	case <-deadline:
	case <-ctx.Done():
	}
}
