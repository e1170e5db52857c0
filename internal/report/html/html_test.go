package html

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// hostile is SDK text that would run script if the page put it into markup or let it close the
// data block.
const hostile = `</script><script>window.__xss=1</script><img src=x onerror="window.__xss=2">`

// fixture writes a small report folder: two SDKs that ran (node, python), one unavailable
// (dotnet), five statuses, transcripts whose session.create differ at /tools/0/description.
func fixture(t *testing.T) (string, *report.Results, map[string]int) {
	dir := t.TempDir()
	write := func(rel string, entries ...transcript.Entry) string {
		rec, err := transcript.New(filepath.Join(dir, rel))
		require.NoError(t, err)
		for _, e := range entries {
			rec.Add(e)
		}
		require.NoError(t, rec.Close())
		return rel
	}
	conv := func(desc string) []transcript.Entry {
		create := fmt.Sprintf(`{"jsonrpc":"2.0","id":"a","method":"session.create","params":{"tools":[{"name":"search","description":%q}]}}`, desc)
		return []transcript.Entry{
			{Dir: transcript.Note, Text: "scenario on this SDK"},
			{Dir: transcript.HarnessToDriver, Conn: "driver", Frame: json.RawMessage(`{"id":1,"cmd":"createSession","args":{}}`)},
			{Dir: transcript.SDKToRuntime, Conn: "c1", Frame: json.RawMessage(create)},
			{Dir: transcript.RuntimeToSDK, Conn: "c1", Frame: json.RawMessage(`{"jsonrpc":"2.0","id":"a","result":{"sessionId":"s"}}`)},
			{Dir: transcript.RuntimeToSDK, Conn: "c1", Frame: json.RawMessage(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"assistant.message","data":{"content":` + mustJSON(hostile) + `}}}}`)},
			{Dir: transcript.SDKToRuntime, Conn: "c1", Raw: hostile, Error: "frame body is not JSON"},
			{Dir: transcript.DriverToHarness, Conn: "driver", Frame: json.RawMessage(`{"id":1,"outcome":"ok","result":{}}`)},
		}
	}
	const (
		fTools = "tools/search.feature"
		fSess  = "session/handshake.feature"
	)
	res := &report.Results{
		Schema:  1,
		Harness: report.Harness{Version: "test", StartedAt: "2026-01-01T00:00:00Z", Command: "conformance run"},
		SDKs: []report.SDK{
			{Name: "node", Version: "0.1.0", Status: report.Available},
			{Name: "python", Version: "1.0.27", Status: report.Available},
			{Name: "dotnet", Status: report.Unavailable, Reason: "no .NET toolchain"},
		},
		Results: []report.Result{
			{Feature: fTools, Scenario: "a tool is sent " + hostile, SDK: "node", Status: report.Passed,
				Transcript: write("transcripts/node/a.ndjson", conv("Search the web")...)},
			{Feature: fTools, Scenario: "a tool is sent " + hostile, SDK: "python", Status: report.Failed,
				Message: "session.create: /tools/0/description: " + hostile, Rerun: "conformance run --sdk python",
				Transcript: write("transcripts/python/a.ndjson", conv("Search the web "+hostile)...)},
			{Feature: fTools, Scenario: "a terminal tool", SDK: "node", Status: report.XFail, Expected: "fixtures/expected.yaml:3"},
			{Feature: fTools, Scenario: "a terminal tool", SDK: "python", Status: report.Unsupported, Message: "no isTerminal"},
			{Feature: fSess, Scenario: "connect", SDK: "node", Status: report.Passed},
			{Feature: fSess, Scenario: "connect", SDK: "python", Status: report.Passed, Transcript: "transcripts/python/missing.ndjson"},
		},
	}
	for _, sc := range []string{"a tool is sent " + hostile, "a terminal tool"} {
		res.Results = append(res.Results, report.Result{Feature: fTools, Scenario: sc, SDK: "dotnet", Status: report.Unavailable})
	}
	res.Results = append(res.Results, report.Result{Feature: fSess, Scenario: "connect", SDK: "dotnet", Status: report.Unavailable})
	want := map[string]int{report.Passed: 3, report.Failed: 1, report.XFail: 1, report.Unsupported: 1, report.Unavailable: 3}
	return dir, res, want
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRenderIsSelfContainedAndEscaped(t *testing.T) {
	dir, res, _ := fixture(t)
	require.NoError(t, Render(dir, res))
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	page := string(b)
	assert.Equal(t, 2, strings.Count(page, "</script>"), "only the data block and the script end a script element")
	assert.NotContains(t, page, "window.__xss=1</script>")
	assert.NotContains(t, page, "<img")
	for _, ref := range []string{"http://", "https://", "src=\"", "href=\""} {
		assert.NotContains(t, page, ref, "the page fetches nothing")
	}
	assert.Contains(t, page, "transcript file missing: transcripts/python/missing.ndjson")
	assert.NotContains(t, page, "Search the web", "transcripts are beside the page, not in it")

	// One script per transcript, each a single call of the page's loader with JSON.
	scripts, err := filepath.Glob(filepath.Join(dir, TranscriptDir, "*.js"))
	require.NoError(t, err)
	require.Len(t, scripts, 2)
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		js := string(b)
		assert.Regexp(t, `^`+loader+`\([01],\[`, js)
		assert.True(t, strings.HasSuffix(js, "]);\n"), js)
		assert.NotContains(t, js, "</script>", "JSON escapes < so nothing in a transcript reads as markup")
	}
}

func TestRenderReplacesOldTranscripts(t *testing.T) {
	dir, res, _ := fixture(t)
	stale := filepath.Join(dir, TranscriptDir, "99.js")
	require.NoError(t, os.MkdirAll(filepath.Dir(stale), 0o755))
	require.NoError(t, os.WriteFile(stale, []byte("x"), 0o644))
	require.NoError(t, Render(dir, res))
	assert.NoFileExists(t, stale)
}

// TestPageInChromium loads the page in a headless Chromium: no console errors, the matrix
// counts, a click showing the transcript and the diff against another SDK.
func TestPageInChromium(t *testing.T) {
	bin, err := Chromium()
	if err != nil {
		if os.Getenv("CONFORMANCE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("CONFORMANCE_REQUIRE_BROWSER=1 but %v", err)
		}
		t.Skipf("skipped: %v (set CONFORMANCE_REQUIRE_BROWSER=1 to make this a failure)", err)
	}
	dir, res, want := fixture(t)
	require.NoError(t, Render(dir, res))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx, stop := NewBrowser(ctx, bin, t.TempDir())
	defer stop()

	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(bctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()

	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate("file://"+filepath.Join(dir, FileName)),
		chromedp.WaitVisible(chromedp.CSS("#matrix td.cell")),
	))
	eval := func(js string, out any) {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[json.RawMessage](js))
		require.NoError(t, err, js)
		require.NoError(t, json.Unmarshal(v, out), string(v))
	}

	var counts map[string]int
	eval(`(function(){var c={};document.querySelectorAll('#matrix td.cell').forEach(function(td){var s=td.dataset.status;c[s]=(c[s]||0)+1});return c})()`, &counts)
	assert.Equal(t, want, counts)
	var totals string
	eval(`document.getElementById('totals').textContent`, &totals)
	assert.Contains(t, totals, "3 passed")
	var headers []string
	eval(`Array.from(document.querySelectorAll('#matrix th')).map(function(th){return th.textContent})`, &headers)
	assert.Equal(t, []string{"Scenario", "node 0.1.0", "python 1.0.27", "dotnet"}, headers)

	// No transcript is loaded before a cell is opened.
	var loaded []string
	scripts := `Array.from(document.querySelectorAll('script[src]')).map(function(s){return s.getAttribute('src')})`
	eval(scripts, &loaded)
	assert.Empty(t, loaded)

	// The failing python cell: its transcript, loaded on demand from its script, then the diff
	// of session.create against node (whose transcript is loaded for it).
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(`td.cell[data-status="failed"]`)),
		chromedp.WaitVisible(chromedp.CSS("#detail .conversation")),
		chromedp.WaitVisible(chromedp.CSS("#diff table")),
	))
	eval(scripts, &loaded)
	assert.ElementsMatch(t, []string{TranscriptDir + "/0.js", TranscriptDir + "/1.js"}, loaded)
	var entries int
	eval(`document.querySelectorAll('#detail .entry').length`, &entries)
	assert.Equal(t, 7, entries)
	var conversation string
	eval(`document.querySelector('#detail .conversation').textContent`, &conversation)
	for _, s := range []string{"command createSession", "request session.create", "response to session.create",
		"notification session.event assistant.message", "unreadable: frame body is not JSON", hostile} {
		assert.Contains(t, conversation, s)
	}
	var diff struct {
		Paths  []string `json:"paths"`
		Sdk    string   `json:"sdk"`
		Header []string `json:"header"`
	}
	eval(`({paths: Array.from(document.querySelectorAll('#diff tr.differs')).map(function(tr){return tr.dataset.path}),
	        sdk: document.getElementById('diff-sdk').value,
	        header: Array.from(document.querySelectorAll('#diff th')).map(function(th){return th.textContent})})`, &diff)
	assert.Equal(t, []string{"/tools/0/description"}, diff.Paths)
	assert.Equal(t, "node", diff.Sdk)
	assert.Equal(t, []string{"path", "python", "node"}, diff.Header)

	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.png"), shot, 0o644))
	t.Logf("screenshot: %s", filepath.Join(dir, "report.png"))
	if keep := os.Getenv("CONFORMANCE_SCREENSHOT"); keep != "" {
		require.NoError(t, os.WriteFile(keep, shot, 0o644))
	}

	// Filters: without passed and unavailable, the connect row (only those) is hidden.
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(`#detail button.close`)),
		chromedp.Click(chromedp.CSS(`input[data-filter-status="passed"]`)),
		chromedp.Click(chromedp.CSS(`input[data-filter-status="unavailable"]`)),
	))
	var rows []string
	eval(`Array.from(document.querySelectorAll('#matrix tbody tr:not(.feature) td.scenario')).map(function(td){return td.textContent})`, &rows)
	assert.Equal(t, []string{"a tool is sent " + hostile, "a terminal tool"}, rows)

	var xss any
	eval(`window.__xss === undefined ? null : window.__xss`, &xss)
	assert.Nil(t, xss, "SDK text ran as script")

	_, err = chromedp.Run(bctx, chromedp.Evaluate[bool](`true`)) // let pending console messages arrive
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, problems, "console errors")
}

func TestScreenshot(t *testing.T) {
	if _, err := Chromium(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	dir, res, _ := fixture(t)
	require.NoError(t, Render(dir, res))
	png := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(t, Screenshot(ctx, filepath.Join(dir, FileName), png))
	b, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG", string(b[:4]))
}
