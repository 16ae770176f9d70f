package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `sumac compile ... --emit triplets` prints seed 000's running example; the golden file is
// the one the triplet package's test checks.
func TestCompileTripletsGolden(t *testing.T) {
	code, out, errOut := run(t, "compile", "--target", "aie1", "conv2d x=16 y=1 r=4 s=3 dtype=int16", "--emit", "triplets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile("../../compiler/triplet/testdata/running_example.triplets")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("output differs from compiler/triplet/testdata/running_example.triplets:\n%s", out)
	}
}

func TestCompileEmitAndErrors(t *testing.T) {
	for _, emit := range []string{"graphs", "fused", "kernel", "cpp"} {
		code, out, errOut := run(t, "compile", "conv2d x=32 y=2 r=3 s=3 dtype=int16", "--emit", emit)
		if code != 0 || out == "" {
			t.Errorf("--emit %s: exit %d, %s", emit, code, errOut)
		}
	}
	dir := t.TempDir()
	if code, _, errOut := run(t, "compile", "conv2d x=16 y=2 k=8 c=8 r=3 s=3 dtype=int32", "--out", dir); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(dir + "/vyasa_conv2d.cc"); err != nil {
		t.Error(err)
	}
	// A convolution no legal schedule fits gets a clear error.
	code, _, errOut := run(t, "compile", "conv2d x=16 y=1 r=2 s=1 dilation=9 dtype=int16", "--explain")
	if code != 2 || !strings.Contains(errOut, "no legal schedule") {
		t.Errorf("dilation 9: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "compile", "maxpool x=4 y=4 c=4 size=2 dtype=fp32")
	if code != 2 || !strings.Contains(errOut, "conv2d, gemm and einsum") {
		t.Errorf("maxpool: exit %d, %q", code, errOut)
	}
}

// A kernel written with --out runs under sumac sim to the cycles compile reports, ok: true.
func TestCompileOutRunsInSim(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "compile", "conv2d x=32 y=2 r=3 s=3 dtype=int16", "--out", dir, "--json")
	if code != 0 {
		t.Fatalf("compile: exit %d: %s", code, errOut)
	}
	var c struct {
		Cycles   int64 `json:"cycles"`
		Verified bool  `json:"verified"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || !c.Verified || c.Cycles == 0 {
		t.Fatalf("compile JSON %v: %s", err, out)
	}
	line, err := os.ReadFile(filepath.Join(dir, "vyasa_conv2d.txt"))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"sim", filepath.Join(dir, "vyasa_conv2d.cc")}, strings.Fields(string(line))[3:]...)
	code, out, errOut = run(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("sim: exit %d: %s", code, errOut)
	}
	var s struct {
		Cycles int64 `json:"cycles"`
		OK     bool  `json:"ok"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if !s.OK || s.Cycles != c.Cycles {
		t.Errorf("sim: ok %v, %d cycles; compile reported %d", s.OK, s.Cycles, c.Cycles)
	}
}

// --explain without a spec prints the stage table; every stage name is an --emit name; an
// unknown one is a usage error listing them.
func TestCompileStages(t *testing.T) {
	code, out, _ := run(t, "compile", "--explain")
	if code != 0 {
		t.Fatalf("--explain: exit %d", code)
	}
	for _, name := range []string{"spec", "loops", "schedule", "triplets", "graphs", "fused", "kernel", "bundles", "cycles", "cpp"} {
		if !strings.Contains(out, " "+name+" ") {
			t.Errorf("--explain lacks %s:\n%s", name, out)
		}
		code, text, errOut := run(t, "compile", "conv2d x=16 y=1 r=4 s=3 dtype=int16", "--emit", name)
		if code != 0 || text == "" {
			t.Errorf("--emit %s: exit %d, %s", name, code, errOut)
		}
	}
	code, _, errOut := run(t, "compile", "conv2d x=16 y=1 r=4 s=3 dtype=int16", "--emit", "nope")
	if code != 2 || !strings.Contains(errOut, "bundles") {
		t.Errorf("--emit nope: exit %d, %q", code, errOut)
	}
}
