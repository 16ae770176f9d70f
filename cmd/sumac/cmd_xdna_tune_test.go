package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// sumac tune --target aie2p: one JSON document with every candidate and the winner; a second
// run with the same store evaluates nothing and picks the same winner.
func TestXDNATune(t *testing.T) {
	spec := strings.Replace(xdnaSeed, "m2=4", "m2=2", 1)
	loc := "sqlite:" + filepath.Join(t.TempDir(), "tune.db")
	type cand struct {
		Schedule     string  `json:"schedule"`
		Instructions int64   `json:"instructions"`
		VMACs        int64   `json:"vmacs"`
		Utilization  float64 `json:"utilization"`
		Cycles       int64   `json:"cycles"`
		Verified     bool    `json:"verified"`
		Refusal      string  `json:"refusal"`
	}
	var docs [2]struct {
		Winner     cand   `json:"winner"`
		Candidates []cand `json:"candidates"`
		Evaluated  int    `json:"evaluated"`
		Stored     int    `json:"stored"`
	}
	for i := range docs {
		code, out, errOut := run(t, "tune", "--target", "aie2p", spec, "--store", loc, "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &docs[i]); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	d := docs[0]
	if len(d.Candidates) < 10 || d.Evaluated != len(d.Candidates) || d.Stored != 0 {
		t.Fatalf("first run: %d candidates, %d evaluated, %d stored", len(d.Candidates), d.Evaluated, d.Stored)
	}
	if w := d.Winner; !w.Verified || w.VMACs != 4*2*12*4 || w.Instructions != w.VMACs+25 || w.Schedule != d.Candidates[0].Schedule {
		t.Fatalf("winner %+v", w)
	}
	for _, c := range d.Candidates {
		if c.Refusal == "" && (!c.Verified || c.Cycles < d.Winner.Cycles) {
			t.Errorf("candidate %+v (winner %d cycles)", c, d.Winner.Cycles)
		}
	}
	if e := docs[1]; e.Evaluated != 0 || e.Stored != len(d.Candidates) || e.Winner != d.Winner {
		t.Fatalf("second run: %d evaluated, %d stored, winner %+v", e.Evaluated, e.Stored, e.Winner)
	}
	// the winner's schedule reproduces through sumac compile --schedule
	code, out, errOut := run(t, "compile", "--target", "aie2p", spec, "--schedule", d.Winner.Schedule, "--json")
	var c struct{ Instructions int64 }
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c.Instructions != d.Winner.Instructions {
		t.Fatalf("compile --schedule %q: exit %d %s %s", d.Winner.Schedule, code, out, errOut)
	}
	for _, args := range [][]string{
		{"tune", "--target", "aie2p"},
		{"tune", "--target", "aie2p", "--no-cache", "gemm m=8 n=8 k=8"},
		{"tune", "--target", "aieml", "--no-cache", xdnaSeed},
		{"compile", "--target", "aie2p", xdnaSeed, "--schedule", "slack=x"},
	} {
		if code, _, _ := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
