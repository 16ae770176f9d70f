package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium to drive: $SUMAC_CHROMIUM, else Debian's chromium (which
// .ci/run installs when it is missing), else another Chrome on the PATH.
func chromiumPath() string {
	if p := os.Getenv("SUMAC_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// figureCheck is what the page reports about one figure once the browser has laid it out.
type figureCheck struct {
	ID      string   `json:"id"`
	Section string   `json:"section"`
	Series  []string `json:"series"`
	Width   float64  `json:"width"`
	Height  float64  `json:"height"`
	Shapes  int      `json:"shapes"`
	Texts   []string `json:"texts"`
}

type pageCheck struct {
	Figures  []figureCheck `json:"figures"`
	Sections []string      `json:"sections"`
	Font     bool          `json:"font"`
}

const checkJS = `(() => {
	const figures = [];
	for (const f of document.querySelectorAll('figure.plot')) {
		const svg = f.querySelector('svg');
		const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
		figures.push({
			id: f.id,
			section: f.closest('section') ? f.closest('section').id : '',
			series: (f.dataset.series || '').split('|').filter(s => s !== ''),
			width: r.width, height: r.height,
			shapes: svg ? svg.querySelectorAll('path, rect, circle, polygon, polyline, line').length : 0,
			texts: svg ? Array.from(svg.querySelectorAll('text')).map(t => t.textContent.trim()) : [],
		});
	}
	return {
		figures: figures,
		sections: Array.from(document.querySelectorAll('section')).map(s => s.id),
		font: document.fonts.check('12px "Liberation Sans"'),
	};
})()`

// TestPageInBrowser loads the report in headless Chromium from file://: every figure is an
// SVG the browser lays out with a non-zero size, draws shapes and shows each series the figure
// names; no console message is an error; a screenshot is taken (to $SUMAC_REPORT_SHOTS, with one
// per figure, when set).
func TestPageInBrowser(t *testing.T) {
	exe := chromiumPath()
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found: .ci/run installs Debian's chromium before the tests")
		}
		t.Skip("no Chromium found (install Debian's chromium, as .ci/run does, or set SUMAC_CHROMIUM)")
	}
	dir := t.TempDir()
	buildTestPage(t, dir)
	index, err := filepath.Abs(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1200, 900),
		chromedp.Flag("no-sandbox", os.Geteuid() == 0), // Chromium refuses to run as root with the sandbox
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()

	var mu sync.Mutex
	var console []string
	var wg sync.WaitGroup
	lctx, stopListen := context.WithCancel(ctx)
	messages := chromedp.Console(lctx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			mu.Lock()
			console = append(console, m.String())
			mu.Unlock()
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+index), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatalf("loading %s: %v", index, err)
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[pageCheck](checkJS))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("SUMAC_REPORT_SHOTS")
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Figures {
			b, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#"+f.ID)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(shots, f.ID+".png"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	stopListen()
	wg.Wait()

	// The screenshot is a real image of the page.
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 2000 {
		t.Errorf("screenshot is %dx%d: the page did not lay out its figures", b.Dx(), b.Dy())
	}
	out := filepath.Join(dir, "page.png")
	if shots != "" {
		out = filepath.Join(shots, "page.png")
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%dx%d), %d figures", out, img.Bounds().Dx(), img.Bounds().Dy(), len(res.Figures))

	for _, m := range console {
		if strings.HasPrefix(m, "error") || strings.HasPrefix(m, "exception") || strings.HasPrefix(m, "warning") {
			t.Errorf("console: %s", m)
		}
	}
	if !res.Font {
		t.Error("the embedded font is not available to the page")
	}
	perSection := map[string]int{}
	for _, f := range res.Figures {
		perSection[f.Section]++
		if f.Width < 100 || f.Height < 100 {
			t.Errorf("%s: laid out %.0fx%.0f", f.ID, f.Width, f.Height)
		}
		if f.Shapes < 10 {
			t.Errorf("%s: %d shapes drawn", f.ID, f.Shapes)
		}
		if len(f.Series) == 0 {
			t.Errorf("%s: names no series", f.ID)
		}
		texts := map[string]bool{}
		for _, s := range f.Texts {
			texts[s] = true
		}
		for _, s := range f.Series {
			if !texts[s] {
				t.Errorf("%s: series %q not drawn (texts: %s)", f.ID, s, fmt.Sprint(f.Texts))
			}
		}
	}
	for _, s := range []string{"roofline", "space", "cpu", "nn-layers"} {
		if perSection[s] == 0 {
			t.Errorf("section %s: no figure rendered (sections: %v)", s, res.Sections)
		}
	}
}
