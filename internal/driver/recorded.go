package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Recorded is a driver that answers from a scenario transcript instead of running an SDK
// (conformance replay): each command gets the driver lines recorded after the next recorded
// command of the same name (its events and its response, renumbered to the new id). A command
// the recording does not hold ends the process, with the reason on its stderr.
type Recorded struct {
	mu       sync.Mutex
	commands []recordedCommand
	next     int // commands before next have been answered or skipped
	before   []transcript.Entry
	// Emit, when set, receives the recorded wire and notes of each command's stretch of the
	// recording (from the command to the next one) just before its answer is written, so that a
	// replayed transcript grows as the recorded one did.
	Emit func([]transcript.Entry)
}

type recordedCommand struct {
	cmd   string
	who   string             // the handle the command names (handleOf), "" when none
	seq   int                // transcript entry of the command
	lines []json.RawMessage  // driver lines until the next command
	wire  []transcript.Entry // the other entries until the next command
	resp  int                // index in lines of the response to the command, -1 if none
}

// NewRecorded reads the driver lines of a transcript.
func NewRecorded(entries []transcript.Entry) *Recorded {
	r := &Recorded{}
	byID := map[int]int{} // command id -> index in commands
	for _, e := range entries {
		switch {
		case e.Dir == transcript.HarnessToDriver:
			var c struct {
				ID   int             `json:"id"`
				Cmd  string          `json:"cmd"`
				Args json.RawMessage `json:"args"`
			}
			if json.Unmarshal(e.Frame, &c) == nil {
				byID[c.ID] = len(r.commands)
				r.commands = append(r.commands, recordedCommand{cmd: c.Cmd, who: handleOf(c.Args), seq: e.Seq, resp: -1})
			}
		case e.Dir == transcript.DriverToHarness:
			if len(r.commands) == 0 || len(e.Frame) == 0 {
				continue
			}
			to := &r.commands[len(r.commands)-1]
			var resp Response
			if json.Unmarshal(e.Frame, &resp) == nil && resp.Outcome != "" {
				// A response goes to the command it answers: commands sent at once (a
				// scenario's clients stopped together) are answered after all were sent.
				if i, ok := byID[resp.ID]; ok && r.commands[i].resp < 0 {
					to = &r.commands[i]
				}
				if to.resp < 0 {
					to.resp = len(to.lines)
				}
			}
			to.lines = append(to.lines, e.Frame)
		case e.Kind == transcript.KindScenario, e.Kind == transcript.KindSpawn, e.Kind == transcript.KindCase:
			// The replayed steps record these anew: a spawn's facts (read again from the
			// recording) and the case notes (whose Since names an entry of their transcript; a
			// recorded copy beside the new one would pair the requests of a sweep wrongly).
		case len(r.commands) == 0 && e.Dir == transcript.Note && e.Kind == "" && !e.Spawned():
			// A note for people before the first command (the recording runtime's address):
			// the replay's own runtime writes its own, and a copy would shift every entry's
			// number (the "request #16" a message names). Typed notes (not-run) are kept.
		case len(r.commands) == 0, e.Spawned():
			// A spawned runtime's entries were taken in when the scenario ended, but its steps
			// read them live from that runtime's own file: they are there from the start.
			r.before = append(r.before, e)
		default:
			last := &r.commands[len(r.commands)-1]
			last.wire = append(last.wire, e)
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
			lines, wire, err := r.answer(c.Cmd, handleOf(c.Args), c.ID)
			if r.Emit != nil && len(wire) > 0 {
				r.Emit(wire)
			}
			if err != nil {
				fmt.Fprintln(p.tail, err)
				return
			}
			for _, l := range lines {
				if _, err := outW.Write(append(l, '\n')); err != nil {
					return
				}
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

// answer finds the next recorded command named cmd and returns its driver lines, the response
// renumbered to id, and the recorded entries of its stretch (and of any command skipped on the
// way). When that command named another handle than who and a later recorded command of the
// same name names who, their answers are swapped first: commands sent at once reach the driver
// in another order in a replay than in the run, and each gets the answer to itself.
func (r *Recorded) answer(cmd, who string, id int) ([]json.RawMessage, []transcript.Entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var wire []transcript.Entry
	for ; r.next < len(r.commands); r.next++ {
		c := r.commands[r.next]
		wire = append(wire, c.wire...)
		if c.cmd != cmd {
			continue
		}
		if who != "" && c.who != who {
			for j := r.next + 1; j < len(r.commands); j++ {
				if o := &r.commands[j]; o.cmd == cmd && o.who == who {
					p := &r.commands[r.next]
					p.who, o.who = o.who, p.who
					p.lines, o.lines = o.lines, p.lines
					p.resp, o.resp = o.resp, p.resp
					c = *p
					break
				}
			}
		}
		r.next++
		if c.resp < 0 {
			return nil, wire, fmt.Errorf("the recording has no answer to the %q command at entry %d", cmd, c.seq)
		}
		out := append([]json.RawMessage(nil), c.lines...)
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(out[c.resp], &resp); err != nil {
			return nil, wire, fmt.Errorf("the recorded answer to %q at entry %d: %w", cmd, c.seq, err)
		}
		resp["id"], _ = json.Marshal(id)
		out[c.resp], _ = json.Marshal(resp)
		return out, wire, nil
	}
	return nil, wire, fmt.Errorf("the recording has no further %q command: the scenario's steps differ from the recorded run", cmd)
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
