// Package realruntime puts the real Copilot runtime in the loop (conformance run --runtime real):
// per scenario, a private runtime process (its own HOME and working directory) behind a
// transparent recording proxy, and a scripted model (model.go) the runtime calls as its
// OpenAI-compatible provider.
//
// The proxy forwards every frame unchanged in both directions and records it as it passed, so
// the transcript holds exactly what the SDK sent and what the runtime answered, and every
// check reads it as it reads the stand-in's. One exception, recorded apart: the SDK's
// session.create and session.resume carry no model provider, and the runtime's own
// configuration (COPILOT_PROVIDER_BASE_URL and friends) does not reach a headless server's
// sessions (measured on 1.0.85: "No GitHub OAuth token or Copilot HMAC key provided"), so the
// proxy adds `provider` (and `model` when the SDK set none) to those two requests before
// forwarding them. The transcript keeps the SDK's frame as sent (sdk->runtime) and the
// forwarded one in a separate note of kind "injected".
//
// What the stand-in can be scripted to do and the real runtime cannot be made to do (reject a
// request, delay an answer, mangle framing, speak an older protocol, send a scripted request)
// is a capability the real runtime lacks (Lacks): the steps report such a scenario unsupported
// with the reason, never passed.
package realruntime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// DefaultModel is the model id a session gets when the SDK names none.
const DefaultModel = "gpt-4o"

// KindInjected marks the note holding a request as the proxy forwarded it, when that differs
// from what the SDK sent (the provider added to session.create/resume).
const KindInjected = "injected"

// Args are the runtime's arguments: the Node SDK's own startCLIServer arguments for a TCP
// server on a port of its choosing (it prints "listening on port N").
var Args = []string{"--headless", "--no-auto-update", "--no-auto-login"}

// Lacking are the runtime capabilities the stand-in has and the real runtime lacks, with the
// reason reported for a scenario that needs one. A step that scripts the runtime names one.
var Lacking = map[string]string{
	"runtime.script.rejection":        "the real runtime cannot be scripted to reject a request it would accept",
	"runtime.script.jsonrpcEdges":     "the real runtime cannot be scripted to send a frame that answers nothing (an error with a null id, a response to an unknown id, an unknown notification)",
	"runtime.script.escapes":          "the real runtime re-encodes the model's text before sending it (measured on 1.0.85: an escaped unpaired surrogate from the model reaches the SDK as U+FFFD), so only the stand-in can put that escape on the wire",
	"runtime.script.legacyHandshake":  "the real runtime cannot be made to drop connect (speak the older protocol)",
	"runtime.script.request":          "the real runtime cannot be scripted to send the SDK a given request: a request with fields it would not send, a permission request other than a custom tool's, or exactly the params a handler must receive (the hook invocations, user-input questions and custom-tool permission requests it sends of its own accord, and the elicitations it sends when asked, are played: plays.go)",
	"runtime.script.generatedAnswers": "the schema sweep checks results the stand-in generates from the schema; the real runtime would run every method for real (shell, files, models) with generated params, which this harness does not do to it",
	"runtime.script.openDelay":        "the order sweep has the runtime hold each session.create / session.resume answer to see what the SDK sends before the session is open; the real runtime answers as soon as it is ready and cannot be told to wait",
	"runtime.script.events":           "the event sweep has the runtime send every event type of the schema with generated data; the real runtime sends only the events its own work makes",
}

// Config says which runtime to run and how to check requests.
type Config struct {
	Binary string
	Env    []string // added to the runtime's environment (sdks.RuntimeBinary.Env)
	// Check, when set, validates each SDK request's params (the runtime's published schema).
	Check func(method string, params json.RawMessage) []schema.Violation
	// Slots, when set, bounds how many real runtimes run at once (a semaphore, held from Start
	// to Close): each is a process of ~100 MB.
	Slots chan struct{}
	// Pool, when set, gives a scenario a runtime process an earlier scenario left clean, and
	// takes it back when the scenario ends (pool.go); without it every scenario starts its own.
	Pool *Pool
}

// Proxy is one scenario's real runtime and the recording proxy in front of it.
type Proxy struct {
	rec     *transcript.Recorder
	cfg     Config
	ctx     context.Context // the scenario's: ends a wait for a runtime
	done    chan struct{}   // closed by Close: ends a wait for a runtime too
	startMu sync.Mutex      // held while the runtime process is acquired or replaced
	slot    bool            // holds one of cfg.Slots
	model   *Model
	rt      *process // the runtime serving this scenario
	scratch string   // the scenario's private folder (workingDirectory stand-ins)
	noReuse bool     // the process was started for this scenario alone (a connection token)

	mu      sync.Mutex
	ln      net.Listener
	nconn   int
	conns   []net.Conn
	pending int // session.send requests not yet followed by session.idle
	closed  bool
	wg      sync.WaitGroup
	tools   toolNames
	framing standin.Framing // how the runtime's frames are written to SDKs connecting from now on
	// The current turn's connection and session (the last session.send), each connection's
	// writer to the runtime, and the proxy's own requests awaiting their answer (plays.go).
	turnConn, turnSession string
	upstream              map[string]*wire.Writer
	injectSeq             int
	awaiting              map[string]chan json.RawMessage
	played                []playedTool // tools the proxy registers for a permission request
	// setDelay holds each real answer to session.tools.set that long before the SDK gets it
	// (SetToolsSetDelay); setIDs are the ids of the SDKs' session.tools.set requests per
	// connection, not yet answered.
	setDelay time.Duration
	setIDs   map[string]map[string]bool
}

// startSlots bounds the runtimes starting at once in this process; startTimeout is how long one
// may take to say it listens (a loaded machine makes the npm CLI take seconds).
var (
	startSlots   = make(chan struct{}, goruntime.NumCPU())
	startTimeout = 2 * time.Minute
)

var listening = regexp.MustCompile(`(?i)listening on port (\d+)`)

// Start starts the scripted model, makes the scenario a private folder and gives it its runtime
// process (acquire), before any step runs: waiting for one of cfg.Slots inside an SDK's connect
// would count against the driver's command timeout (measured: five SDKs' scenarios waiting for
// eight runtimes timed out in connect).
func Start(ctx context.Context, rec *transcript.Recorder, cfg Config) (*Proxy, error) {
	p := &Proxy{rec: rec, cfg: cfg, ctx: ctx, done: make(chan struct{})}
	var err error
	if p.model, err = StartModel(); err != nil {
		return nil, err
	}
	p.model.elicit = p.elicit
	if p.scratch, err = os.MkdirTemp(homeBase(), "conformance-real-scenario-"); err != nil { // beside the HOMEs (pool.go)
		p.Close()
		return nil, err
	}
	if _, err := p.acquire(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// acquire gives the scenario its runtime process once (a slot of cfg.Slots, then a process from
// cfg.Pool when one is idle there, else a new one with a private HOME and working directory),
// and says where it listens.
func (p *Proxy) acquire() (string, error) {
	p.startMu.Lock()
	defer p.startMu.Unlock()
	if p.rt != nil {
		return p.rt.addr, nil
	}
	if err := p.takeSlot(); err != nil {
		return "", err
	}
	rt := p.cfg.Pool.take(p.cfg)
	switch {
	case rt != nil && rt.served == 0:
		p.rec.Notef("", "real runtime started ahead of the scenarios (%s) with HOME %s, listening on %s; scripted model at %s", strings.Join(rt.argv, " "), rt.home, rt.addr, p.model.BaseURL())
	case rt != nil:
		p.rec.Notef("", "real runtime (HOME %s) listening on %s, reused: it served %d scenario(s) before, each of whose sessions was deleted after it; scripted model at %s", rt.home, rt.addr, rt.served, p.model.BaseURL())
	default:
		var err error
		if rt, err = launch(p.ctx, p.cfg); err != nil {
			return "", err
		}
		p.cfg.Pool.count()
		p.rec.Notef("", "real runtime started (%s) with HOME %s, listening on %s; scripted model at %s", strings.Join(rt.argv, " "), rt.home, rt.addr, p.model.BaseURL())
	}
	p.rt = rt
	return rt.addr, nil
}

// takeSlot takes one of cfg.Slots once (startMu held).
func (p *Proxy) takeSlot() error {
	if p.cfg.Slots == nil || p.slot {
		return nil
	}
	select {
	case p.cfg.Slots <- struct{}{}:
		p.slot = true
		return nil
	case <-p.ctx.Done():
		return p.ctx.Err()
	case <-p.done:
		return fmt.Errorf("the scenario ended")
	}
}

// ExpectToken restarts the runtime configured to require token on connect
// (COPILOT_CONNECTION_TOKEN, as a runtime started for an application that sets a connection
// token is; measured on 1.0.85: without it the runtime refuses any token with
// AUTHENTICATION_NOT_CONFIGURED). It must come before any SDK connected. That process serves
// this scenario only.
func (p *Proxy) ExpectToken(token string) error {
	p.mu.Lock()
	n := p.nconn
	p.mu.Unlock()
	if n > 0 {
		return fmt.Errorf("the real runtime cannot be given a connection token after an SDK connected")
	}
	p.startMu.Lock()
	defer p.startMu.Unlock()
	if err := p.takeSlot(); err != nil {
		return err
	}
	p.end(false)
	rt, err := launch(p.ctx, p.cfg, "COPILOT_CONNECTION_TOKEN="+token)
	if err != nil {
		return err
	}
	p.rt, p.noReuse = rt, true
	p.rec.Notef("", "real runtime restarted to require the connection token on connect; listening on %s", rt.addr)
	return nil
}

// end gives the scenario's runtime back to the pool when reuse is allowed and it could be
// cleaned, and otherwise kills it; the transcript says which, with the runtime's stderr.
func (p *Proxy) end(reuse bool) {
	rt := p.rt
	if rt == nil {
		return
	}
	p.rt = nil
	if s := strings.TrimSpace(rt.errs.String()); s != "" {
		p.rec.Notef("", "real runtime stderr (tail): %s", s)
	}
	rt.errs.reset()
	if reuse && p.cfg.Pool != nil && !p.noReuse {
		n, err := rt.clean(10 * time.Second)
		if err == nil {
			p.rec.Notef("", "real runtime cleaned for the next scenario: %d session(s) deleted", n)
			p.cfg.Pool.put(p.cfg, rt)
			return
		}
		p.rec.Notef("", "real runtime not reused: cleaning it failed: %v", err)
	}
	user, sys := rt.kill()
	// What a scenario costs the machine on the real runtime (bench and the fidelity report's
	// time compare runs; this says how much of it the runtime took).
	p.rec.Notef("", "real runtime stopped after %d scenario(s); its CPU: %.0f ms user, %.0f ms system", rt.served+1,
		float64(user.Microseconds())/1000, float64(sys.Microseconds())/1000)
}

// privateEnv is this process's environment without what would let the runtime reach an account
// or another configuration, with HOME (and the XDG folders) in the scenario's private folder.
func privateEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "COPILOT_"), strings.HasPrefix(k, "GH_"), strings.HasPrefix(k, "GITHUB_"),
			strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "AZURE_"),
			k == "HOME", k == "NODE_OPTIONS", k == "NODE_DEBUG":
			// COPILOT_* includes COPILOT_CLI_PATH, tokens and provider settings: none may leak in.
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
}

// Lacks says whether the real runtime lacks a runtime capability, with the reason.
func (p *Proxy) Lacks(capability string) (string, bool) {
	why, lacking := Lacking[capability]
	return why, lacking
}

// splitPieces is how many pieces of a split frame the proxy writes apart (standin.Framing's
// PieceLimit): the header cut short, then the body in two, so every frame takes three reads.
const splitPieces = 3

// SetFraming has the real runtime's frames written to SDKs connecting from now on split or
// coalesced (standin.Framing): the bytes are the real runtime's, only their delivery is scripted,
// as the stand-in scripts its own.
func (p *Proxy) SetFraming(f standin.Framing) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f.SplitEvery > 0 && f.PieceLimit == 0 {
		f.PieceLimit = splitPieces
	}
	p.framing = f
	p.rec.Notef("", "the proxy writes the real runtime's frames to the SDK %+v", f)
}

// AddTurn scripts the model's next turn.
func (p *Proxy) AddTurn(t standin.Turn) { p.model.AddTurn(t) }

// Listen accepts SDK connections on addr; each gets a connection of its own to the runtime.
func (p *Proxy) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	standin.Accept(ln, &p.wg, p.serve)
	return ln.Addr().String(), nil
}

// serve proxies one SDK connection. It comes through standin.Accept, so the SDK's frames are
// acknowledged at once, as the stand-in does: without it an SDK that writes the header and the
// body apart waited ~45 ms per request (Nagle against a delayed ACK; measured on Node 1.0.14
// here: createSession 57 ms at the median against 4 ms on the stand-in).
func (p *Proxy) serve(sdk net.Conn) {
	p.mu.Lock()
	p.nconn++
	name := fmt.Sprintf("c%d", p.nconn)
	closed := p.closed
	p.mu.Unlock()
	if closed {
		sdk.Close()
		return
	}
	addr, err := p.acquire()
	if err != nil || p.isClosed() {
		p.rec.Notef(name, "no real runtime for this connection: %v", err)
		sdk.Close()
		return
	}
	up, err := net.Dial("tcp", addr)
	if err != nil {
		p.rec.Notef(name, "connecting to the real runtime at %s: %v", addr, err)
		sdk.Close()
		return
	}
	// The runtime's frames are acknowledged at once too: it writes an answer in pieces, and a
	// delayed ACK held each of them (measured on 1.0.85 here, one connection, 20 session.create
	// in a row: p50 42 ms without, 6-8 ms with; ping, one piece, 0.05 ms either way).
	up = standin.NewQuickAckConn(up)
	p.mu.Lock()
	if p.closed { // Close ran while this connection was being set up: it must not outlive it
		p.mu.Unlock()
		sdk.Close()
		up.Close()
		return
	}
	p.conns = append(p.conns, sdk, up)
	toSDK := wire.NewWriter(p.framing.Writer(sdk))
	toRuntime := wire.NewWriter(up)
	if p.upstream == nil {
		p.upstream = map[string]*wire.Writer{}
	}
	p.upstream[name] = toRuntime
	p.mu.Unlock()
	p.rec.Notef(name, "connection opened")
	done := make(chan struct{})
	go func() {
		p.pump(name, up, toSDK, transcript.RuntimeToSDK)
		sdk.Close()
		close(done)
	}()
	p.pump(name, sdk, toRuntime, transcript.SDKToRuntime)
	up.Close()
	<-done
	p.mu.Lock()
	p.tools.release(name)
	p.mu.Unlock()
	p.rec.Notef(name, "connection closed")
}

// pump copies frames from src to dst, recording each as it passed.
func (p *Proxy) pump(name string, src io.Reader, w *wire.Writer, dir string) {
	r := wire.NewReader(src)
	for {
		f, err := r.NextFrame()
		if fe, bad := err.(*wire.FrameError); bad {
			// Not a frame: recorded, and passed on as it was, for the peer to judge.
			p.rec.Bad(name, dir, fe.Bytes, err)
			_ = w.WriteRaw(fe.Bytes)
			continue
		}
		if err != nil {
			return
		}
		if dir == transcript.RuntimeToSDK {
			if p.answered(f.Body) {
				continue // the answer to the proxy's own request (plays.go), not the SDK's
			}
			p.holdSetAnswer(name, f.Body)
			f.Body = p.restore(name, f.Body)
		}
		p.rec.FrameRead(name, dir, f)
		body := p.observe(name, dir, f.Body)
		if err := w.Write(body); err != nil {
			if !p.isClosed() {
				p.rec.Notef(name, "forwarding (%s) failed: %v", dir, err)
			}
			return
		}
	}
}

// observe checks an SDK request against the schema, follows the turns (session.send starts
// one, session.idle ends it) and returns the body to forward (with the provider added to
// session.create and session.resume).
func (p *Proxy) observe(name, dir string, body []byte) []byte {
	var m wire.Message
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	if dir == transcript.RuntimeToSDK {
		if m.Method == "session.event" && bytes.Contains(m.Params, []byte(`"external_tool.requested"`)) {
			p.answerPlayedTool(name, m.Params)
		}
		if m.Method == "session.event" && bytes.Contains(m.Params, []byte(`"session.idle"`)) {
			var ev struct {
				Event struct {
					Type string `json:"type"`
				} `json:"event"`
			}
			if json.Unmarshal(m.Params, &ev) == nil && ev.Event.Type == "session.idle" {
				p.mu.Lock()
				if p.pending > 0 {
					p.pending--
				}
				p.mu.Unlock()
			}
		}
		return body
	}
	if !m.IsRequest() {
		return body
	}
	if p.cfg.Check != nil {
		for _, v := range p.cfg.Check(m.Method, m.Params) {
			p.rec.Schema(name, transcript.Violation{Method: m.Method, Pointer: v.Pointer, Message: v.Message, Keyword: v.Keyword})
		}
	}
	switch m.Method {
	case "session.tools.set":
		p.mu.Lock()
		if p.setIDs == nil {
			p.setIDs = map[string]map[string]bool{}
		}
		if p.setIDs[name] == nil {
			p.setIDs[name] = map[string]bool{}
		}
		p.setIDs[name][string(m.ID)] = true
		p.mu.Unlock()
	case "session.send":
		p.model.NextTurn()
		var send struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Params, &send)
		p.mu.Lock()
		p.pending++
		p.turnConn, p.turnSession = name, send.SessionID
		p.mu.Unlock()
	case "session.create", "session.resume":
		return p.inject(name, m, body)
	}
	return body
}

// inject adds the scripted model as the session's provider.
func (p *Proxy) inject(name string, m wire.Message, body []byte) []byte {
	var params map[string]json.RawMessage
	if json.Unmarshal(m.Params, &params) != nil || params == nil {
		return body
	}
	var added []string
	// The runtime checks a per-session GitHub token with GitHub before it makes the session
	// ("SDK session authentication failed: network fetch failed", offline, measured on 1.0.85)
	// and refuses a provider beside one ("Cannot specify both gitHubToken and provider"). The
	// SDK's frame (recorded as sent, the token by its fingerprint) is what the scenarios check;
	// the runtime gets the session without the token, served by the scripted model.
	_, token := params["gitHubToken"]
	if _, has := params["provider"]; token && !has {
		delete(params, "gitHubToken")
		token = false
		added = append(added, "removed gitHubToken (the real runtime would check it with GitHub, which this offline harness does not reach)")
	}
	if _, has := params["provider"]; !has && !token {
		params["provider"], _ = json.Marshal(map[string]string{"type": "openai", "baseUrl": p.model.BaseURL(), "apiKey": "conformance"})
		added = append(added, "added provider (the scripted model as the session's provider)")
	}
	if v, has := params["model"]; !token && (!has || string(v) == "null") {
		params["model"], _ = json.Marshal(DefaultModel)
		added = append(added, "added model "+DefaultModel)
	}
	if played := p.addPlayedTools(params); played != "" {
		added = append(added, played)
	}
	if moved := p.privateDir(params); moved != "" {
		added = append(added, moved)
	}
	if renamed := p.renameTools(name, params); renamed != "" {
		added = append(added, renamed)
	}
	if len(added) == 0 {
		return body
	}
	m.Params, _ = json.Marshal(params)
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	p.rec.Add(transcript.Entry{Conn: name, Dir: transcript.Note, Kind: KindInjected, Frame: out,
		Text: fmt.Sprintf("the proxy changed %s before forwarding it: %s", m.Method, strings.Join(added, "; "))})
	return out
}

// privateDir forwards a workingDirectory that does not exist on this machine as the same path
// under the scenario's private folder, created: the real runtime refuses a directory it cannot
// open ("Directory does not exist or cannot be accessed"), and the scenarios name directories of
// the application's machine (/work/project) that the harness must not create outside its own
// folders. It says what it changed ("" for nothing).
func (p *Proxy) privateDir(params map[string]json.RawMessage) string {
	var dir string
	if raw, ok := params["workingDirectory"]; !ok || json.Unmarshal(raw, &dir) != nil || dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	if _, err := os.Stat(dir); err == nil {
		return ""
	}
	private := filepath.Join(p.scratch, "fs", dir)
	if err := os.MkdirAll(private, 0o755); err != nil {
		return ""
	}
	params["workingDirectory"], _ = json.Marshal(private)
	return fmt.Sprintf("workingDirectory %s (absent here) forwarded as %s, created", dir, private)
}

// Wait blocks until every session.send has been followed by session.idle, or ctx ends.
func (p *Proxy) Wait(ctx context.Context) error {
	return standin.WaitUntil(ctx, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.pending <= 0
	})
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Close ends the connections, the runtime's process group and the model, and removes the
// private HOME.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.done != nil {
		close(p.done)
	}
	if p.ln != nil {
		p.ln.Close()
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	if p.model != nil {
		p.rec.Notef("", "the scripted model answered %d call(s)", p.model.Calls())
		p.model.Close()
	}
	p.end(true)
	if p.scratch != "" {
		_ = os.RemoveAll(p.scratch)
	}
	if p.slot {
		<-p.cfg.Slots
	}
}

// tail keeps the last bytes written to it (the runtime's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(b), nil
}

func (t *tail) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// SetToolsSetDelay has each real answer to session.tools.set reach the SDK d after the runtime
// sent it (suite.Delayer): the proxy holds the answer, and the frames after it, while it keeps
// reading the SDK, so an SDK that sends its next replacement before the previous one is
// answered shows on the wire. The transcript records the answer when the SDK gets it.
func (p *Proxy) SetToolsSetDelay(d time.Duration) {
	p.mu.Lock()
	p.setDelay = d
	p.mu.Unlock()
	p.rec.Notef("", "the proxy holds each answer of the real runtime to session.tools.set %s before the SDK gets it", d)
}

// holdSetAnswer waits the scripted delay when body answers one of conn's session.tools.set.
func (p *Proxy) holdSetAnswer(conn string, body []byte) {
	p.mu.Lock()
	waiting := p.setDelay > 0 && len(p.setIDs[conn]) > 0
	p.mu.Unlock()
	if !waiting {
		return
	}
	var m wire.Message
	if json.Unmarshal(body, &m) != nil || !m.IsResponse() {
		return
	}
	p.mu.Lock()
	d, mine := p.setDelay, p.setIDs[conn][string(m.ID)]
	delete(p.setIDs[conn], string(m.ID))
	p.mu.Unlock()
	if mine && d > 0 {
		time.Sleep(d)
	}
}
