package main

import (
	"encoding/json"
	"testing"
)

// sumac versal on the whole array: a small GEMM on a few tiles with the JSON fields the issue
// names, a convolution, the tile sweep, and bad input.
func TestVersalArray(t *testing.T) {
	code, out, errs := run(t, "versal", "gemm", "gemm m=100 n=70 k=300 dtype=int8", "--tiles", "6", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tops", "limit", "clock_ghz", "utilization", "design", "verified"} {
		if _, ok := r[k]; !ok {
			t.Errorf("gemm --tiles --json lacks %q", k)
		}
	}
	if r["verified"] != true || r["tiles"].(float64) > 6 {
		t.Errorf("gemm --tiles 6: verified %v on %v tiles", r["verified"], r["tiles"])
	}
	if code, out, errs = run(t, "versal", "conv", "conv2d x=9 y=2 k=16 c=8 r=3 s=3 pad=1 dtype=uint8", "--tiles", "4"); code != 0 {
		t.Fatalf("conv --tiles: exit %d: %s %s", code, errs, out)
	}
	code, out, errs = run(t, "versal", "gemm", "gemm m=64 n=64 k=128 dtype=fp32", "--tiles", "3", "--sweep", "tiles", "--json")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	var sw struct {
		Points []struct {
			Tiles int     `json:"tiles"`
			TOPS  float64 `json:"tops"`
			Limit string  `json:"limit"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil || len(sw.Points) != 3 || sw.Points[2].TOPS <= 0 {
		t.Errorf("sweep: %v %+v", err, sw)
	}
	for _, bad := range [][]string{
		{"versal", "reproduce", "nope"},
		{"versal", "reproduce"},
		{"versal", "gemm", "gemm m=64 n=64 k=64 dtype=int8", "--tiles", "401"},
		{"versal", "gemm", "gemm m=64 n=64 k=64 dtype=int8", "--tiles", "4", "--scope", "board"},
		{"versal", "gemm", "gemm m=64 n=64 k=64 dtype=int32", "--tiles", "4"},
		{"versal", "conv", "--suite", "resnet50", "--tiles", "4", "--dtype", "fp32"},
	} {
		if code, _, _ := run(t, bad...); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}
