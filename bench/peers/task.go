package main

import (
	"fmt"

	"github.com/sumacdev/sumac/num"
)

// Task is one measured operation: a GEMM or a convolution of one element type. The parent
// sends it to each worker, which builds the same operands from Seed, so every library
// multiplies the same numbers.
type Task struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`  // "gemm" or "conv"
	DType string `json:"dtype"` // float32, float64, int16, u8s8, bf16
	// Variant selects a peer's flavour: for oneDNN convolution "nhwc" or "any".
	Variant string `json:"variant,omitempty"`
	Seed    uint64 `json:"seed"`

	// GEMM: row-major C(m x n) = A(m x k) * B(k x n).
	M, N, K int `json:",omitempty"`

	// Convolution in op.Conv2D's terms: input [Batch][YIn][XIn][C] (NHWC), weights
	// [Kout][S][R][C/Groups], output [Batch][Y][X][Kout].
	Conv *ConvShape `json:"conv,omitempty"`
}

// ConvShape mirrors op.Conv2D (kept as plain fields so the worker protocol is explicit).
type ConvShape struct {
	X, Y, K, C, R, S, N           int
	Stride, Pad, Dilation, Groups int
	XIn, YIn                      int
}

// maxElems bounds every operand a worker allocates (16 GiB of float32 would not fit anyway).
const maxElems = 1 << 32

// validate rejects tasks a worker must not try to allocate or run.
func (t *Task) validate() error {
	switch t.DType {
	case "float32", "float64", "int16", "u8s8", "bf16":
	default:
		return fmt.Errorf("unknown dtype %q", t.DType)
	}
	pos := func(vs ...int) bool {
		for _, v := range vs {
			if v < 1 || v > 1<<24 {
				return false
			}
		}
		return true
	}
	switch t.Kind {
	case "gemm":
		if !pos(t.M, t.N, t.K) {
			return fmt.Errorf("gemm sizes m=%d n=%d k=%d out of range", t.M, t.N, t.K)
		}
	case "conv":
		c := t.Conv
		if c == nil || !pos(c.X, c.Y, c.K, c.C, c.R, c.S, c.N, c.Stride, c.Dilation, c.Groups, c.XIn, c.YIn) ||
			c.Pad < 0 || c.Pad > 1<<24 || c.C%c.Groups != 0 || c.K%c.Groups != 0 {
			return fmt.Errorf("bad convolution shape %+v", c)
		}
		if (c.X-1)*c.Stride+(c.R-1)*c.Dilation+1 > c.XIn+2*c.Pad || (c.Y-1)*c.Stride+(c.S-1)*c.Dilation+1 > c.YIn+2*c.Pad {
			return fmt.Errorf("convolution output larger than its input allows")
		}
	default:
		return fmt.Errorf("unknown kind %q", t.Kind)
	}
	for _, n := range []int{t.aLen(), t.bLen(), t.cLen()} {
		if n <= 0 || n > maxElems {
			return fmt.Errorf("operand of %d elements out of range", n)
		}
	}
	return nil
}

// MACs is the nominal multiply-accumulate count: padding taps included, as op.Conv2D.MACs
// counts them, so every library's rate is over the same work.
func (t *Task) MACs() int64 {
	if t.Kind == "conv" {
		c := t.Conv
		return int64(c.N) * int64(c.K) * int64(c.Y) * int64(c.X) * int64(c.C/c.Groups) * int64(c.R) * int64(c.S)
	}
	return int64(t.M) * int64(t.N) * int64(t.K)
}

// Sizes of the canonical operands.
func (t *Task) aLen() int {
	if t.Kind == "conv" {
		return t.Conv.N * t.Conv.YIn * t.Conv.XIn * t.Conv.C
	}
	return t.M * t.K
}

func (t *Task) bLen() int {
	if t.Kind == "conv" {
		c := t.Conv
		return c.K * c.S * c.R * (c.C / c.Groups)
	}
	return t.K * t.N
}

func (t *Task) cLen() int {
	if t.Kind == "conv" {
		return t.Conv.N * t.Conv.Y * t.Conv.X * t.Conv.K
	}
	return t.M * t.N
}

// weightStrides are the element strides of the canonical weights [K][S][R][C/G] for the
// logical dimensions (group, output channel in group, input channel in group, S, R).
func (c *ConvShape) weightStrides() [5]int64 {
	cg, kg := int64(c.C/c.Groups), int64(c.K/c.Groups)
	r, s := int64(c.R), int64(c.S)
	return [5]int64{kg * s * r * cg, s * r * cg, 1, r * cg, cg}
}

// splitMix64 is a small deterministic generator (Steele et al., "Fast splittable
// pseudorandom number generators", OOPSLA 2014): parent and workers derive identical
// operands from a seed without shipping them through pipes.
type splitMix64 uint64

func (s *splitMix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Operand value ranges. Activations of u8s8 stay in 0..127, the range oneDNN's AVX2 int8
// kernels (VPMADDUBSW without VNNI) compute exactly and the range cpu.md's figures used.
const (
	u8Max = 127
)

func fillF32(dst []float32, seed uint64) {
	s := splitMix64(seed)
	for i := range dst {
		// Uniform in [-1, 1): 24 random bits, exactly representable.
		dst[i] = float32(int32(s.next()>>40)-(1<<23)) / (1 << 23)
	}
}

// fillBF16 is fillF32's values rounded to bf16 (nearest, ties to even: num.ToBF16), as
// uint16; every library gets the same bf16 operands.
func fillBF16(dst []uint16, seed uint64) {
	f := make([]float32, len(dst))
	fillF32(f, seed)
	for i, v := range f {
		dst[i] = uint16(num.ToBF16(v))
	}
}

func fillF64(dst []float64, seed uint64) {
	s := splitMix64(seed)
	for i := range dst {
		dst[i] = float64(int64(s.next()>>11)-(1<<52)) / (1 << 52)
	}
}

func fillI16(dst []int16, seed uint64) {
	s := splitMix64(seed)
	for i := range dst {
		dst[i] = int16(s.next())
	}
}

func fillU8(dst []uint8, seed uint64, max uint64) {
	s := splitMix64(seed)
	for i := range dst {
		dst[i] = uint8(s.next() % (max + 1))
	}
}

func fillI8(dst []int8, seed uint64) {
	s := splitMix64(seed)
	for i := range dst {
		dst[i] = int8(s.next())
	}
}

// Seeds of the two operands of a task.
func (t *Task) seedA() uint64 { return t.Seed*2 + 1 }
func (t *Task) seedB() uint64 { return t.Seed*2 + 2 }

func (t *Task) String() string {
	v := ""
	if t.Variant != "" {
		v = "/" + t.Variant
	}
	return fmt.Sprintf("%s %s%s", t.Name, t.DType, v)
}
