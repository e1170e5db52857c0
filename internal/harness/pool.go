package harness

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

// pool holds the running drivers of one SDK. A scenario takes an idle driver; when none is idle
// it waits for one to come back, or starts a new one (while fewer than size exist) when the
// scenarios still to run would keep the drivers busy longer than a start takes: scenarios left
// ÷ drivers × how long a scenario holds a driver, against the SDK's measured start-up
// (patience). Until the first driver has
// served two scenarios nothing else starts: a fresh driver's first scenario is slow (a JVM loads
// and compiles the SDK then), and only the second shows how long a scenario really holds it. So
// an SDK whose scenarios are quick next to its start-up keeps one driver (Java's take ~40 ms on a
// warm JVM, several hundred on each new one), and one whose scenarios wait long (Python's
// client stop waits a second) gets as many as it can use. A driver serves one scenario at a
// time (the protocol allows one command in flight, and handles like "c1" are per scenario), so
// running scenarios concurrently means running several drivers; each scenario still gets a fresh
// SDK client and its own recording runtime, as in a sequential run.
type pool struct {
	start    func(ctx context.Context) (*driver.Client, error)
	size     int
	patience time.Duration

	mu      sync.Mutex
	idle    []*driver.Client
	all     []*driver.Client
	running int // drivers alive or starting
	freed   chan struct{}
	started int              // drivers started over the run, for the timing report
	every   []*driver.Client // every driver started, for their usage once closed
	held    map[*driver.Client]time.Time
	holds   []time.Duration // how long each scenario held its driver, in the order they ended
	waiting int             // scenarios in get
	// left says how many of the SDK's scenarios have not finished (nil: unknown, and the
	// scenarios waiting now stand for them).
	left func() int
}

// worthStarting says whether a waiting scenario should start a driver rather than wait.
func (p *pool) worthStarting() bool {
	if p.running == 0 {
		return true
	}
	if p.running >= p.size {
		return false
	}
	if len(p.holds) < 2 {
		// No warm hold seen yet: wait, unless every driver has been held for longer than four
		// start-ups (a long scenario, not a cold start), so a quick scenario is not stuck
		// behind a slow one.
		if len(p.held) < p.running {
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
		queue = max(queue, p.left()-p.running)
	}
	expected := time.Duration(float64(hold) * float64(queue) / float64(p.running))
	return expected > p.patience
}

func newPool(size int, patience time.Duration, start func(context.Context) (*driver.Client, error), first *driver.Client) *pool {
	p := &pool{start: start, size: max(size, 1), patience: patience, freed: make(chan struct{}, 1), held: map[*driver.Client]time.Time{}}
	if first != nil {
		p.idle, p.all, p.running, p.started = []*driver.Client{first}, []*driver.Client{first}, 1, 1
		p.every = []*driver.Client{first}
	}
	return p
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
		for len(p.idle) > 0 {
			c := p.idle[len(p.idle)-1]
			p.idle = p.idle[:len(p.idle)-1]
			if c.Alive() {
				p.held[c] = time.Now()
				p.mu.Unlock()
				return c, nil
			}
			p.running--
		}
		if p.worthStarting() {
			p.running++
			p.started++
			p.mu.Unlock()
			c, err := p.start(ctx)
			p.mu.Lock()
			if err != nil {
				p.running--
				p.mu.Unlock()
				p.signal()
				return nil, err
			}
			p.all = append(p.all, c)
			p.every = append(p.every, c)
			p.held[c] = time.Now()
			p.mu.Unlock()
			return c, nil
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

func (p *pool) signal() {
	select {
	case p.freed <- struct{}{}:
	default:
	}
}

// put returns a driver after its scenario; a dead one frees its place.
func (p *pool) put(c *driver.Client) {
	p.mu.Lock()
	if t, ok := p.held[c]; ok {
		p.holds = append(p.holds, time.Since(t))
		delete(p.held, c)
	}
	if c.Alive() {
		p.idle = append(p.idle, c)
	} else {
		p.running--
	}
	p.mu.Unlock()
	p.signal()
}

// discard gives up a driver that died during a scenario.
func (p *pool) discard(c *driver.Client) {
	p.mu.Lock()
	delete(p.held, c)
	p.running--
	p.mu.Unlock()
	p.signal()
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
	p.all, p.idle = nil, nil
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
