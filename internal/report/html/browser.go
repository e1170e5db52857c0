package html

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/chromedp/chromedp"
)

// Chromium finds a Chromium to drive: $CONFORMANCE_CHROMIUM, else chromium, chromium-browser or
// google-chrome on PATH (Debian: apt-get install -y chromium).
func Chromium() (string, error) {
	if p := os.Getenv("CONFORMANCE_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on PATH (Debian: apt-get install -y chromium; or set CONFORMANCE_CHROMIUM)")
}

// NewBrowser starts a headless Chromium with a fresh profile under profileDir and returns a
// chromedp context for it and the function that stops it. The flags keep it offline and
// quiet, and let it run as root (--no-sandbox).
func NewBrowser(ctx context.Context, bin, profileDir string) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profileDir),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1400, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancel := chromedp.NewContext(actx)
	return bctx, func() { cancel(); cancelAlloc() }
}

// openFirstCell clicks the first failing cell, else the first cell, if there is one.
const openFirstCell = `(function () {
  var c = document.querySelector('td.cell.s-failed') || document.querySelector('td.cell');
  if (c) c.click();
  return !!c;
})()`

// Screenshot opens a report.html in headless Chromium, opens its first failing cell (else its
// first cell) so the picture shows a transcript, and writes a PNG of the page to png.
func Screenshot(ctx context.Context, page, png string) error {
	bin, err := Chromium()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", "conformance-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	bctx, stop := NewBrowser(ctx, bin, profile)
	defer stop()
	if err := chromedp.Do(bctx,
		chromedp.Navigate("file://"+abs),
		chromedp.WaitVisible(chromedp.CSS("#matrix")),
	); err != nil {
		return fmt.Errorf("screenshot of %s: %w", page, err)
	}
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool](openFirstCell)); err != nil {
		return fmt.Errorf("screenshot of %s: %w", page, err)
	}
	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		return fmt.Errorf("screenshot of %s: %w", page, err)
	}
	return os.WriteFile(png, shot, 0o644)
}
