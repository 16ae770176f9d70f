package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/target/aie1/compile"
)

// The documents in testdata are real outputs of the commands (see testdata/README).
func testDocs(t *testing.T) []*Doc {
	t.Helper()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	var docs []*Doc
	for _, f := range files {
		d, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	return docs
}

func TestRecogniseTestdata(t *testing.T) {
	want := map[string]string{
		"tune-vyasa36.json": "tune", "bench-gemm.json": "bench-cpu", "layer-times.json": "layer-times",
		"train.json": "train", "peers-gemm.json": "peers",
	}
	for _, d := range testDocs(t) {
		if w, ok := want[filepath.Base(d.Name)]; ok && d.Kind != w {
			t.Errorf("%s: kind %s, want %s", d.Name, d.Kind, w)
		}
	}
}

func TestRecogniseErrors(t *testing.T) {
	for _, c := range []struct{ doc, err string }{
		{`[]`, "empty array"},
		{`{"x": 1}`, "not a document sumac writes"},
		{`{"document": "nope"}`, "unknown kind"},
		{`[{"layer": 1}`, "not JSON"},
		{`{} {}`, "more than one"},
		{`{"document": "report", "index": "x"}`, ""},
	} {
		_, err := Recognise([]byte(c.doc))
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: error %v, want %q", c.doc, err, c.err)
		}
	}
}

func TestReasonClass(t *testing.T) {
	got := ReasonClass("x=256 is not a multiple of 16 lanes x unroll 32")
	if got != "x=N is not a multiple of N lanes x unroll N" {
		t.Errorf("got %q", got)
	}
	for in, want := range map[string]string{
		"schedule vec=x: fusing y[0..7] += w[3] * x[2..9]: offsets exceed the 4-bit start field":                                          "fusing: offsets exceed the N-bit start field",
		"padding: O(x+0:x+16, y) += W(0, 2) * I(x+2:x+18, y) fills 1 of 2 columns and its neighbour is not a zero of the padded filter":   "padding: an operation fills N of N columns and its neighbour is not a zero of the padded filter",
		"cycle 31: lmac8 aml0, aml0, xa, wc0, c0: latency violation: reads vl2 in cycle 31 before its producer's result lands (cycle 33)": "cycle model: latency violation: reads vlN in cycle N before its producer's result lands",
	} {
		if got := ReasonClass(in); got != want {
			t.Errorf("ReasonClass(%q) = %q, want %q", in, got, want)
		}
	}
}

// buildTestPage builds the page from testdata, the schedule space on a fast small workload
// of the tune document (one of seed 000's), without a store.
func buildTestPage(t *testing.T, dir string) *Page {
	t.Helper()
	p, err := Write(dir, testDocs(t), Options{Tune: tune.Options{Target: compile.Target{}}, Space: []string{"2d-3x3-int16"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWritePage(t *testing.T) {
	dir := t.TempDir()
	p := buildTestPage(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, id := range []string{`id="roofline"`, `id="space"`, `id="cpu"`, `id="nn-layers"`} {
		if !strings.Contains(html, id) {
			t.Errorf("page lacks section %s", id)
		}
	}
	for _, bad := range []string{"http://", "https://"} {
		// The only URLs allowed are the SVG namespaces, which are names, not links.
		rest := strings.ReplaceAll(strings.ReplaceAll(html, "http://www.w3.org/2000/svg", ""), "http://www.w3.org/1999/xlink", "")
		if strings.Contains(rest, bad) {
			i := strings.Index(rest, bad)
			t.Errorf("page refers to the network: %q", rest[max(0, i-40):min(len(rest), i+60)])
		}
	}
	if strings.Contains(html, "<script") {
		t.Error("the page has a script")
	}
	for _, s := range p.Sections {
		for _, pl := range s.Plots {
			if len(pl.Series) == 0 {
				t.Errorf("%s/%s: no series", s.Figure.Name, pl.Name)
			}
			for _, name := range pl.Series {
				if !bytes.Contains(pl.SVG, []byte(escapeXML(name))) {
					t.Errorf("%s/%s: legend %q not in the SVG", s.Figure.Name, pl.Name, name)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, s.Figure.Name+"-"+pl.Name+".svg")); err != nil {
				t.Error(err)
			}
		}
	}
}

// escapeXML is how svgo writes text.
func escapeXML(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\'':
			b.WriteString("&#39;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestMissingSaysWhat(t *testing.T) {
	p, err := Build(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 0 {
		t.Errorf("%d sections drawn from nothing", len(p.Sections))
	}
	all := strings.Join(p.Missing, "\n")
	for _, want := range []string{"sumac tune --target aie1 --suite vyasa36 --json", "sumac bench cpu", "--layer-times"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing list does not say %q:\n%s", want, all)
		}
	}
}
