package main

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
)

// workload is a named shape from op/suite or from --spec.
type workload struct {
	name string
	spec *op.Spec
}

// workloads returns the shapes to measure. The tables live in op/suite; this module adds
// none of its own except the small self-test shapes of --check (check.go).
func workloads(c *config) ([]workload, error) {
	var out []workload
	if c.suite != "" {
		s, err := suite.Get(c.suite)
		if err != nil {
			return nil, err
		}
		for _, w := range s.Workloads {
			out = append(out, workload{w.Name, w.Spec})
		}
	}
	for _, text := range c.specs {
		// The element types measured come from --dtype; a spec needs some type to parse.
		full := text
		if !strings.Contains(text, "dtype=") && !strings.Contains(text, "atype=") {
			full += " dtype=fp32"
		}
		s, err := op.Parse(full)
		if err != nil {
			return nil, fmt.Errorf("--spec %q: %v", text, err)
		}
		out = append(out, workload{strings.Join(strings.Fields(text), " "), s})
	}
	if c.match != "" {
		kept := out[:0]
		for _, w := range out {
			if strings.Contains(w.name, c.match) {
				kept = append(kept, w)
			}
		}
		out = kept
	}
	for _, w := range out {
		if w.spec.Conv == nil && w.spec.GEMM == nil {
			return nil, fmt.Errorf("workload %s: %s is neither a GEMM nor a convolution", w.name, w.spec.Op())
		}
		if g := w.spec.GEMM; g != nil && (g.TA || g.TB) {
			return nil, fmt.Errorf("workload %s: transposed GEMM operands are not measured here", w.name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no workloads selected")
	}
	return out, nil
}

// dtypesFor lists the element types measured for a workload: the requested ones that the
// operation has in sumac (convolution: float32, int16, u8s8, bf16; GEMM adds float64).
func dtypesFor(w workload, want []string) []string {
	have := allDTypes
	if w.spec.Conv != nil {
		have = []string{"float32", "int16", "u8s8", "bf16"}
	}
	if len(want) == 0 {
		return have
	}
	var out []string
	for _, d := range have {
		if contains(want, d) {
			out = append(out, d)
		}
	}
	return out
}

// taskFor turns a workload and a type into a Task; seed makes the operands.
func taskFor(w workload, dtype string, seed uint64) *Task {
	t := &Task{Name: w.name, DType: dtype, Seed: seed}
	if g := w.spec.GEMM; g != nil {
		t.Kind, t.M, t.N, t.K = "gemm", g.M, g.N, g.K
		return t
	}
	c := w.spec.Conv
	t.Kind = "conv"
	t.Conv = &ConvShape{X: c.X, Y: c.Y, K: c.K, C: c.C, R: c.R, S: c.S, N: c.N,
		Stride: c.Stride, Pad: c.Pad, Dilation: c.Dilation, Groups: c.Groups, XIn: c.XIn, YIn: c.YIn}
	return t
}

// column is one measured implementation of a task: sumac (fast or exact u8 path) or a peer.
type column struct {
	field   string // JSON field stem: sumac, sumac_exact, openblas, blis, onednn, onednn_nhwc, onednn_any
	peer    string // "" for sumac
	variant string // oneDNN convolution memory format: nhwc or any
	exact   bool   // sumac's exact full-range u8 path
}

// columnsFor lists what is measured for a task; peers that turn out to lack the operation
// are dropped when their worker says so.
func columnsFor(t *Task, peers []string) []column {
	cols := []column{{field: "sumac"}}
	if t.DType == "u8s8" {
		cols = append(cols, column{field: "sumac_exact", exact: true})
	}
	for _, p := range peers {
		if t.Kind == "conv" {
			if p == "onednn" {
				cols = append(cols, column{field: "onednn_nhwc", peer: p, variant: "nhwc"},
					column{field: "onednn_any", peer: p, variant: "any"})
			}
			continue
		}
		cols = append(cols, column{field: p, peer: p})
	}
	return cols
}
