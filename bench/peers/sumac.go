package main

import (
	"fmt"

	"github.com/sumacdev/sumac/cpu/conv"
	"github.com/sumacdev/sumac/op"
)

// prepareSumac builds sumac's implementation of a task on the same operands the workers
// generate: the convolution plan packs its weights here, outside the timed calls, as
// oneDNN's weight reorder is outside them.
func prepareSumac(t *Task, threads int, exactPath bool) (*peerOp, error) {
	if t.Kind == "conv" {
		return sumacConv(t, threads, exactPath)
	}
	return sumacGEMM(t, threads, exactPath)
}

func sumacConv(t *Task, threads int, exactPath bool) (*peerOp, error) {
	s := t.Conv
	shape := &op.Conv2D{X: s.X, Y: s.Y, K: s.K, C: s.C, R: s.R, S: s.S, N: s.N, Stride: s.Stride,
		Pad: s.Pad, Dilation: s.Dilation, Groups: s.Groups, XIn: s.XIn, YIn: s.YIn}
	opt := conv.Options{Threads: threads}
	switch t.DType {
	case "float32":
		in, w := make([]float32, t.aLen()), make([]float32, t.bLen())
		fillF32(in, t.seedA())
		fillF32(w, t.seedB())
		p, err := conv.NewF32(shape, w, opt)
		if err != nil {
			return nil, err
		}
		out := make([]float32, t.cLen())
		return &peerOp{run: func() error { return p.Run(in, out) },
			result: func() ([]float64, error) { return widen(out), nil }, free: func() {}}, nil
	case "int16":
		in, w := make([]int16, t.aLen()), make([]int16, t.bLen())
		fillI16(in, t.seedA())
		fillI16(w, t.seedB())
		p, err := conv.NewI16(shape, w, opt)
		if err != nil {
			return nil, err
		}
		out := make([]int32, t.cLen())
		return &peerOp{run: func() error { return p.Run(in, out) },
			result: func() ([]float64, error) { return widen(out), nil }, free: func() {}}, nil
	case "u8s8":
		in, w := make([]uint8, t.aLen()), make([]int8, t.bLen())
		fillU8(in, t.seedA(), u8Max)
		fillI8(w, t.seedB())
		if exactPath {
			opt.U8 = conv.U8Exact
		}
		p, err := conv.NewU8S8(shape, w, opt)
		if err != nil {
			return nil, err
		}
		out := make([]int32, t.cLen())
		return &peerOp{run: func() error { return p.Run(in, out) },
			result: func() ([]float64, error) { return widen(out), nil }, free: func() {}}, nil
	}
	return nil, fmt.Errorf("no %s convolution in sumac", t.DType)
}

// sumacGEMM is a STAND-IN (plain loops) until cpu/gemm lands: its figures are not sumac's.
func sumacGEMM(t *Task, threads int, exactPath bool) (*peerOp, error) {
	_, _ = threads, exactPath
	a, b := operands(t)
	c := make([]float64, t.cLen())
	wrap := t.DType == "int16" || t.DType == "u8s8"
	return &peerOp{free: func() {},
		result: func() ([]float64, error) {
			if !wrap {
				return c, nil
			}
			// int32 accumulation wraps modulo 2^32; these float64 sums are exact integers.
			o := make([]float64, len(c))
			for i, v := range c {
				o[i] = float64(int32(int64(v)))
			}
			return o, nil
		},
		run: func() error {
			for i := 0; i < t.M; i++ {
				row := c[i*t.N : (i+1)*t.N]
				clear(row)
				for p := 0; p < t.K; p++ {
					av := a[i*t.K+p]
					for j, bv := range b[p*t.N : (p+1)*t.N] {
						row[j] += av * bv
					}
				}
			}
			return nil
		}}, nil
}
