package steps

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
)

// connect gives the scenario a fresh SDK client on its recording runtime.
func (w *world) connect() (string, error) {
	c := fmt.Sprintf("c%d", len(w.clients)+w.stopped+1)
	res, err := w.do("connect", w.withHandlers(map[string]any{"client": c, "address": w.addr}))
	if err != nil {
		return "", err
	}
	w.noteHandlers(res)
	w.clients = append(w.clients, c)
	return c, nil
}

func (w *world) client() (string, error) {
	if len(w.clients) > 0 {
		return w.clients[len(w.clients)-1], nil
	}
	return w.connect()
}

func (w *world) connected() error { _, err := w.connect(); return err }

// connectedOverStdio has the SDK spawn this program as its runtime, through a wrapper script
// because SDKs take a single executable path and add their own flags.
//
// A runtime other than the stand-in (the real one, behind its recording proxy at w.addr) is
// reached through the same script: the program it starts relays its stdio to w.addr.
func (w *world) connectedOverStdio() error {
	argv := w.t.StdioRuntime()
	if l, ok := w.rt.(suite.Lacker); ok {
		if why, lacking := l.Lacks("runtime.spawned"); lacking {
			return &ErrUnsupported{Reason: why, Capability: "runtime.spawned"}
		}
	}
	if _, standIn := w.rt.(*standin.Server); !standIn {
		argv = append(append([]string(nil), argv...), "--relay", w.addr)
	}
	dir, err := os.MkdirTemp("", "conformance-stdio-")
	if err != nil {
		return err
	}
	w.tempDirs = append(w.tempDirs, dir)
	w.stdioLog = filepath.Join(dir, "stdio-transcript.ndjson")
	script := filepath.Join(dir, "copilot")
	if err := standin.WriteStdioScript(script, argv, w.stdioLog); err != nil {
		return err
	}
	c := fmt.Sprintf("c%d", len(w.clients)+w.stopped+1)
	w.rec.Notef("", "the SDK spawns %s", script)
	if _, err := w.do("connect", map[string]any{"client": c, "cliPath": script,
		"env": map[string]string{"CONFORMANCE_SCENARIO": w.name}}); err != nil {
		return err
	}
	w.clients = append(w.clients, c)
	return nil
}

func (w *world) create() error {
	c, err := w.client()
	if err != nil {
		return err
	}
	return w.open("createSession", c, w.withHandlers(map[string]any{"tools": w.toolList()}))
}

// open creates or resumes a session under a new handle and remembers the id the SDK reports.
func (w *world) open(cmd, client string, args map[string]any) error {
	h := fmt.Sprintf("s%d", len(w.sessions)+1)
	args["client"], args["session"] = client, h
	res, err := w.do(cmd, args)
	if err != nil {
		return err
	}
	w.noteHandlers(res)
	w.noteHookInputs(res)
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res, &r)
	if r.SessionID == "" {
		r.SessionID, _ = args["sessionId"].(string)
	}
	w.sessions = append(w.sessions, session{handle: h, id: r.SessionID, client: client})
	return nil
}

// createWithToken creates a session whose application gives the SDK a per-session GitHub token.
func (w *world) createWithToken(token string) error {
	c, err := w.client()
	if err != nil {
		return err
	}
	return w.open("createSession", c, map[string]any{"tools": w.toolList(), "gitHubToken": token})
}

func (w *world) createWithoutTools() error {
	saved := w.tools
	w.tools = nil
	err := w.create()
	w.tools = saved
	return err
}

// resume resumes the last session from a second SDK client, creating the session first when the
// scenario has none, the way an application picks up a session another process started.
func (w *world) resume() error { return w.resumeOpts(nil) }

// resumeOpts resumes as resume does, passing the session options opts (none when nil).
func (w *world) resumeOpts(opts map[string]any) error {
	if len(w.sessions) == 0 {
		if err := w.create(); err != nil {
			return err
		}
	}
	prev := w.sessions[len(w.sessions)-1]
	if prev.id == "" {
		return fmt.Errorf("the SDK did not report the id of the session it created")
	}
	c, err := w.connect()
	if err != nil {
		return err
	}
	args := map[string]any{"sessionId": prev.id, "tools": w.toolList()}
	if opts != nil {
		args["options"] = opts
	}
	return w.open("resumeSession", c, args)
}

func (w *world) current() (session, error) {
	if len(w.sessions) == 0 {
		if err := w.create(); err != nil {
			return session{}, err
		}
	}
	return w.sessions[len(w.sessions)-1], nil
}

func (w *world) sendAndWait(prompt string) error {
	s, err := w.current()
	if err != nil {
		return err
	}
	w.flushTurn()
	res, err := w.do("send", map[string]any{"session": s.handle, "prompt": prompt, "wait": true, "timeoutMs": 20000})
	if err != nil {
		return err
	}
	w.reply = res
	return nil
}

func (w *world) theReplyIs(want string) error {
	var r struct {
		Content *string `json:"content"`
	}
	if w.reply == nil || json.Unmarshal(w.reply, &r) != nil || r.Content == nil {
		return fmt.Errorf("the SDK returned no reply content (result %s)", w.reply)
	}
	if *r.Content != want {
		return fmt.Errorf("the SDK returned the reply %q, want %q", *r.Content, want)
	}
	return nil
}
