package main

import (
	"fmt"

	"github.com/sumacdev/sumac/cpu/conv"
	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
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
			result: func() ([]float64, error) { return widen(out), nil }, free: func() {}, impl: p.ISA()}, nil
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
			result: func() ([]float64, error) { return widen(out), nil }, free: func() {}, impl: p.ISA()}, nil
	case "u8s8":
		in, w := make([]uint8, t.aLen()), make([]int8, t.bLen())
		fillU8(in, t.seedA(), u8Max)
		fillI8(w, t.seedB())
		opt.U8Path = kernels.U8Fast
		if exactPath {
			opt.U8Path = kernels.U8Exact
		}
		p, err := conv.NewU8S8(shape, w, opt)
		if err != nil {
			return nil, err
		}
		out := make([]int32, t.cLen())
		return &peerOp{run: func() error { return p.Run(in, out) },
			result: func() ([]float64, error) { return widen(out), nil }, free: func() {}, impl: p.ISA()}, nil
	}
	return nil, fmt.Errorf("no %s convolution in sumac", t.DType)
}

// sumacGEMM runs cpu/gemm on row-major operands (C = A*B, beta 0). u8s8 uses the fast
// VPMADDUBSW path for activations in 0..127, or the exact int16 path.
func sumacGEMM(t *Task, threads int, exactPath bool) (*peerOp, error) {
	m, n, k := t.M, t.N, t.K
	o := gemm.Options{Threads: threads}
	nt := gemm.NoTrans
	isa := gemm.KernelISA(t.DType)
	if t.DType == "u8s8" && exactPath {
		isa = gemm.KernelISA("u8s8-exact") // the exact path widens to int16
	}
	switch t.DType {
	case "float32":
		a, b, c := make([]float32, t.aLen()), make([]float32, t.bLen()), make([]float32, t.cLen())
		fillF32(a, t.seedA())
		fillF32(b, t.seedB())
		return &peerOp{run: func() error { return o.Sgemm(nt, nt, m, n, k, 1, a, k, b, n, 0, c, n) },
			result: func() ([]float64, error) { return widen(c), nil }, free: func() {}, impl: isa}, nil
	case "float64":
		a, b, c := make([]float64, t.aLen()), make([]float64, t.bLen()), make([]float64, t.cLen())
		fillF64(a, t.seedA())
		fillF64(b, t.seedB())
		return &peerOp{run: func() error { return o.Dgemm(nt, nt, m, n, k, 1, a, k, b, n, 0, c, n) },
			result: func() ([]float64, error) { return widen(c), nil }, free: func() {}, impl: isa}, nil
	case "int16":
		a, b, c := make([]int16, t.aLen()), make([]int16, t.bLen()), make([]int32, t.cLen())
		fillI16(a, t.seedA())
		fillI16(b, t.seedB())
		return &peerOp{run: func() error { return o.GemmI16(nt, nt, m, n, k, 1, a, k, b, n, 0, c, n) },
			result: func() ([]float64, error) { return widen(c), nil }, free: func() {}, impl: isa}, nil
	case "u8s8":
		a, b, c := make([]uint8, t.aLen()), make([]int8, t.bLen()), make([]int32, t.cLen())
		fillU8(a, t.seedA(), u8Max)
		fillI8(b, t.seedB())
		o.U8Path = kernels.U8Fast
		if exactPath {
			o.U8Path = kernels.U8Exact
		}
		return &peerOp{run: func() error { return o.GemmU8S8(nt, nt, m, n, k, 1, a, k, b, n, 0, c, n) },
			result: func() ([]float64, error) { return widen(c), nil }, free: func() {}, impl: isa}, nil
	}
	return nil, fmt.Errorf("no %s GEMM in sumac", t.DType)
}
