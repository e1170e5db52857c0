package harness

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

// pool holds the running drivers of one SDK. A scenario takes a place on a driver: on an idle
// one, or, when the driver declared driver.concurrent, beside up to per-1 other scenarios on a
// busy one (the least busy first), through a view of its own (driver.Client.Share). When no
// place is free it waits for one, or starts a new driver (while fewer than size exist) when the
// scenarios still to run would keep the places busy longer than a start takes: scenarios left
// ÷ places × how long a scenario holds its place, against the SDK's measured start-up
// (patience). Until the first driver has served two scenarios nothing else starts: a fresh
// driver's first scenario is slow (a JVM loads and compiles the SDK then), and only the second
// shows how long a scenario really holds it. So an SDK whose scenarios are quick next to its
// start-up keeps one driver (Java's take ~40 ms on a warm JVM, several hundred on each new
// one), and one whose scenarios wait long (Python's client stop waits a second) gets as many
// places as it can use. A driver without driver.concurrent serves one scenario at a time (the
// protocol then allows one command in flight), so running its scenarios concurrently means
// running several drivers; each scenario still gets a fresh SDK client and its own recording
// runtime, as in a sequential run.
type pool struct {
	start    func(ctx context.Context) (*driver.Client, error)
	size     int // drivers at most
	per      int // scenarios at once on one driver (1: not shared)
	patience time.Duration

	mu      sync.Mutex
	busy    map[*driver.Client]int // each live driver (its own view) and the scenarios on it
	all     []*driver.Client
	running int // drivers alive or starting
	freed   chan struct{}
	started int              // drivers started over the run, for the timing report
	every   []*driver.Client // every driver started, for their usage once closed
	held    map[*driver.Client]time.Time
	holds   []time.Duration // how long each scenario held its place, in the order they ended
	waiting int             // scenarios in get
	scopes  int             // views handed out, for their scopes
	// left says how many of the SDK's scenarios have not finished (nil: unknown, and the
	// scenarios waiting now stand for them).
	left func() int
	// startCrashes counts drivers in a row that failed to start or died before answering a
	// command beyond hello; at two, broken is why the SDK's remaining scenarios fail at once
	// rather than each paying a start and a wait.
	startCrashes int
	broken       error
}

// maxStartCrashes is how many drivers in a row may die on start before the pool gives up.
const maxStartCrashes = 2

// startCrashed counts a driver that died on start (p.mu held).
func (p *pool) startCrashed(err error) {
	p.startCrashes++
	if p.startCrashes >= maxStartCrashes && p.broken == nil {
		p.broken = fmt.Errorf("the driver died on start %d times in a row, so the SDK's remaining scenarios are not run; the last: %w", p.startCrashes, err)
	}
}

// places is how many scenarios the running drivers can hold at once.
func (p *pool) places() int { return p.running * max(p.per, 1) }

// worthStarting says whether a waiting scenario should start a driver rather than wait.
func (p *pool) worthStarting() bool {
	if p.running == 0 {
		return true
	}
	if p.running >= p.size {
		return false
	}
	if len(p.holds) < 2 {
		// No warm hold seen yet: wait, unless every place has been held for longer than four
		// start-ups (a long scenario, not a cold start), so a quick scenario is not stuck
		// behind a slow one.
		if len(p.held) < p.places() {
			return false
		}
		for _, since := range p.held {
			if time.Since(since) <= 4*p.patience {
				return false
			}
		}
		return true
	}
	// The hold to expect: the shortest of the last three, leaving out the first scenario (a
	// cold driver's), so that one slow scenario does not start a crowd of drivers.
	recent := p.holds[max(1, len(p.holds)-3):]
	hold := slices.Min(recent)
	queue := p.waiting
	if p.left != nil {
		queue = max(queue, p.left()-p.places())
	}
	expected := time.Duration(float64(hold) * float64(queue) / float64(p.places()))
	return expected > p.patience
}

func newPool(size, per int, patience time.Duration, start func(context.Context) (*driver.Client, error), first *driver.Client) *pool {
	p := &pool{start: start, size: max(size, 1), per: max(per, 1), patience: patience, freed: make(chan struct{}, 1),
		held: map[*driver.Client]time.Time{}, busy: map[*driver.Client]int{}}
	if first != nil {
		p.busy[first], p.all, p.running, p.started = 0, []*driver.Client{first}, 1, 1
		p.every = []*driver.Client{first}
	}
	return p
}

// take gives a place on driver c (p.mu held): the driver itself when it is not shared, else a
// view of its own.
func (p *pool) take(c *driver.Client) *driver.Client {
	p.busy[c]++
	v := c
	if p.per > 1 {
		p.scopes++
		v = c.Share(fmt.Sprintf("j%d", p.scopes))
	}
	p.held[v] = time.Now()
	return v
}

func (p *pool) get(ctx context.Context) (*driver.Client, error) {
	p.mu.Lock()
	p.waiting++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
	}()
	for {
		p.mu.Lock()
		if p.broken != nil {
			err := p.broken
			p.mu.Unlock()
			return nil, err
		}
		var best *driver.Client
		for c, n := range p.busy {
			if !c.Alive() {
				p.gone(c)
				continue
			}
			if n < p.per && (best == nil || n < p.busy[best]) {
				best = c
			}
		}
		if best != nil {
			v := p.take(best)
			p.mu.Unlock()
			return v, nil
		}
		if p.worthStarting() {
			p.running++
			p.started++
			p.mu.Unlock()
			c, err := p.start(ctx)
			p.mu.Lock()
			if err != nil {
				p.running--
				if ctx.Err() == nil {
					p.startCrashed(err)
				}
				p.mu.Unlock()
				p.signal()
				return nil, err
			}
			p.all = append(p.all, c)
			p.every = append(p.every, c)
			p.busy[c] = 0
			v := p.take(c)
			p.mu.Unlock()
			return v, nil
		}
		p.mu.Unlock()
		select {
		case <-p.freed:
		case <-time.After(20 * time.Millisecond): // a wake-up taken by another waiter; look again
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// gone forgets a driver that died (p.mu held); its places are free again.
func (p *pool) gone(c *driver.Client) {
	if _, ok := p.busy[c]; ok {
		delete(p.busy, c)
		p.running--
		if c.Answered() <= 1 {
			p.startCrashed(c.Exited())
		}
	}
}

func (p *pool) signal() {
	select {
	case p.freed <- struct{}{}:
	default:
	}
}

// put gives a scenario's place back after it ended; a dead driver frees its places.
func (p *pool) put(v *driver.Client) {
	p.mu.Lock()
	if t, ok := p.held[v]; ok {
		p.holds = append(p.holds, time.Since(t))
	}
	p.release(v)
	p.mu.Unlock()
	p.signal()
}

// discard gives up the place of a scenario whose driver died during it.
func (p *pool) discard(v *driver.Client) {
	p.mu.Lock()
	p.release(v)
	p.mu.Unlock()
	p.signal()
}

// release ends a view's place (p.mu held).
func (p *pool) release(v *driver.Client) {
	if _, ok := p.held[v]; !ok {
		return // given back already
	}
	delete(p.held, v)
	c := v.Process()
	v.Detach()
	if _, ok := p.busy[c]; ok {
		p.busy[c]--
	}
	if !c.Alive() {
		p.gone(c)
	} else if c.Answered() > 1 {
		p.startCrashes = 0 // a driver served a scenario: earlier deaths were not on start
	}
}

// Started is how many drivers the run started.
func (p *pool) Started() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// usage is what each driver the run started cost; after close, with their CPU time.
func (p *pool) usage() []driver.Usage {
	p.mu.Lock()
	every := append([]*driver.Client(nil), p.every...)
	p.mu.Unlock()
	out := make([]driver.Usage, len(every))
	for i, c := range every {
		out[i] = c.Usage(time.Second)
	}
	return out
}

// close shuts every driver down, at once: a driver may take a while to exit (an SDK that waits
// on its threads), and they do not depend on each other.
func (p *pool) close() {
	p.mu.Lock()
	all := p.all
	p.all, p.busy = nil, map[*driver.Client]int{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close(5 * time.Second)
		}()
	}
	wg.Wait()
}

// kill ends every driver at once (an interrupted run).
func (p *pool) kill() {
	p.mu.Lock()
	all := append([]*driver.Client(nil), p.all...)
	p.mu.Unlock()
	for _, c := range all {
		go c.Kill()
	}
}
