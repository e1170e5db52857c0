package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps"
)

// Hello is a driver's answer to hello.
type Hello struct {
	ProtocolVersion int               `json:"protocolVersion"`
	SDK             string            `json:"sdk"`
	Version         string            `json:"version"`
	Source          string            `json:"source"`
	Capabilities    map[string]bool   `json:"capabilities"`
	Notes           map[string]string `json:"notes"`
}

// StartDriver launches a driver and checks its hello; every problem is named precisely (this is
// also what `conformance smoke` reports first).
func StartDriver(ctx context.Context, l driver.Launcher, wantSDK string, timeout time.Duration, v *driver.Validator) (*driver.Client, *Hello, error) {
	c, err := driver.Start(ctx, l)
	if err != nil {
		return nil, nil, err
	}
	if v != nil {
		c.SetValidator(v)
	}
	r, err := c.Call(ctx, "hello", map[string]any{"protocolVersion": driver.ProtocolVersion}, timeout)
	if err != nil {
		c.Kill()
		return nil, nil, err
	}
	if r.Outcome != driver.OK {
		c.Kill()
		return nil, nil, fmt.Errorf("hello answered %s: %s%s", r.Outcome, r.ErrorText(), r.Reason)
	}
	if v != nil {
		if err := v.Hello(r.Result); err != nil {
			c.Kill()
			return nil, nil, fmt.Errorf("hello result %s", err)
		}
	}
	var h Hello
	if err := json.Unmarshal(r.Result, &h); err != nil {
		c.Kill()
		return nil, nil, fmt.Errorf("hello result is not an object with protocolVersion, sdk, version, capabilities: %w (got %s)", err, r.Result)
	}
	var problems []string
	if h.ProtocolVersion != driver.ProtocolVersion {
		problems = append(problems, fmt.Sprintf("protocolVersion is %d, want %d", h.ProtocolVersion, driver.ProtocolVersion))
	}
	if wantSDK != "" && h.SDK != wantSDK {
		problems = append(problems, fmt.Sprintf("sdk is %q, want %q", h.SDK, wantSDK))
	}
	if h.Version == "" {
		problems = append(problems, "version is empty: report the exact installed SDK version")
	}
	if h.Capabilities == nil {
		problems = append(problems, "capabilities are missing")
	}
	if len(problems) > 0 {
		c.Kill()
		return nil, nil, fmt.Errorf("bad hello from the %s driver: %s", wantSDK, strings.Join(problems, "; "))
	}
	return c, &h, nil
}

// target is one SDK's side of a run: the steps reach the driver and report outcomes through it.
type target struct {
	name        string
	unavailable string
	hello       *Hello
	launcher    driver.Launcher
	validator   *driver.Validator // -V: every driver line checked against the protocol schema
	timeout     time.Duration
	reportDir   string
	rtOpts      runtime.Options
	self        []string
	progress    io.Writer
	finished    func(steps.Outcome)

	mu     sync.Mutex
	client *driver.Client
}

func (t *target) SDK() string         { return t.name }
func (t *target) Unavailable() string { return t.unavailable }
func (t *target) Capabilities() (map[string]bool, map[string]string) {
	if t.hello == nil {
		return nil, nil
	}
	return t.hello.Capabilities, t.hello.Notes
}
func (t *target) CommandTimeout() time.Duration                      { return t.timeout }
func (t *target) RuntimeOptions() runtime.Options                    { return t.rtOpts }
func (t *target) StdioRuntime() []string                             { return t.self }
func (t *target) Finished(o steps.Outcome)                           { t.finished(o) }
func (t *target) Recorded(string, string) ([]transcript.Entry, bool) { return nil, false }

// Driver returns the running driver, starting a new one after a crash or a kill.
func (t *target) Driver(ctx context.Context) (*driver.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil && t.client.Alive() {
		return t.client, nil
	}
	if t.client != nil {
		fmt.Fprintf(t.progress, "[%s] driver exited; starting a new one\n", t.name)
	}
	c, _, err := StartDriver(ctx, t.launcher, t.name, t.timeout, t.validator)
	if err != nil {
		return nil, err
	}
	t.client = c
	return c, nil
}

func (t *target) KillDriver() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		t.client.Kill()
	}
}

func (t *target) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		t.client.Close(5 * time.Second)
		t.client = nil
	}
}

func (t *target) TranscriptPath(feature, scenario string) string {
	return filepath.Join(t.reportDir, TranscriptRel(t.name, feature, scenario))
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// TranscriptRel is a transcript's path relative to the report folder: stable across runs and
// machines, so results from shards and runs can be merged and compared.
func TranscriptRel(sdk, feature, scenario string) string {
	slug := strings.Trim(unsafe.ReplaceAllString(scenario, "-"), "-")
	if len(slug) > 120 {
		slug = slug[:120]
	}
	sum := sha256.Sum256([]byte(scenario)) // keeps names that differ only in punctuation apart
	// Each folder of the feature's path is made safe too, so that no feature path ("../x",
	// "/abs") can place a transcript outside the report folder.
	dirs := strings.FieldsFunc(strings.TrimSuffix(feature, ".feature"), func(r rune) bool { return r == '/' || r == '\\' })
	for i, d := range dirs {
		if d = unsafe.ReplaceAllString(d, "-"); d == "." || d == ".." {
			d = "-"
		}
		dirs[i] = d
	}
	return filepath.ToSlash(filepath.Join("transcripts", sdk, filepath.Join(dirs...), slug+"-"+hex.EncodeToString(sum[:3])+".ndjson"))
}
