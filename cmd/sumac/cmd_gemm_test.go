package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sumac tune takes a gemm spec: the JSON result is verified and carries pct_peak, the chosen
// block and the refusals; --out writes a kernel that sumac sim runs to the same cycles, ok.
func TestTuneGEMMOut(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "tune", "--target", "aie1", "gemm m=16 n=4 k=64 beta=1 dtype=int16", "--no-cache", "--json", "--out", dir)
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	var rs []struct {
		Schedule string   `json:"schedule"`
		Cycles   int64    `json:"cycles"`
		PctPeak  *float64 `json:"pct_peak"`
		Verified bool     `json:"verified"`
		Kind     string   `json:"kind"`
		Refused  []any    `json:"refused"`
	}
	if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("tune JSON %v: %s", err, out)
	}
	r := rs[0]
	if !r.Verified || r.PctPeak == nil || *r.PctPeak <= 0 || r.Kind != "GEMM" || !strings.Contains(r.Schedule, "mr=") || len(r.Refused) == 0 {
		t.Fatalf("tune result %+v", r)
	}
	line, err := os.ReadFile(filepath.Join(dir, "spec.txt"))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"sim", filepath.Join(dir, "spec.cc")}, strings.Fields(string(line))[3:]...)
	code, out, errOut = run(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("sim: exit %d: %s", code, errOut)
	}
	var s struct {
		Cycles    int64  `json:"cycles"`
		OK        bool   `json:"ok"`
		Reference string `json:"reference"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if !s.OK || s.Cycles != r.Cycles || !strings.HasPrefix(s.Reference, "checked against op/ref") {
		t.Errorf("sim: ok %v, %d cycles, reference %q; tune reported %d", s.OK, s.Cycles, s.Reference, r.Cycles)
	}
}

// Every stage of the pipeline prints for a gemm and an einsum; a bad schedule field is an
// input error.
func TestCompileContractionStages(t *testing.T) {
	for _, spec := range []string{"gemm m=8 n=8 k=32 beta=1 dtype=uint8", "einsum [m,k],[k,n]->[m,n] m=16 k=16 n=8 dtype=fp32"} {
		for _, name := range []string{"spec", "loops", "schedule", "triplets", "graphs", "fused", "kernel", "bundles", "cycles", "cpp"} {
			code, text, errOut := run(t, "compile", spec, "--emit", name)
			if code != 0 || text == "" {
				t.Errorf("%s --emit %s: exit %d, %s", spec, name, code, errOut)
			}
		}
	}
	code, out, errOut := run(t, "compile", "gemm m=16 n=4 k=64 dtype=int16", "--explain")
	if code != 0 || !strings.Contains(out, "legal") || !strings.Contains(out, "Z registers live at once") {
		t.Errorf("--explain: exit %d, %s", code, errOut)
	}
	code, _, errOut = run(t, "compile", "gemm m=8 n=8 k=32 dtype=int16", "--schedule", "mr=5")
	if code != 2 || !strings.Contains(errOut, "mr") {
		t.Errorf("mr=5: exit %d, %q", code, errOut)
	}
}
