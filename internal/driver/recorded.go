package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Recorded is a driver that answers from a scenario transcript instead of running an SDK
// (conformance replay): each command gets the driver lines recorded after the next recorded
// command of the same name (its events and its response, renumbered to the new id). A command
// the recording does not hold ends the process, with the reason on its stderr. It is also the
// replay's runtime.Recording: a frame the recorded runtime sent for the steps (Entry.ByStep) is
// played when the steps have the runtime send it again, with what followed it.
type Recorded struct {
	mu     sync.Mutex
	items  []recordedItem
	all    []transcript.Entry // the whole recording (the SDK's frames after a played one)
	before []transcript.Entry
	out    io.Writer // the running process's stdout
	// Emit, when set, receives the recorded wire and notes of each move's stretch of the
	// recording (from a command or a frame sent for the steps to the next one) as it is played,
	// so that a replayed transcript grows as the recorded one did.
	Emit func([]transcript.Entry)
	// Len, when set, is the replayed transcript's length: each driver line written is waited
	// for (until the length grows, lineWait at most) before the next recorded entry is
	// emitted, so that driver lines and wire keep their recorded order (the transcript numbers
	// a message cites).
	Len func() int
}

// lineWait bounds the wait for a written driver line to reach the transcript (a line no step
// records, as in the recorded run, is not waited for longer).
const lineWait = 200 * time.Millisecond

// recordedItem is one move of the steps in the recording, a driver command or a frame the
// runtime sent for them, with what followed it until the next move.
type recordedItem struct {
	cmd     string             // the command; "" for a frame the runtime sent
	who     string             // the handle the command names (handleOf), "" when none
	seq     int                // transcript entry of the command
	sent    *transcript.Entry  // the runtime's frame (cmd "")
	at      int                // sent's index in the recording
	out     []transcript.Entry // the entries until the next move, driver lines included
	resp    int                // index in out of the response to the command, -1 if none
	played  bool               // its stretch was written (answered, skipped on the way, played)
	claimed bool               // a frame a step's Play took
}

// NewRecorded reads the driver lines of a transcript.
func NewRecorded(entries []transcript.Entry) *Recorded {
	r := &Recorded{all: entries}
	byID := map[int]int{} // command id -> index in items
	for i, e := range entries {
		switch {
		case e.Dir == transcript.HarnessToDriver:
			var c struct {
				ID   int             `json:"id"`
				Cmd  string          `json:"cmd"`
				Args json.RawMessage `json:"args"`
			}
			if json.Unmarshal(e.Frame, &c) == nil {
				byID[c.ID] = len(r.items)
				r.items = append(r.items, recordedItem{cmd: c.Cmd, who: handleOf(c.Args), seq: e.Seq, resp: -1})
			}
		case e.Dir == transcript.RuntimeToSDK && e.ByStep && len(r.items) > 0:
			r.items = append(r.items, recordedItem{sent: &entries[i], at: i, seq: e.Seq, resp: -1})
		case e.Dir == transcript.DriverToHarness:
			if len(r.items) == 0 || len(e.Frame) == 0 {
				continue
			}
			to := &r.items[len(r.items)-1]
			var resp Response
			if json.Unmarshal(e.Frame, &resp) == nil && resp.Outcome != "" {
				// A response goes to the command it answers: commands sent at once (a
				// scenario's clients stopped together) are answered after all were sent.
				if j, ok := byID[resp.ID]; ok && r.items[j].resp < 0 {
					to = &r.items[j]
				}
				if to.resp < 0 {
					to.resp = len(to.out)
				}
			}
			to.out = append(to.out, e)
		case e.Kind == transcript.KindScenario, e.Kind == transcript.KindSpawn, e.Kind == transcript.KindCase:
			// The replayed steps record these anew: a spawn's facts (read again from the
			// recording) and the case notes (whose Since names an entry of their transcript; a
			// recorded copy beside the new one would pair the requests of a sweep wrongly).
		case len(r.items) == 0 && e.Dir == transcript.Note && e.Kind == "" && !e.Spawned():
			// A note for people before the first command (the recording runtime's address):
			// the replay's own runtime writes its own, and a copy would shift every entry's
			// number (the "request #16" a message names). Typed notes (not-run) are kept.
		case len(r.items) == 0, e.Spawned():
			// A spawned runtime's entries were taken in when the scenario ended, but its steps
			// read them live from that runtime's own file: they are there from the start.
			r.before = append(r.before, e)
		default:
			last := &r.items[len(r.items)-1]
			last.out = append(last.out, e)
		}
	}
	return r
}

// Before is what the recording holds before the first driver command (the runtime's start, a
// scenario that never reached the SDK).
func (r *Recorded) Before() []transcript.Entry { return r.before }

// Describe implements Launcher.
func (r *Recorded) Describe() string { return "a recorded driver (conformance replay)" }

// Start implements Launcher.
func (r *Recorded) Start(context.Context) (Process, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &recordedProcess{in: inW, out: outR, tail: &Tail{Max: 64 << 10}, done: make(chan struct{})}
	r.mu.Lock()
	r.out = outW
	r.mu.Unlock()
	go func() {
		defer close(p.done)
		defer outW.Close()
		defer inR.Close() // a command written after the end fails instead of blocking
		sc := bufio.NewScanner(inR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var c struct {
				ID   int             `json:"id"`
				Cmd  string          `json:"cmd"`
				Args json.RawMessage `json:"args"`
			}
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				fmt.Fprintf(p.tail, "not a command: %v\n", err)
				return
			}
			if err := r.answer(c.Cmd, handleOf(c.Args), c.ID); err != nil {
				fmt.Fprintln(p.tail, err)
				return
			}
		}
	}()
	return p, nil
}

// handleOf is the session handle a command's args name, else its client handle: what tells apart
// commands of one name sent at once (a sweep opening a client per case), whose order on the
// wire is the goroutines' and differs between the run and its replay.
func handleOf(args json.RawMessage) string {
	var a struct {
		Client  string `json:"client"`
		Session string `json:"session"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	if a.Session != "" {
		return "session " + a.Session
	}
	if a.Client != "" {
		return "client " + a.Client
	}
	return ""
}

// answer finds the first recorded command named cmd not played yet and plays its stretch, the
// response renumbered to id and written last, after the stretches of the moves skipped on the
// way (of a skipped command only the wire: its driver lines answered a command not sent). When
// that command named another handle than who and a later recorded command of the same name
// names who, their answers are swapped first: commands sent at once reach the driver in another
// order in a replay than in the run, and each gets the answer to itself.
func (r *Recorded) answer(cmd, who string, id int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.items {
		c := &r.items[i]
		if c.played {
			continue
		}
		if c.cmd != cmd {
			r.play(c, c.sent != nil, nil)
			continue
		}
		if who != "" && c.who != who {
			for j := i + 1; j < len(r.items); j++ {
				if o := &r.items[j]; !o.played && o.cmd == cmd && o.who == who {
					c.who, o.who = o.who, c.who
					c.out, o.out = swapLines(c.out, o.out)
					c.resp, o.resp = responseIn(c.out), responseIn(o.out)
					break
				}
			}
		}
		if c.resp < 0 {
			r.play(c, false, nil)
			return fmt.Errorf("the recording has no answer to the %q command at entry %d", cmd, c.seq)
		}
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(c.out[c.resp].Frame, &resp); err != nil {
			r.play(c, false, nil)
			return fmt.Errorf("the recorded answer to %q at entry %d: %w", cmd, c.seq, err)
		}
		resp["id"], _ = json.Marshal(id)
		line, _ := json.Marshal(resp)
		r.play(c, true, line)
		return nil
	}
	return fmt.Errorf("the recording has no further %q command: the scenario's steps differ from the recorded run", cmd)
}

// Play implements runtime.Recording: the first frame sent for the steps that match accepts and
// no step took yet. A frame played already (a command skipped past it) is only taken; else
// the frames sent for the steps before it that are not played yet are played first (the
// commands' stretches wait for their commands).
func (r *Recorded) Play(match func(json.RawMessage) bool) (json.RawMessage, []json.RawMessage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.items {
		it := &r.items[i]
		if it.sent == nil || it.claimed || !match(it.sent.Frame) {
			continue
		}
		it.claimed = true
		if !it.played {
			for j := 0; j < i; j++ {
				if b := &r.items[j]; b.sent != nil && !b.played {
					r.play(b, true, nil)
				}
			}
			r.play(it, true, nil)
		}
		var later []json.RawMessage
		for _, e := range r.all[it.at+1:] {
			if e.Dir == transcript.SDKToRuntime && len(e.Frame) > 0 {
				later = append(later, e.Frame)
			}
		}
		return it.sent.Frame, later, true
	}
	return nil, nil, false
}

// play writes an item's stretch in its recorded order (r.mu held): the runtime's frame, then
// the entries after it, its driver lines when lines is set (the recorded response left out),
// and resp, when set, last.
func (r *Recorded) play(it *recordedItem, lines bool, resp []byte) {
	it.played = true
	var wire []transcript.Entry
	flush := func() {
		if r.Emit != nil && len(wire) > 0 {
			r.Emit(wire)
		}
		wire = nil
	}
	if it.sent != nil {
		wire = append(wire, *it.sent)
	}
	for i, e := range it.out {
		switch {
		case e.Dir != transcript.DriverToHarness:
			wire = append(wire, e)
		case lines && i != it.resp:
			flush()
			r.writeLine(e.Frame)
		}
	}
	flush()
	if resp != nil {
		r.writeLine(resp)
	}
}

// writeLine writes one driver line and waits until the transcript recorded it (Len).
func (r *Recorded) writeLine(l []byte) {
	if r.out == nil {
		return
	}
	n := 0
	if r.Len != nil {
		n = r.Len()
	}
	if _, err := r.out.Write(append(append([]byte(nil), l...), '\n')); err != nil || r.Len == nil {
		return
	}
	for deadline := time.Now().Add(lineWait); r.Len() <= n && time.Now().Before(deadline); {
		time.Sleep(50 * time.Microsecond)
	}
}

// swapLines gives two stretches each other's driver lines, the wire staying in place (the
// wire is the run's chronology, the lines answer each handle's command).
func swapLines(a, b []transcript.Entry) ([]transcript.Entry, []transcript.Entry) {
	split := func(es []transcript.Entry) (wire, lines []transcript.Entry) {
		for _, e := range es {
			if e.Dir == transcript.DriverToHarness {
				lines = append(lines, e)
			} else {
				wire = append(wire, e)
			}
		}
		return wire, lines
	}
	wa, la := split(a)
	wb, lb := split(b)
	return append(wa, lb...), append(wb, la...)
}

// responseIn is the index of the response among a stretch's driver lines, -1 if none.
func responseIn(es []transcript.Entry) int {
	for i, e := range es {
		var resp Response
		if e.Dir == transcript.DriverToHarness && json.Unmarshal(e.Frame, &resp) == nil && resp.Outcome != "" {
			return i
		}
	}
	return -1
}

type recordedProcess struct {
	in   *io.PipeWriter
	out  *io.PipeReader
	tail *Tail
	done chan struct{}
	once sync.Once
}

func (p *recordedProcess) Stdin() io.WriteCloser { return p.in }
func (p *recordedProcess) Stdout() io.Reader     { return p.out }
func (p *recordedProcess) StderrTail() string    { return p.tail.String() }
func (p *recordedProcess) Wait() error           { <-p.done; return nil }
func (p *recordedProcess) Kill() {
	p.once.Do(func() { _ = p.in.Close(); _ = p.out.Close() })
}
