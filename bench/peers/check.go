package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// errMismatch marks a --check failure (exit status 1).
var errMismatch = errors.New("results differ")

// checkSpecs are small shapes with odd sizes, strides, padding, dilation and groups: enough
// to catch a wrong layout or argument order in a binding, cheap enough for the exact
// reference.
var checkSpecs = []string{
	"gemm m=37 n=29 k=53",
	"gemm m=64 n=48 k=100",
	"conv2d x=9 y=7 k=16 c=8 r=3 s=3 pad=1",
	"conv2d x=5 y=6 k=12 c=6 r=3 s=3 stride=2 pad=1 dilation=2",
	"conv2d x=7 y=7 k=24 c=16 r=1 s=1",
	"conv2d x=6 y=5 k=8 c=8 r=3 s=3 pad=1 groups=2",
	"conv2d x=8 y=8 k=16 c=3 r=7 s=7 stride=2 pad=3",
}

// runCheck compares sumac and every peer with op/ref's exact result: integers bit for bit,
// floats within ref.FloatBound of the exact sum (each implementation accumulates in its own
// order in fp32 or fp64).
func runCheck(c *config, stdout, stderr io.Writer) error {
	if len(c.specs) == 0 && c.suite == "" {
		c.specs = checkSpecs
	}
	wls, err := workloads(c)
	if err != nil {
		return err
	}
	ws, closeAll, err := startWorkers(c, stderr)
	if err != nil {
		return err
	}
	defer closeAll()
	type result struct {
		Name   string `json:"name"`
		DType  string `json:"dtype"`
		Column string `json:"column"`
		OK     bool   `json:"ok"`
		Error  string `json:"error,omitempty"`
	}
	var results []result
	failed := 0
	nextID := 0
	for wi, w := range wls {
		if w.spec.MACs() > 1<<26 {
			return fmt.Errorf("%s: too large for --check (the exact reference is slow)", w.name)
		}
		for _, dt := range dtypesFor(w, c.dtypes) {
			t := taskFor(w, dt, uint64(1000+wi))
			want, bound, err := exact(t)
			if err != nil {
				return fmt.Errorf("%s: reference: %v", t, err)
			}
			ps, release, err := prepareColumns(c, t, ws, &nextID)
			if err != nil {
				return err
			}
			for _, p := range ps {
				got, err := p.result()
				if err == nil {
					err = within(got, want, bound)
				}
				r := result{Name: w.name, DType: dt, Column: p.col.field, OK: err == nil}
				if err != nil {
					r.Error = err.Error()
					failed++
				}
				results = append(results, r)
				status := "ok"
				if err != nil {
					status = "FAIL: " + err.Error()
				}
				fmt.Fprintf(stderr, "peers: check %-8s %-8s %-12s %s\n", w.name, dt, p.col.field, status)
			}
			release()
		}
	}
	if c.json {
		if err := writeJSON(stdout, results); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", len(results)-failed, failed)
	}
	if failed > 0 {
		return fmt.Errorf("%w: %d of %d comparisons failed", errMismatch, failed, len(results))
	}
	return nil
}

// result runs a prepared column once and returns its output.
func (p *prepared) result() ([]float64, error) {
	if p.local != nil {
		if err := p.local.run(); err != nil {
			return nil, err
		}
		return p.local.result()
	}
	if _, err := p.worker.call(&request{Cmd: "run", ID: p.id}); err != nil {
		return nil, err
	}
	rep, err := p.worker.call(&request{Cmd: "result", ID: p.id})
	return rep.Data, err
}

// exact computes a task's exact result with op/ref and the per-element error bound (zero
// for integers).
func exact(t *Task) (want, bound []float64, err error) {
	a, b := operands(t)
	spec := &op.Spec{}
	if t.Kind == "conv" {
		s := t.Conv
		spec.Conv = &op.Conv2D{X: s.X, Y: s.Y, K: s.K, C: s.C, R: s.R, S: s.S, N: s.N, Stride: s.Stride,
			Pad: s.Pad, Dilation: s.Dilation, Groups: s.Groups, XIn: s.XIn, YIn: s.YIn}
	} else {
		spec.GEMM = &op.GEMM{M: t.M, N: t.N, K: t.K}
	}
	switch t.DType {
	case "float32", "float64", "bf16":
		acc, dt := op.AccF32, op.FP32
		switch t.DType {
		case "float64":
			acc, dt = op.AccF64, op.FP64
		case "bf16":
			dt = op.BF16
		}
		spec.Types = op.Types{A: dt, B: dt, Acc: acc, Out: op.FP64}
		want, err = ref.RunFloat(spec, a, b)
		if err != nil {
			return nil, nil, err
		}
		abs := func(v []float64) []float64 {
			o := make([]float64, len(v))
			for i, x := range v {
				o[i] = math.Abs(x)
			}
			return o
		}
		sums, err := ref.RunFloat(spec, abs(a), abs(b))
		if err != nil {
			return nil, nil, err
		}
		n := t.K
		if t.Kind == "conv" {
			n = t.Conv.R * t.Conv.S * t.Conv.C / t.Conv.Groups
		}
		bound = make([]float64, len(sums))
		for i, s := range sums {
			bound[i] = ref.FloatBound(n, s, acc)
			if t.DType == "bf16" {
				bound[i] = ref.BF16Bound(n, s)
			}
		}
		return want, bound, nil
	}
	ia, ib := make([]int64, len(a)), make([]int64, len(b))
	for i, v := range a {
		ia[i] = int64(v)
	}
	for i, v := range b {
		ib[i] = int64(v)
	}
	at, bt := op.Int16, op.Int16
	if t.DType == "u8s8" {
		at, bt = op.UInt8, op.Int8
	}
	// int32 accumulation wraps modulo 2^32 like VPADDD; the output is the accumulator itself.
	spec.Types = op.Types{A: at, B: bt, Acc: op.AccI32, Out: op.Int32}
	res, err := ref.Run(spec, ia, ib)
	if err != nil {
		return nil, nil, err
	}
	want = make([]float64, len(res.Out))
	for i, v := range res.Out {
		want[i] = float64(v)
	}
	return want, make([]float64, len(want)), nil
}

// operands regenerates a task's operands as the workers do, widened to float64.
func operands(t *Task) (a, b []float64) {
	switch t.DType {
	case "float32":
		fa, fb := make([]float32, t.aLen()), make([]float32, t.bLen())
		fillF32(fa, t.seedA())
		fillF32(fb, t.seedB())
		return widen(fa), widen(fb)
	case "float64":
		a, b = make([]float64, t.aLen()), make([]float64, t.bLen())
		fillF64(a, t.seedA())
		fillF64(b, t.seedB())
		return a, b
	case "bf16":
		ha, hb := make([]uint16, t.aLen()), make([]uint16, t.bLen())
		fillBF16(ha, t.seedA())
		fillBF16(hb, t.seedB())
		return widen(gemm.WidenBF16(ha)), widen(gemm.WidenBF16(hb))
	case "int16":
		ia, ib := make([]int16, t.aLen()), make([]int16, t.bLen())
		fillI16(ia, t.seedA())
		fillI16(ib, t.seedB())
		return widenInt(ia), widenInt(ib)
	}
	ua, ib := make([]uint8, t.aLen()), make([]int8, t.bLen())
	fillU8(ua, t.seedA(), u8Max)
	fillI8(ib, t.seedB())
	return widenInt(ua), widenInt(ib)
}

func widenInt[T int16 | int8 | uint8](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// within checks every element against the exact value and its bound.
func within(got, want, bound []float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d outputs, want %d", len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); !(d <= bound[i]) {
			return fmt.Errorf("output %d: got %v, want %v (error %.3g, bound %.3g)", i, got[i], want[i], d, bound[i])
		}
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
