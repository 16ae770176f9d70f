package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sumac versal on small shapes: the JSON fields the issue names, a trace, bad input.
func TestVersal(t *testing.T) {
	code, out, errs := run(t, "versal", "gemm", "gemm m=40 n=10 k=30 dtype=int16", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cycles", "macs", "macs_per_cycle", "pct_peak", "clock_ghz", "limit", "breakdown", "verified", "verified_shape"} {
		if _, ok := r[k]; !ok {
			t.Errorf("gemm --json lacks %q", k)
		}
	}
	if r["verified"] != true || r["macs"].(float64) != 40*10*30 {
		t.Errorf("gemm: verified %v, macs %v", r["verified"], r["macs"])
	}
	trace := filepath.Join(t.TempDir(), "t.json")
	code, _, errs = run(t, "versal", "conv", "conv2d x=7 y=2 k=16 c=32 r=1 s=1 dtype=uint8", "--placement", "seed", "--trace", trace, "--json")
	if code != 0 {
		t.Fatalf("conv: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(trace)
	if err != nil || !strings.Contains(string(b), `"traceEvents"`) {
		t.Errorf("trace: %v %.100s", err, b)
	}
	for _, bad := range [][]string{
		{"versal", "gemm", "gemm m=4 n=4 k=4 dtype=fp32"},
		{"versal", "gemm", "gemm m=64 n=8 k=64 dtype=int16", "--placement", "nope"},
		{"versal", "gemm", "gemm m=64 n=8 k=64 dtype=int16", "--set", "streams=0"},
		{"versal", "gemm", "gemm m=64 n=8 k=2000 dtype=int16", "--placement", "seed", "--kc", "1000"},
		{"versal", "conv", "--suite", "resnet50", "--dtype", "int16"},
		{"versal"},
	} {
		if code, _, _ := run(t, bad...); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}
