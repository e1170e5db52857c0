package scenario

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Connect gives the scenario a fresh SDK client on its recording runtime.
func (s *Scenario) Connect() (string, error) {
	c := fmt.Sprintf("c%d", len(s.Clients)+s.Stopped+1)
	res, err := s.Do("connect", s.WithHandlers(map[string]any{"client": c, "address": s.Addr}))
	if err != nil {
		return "", err
	}
	s.opened("connect", res)
	s.Clients = append(s.Clients, c)
	return c, nil
}

func (s *Scenario) Client() (string, error) {
	if len(s.Clients) > 0 {
		return s.Clients[len(s.Clients)-1], nil
	}
	return s.Connect()
}

func (s *Scenario) Create() error {
	c, err := s.Client()
	if err != nil {
		return err
	}
	return s.Open("createSession", c, s.WithHandlers(map[string]any{"tools": s.ToolList()}))
}

// Open creates or resumes a session under a new handle and remembers the id the SDK reports.
func (s *Scenario) Open(cmd, client string, args map[string]any) error {
	h := fmt.Sprintf("s%d", len(s.Sessions)+1)
	args["client"], args["session"] = client, h
	res, err := s.Do(cmd, args)
	if err != nil {
		return err
	}
	s.opened(cmd, res)
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res, &r)
	if r.SessionID == "" {
		r.SessionID, _ = args["sessionId"].(string)
	}
	s.Sessions = append(s.Sessions, Session{Handle: h, ID: r.SessionID, Client: client})
	return nil
}

func (s *Scenario) Current() (Session, error) {
	if len(s.Sessions) == 0 {
		if err := s.Create(); err != nil {
			return Session{}, err
		}
	}
	return s.Sessions[len(s.Sessions)-1], nil
}

func (s *Scenario) SendAndWait(prompt string) error {
	cur, err := s.Current()
	if err != nil {
		return err
	}
	s.FlushTurn()
	res, err := s.Do("send", map[string]any{"session": cur.Handle, "prompt": prompt, "wait": true, "timeoutMs": 20000})
	if err != nil {
		return err
	}
	s.Reply = res
	return nil
}

// ToolList is the tools as sent to the driver, in the order they were given.
func (s *Scenario) ToolList() []map[string]any {
	return append([]map[string]any{}, s.Tools...)
}

// FlushTurn hands the scripted turn to the runtime before a send.
func (s *Scenario) FlushTurn() {
	if len(s.Turn.Steps) > 0 {
		s.RT.AddTurn(s.Turn)
		s.Turn = standin.Turn{}
	}
}

// opened tells the Opened hooks a connect, createSession or resumeSession answer.
func (s *Scenario) opened(cmd string, res json.RawMessage) {
	for _, f := range s.Opened {
		f(cmd, res)
	}
}

// WithHandlers adds the application's handlers (Handlers) to a connect / createSession /
// resumeSession argument.
func (s *Scenario) WithHandlers(args map[string]any) map[string]any {
	if s.Handlers == nil {
		return args
	}
	if h := s.Handlers(); h != nil {
		args["handlers"] = h
	}
	return args
}

// StopClientsOf stops the clients of the sessions handles names and forgets them (a sweep that
// stops its cases' clients as it goes); a client that would not stop is left to the scenario's
// end, which reports it.
func (s *Scenario) StopClientsOf(handles []string) error {
	mine := map[string]bool{}
	for _, h := range handles {
		for _, ss := range s.Sessions {
			if ss.Handle == h {
				mine[ss.Client] = true
			}
		}
	}
	var stop, keep []string
	for _, c := range s.Clients {
		if mine[c] {
			stop = append(stop, c)
		} else {
			keep = append(keep, c)
		}
	}
	if len(stop) == 0 {
		return nil
	}
	args := make([]any, len(stop))
	for i, c := range stop {
		args[i] = map[string]any{"client": c}
	}
	var rs []*driver.Response
	var err error
	if concurrent, _ := s.T.Capability(driver.Concurrent); concurrent {
		rs, err = s.CallAll("stopClient", args)
	} else {
		for _, a := range args {
			r, e := s.Call("stopClient", a)
			rs, err = append(rs, r), errors.Join(err, e)
			if driver.EndsScenario(e) {
				break
			}
		}
	}
	if driver.EndsScenario(err) {
		return err
	}
	for i, c := range stop {
		if i >= len(rs) || rs[i] == nil || rs[i].Outcome != driver.OK {
			keep = append(keep, c)
		}
	}
	s.Stopped += len(s.Clients) - len(keep)
	s.Clients = keep
	return nil
}

// MergeHandle names the client and the session handle in a driver command's args.
func MergeHandle(args map[string]any, client, handle string) map[string]any {
	args["client"], args["session"] = client, handle
	return args
}

// FlushDriver is a driver round trip: what the driver wrote before it answers is recorded first.
func (s *Scenario) FlushDriver() { _ = s.RoundTrip() }

// Naming lists the requests on conn, other than the opening one, that carry sessionId.
func (s *Scenario) Naming(conn, sessionID string, except int) []transcript.Request {
	var out []transcript.Request
	for _, r := range transcript.Requests(s.Entries(), "") {
		if r.Conn != conn || r.Seq == except {
			continue
		}
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(r.Params, &p) == nil && p.SessionID == sessionID {
			out = append(out, r)
		}
	}
	return out
}
