package conv

import (
	"fmt"
	"sync"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/op"
)

// Block sizes: one k block's B micro-panel (kc x 16 values) is 16 KiB, half of the 32 KiB
// L1d (cpu.md), for every type.
const (
	kcF32 = 256
	kcI16 = 512
	kcU8  = 1024
)

// minPanelFill is the smallest group width (output channels per group) for which the
// 16-channel micro-kernels are used; narrower groups (depth-wise) run the plain loop.
const minPanelFill = 8

var (
	f32Kernel = kernel[float32, float32, float32]{
		mr: kernels.F32MR, nr: kernels.F32NR, kgroup: 1, kc: kcF32,
		run: func(tiles, kg int, a []float32, lda int, b, c []float32, ldc int, beta float32) {
			kernels.F32StridedTiles(tiles, kg, a, lda, b, c, ldc, 1, beta)
		},
		window: func(tiles, kg, segs, segStride int, a []float32, lda int, b, c []float32, ldc int, beta float32) {
			kernels.F32WindowTiles(tiles, kg, segs, segStride, a, lda, b, c, ldc, 1, beta)
		},
		windowRows: func(rows, tiles, kg, segs, segStride int, a []float32, lda int, b, c []float32, ldc int, beta float32) {
			kernels.F32WindowRowsTiles(rows, tiles, kg, segs, segStride, a, lda, b, c, ldc, 1, beta)
		},
		rows: func(rows, tiles, kg int, a []float32, lda int, b []float32, c []float32, ldc int, beta float32) {
			kernels.F32StridedRowsTiles(rows, tiles, kg, a, lda, b, c, ldc, 1, beta)
		},
		indirect: func(rows, tiles, kg int, a, alt []float32, offs []int, b, c []float32, ldc int, beta float32) {
			kernels.F32IndirectTiles(rows, tiles, kg, a, alt, offs, b, c, ldc, 1, beta)
		},
		shortRowsSlow: true,
	}
	i16Kernel = kernel[int16, int16, int32]{
		mr: kernels.I16MR, nr: kernels.I16NR, kgroup: kernels.I16KGroup, kc: kcI16,
		run: func(tiles, kg int, a []int16, lda int, b []int16, c []int32, ldc int, beta int32) {
			kernels.I16StridedTiles(tiles, kg, a, lda, b, c, ldc, 1, beta)
		},
		window: func(tiles, kg, segs, segStride int, a []int16, lda int, b []int16, c []int32, ldc int, beta int32) {
			kernels.I16WindowTiles(tiles, kg, segs, segStride, a, lda, b, c, ldc, 1, beta)
		},
		windowRows: func(rows, tiles, kg, segs, segStride int, a []int16, lda int, b []int16, c []int32, ldc int, beta int32) {
			kernels.I16WindowRowsTiles(rows, tiles, kg, segs, segStride, a, lda, b, c, ldc, 1, beta)
		},
		rows: func(rows, tiles, kg int, a []int16, lda int, b []int16, c []int32, ldc int, beta int32) {
			kernels.I16StridedRowsTiles(rows, tiles, kg, a, lda, b, c, ldc, 1, beta)
		},
		indirect: func(rows, tiles, kg int, a, alt []int16, offs []int, b []int16, c []int32, ldc int, beta int32) {
			kernels.I16IndirectTiles(rows, tiles, kg, a, alt, offs, b, c, ldc, 1, beta)
		},
	}
	u8Kernel = kernel[uint8, int8, int32]{
		mr: kernels.U8MR, nr: kernels.U8NR, kgroup: kernels.U8KGroup, kc: kcU8,
		run: func(tiles, kg int, a []uint8, lda int, b []int8, c []int32, ldc int, beta int32) {
			kernels.U8S8StridedTiles(tiles, kg, a, lda, b, c, ldc, 1, beta)
		},
		window: func(tiles, kg, segs, segStride int, a []uint8, lda int, b []int8, c []int32, ldc int, beta int32) {
			kernels.U8S8WindowTiles(tiles, kg, segs, segStride, a, lda, b, c, ldc, 1, beta)
		},
		windowRows: func(rows, tiles, kg, segs, segStride int, a []uint8, lda int, b []int8, c []int32, ldc int, beta int32) {
			kernels.U8S8WindowRowsTiles(rows, tiles, kg, segs, segStride, a, lda, b, c, ldc, 1, beta)
		},
		rows: func(rows, tiles, kg int, a []uint8, lda int, b []int8, c []int32, ldc int, beta int32) {
			kernels.U8S8StridedRowsTiles(rows, tiles, kg, a, lda, b, c, ldc, 1, beta)
		},
		indirect: func(rows, tiles, kg int, a, alt []uint8, offs []int, b []int8, c []int32, ldc int, beta int32) {
			kernels.U8S8IndirectTiles(rows, tiles, kg, a, alt, offs, b, c, ldc, 1, beta)
		},
	}
)

// F32 is a float32 convolution plan: the shape, the packed weights and the thread count.
// Run may be called from several goroutines at once.
type F32 struct {
	shape op.Conv2D
	e     *engine[float32, float32, float32]
	w     []float32 // canonical weights, kept only for the plain-loop path
	thr   int
}

// NewF32 packs canonical weights [K][S][R][C/Groups] for shape c.
func NewF32(c *op.Conv2D, weights []float32, o Options) (*F32, error) {
	if err := validate(c); err != nil {
		return nil, err
	}
	if err := checkLen("weights", len(weights), c.WLen()); err != nil {
		return nil, err
	}
	p := &F32{shape: *c, thr: o.threads()}
	if c.K/c.Groups < minPanelFill {
		p.w = append([]float32(nil), weights...)
	} else {
		p.e = newEngine(c, f32Kernel, weights, p.thr)
	}
	return p, nil
}

// ISA names the instruction set of the kernels the plan runs: "avx2", or "go" for plain Go
// loops (narrow groups) and the Go fallbacks.
func (p *F32) ISA() string { return engineISA(p.e != nil) }

// Run computes out = conv(in) for canonical NHWC in and out.
func (p *F32) Run(in, out []float32) error {
	if err := checkLen("input", len(in), p.shape.InLen()); err != nil {
		return err
	}
	if err := checkLen("output", len(out), p.shape.OutLen()); err != nil {
		return err
	}
	if p.e == nil {
		plainF32(&p.shape, in, p.w, out, p.thr)
		return nil
	}
	p.e.run(in, out)
	return nil
}

// I16 is an int16 x int16 -> int32 convolution plan (sums wrap modulo 2^32).
type I16 struct {
	shape op.Conv2D
	e     *engine[int16, int16, int32]
	w     []int16
	thr   int
}

// NewI16 packs canonical int16 weights [K][S][R][C/Groups] for shape c.
func NewI16(c *op.Conv2D, weights []int16, o Options) (*I16, error) {
	if err := validate(c); err != nil {
		return nil, err
	}
	if err := checkLen("weights", len(weights), c.WLen()); err != nil {
		return nil, err
	}
	p := &I16{shape: *c, thr: o.threads()}
	if c.K/c.Groups < minPanelFill {
		p.w = append([]int16(nil), weights...)
	} else {
		p.e = newEngine(c, i16Kernel, weights, p.thr)
	}
	return p, nil
}

// ISA names the instruction set of the kernels the plan runs (see F32.ISA).
func (p *I16) ISA() string { return engineISA(p.e != nil) }

// Run computes out = conv(in).
func (p *I16) Run(in []int16, out []int32) error {
	if err := checkLen("input", len(in), p.shape.InLen()); err != nil {
		return err
	}
	if err := checkLen("output", len(out), p.shape.OutLen()); err != nil {
		return err
	}
	if p.e == nil {
		plainInt(&p.shape, in, p.w, out, p.thr)
		return nil
	}
	p.e.run(in, out)
	return nil
}

// U8S8 is a uint8 x int8 -> int32 convolution plan. Its path (Options.U8Path) decides
// whether activations above 127 are allowed; see the package documentation.
type U8S8 struct {
	shape op.Conv2D
	path  kernels.U8Path // U8Fast or U8Exact (U8Auto resolved)
	fast  *engine[uint8, int8, int32]
	exact *engine[int16, int16, int32]
	w     []int8
	thr   int
	wide  sync.Pool // *[]int16: widened activations of the exact path
}

// NewU8S8 packs canonical int8 weights [K][S][R][C/Groups] for shape c.
func NewU8S8(c *op.Conv2D, weights []int8, o Options) (*U8S8, error) {
	if err := validate(c); err != nil {
		return nil, err
	}
	if err := checkLen("weights", len(weights), c.WLen()); err != nil {
		return nil, err
	}
	path := o.U8Path
	switch path {
	case kernels.U8Auto:
		// a plan serves many inputs, so only the weights can prove the fast path exact
		path = kernels.U8Exact
		if kernels.WeightsFitU8Fast(weights) {
			path = kernels.U8Fast
		}
	case kernels.U8Exact, kernels.U8Fast:
	default:
		return nil, fmt.Errorf("conv: %v", path.Check())
	}
	p := &U8S8{shape: *c, path: path, thr: o.threads()}
	switch {
	case c.K/c.Groups < minPanelFill:
		p.w = append([]int8(nil), weights...)
	case path == kernels.U8Exact:
		w16 := make([]int16, len(weights))
		for i, v := range weights {
			w16[i] = int16(v)
		}
		p.exact = newEngine(c, i16Kernel, w16, p.thr)
	default:
		p.fast = newEngine(c, u8Kernel, weights, p.thr)
	}
	return p, nil
}

// ISA names the instruction set of the kernels the plan runs (see F32.ISA).
func (p *U8S8) ISA() string { return engineISA(p.fast != nil || p.exact != nil) }

// Path reports the plan's uint8 path: kernels.U8Fast or kernels.U8Exact (U8Auto resolved).
func (p *U8S8) Path() kernels.U8Path { return p.path }

// Run computes out = conv(in). With an explicit kernels.U8Fast every activation must be in
// 0..127 for an exact result (not checked: the check would cost a pass over the input).
func (p *U8S8) Run(in []uint8, out []int32) error {
	if err := checkLen("input", len(in), p.shape.InLen()); err != nil {
		return err
	}
	if err := checkLen("output", len(out), p.shape.OutLen()); err != nil {
		return err
	}
	switch {
	case p.fast != nil:
		p.fast.run(in, out)
	case p.exact != nil:
		bp, _ := p.wide.Get().(*[]int16)
		if bp == nil {
			b := make([]int16, len(in))
			bp = &b
		}
		widen(*bp, in, p.thr)
		p.exact.run(*bp, out)
		p.wide.Put(bp)
	default:
		plainInt(&p.shape, in, p.w, out, p.thr)
	}
	return nil
}

// engineISA names the kernels' instruction set of a plan that runs the micro-kernels
// (engine) or plain loops.
func engineISA(engine bool) string {
	if !engine || !kernels.Accelerated() {
		return "go"
	}
	return "avx2"
}

// widen converts activations to int16, split over the threads for large inputs.
func widen(dst []int16, src []uint8, threads int) {
	const chunk = 1 << 16
	if threads <= 1 || len(src) < 2*chunk {
		widenRange(dst, src)
		return
	}
	per := roundUp(ceilDiv(len(src), threads), 8)
	team.Run(ceilDiv(len(src), per), func(t int) {
		lo, hi := t*per, min(len(src), (t+1)*per)
		widenRange(dst[lo:hi], src[lo:hi])
	})
}
