package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchCPUJSON(t *testing.T) {
	code, out, errOut := run(t, "bench", "cpu", "--suite", "mnist-cnn", "--match", "fc2", "--threads", "1",
		"--rounds", "1", "--min-time", "0", "--dtype", "float32,u8s8", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("stdout is not one JSON array: %v\n%s", err, out)
	}
	if len(rows) != 2 {
		t.Fatalf("want 2 rows (fc2 float32, u8s8), got %d", len(rows))
	}
	for _, r := range rows {
		if r["name"] != "fc2" || r["op"] != "gemm" {
			t.Errorf("row %v: wrong workload", r)
		}
		for _, k := range []string{"gflops", "ref_peak_gflops", "pct_ref_peak", "seconds"} {
			if v, ok := r[k].(float64); !ok || v <= 0 {
				t.Errorf("row %v: %s missing or not positive", r["dtype"], k)
			}
		}
	}
	if rows[0]["ref_peak_gflops"].(float64) != 98.6 || rows[1]["ref_peak_gflops"].(float64) != 192 {
		t.Errorf("reference peaks %v, %v; want cpu.md's 98.6 and 192", rows[0]["ref_peak_gflops"], rows[1]["ref_peak_gflops"])
	}
}

func TestBenchErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench"},
		{"bench", "gpu", "--suite", "gemm"},
		{"bench", "cpu"},
		{"bench", "cpu", "--suite", "nope"},
		{"bench", "cpu", "--suite", "gemm", "--dtype", "int4"},
		{"bench", "cpu", "--suite", "gemm", "--threads", "-3"},
		{"bench", "cpu", "--suite", "gemm", "--rounds", "0"},
		{"bench", "cpu", "--suite", "gemm", "--min-time", "NaN"},
		{"bench", "cpu", "--suite", "gemm", "--match", "no-such-workload"},
	} {
		code, _, errOut := run(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: error is not one line: %q", args, errOut)
		}
	}
}
