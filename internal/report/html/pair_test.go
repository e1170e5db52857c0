package html

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// orderFixture writes a report folder of one scenario on two SDKs that send the same three
// session.log requests in different orders, one of them with another level: node a, b, c;
// python c, b (level warning), a.
func orderFixture(t *testing.T) (string, *report.Results) {
	dir := t.TempDir()
	write := func(rel string, messages ...string) string {
		rec, err := transcript.New(filepath.Join(dir, rel))
		require.NoError(t, err)
		for i, m := range messages {
			level := "info"
			if m == "b!" {
				m, level = "b", "warning"
			}
			frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session.log","params":{"sessionId":"s","message":%q,"level":%q}}`, i+1, m, level)
			rec.Add(transcript.Entry{Dir: transcript.SDKToRuntime, Conn: "c1", Frame: json.RawMessage(frame)})
		}
		require.NoError(t, rec.Close())
		return rel
	}
	const f, sc = "session/log.feature", "logs sent at once"
	return dir, &report.Results{
		Schema:  1,
		Harness: report.Harness{Version: "test"},
		SDKs:    []report.SDK{{Name: "node", Status: report.Available}, {Name: "python", Status: report.Available}},
		Results: []report.Result{
			{Feature: f, Scenario: sc, SDK: "node", Status: report.Passed, Transcript: write("transcripts/node/l.ndjson", "a", "b", "c")},
			{Feature: f, Scenario: sc, SDK: "python", Status: report.Failed, Transcript: write("transcripts/python/l.ndjson", "c", "b!", "a")},
		},
	}
}

// Each request is keyed as the cross-SDK comparison pairs it: python's requests carry the keys
// of node's requests with the same message, whatever order each SDK sent them in.
func TestRequestKeysPairByValue(t *testing.T) {
	dir, res := orderFixture(t)
	ts := transcript.NewStore(dir)
	reqs := map[string][]compare.Request{}
	out := make([]result, len(res.Results))
	for i, r := range res.Results {
		es, err := ts.Read(r.Transcript)
		require.NoError(t, err)
		reqs[r.Transcript] = compare.RequestList(es)
		out[i].Result = r
	}
	requestKeys(res.Results, out, reqs)
	keyOf := map[string]map[string]string{} // sdk -> message -> key
	for i, r := range res.Results {
		keyOf[r.SDK] = map[string]string{}
		for _, q := range reqs[r.Transcript] {
			keyOf[r.SDK][q.Params.(map[string]any)["message"].(string)] = out[i].RequestKeys[q.Seq]
		}
	}
	assert.Equal(t, map[string]string{"a": "session.log#1", "b": "session.log#2", "c": "session.log#3"}, keyOf["node"])
	assert.Equal(t, keyOf["node"], keyOf["python"])
}

// TestPagePairsRequestsByValue opens python's cell in a headless Chromium and sets each of its
// requests beside node's: the two requests sent in another order are identical, and the one
// real difference (b's level) is shown once.
func TestPagePairsRequestsByValue(t *testing.T) {
	bin, err := Chromium()
	if err != nil {
		if os.Getenv("CONFORMANCE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("CONFORMANCE_REQUIRE_BROWSER=1 but %v", err)
		}
		t.Skipf("skipped: %v (set CONFORMANCE_REQUIRE_BROWSER=1 to make this a failure)", err)
	}
	dir, res := orderFixture(t)
	require.NoError(t, Render(dir, res))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx, stop := NewBrowser(ctx, bin, t.TempDir())
	defer stop()
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate("file://"+filepath.Join(dir, FileName)),
		chromedp.WaitVisible(chromedp.CSS("#matrix td.cell")),
		chromedp.Click(chromedp.CSS(`td.cell[data-status="failed"]`)),
		chromedp.WaitVisible(chromedp.CSS("#diff table")),
	))
	var keys []string
	v, err := chromedp.Run(bctx, chromedp.Evaluate[json.RawMessage](`Array.from(document.querySelectorAll('#diff-request option')).map(function(o){return o.value})`))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(v, &keys))
	assert.Equal(t, []string{"session.log#3", "session.log#2", "session.log#1"}, keys, "python's requests, in the order sent, under node's keys")
	differing := map[string][]string{}
	for _, k := range keys {
		// Select the request, then wait for its table (the other transcript is loaded already).
		sel := fmt.Sprintf(`(function(){var s=document.getElementById('diff-request');s.value=%q;s.dispatchEvent(new Event('change'));return true})()`, k)
		_, err := chromedp.Run(bctx, chromedp.Evaluate[bool](sel))
		require.NoError(t, err)
		require.NoError(t, chromedp.Do(bctx, chromedp.WaitVisible(chromedp.CSS("#diff table"))))
		v, err := chromedp.Run(bctx, chromedp.Evaluate[json.RawMessage](`Array.from(document.querySelectorAll('#diff tr.differs')).map(function(tr){return tr.dataset.path})`))
		require.NoError(t, err)
		var paths []string
		require.NoError(t, json.Unmarshal(v, &paths))
		if len(paths) > 0 {
			differing[k] = paths
		}
	}
	assert.Equal(t, map[string][]string{"session.log#2": {"/level"}}, differing)
}
