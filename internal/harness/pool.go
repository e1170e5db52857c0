package harness

import (
	"context"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

// pool holds the running drivers of one SDK. A scenario takes an idle driver; when none is idle
// it waits for one to come back, and starts a new one (while fewer than size exist) only once it
// has waited as long as starting one takes (patience, the SDK's measured start-up). That is the
// rent-or-buy rule: it never pays more than twice the better choice, so an SDK whose scenarios
// are quick next to its start-up (a JVM, which also runs its first calls slowly) keeps one or two
// drivers, and one whose scenarios wait long (Python's client stop) gets as many as it can use. A driver serves one scenario at a
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
	started int // drivers started over the run, for the timing report
	held    map[*driver.Client]time.Time
	holds   time.Duration // total time drivers were held by scenarios
	nHolds  int
}

// patienceNow is how long a scenario waits for a busy driver before starting one: the start-up
// time, or nothing once the scenarios have been seen to hold their drivers longer than a
// start-up takes (waiting would then cost more than starting).
func (p *pool) patienceNow() time.Duration {
	if p.nHolds > 0 && p.holds/time.Duration(p.nHolds) >= p.patience {
		return 0
	}
	return p.patience
}

func newPool(size int, patience time.Duration, start func(context.Context) (*driver.Client, error), first *driver.Client) *pool {
	p := &pool{start: start, size: max(size, 1), patience: patience, freed: make(chan struct{}, 1), held: map[*driver.Client]time.Time{}}
	if first != nil {
		p.idle, p.all, p.running, p.started = []*driver.Client{first}, []*driver.Client{first}, 1, 1
	}
	return p
}

func (p *pool) get(ctx context.Context) (*driver.Client, error) {
	p.mu.Lock()
	deadline := time.Now().Add(p.patienceNow())
	p.mu.Unlock()
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
		if p.running == 0 || p.running < p.size && !time.Now().Before(deadline) {
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
			p.held[c] = time.Now()
			p.mu.Unlock()
			return c, nil
		}
		p.mu.Unlock()
		wait := time.Until(deadline)
		if wait <= 0 || wait > 100*time.Millisecond {
			wait = 100 * time.Millisecond // a wake-up lost to another waiter
		}
		select {
		case <-p.freed:
		case <-time.After(wait):
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
		p.holds += time.Since(t)
		p.nHolds++
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
