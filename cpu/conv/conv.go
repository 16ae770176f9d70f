// Package conv is sumac's direct convolution for the host CPU: NHWC input, NHWC output, no
// im2col buffer, in the GEMM-like formulation of seed 004 (Fig. 3). The output pixels of a
// row play the role of GEMM rows (m), output channels the columns (n) and the filter taps
// times input channels the reduction (k); cpu/kernels' register-blocked micro-kernels update
// an MR x NR tile (6 output pixels x 16 output channels) of the output at a time.
//
// # Layouts
//
// Tensors follow op.Conv2D's canonical layouts: input [N][YIn][XIn][C], output [N][Y][X][K],
// weights [K][S][R][C/Groups] (output channel, filter row, filter column, input channel).
// A Conv plan packs the weights once (Pack*), as inference does: per group and per k block
// (a filter row's taps times a range of input channels), one micro-panel of 16 output
// channels after another, in the micro-kernels' packed-B layout (cpu/kernels). Run then
// reads the input in place.
//
// # Loop order (seed 004 Fig. 3)
//
// The reduction of one output row is split into k blocks. With one group and no dilation,
// the R taps of a filter row and the C input channels are adjacent in NHWC memory, so a
// block of k = R*C values is one contiguous run per output pixel and the micro-kernel reads
// six overlapping runs in place (row stride = stride*C): the "GEMM in disguise". Otherwise
// a block covers one tap. The loops, outermost first: work units (groups x pixel chunks x
// channel chunks, spread over the threads), k blocks (L2 of Fig. 3: the weights block stays
// in L2), pixel tiles of 6 (L5), channel panels of 16 (L4), the micro-kernel's k loop (L6).
// A pixel tile whose window crosses the zero padding or a row boundary is copied into a
// small 6 x k buffer first (seed 004's I_c packing, one tile at a time), so padding,
// stride, dilation and odd sizes need no special kernels.
//
// A 1x1 convolution with stride 1 and no padding is a GEMM over all pixels; its tiles run
// straight through the image without row boundaries (the 1x1 fast path).
//
// # Types
//
//   - float32: fp32 FMA, results within ref.FloatBound of the exact sum.
//   - int16 x int16 -> int32: VPMADDWD, exact modulo 2^32 (the int32 lanes wrap).
//   - uint8 x int8 -> int32 (Options.U8Path, the type cpu/gemm takes too): kernels.U8Fast
//     uses VPMADDUBSW, exact when every activation is in 0..127 (VPMADDUBSW saturates pairs
//     of products to int16 otherwise); kernels.U8Exact widens the activations and weights to
//     int16 and uses VPMADDWD, exact for the full uint8 range; kernels.U8Auto, the zero
//     value, is exact too: U8Fast when the weights are all in -64..64, else U8Exact.
//
// # Kernel sets
//
// A plan picks its micro-kernels once, when it is built, from the sets the CPU runs
// (cpu/kernels.ForDType; SUMAC_MAX_ISA caps them): float32 on AVX-512 (6 x 32 tiles) or
// AVX2 (6 x 16); int16 and uint8 x int8 on AVX-512 VNNI (6 x 32, VPDPWSSD and VPDPBUSD),
// AVX-VNNI (6 x 16, the same instructions on ymm) or AVX2 (VPMADDWD, VPMADDUBSW). Groups of
// fewer than 32 output channels (unless a multiple of 32) take the 16-channel families. The
// VNNI byte kernels do not saturate, so there every uint8 path is exact. ISA names the set.
//
// # Narrow groups
//
// Depth-wise convolutions and other groups with fewer than 8 output channels per group run
// channel by channel, vectorized across the channels (cpu/kernels' *Depthwise kernels,
// depthwise.go): a 16-channel GEMM panel would be mostly padding there.
package conv

import (
	"fmt"
	"runtime"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
)

// Options tune a plan.
type Options struct {
	// Threads is the number of goroutines Run uses; 0 means runtime.GOMAXPROCS(0).
	Threads int
	// U8Path selects the uint8 x int8 path (NewU8S8 only). The zero value, kernels.U8Auto,
	// is exact for every activation: the plan runs the fast kernel only when every weight
	// is in -64..64 (then no pair sum can saturate), else the exact path.
	U8Path kernels.U8Path
}

func (o Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// validate checks a shape; op.Parse validates specs, but plans can be built from a literal.
func validate(c *op.Conv2D) error {
	if c == nil {
		return fmt.Errorf("conv: nil shape")
	}
	for _, v := range []struct {
		name string
		v    int
	}{{"x", c.X}, {"y", c.Y}, {"k", c.K}, {"c", c.C}, {"r", c.R}, {"s", c.S}, {"n", c.N},
		{"stride", c.Stride}, {"dilation", c.Dilation}, {"groups", c.Groups}, {"xin", c.XIn}, {"yin", c.YIn}} {
		if v.v < 1 || v.v > op.MaxSize {
			return fmt.Errorf("conv: %s=%d out of range 1..%d", v.name, v.v, op.MaxSize)
		}
	}
	if c.Pad < 0 || c.Pad > op.MaxSize {
		return fmt.Errorf("conv: pad=%d out of range 0..%d", c.Pad, op.MaxSize)
	}
	if c.C%c.Groups != 0 || c.K%c.Groups != 0 {
		return fmt.Errorf("conv: groups=%d must divide c=%d and k=%d", c.Groups, c.C, c.K)
	}
	for _, d := range []struct {
		name      string
		out, in   int
		taps, pad int
	}{{"x", c.X, c.XIn, c.R, c.Pad}, {"y", c.Y, c.YIn, c.S, c.Pad}} {
		eff := (d.taps-1)*c.Dilation + 1
		if eff > d.in+2*d.pad {
			return fmt.Errorf("conv: filter extent %d exceeds the padded input %d along %s", eff, d.in+2*d.pad, d.name)
		}
		if maxOut := (d.in+2*d.pad-eff)/c.Stride + 1; d.out > maxOut {
			return fmt.Errorf("conv: %s=%d outputs but the input yields at most %d", d.name, d.out, maxOut)
		}
	}
	const maxElems = 1 << 40
	if int64(c.N)*int64(c.YIn)*int64(c.XIn)*int64(c.C) > maxElems ||
		int64(c.N)*int64(c.Y)*int64(c.X)*int64(c.K) > maxElems ||
		int64(c.K)*int64(c.S)*int64(c.R)*int64(c.C/c.Groups) > maxElems {
		return fmt.Errorf("conv: tensors too large")
	}
	return nil
}

func checkLen(what string, have, want int) error {
	if have != want {
		return fmt.Errorf("conv: %s has %d elements, the shape needs %d", what, have, want)
	}
	return nil
}
