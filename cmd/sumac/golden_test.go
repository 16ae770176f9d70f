package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The golden tests pin what `sumac sim` and `sumac tune` print for the seeds' kernels and for
// seed 000's suite, so that moving code (the layout, the target seam) provably changes nothing a
// user sees. A change that is meant to alter cycles or schedules regenerates them with
//
//	go test ./cmd/sumac -run Golden -update
//
// and the diff of testdata/golden is then reviewed with the change.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenSims are the hand-transcribed kernels of seeds 001 and 004 at the blockings the seeds
// measure (Kc for seed 001's GEMM kernels, cib for seed 004's convolution kernel).
var goldenSims = []struct {
	kernel, param string
	values        []int
}{
	{"lei_gemm_16x4", "Kc", []int{64, 128, 256, 290}},
	{"lei_gemm_32x4", "Kc", []int{64, 128, 256, 290}},
	{"lei_conv_8x8_u8", "cib", []int{256, 1024}},
}

func TestGoldenSim(t *testing.T) {
	for _, g := range goldenSims {
		for _, v := range g.values {
			name := fmt.Sprintf("%s.%s%d", g.kernel, g.param, v)
			t.Run(name, func(t *testing.T) {
				file := "../../target/aie1/testdata/" + g.kernel + ".cc"
				code, out, errs := run(t, "sim", file, "-D", fmt.Sprintf("%s=%d", g.param, v), "--json")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				// Positions name the file as the command was given it; the golden files name it
				// from the repository root.
				out = strings.ReplaceAll(out, "../../target/aie1/testdata/", "target/aie1/testdata/")
				compareGolden(t, "sim."+name+".json", out, nil, "emulation")
			})
		}
	}
}

// tuneGoldenFields are the parts of a tuning result that a pure move must keep: the winner, its
// cycles and verification, and the size of the space it came from.
var tuneGoldenFields = []string{"name", "spec", "macs", "cycles", "verified", "schedule", "sw_loop",
	"calls", "spills", "candidates", "legal", "saturated_fraction"}

func TestGoldenTuneVyasa36(t *testing.T) {
	if testing.Short() {
		t.Skip("tunes 36 workloads (about a minute on 2 cores)")
	}
	code, out, errs := run(t, "tune", "--target", "aie1", "--suite", "vyasa36", "--no-cache", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	compareGolden(t, "tune.vyasa36.json", out, tuneGoldenFields)
}

// compareGolden compares a JSON document with testdata/golden/NAME. With fields, the document is
// an array of objects and only those fields are kept; the fields named in drop are removed from an
// object document (the emulation note says whether g++'s binary came from its cache).
func compareGolden(t *testing.T, name, got string, fields []string, drop ...string) {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if m, ok := doc.(map[string]any); ok {
		for _, f := range drop {
			delete(m, f)
		}
	}
	if fields != nil {
		rows, ok := doc.([]any)
		if !ok {
			t.Fatalf("want a JSON array, got %T", doc)
		}
		for i, r := range rows {
			m, _ := r.(map[string]any)
			kept := map[string]any{}
			for _, f := range fields {
				kept[f] = m[f]
			}
			rows[i] = kept
		}
	}
	path := filepath.Join("testdata", "golden", name)
	if *update {
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if reflect.DeepEqual(doc, want) {
		return
	}
	diffJSON(t, "", want, doc)
}

// diffJSON reports the first few places where two decoded JSON values differ.
func diffJSON(t *testing.T, at string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: want an object, got %v", at, got)
			return
		}
		for k := range w {
			if !reflect.DeepEqual(w[k], g[k]) {
				diffJSON(t, at+"."+k, w[k], g[k])
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				t.Errorf("%s.%s: new field", at, k)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: want %d elements, got %v", at, len(w), got)
			return
		}
		for i := range w {
			if !reflect.DeepEqual(w[i], g[i]) {
				diffJSON(t, fmt.Sprintf("%s[%d]", at, i), w[i], g[i])
			}
		}
	default:
		t.Errorf("%s: want %v, got %v", at, want, got)
	}
}
