package history

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/report/html"
)

// TestPageInChromium opens history.html in a headless Chromium (as report.html's test does): no
// console errors, a row per version, the changes across, and the kind filters hiding lines.
func TestPageInChromium(t *testing.T) {
	bin, err := html.Chromium()
	if err != nil {
		if os.Getenv("CONFORMANCE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("CONFORMANCE_REQUIRE_BROWSER=1 but %v", err)
		}
		t.Skipf("skipped: %v (set CONFORMANCE_REQUIRE_BROWSER=1 to make this a failure)", err)
	}
	h, root := history(t)
	for i, c := range h.Versions[2].Changes {
		if c.Kind == Regression {
			h.Versions[2].Changes[i].Message = hostile
		}
	}
	h.Versions[2].Wire[0].Headline += hostile
	require.NoError(t, Write(root, h))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx, stop := html.NewBrowser(ctx, bin, t.TempDir())
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
		chromedp.Navigate("file://"+filepath.Join(root, HTMLFile)),
		chromedp.WaitVisible(chromedp.CSS("#timeline")),
	))
	eval := func(js string, out any) {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[json.RawMessage](js))
		require.NoError(t, err, js)
		require.NoError(t, json.Unmarshal(v, out), string(v))
	}
	var versions []string
	eval(`Array.from(document.querySelectorAll('#timeline tr')).map(function(tr){return tr.dataset.version})`, &versions)
	assert.Equal(t, []string{"1.0.8", "1.0.9-preview.1", "1.0.9", "1.0.11"}, versions)
	var kinds []string
	eval(`Array.from(document.querySelectorAll('tr[data-version="1.0.9"] li.change')).map(function(li){return li.dataset.kind})`, &kinds)
	assert.Equal(t, []string{SilentWire, Regression, CapabilityGained, CapabilityGained}, kinds)
	var links []string
	eval(`Array.from(document.querySelectorAll('tr[data-version="1.0.9"] li.change')[0].querySelectorAll('a')).map(function(a){return a.getAttribute('href')})`, &links)
	assert.Len(t, links, 4, "before and after of both scenarios")

	require.NoError(t, chromedp.Do(bctx, chromedp.Click(chromedp.CSS(`input[data-kind="silent-wire-change"]`))))
	var hidden int
	eval(`document.querySelectorAll('li.change.hidden').length`, &hidden)
	assert.Equal(t, 1, hidden, "the filter hides the silent wire change")

	var text string
	eval(`document.querySelector('tr[data-version="1.0.9"]').textContent`, &text)
	assert.Contains(t, text, hostile, "SDK text is shown as text")
	var xss any
	eval(`window.__xss === undefined ? null : window.__xss`, &xss)
	assert.Nil(t, xss, "SDK text ran as script")
	_, err = chromedp.Run(bctx, chromedp.Evaluate[bool](`true`)) // let pending console messages arrive
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, problems, "console errors")
}

// hostile is SDK text that would run script if the page put it into markup.
const hostile = `</script><script>window.__xss=1</script><img src=x onerror="window.__xss=2">`
