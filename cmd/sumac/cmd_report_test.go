package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/report"
)

// Every JSON document a command writes says what it is: package report recognises it as
// exactly the kind the command writes (by its tag, or by the fields only that kind has).
func TestJSONDocumentsSayWhatTheyAre(t *testing.T) {
	kernel := "../../target/aie1/testdata/lei_gemm_16x4.cc"
	const conv = "conv2d x=32 y=2 r=3 s=3 dtype=int16"
	cases := []struct {
		kind string
		args []string
	}{
		{"spec", []string{"spec", conv, "--json"}},
		{"suite-list", []string{"suite", "list", "--json"}},
		{"suite", []string{"suite", "list", "vyasa36", "--json"}},
		{"compile", []string{"compile", conv, "--json"}},
		{"compile-triplets", []string{"compile", conv, "--emit", "triplets", "--json"}},
		{"compile-explain", []string{"compile", conv, "--explain", "--json"}},
		{"tune", []string{"tune", conv, "--no-cache", "--json"}},
		{"bench-cpu", []string{"bench", "cpu", "--suite", "mnist-cnn", "--match", "fc2", "--threads", "1",
			"--rounds", "1", "--min-time", "0", "--dtype", "float32", "--json"}},
		{"layer-times", []string{"train", "mnist", "--layer-times", "--batch", "2", "--reps", "1", "--json"}},
		{"train", []string{"train", "mnist", "--train", "1", "--test", "0", "--epochs", "1", "--json"}},
		{"sim", []string{"sim", kernel, "-DKc=16", "--no-emul", "--json"}},
		{"sim-emit", []string{"sim", kernel, "-DKc=16", "--emit", "cpp", "--json"}},
		{"report", []string{"report", "--out", t.TempDir(), "--json"}},
	}
	for _, c := range cases {
		code, out, errOut := run(t, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		k, err := report.Recognise([]byte(out))
		if err != nil || k != c.kind {
			t.Errorf("%v: recognised as %q (%v), want %q", c.args, k, err, c.kind)
		}
	}
}

func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, args ...string) string {
		t.Helper()
		code, out, errOut := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v := write("v.json", "tune", "conv2d x=32 y=2 r=3 s=3 dtype=int16", "--no-cache", "--json")
	g := write("g.json", "bench", "cpu", "--suite", "mnist-cnn", "--match", "fc", "--threads", "1",
		"--rounds", "1", "--min-time", "0", "--dtype", "float32", "--json")
	tt := write("t.json", "train", "mnist", "--layer-times", "--batch", "2", "--reps", "1", "--json")
	s := write("s.json", "spec", "gemm m=4 n=4 k=4 dtype=fp32", "--json")

	out := filepath.Join(dir, "rep")
	code, stdout, errOut := run(t, "report", "--out", out, "--no-cache", "--json", v, g, tt, s)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sum reportSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range sum.Figures {
		got[f.Name] = true
		for _, p := range f.Plots {
			if _, err := os.Stat(filepath.Join(out, p)); err != nil {
				t.Error(err)
			}
		}
	}
	for _, f := range []string{"roofline", "space", "cpu", "nn-layers"} {
		if !got[f] {
			t.Errorf("figure %s not drawn (summary %+v)", f, sum)
		}
	}
	if len(sum.Unused) != 1 || sum.Unused[0].Kind != "spec" {
		t.Errorf("unused %v, want the spec document", sum.Unused)
	}
	if _, err := os.Stat(sum.Index); err != nil {
		t.Error(err)
	}

	// Without documents nothing is drawn and the output says what to run.
	code, stdout, _ = run(t, "report", "--out", filepath.Join(dir, "empty"))
	if code != 0 || !strings.Contains(stdout, "not drawn") || !strings.Contains(stdout, "sumac tune --target aie1 --suite vyasa36 --json") {
		t.Errorf("no documents: exit %d:\n%s", code, stdout)
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"what": 1}`), 0o644)
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`[]`), 0o644)
	for _, args := range [][]string{
		{"report"},
		{"report", "--out", dir, filepath.Join(dir, "missing.json")},
		{"report", "--out", dir, bad},
		{"report", "--out", dir, empty},
		{"report", "--out", dir, "--workers", "-1"},
	} {
		code, out, errOut := run(t, args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, want 2 and nothing", args, code, out)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: error is not one line: %q", args, errOut)
		}
	}
}
