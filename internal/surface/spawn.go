package surface

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Process is what a runtime the SDK spawned itself was started with, and the requests it got.
type Process struct {
	Args     []string
	Env      map[string]string
	Dir      string
	Requests []Request
}

// SpawnEnv is an Env whose SDK can start its runtime itself (connect with cliPath).
type SpawnEnv interface {
	// OpenSpawned connects a client that spawns its runtime with the client option fields set,
	// creates a session on it, and returns what the runtime process was started with.
	OpenSpawned(fields map[string]any) (Process, error)
}

// Spawner is the program an SDK spawns as its runtime for OpenSpawned: a script that writes
// its arguments, environment and working directory to files beside it and then runs the
// recording runtime over stdio (standin.WriteStdioScript).
type Spawner struct {
	dir string
	// CLIPath is what connect's cliPath names.
	CLIPath string
}

// NewSpawner writes the scripts in a new temporary folder; Read removes it.
func NewSpawner(runtimeArgv []string) (*Spawner, error) {
	dir, err := os.MkdirTemp("", "conformance-spawn-")
	if err != nil {
		return nil, err
	}
	s := &Spawner{dir: dir, CLIPath: filepath.Join(dir, "copilot")}
	inner := filepath.Join(dir, "runtime")
	if err := standin.WriteStdioScript(inner, runtimeArgv, filepath.Join(dir, "transcript.ndjson")); err != nil {
		return nil, err
	}
	q := func(p string) string { return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'" }
	// The environment is read from /proc/$$/environ, the very block the SDK passed to execve:
	// a shell's own `env` would drop every variable whose name is not a shell identifier (dash
	// does; an application's map may hold such a name, the generated "kéy-env") and add its own
	// (PWD, SHLVL). `env -0` where there is no /proc.
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\0' \"$@\" > %s\nif [ -r /proc/$$/environ ]; then cat /proc/$$/environ; else env -0; fi > %s\npwd > %s\nexec %s \"$@\"\n",
		q(filepath.Join(dir, "args")), q(filepath.Join(dir, "env")), q(filepath.Join(dir, "cwd")), q(inner))
	if err := os.WriteFile(s.CLIPath, []byte(script), 0o755); err != nil {
		return nil, err
	}
	return s, nil
}

// Read is what the spawned runtime was started with and received; it removes the folder (the
// environment may hold the machine's secrets: it stays in memory, only its changes are named).
func (s *Spawner) Read() (Process, error) {
	defer os.RemoveAll(s.dir)
	var p Process
	args, err := os.ReadFile(filepath.Join(s.dir, "args"))
	if err != nil {
		return p, fmt.Errorf("the SDK did not start %s: %w", s.CLIPath, err)
	}
	for _, a := range bytes.Split(args, []byte{0}) {
		if len(a) > 0 {
			p.Args = append(p.Args, string(a))
		}
	}
	env, _ := os.ReadFile(filepath.Join(s.dir, "env"))
	p.Env = map[string]string{}
	for _, kv := range bytes.Split(env, []byte{0}) {
		// An entry without "=" (an SDK passing a list of strings as entries) is a name alone.
		if k, v, _ := strings.Cut(string(kv), "="); k != "" {
			p.Env[k] = v
		}
	}
	cwd, _ := os.ReadFile(filepath.Join(s.dir, "cwd"))
	p.Dir = strings.TrimSpace(string(cwd))
	entries, err := transcript.Read(filepath.Join(s.dir, "transcript.ndjson"))
	if err == nil {
		p.Requests = Requests(entries)
	}
	return p, nil
}

// ProbeSpawned sets, on a client that starts its runtime itself, every client option that
// reached no request on a client of a running runtime (ProbeClient: "not sent", or refused
// there), once per generated value, and finds where it went: a request (connect,
// session.create), the runtime's command line (process.args, the new arguments), its
// environment (process.env.NAME, a variable added or changed) or its working directory
// (process.cwd). An SDK applies such options (a log level, a token, an environment) to the
// runtime it starts. Findings replace the "not sent" ones of res; a value the SDK refuses here
// too is listed as unchecked with its words.
func ProbeSpawned(env SpawnEnv, entries []Entry, res *Result) error {
	found := map[string]bool{}
	notSent := map[string]int{} // entry name + variant -> index in res.Findings
	for i, f := range res.Findings {
		if f.Entry.Owner != "clientOptions" {
			continue
		}
		if f.Path != "" || f.Problem != "" {
			found[f.Entry.Name] = true
		} else {
			notSent[f.Entry.Name+"\x00"+f.Variant] = i
		}
	}
	var todo []Entry
	for _, e := range entries {
		if e.Owner == "clientOptions" && !found[e.Name] {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	var bases []Process
	for i := 0; i < 2; i++ {
		p, err := env.OpenSpawned(nil)
		if err != nil {
			return fmt.Errorf("a client that starts its runtime, without options: %w", err)
		}
		bases = append(bases, p)
	}
	for _, e := range todo {
		vs, _ := generateFor(env, entries, e)
		for _, v := range vs {
			f := Finding{Entry: e, Variant: v.Label, Request: "connect"}
			p, err := env.OpenSpawned(map[string]any{e.Name: v.Value})
			if endsProbe(err) {
				return fmt.Errorf("the spawned-client sweep ended at %s = %s: %w", e.Name, v.Label, err)
			}
			if err != nil {
				why := fmt.Sprintf("%s: the SDK refused it on a client that starts its runtime: %v", v.Label, err)
				if errors.Is(err, ErrCannotHold) {
					// The driver cannot set this option at all (no client option fields):
					// its other values would not be set either.
					res.Unchecked = append(res.Unchecked, Unchecked{e, fmt.Sprintf("%s: %v", v.Label, err)})
					break
				}
				res.Unchecked = append(res.Unchecked, Unchecked{e, why})
				continue
			}
			f.Path, f.Problem = locateSpawned(bases, p, v.Want())
			if i, ok := notSent[e.Name+"\x00"+v.Label]; ok {
				res.Findings[i] = f
			} else {
				res.Findings = append(res.Findings, f)
			}
		}
	}
	return nil
}

// locateSpawned is where want went in a spawned client's process or requests, given two
// baselines (what differs between them is volatile: a port, a generated token).
func locateSpawned(bases []Process, p Process, want any) (path, problem string) {
	for _, m := range ClientRequests {
		ps := params(p.Requests, m)
		if len(ps) == 0 {
			continue
		}
		path, problem := Locate(last(params(bases[0].Requests, m)), last(params(bases[1].Requests, m)), ps[len(ps)-1], want)
		if path != "" || problem != "" {
			return m + "." + path, problem
		}
	}
	text := fmt.Sprint(want)
	if s, ok := want.(string); ok {
		text = s
	}
	// The command line: the arguments the baseline did not have.
	var added []string
	for i, a := range p.Args {
		if !slices.Contains(bases[0].Args, a) {
			added = append(added, a)
			if carries(a, text) && i > 0 && strings.HasPrefix(p.Args[i-1], "-") && !strings.HasPrefix(a, "-") {
				return "process.args " + p.Args[i-1], ""
			}
			if carries(a, text) {
				flag, _, _ := strings.Cut(a, "=")
				return "process.args " + flag, ""
			}
		}
	}
	// The environment: variables added or changed (not the volatile ones).
	var changed []string
	for k, v := range p.Env {
		b0, in0 := bases[0].Env[k]
		if in0 && b0 == v {
			continue
		}
		if b1 := bases[1].Env[k]; in0 && b0 != b1 {
			continue
		}
		changed = append(changed, k)
	}
	sort.Strings(changed)
	// Inherited variables gone: the environment replaced (most of it), or some removed.
	var removed []string
	for k, v := range bases[0].Env {
		if _, ok := p.Env[k]; !ok && bases[1].Env[k] == v {
			removed = append(removed, k)
		}
	}
	sort.Strings(removed)
	if leaves := texts(want); len(leaves) > 0 {
		// An object or list: each string or number in it must reach an argument or a variable
		// (a telemetry config's endpoint, path, exporter, each its own variable).
		var where, missing []string
		for _, l := range leaves {
			w := ""
			for i, a := range p.Args {
				if carries(a, l) && !slices.Contains(bases[0].Args, a) {
					if flag, _, _ := strings.Cut(a, "="); strings.HasPrefix(flag, "-") {
						w = "process.args " + flag
					} else if i > 0 && strings.HasPrefix(p.Args[i-1], "-") {
						w = "process.args " + p.Args[i-1]
					} else {
						w = "process.args"
					}
					break
				}
			}
			for _, k := range changed {
				if w == "" && carries(p.Env[k], l) {
					w = "process.env." + k
				}
			}
			if w == "" && slices.Contains(changed, l) {
				w = "process.env." + l // a list of entries: each a variable of that name
			}
			if w == "" && slices.Contains(removed, l) {
				w = "process.env -" + l // a list of names to remove
			}
			if w == "" {
				missing = append(missing, l)
			} else if !slices.Contains(where, w) {
				where = append(where, w)
			}
		}
		sort.Strings(where)
		switch {
		case len(where) == 0:
			return "", ""
		case len(missing) > 0:
			return strings.Join(where, ", "), fmt.Sprintf("%s reached the process, but not %q", strings.Join(where, ", "), missing)
		}
		return strings.Join(where, ", "), ""
	}
	for _, k := range changed {
		if carries(p.Env[k], text) {
			return "process.env." + k, ""
		}
	}
	if text != "" && p.Dir == text && p.Dir != bases[0].Dir {
		return "process.cwd", ""
	}
	// A value that adds a flag or a variable without its text (true: a switch).
	if len(added) == 1 && strings.HasPrefix(added[0], "-") {
		return "process.args " + added[0], ""
	}
	if len(removed) > 0 && len(added) == 0 {
		if 2*len(removed) > len(bases[0].Env) {
			return "process.env replaced", ""
		}
		if len(changed) == 0 {
			var vars []string
			for _, k := range removed {
				vars = append(vars, "process.env -"+k)
			}
			return strings.Join(vars, ", "), ""
		}
	}
	if len(changed) > 0 && len(added) == 0 {
		var vars []string
		for _, k := range changed {
			vars = append(vars, "process.env."+k)
		}
		return strings.Join(vars, ", "), ""
	}
	return "", ""
}

// carries says whether a process fact (an argument, an environment value) holds text, as it is
// or as a transcript records it: a secret (a token the probe generated) is kept there by its
// fingerprint (transcript.Scrub), which is what a replay reads back.
func carries(fact, text string) bool {
	if strings.Contains(fact, text) {
		return true
	}
	s := transcript.Scrub(text)
	return s != text && strings.Contains(fact, s)
}

// texts are the strings and numbers inside an object or list (nil for any other value).
func texts(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := slices.Sorted(maps.Keys(x))
			for _, k := range keys {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			out = append(out, x)
		case int, float64:
			out = append(out, fmt.Sprint(x))
		}
	}
	switch v.(type) {
	case map[string]any, []any:
		walk(v)
	}
	return out
}

// ProcessSource is where a probe gets a spawned runtime's facts: a Spawner (the process the SDK
// started now) or, in a replay, the facts a run recorded (transcript.Spawn).
type ProcessSource interface {
	// Path is what connect's cliPath names.
	Path() string
	// Read is what the spawned runtime was started with and received.
	Read() (Process, error)
}

// Path implements ProcessSource.
func (s *Spawner) Path() string { return s.CLIPath }

// Fact is p as a transcript records it: each environment value equal to a value of the
// harness's own environment (own, os.Environ(); under any name: an SDK may pass a token on
// under a name of its own) replaced by its fingerprint, the requests with their params.
func (p Process) Fact(own []string) transcript.Spawn {
	mine := map[string]bool{}
	for _, kv := range own {
		// A secret is long; a short value ("1", "C") is none, and kept so that a probe's own
		// short values stay comparable.
		if _, v, ok := strings.Cut(kv, "="); ok && len(v) >= 8 {
			mine[v] = true
		}
	}
	s := transcript.Spawn{Args: p.Args, Env: map[string]string{}, Dir: p.Dir}
	for k, v := range p.Env {
		if mine[v] {
			sum := sha256.Sum256([]byte(v))
			v = inheritedPrefix + hex.EncodeToString(sum[:8])
		}
		s.Env[k] = v
	}
	for _, r := range p.Requests {
		b, _ := json.Marshal(r.Params)
		s.Requests = append(s.Requests, transcript.SpawnRequest{Method: r.Method, Params: b})
	}
	return s
}

// inheritedPrefix marks a recorded environment value passed on from the harness's own.
const inheritedPrefix = "inherited:sha256:"

// ProcessOf is the Process a recorded spawn describes.
func ProcessOf(s transcript.Spawn) Process {
	p := Process{Args: s.Args, Env: s.Env, Dir: s.Dir}
	for _, r := range s.Requests {
		p.Requests = append(p.Requests, Request{Method: r.Method, Params: ParamsOf(r.Params)})
	}
	return p
}
