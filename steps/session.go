package steps

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
)

func (w *world) connected() error { _, err := w.Connect(); return err }

// connectedOverStdio has the SDK spawn this program as its runtime, through a wrapper script
// because SDKs take a single executable path and add their own flags.
//
// A runtime other than the stand-in (the real one, behind its recording proxy at w.addr) is
// reached through the same script: the program it starts relays its stdio to w.addr.
func (w *world) connectedOverStdio() error {
	argv := w.T.StdioRuntime()
	if l, ok := w.RT.(suite.Lacker); ok {
		if why, lacking := l.Lacks("runtime.spawned"); lacking {
			return &ErrUnsupported{Reason: why, Capability: "runtime.spawned"}
		}
	}
	if _, standIn := w.RT.(*standin.Server); !standIn {
		argv = append(append([]string(nil), argv...), "--relay", w.Addr)
	}
	dir, err := os.MkdirTemp("", "conformance-stdio-")
	if err != nil {
		return err
	}
	w.TempDirs = append(w.TempDirs, dir)
	w.StdioLog = filepath.Join(dir, "stdio-transcript.ndjson")
	script := filepath.Join(dir, "copilot")
	if err := standin.WriteStdioScript(script, argv, w.StdioLog); err != nil {
		return err
	}
	c := fmt.Sprintf("c%d", len(w.Clients)+w.Stopped+1)
	w.Rec.Notef("", "the SDK spawns %s", script)
	if _, err := w.Do("connect", map[string]any{"client": c, "cliPath": script,
		"env": map[string]string{"CONFORMANCE_SCENARIO": w.Name}}); err != nil {
		return err
	}
	w.Clients = append(w.Clients, c)
	return nil
}

// createWithToken creates a session whose application gives the SDK a per-session GitHub token.
func (w *world) createWithToken(token string) error {
	c, err := w.Client()
	if err != nil {
		return err
	}
	return w.Open("createSession", c, map[string]any{"tools": w.ToolList(), "gitHubToken": token})
}

func (w *world) createWithoutTools() error {
	saved := w.Tools
	w.Tools = nil
	err := w.Create()
	w.Tools = saved
	return err
}

// resume resumes the last session from a second SDK client, creating the session first when the
// scenario has none, the way an application picks up a session another process started.
func (w *world) resume() error { return w.resumeOpts(nil) }

// resumeOpts resumes as resume does, passing the session options opts (none when nil).
func (w *world) resumeOpts(opts map[string]any) error {
	if len(w.Sessions) == 0 {
		if err := w.Create(); err != nil {
			return err
		}
	}
	prev := w.Sessions[len(w.Sessions)-1]
	if prev.ID == "" {
		return fmt.Errorf("the SDK did not report the id of the session it created")
	}
	c, err := w.Connect()
	if err != nil {
		return err
	}
	args := map[string]any{"sessionId": prev.ID, "tools": w.ToolList()}
	if opts != nil {
		args["options"] = opts
	}
	return w.Open("resumeSession", c, args)
}

func (w *world) theReplyIs(want string) error {
	var r struct {
		Content *string `json:"content"`
	}
	if w.Reply == nil || json.Unmarshal(w.Reply, &r) != nil || r.Content == nil {
		return fmt.Errorf("the SDK returned no reply content (result %s)", w.Reply)
	}
	if *r.Content != want {
		return fmt.Errorf("the SDK returned the reply %q, want %q", *r.Content, want)
	}
	return nil
}
