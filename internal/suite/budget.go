package suite

import (
	"fmt"
	"sync"
	"time"
)

// PerCase is what each generated case a scenario announces (Budget.Expect) adds to its deadline:
// about fifty times what a case takes on a healthy SDK (20-40 ms measured), and room for a few
// cases that wait out the runtime's full wait for an answer (10 s) among hundreds.
const PerCase = 2 * time.Second

// Floor is a scenario's deadline before any case is announced: room for a few commands that each
// take up to the command timeout, and never under two minutes.
func Floor(commandTimeout time.Duration) time.Duration {
	return max(2*time.Minute, 3*commandTimeout)
}

// Budget is a scenario's overall deadline, besides each command's timeout: a driver that keeps
// answering slowly, or an SDK that stops answering the runtime while its driver still answers,
// cannot hold the run past it. The runner starts it when the scenario opens; a step that runs
// generated cases announces them, each adding PerCase. Past the deadline onExpire runs once (the
// runner kills the scenario's driver, so whatever the steps wait on returns at once).
type Budget struct {
	mu       sync.Mutex
	floor    time.Duration
	cases    int
	started  time.Time
	timer    *time.Timer
	expired  string
	onExpire func(why string)
}

// NewBudget starts a scenario's deadline at floor from now.
func NewBudget(floor time.Duration, onExpire func(why string)) *Budget {
	b := &Budget{floor: floor, started: time.Now(), onExpire: onExpire}
	b.timer = time.AfterFunc(floor, b.expire)
	return b
}

// Expect adds n generated cases to the scenario's deadline. A nil Budget bounds nothing.
func (b *Budget) Expect(n int) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.expired != "" {
		return
	}
	b.cases += n
	b.timer.Reset(time.Until(b.deadline()))
}

func (b *Budget) deadline() time.Time {
	return b.started.Add(b.floor + time.Duration(b.cases)*PerCase)
}

// Bound is the whole deadline so far, in words.
func (b *Budget) Bound() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bound()
}

func (b *Budget) bound() string {
	if b.cases == 0 {
		return fmt.Sprintf("%s (the floor)", b.floor)
	}
	return fmt.Sprintf("%s (a floor of %s + %d generated cases × %s)", b.floor+time.Duration(b.cases)*PerCase, b.floor, b.cases, PerCase)
}

func (b *Budget) expire() {
	b.mu.Lock()
	if b.expired != "" || time.Now().Before(b.deadline()) {
		b.mu.Unlock()
		return
	}
	b.expired = "the scenario passed its deadline of " + b.bound() + ": hung"
	why, fn := b.expired, b.onExpire
	b.mu.Unlock()
	if fn != nil {
		fn(why)
	}
}

// Expired is why the scenario was ended as hung ("" while within its deadline).
func (b *Budget) Expired() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.expired
}

// Stop ends the deadline (the scenario is over).
func (b *Budget) Stop() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.timer.Stop()
}
