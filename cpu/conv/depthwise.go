package conv

import (
	"sync"
	"sync/atomic"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/op"
)

// Narrow groups (fewer than minPanelFill output channels per group: depth-wise and grouped
// convolutions whose 16-channel GEMM panels would be mostly padding) run channel by channel,
// vectorized across the channels (cpu/kernels' *Depthwise kernels): output channel o of
// pixel x is the sum over the filter taps (s, r) inside the input and the input channels i
// of its group of in[tap][g*cg + i] * w[o][s][r][i]. A depth-wise layer (one input and one
// output channel per group) reads its input in place: channel o of the tap is channel o of
// the input. Other narrow groups first expand the input to cg*K channels per pixel, channel
// (i, o) holding in[pixel][(o/kg)*cg + i], so that again channel o of every (tap, i) is
// lane o of a vector (the kernels' taps are then (s, r, i)). The kernels run one call per
// output row and range of filter taps: the pixels whose taps are all inside the input in one
// call, each border pixel (its taps clipped to the input) in a call of its own.

// dwEngine is a plan for narrow groups with input A, weights W (32 bits per value) and
// output C.
type dwEngine[A, W, C elem] struct {
	c      op.Conv2D
	isa    kernels.ISA
	lanes  int
	kern   func(px, ch int, in []A, taps []int, w []W, out []C, xstep, ostep int)
	mul    func(A, W) C // one product, for the channels past the last whole vector
	w      []W          // [S][R][cg][K]
	cg, kg int
	expand bool // the input is expanded to cx = cg*K channels per pixel
	cx     int  // channels per pixel of the input the kernels read
	kv     int  // output channels in whole vectors (the rest: plain loop)
	// xl, xr: the output columns [xl, xr) whose taps are all inside the input horizontally
	xl, xr  int
	tables  map[[4]int][]int // tap tables by (s0, s1, r0, r1)
	threads int
	pool    sync.Pool // *[]A: the expanded input
}

// newDW packs canonical weights [K][S][R][cg] (wAt(i) is element i, converted) for the
// depthwise kernels of set isa, lanes channels a vector.
func newDW[A, W, C elem](c *op.Conv2D, isa kernels.ISA, lanes int, kern func(px, ch int, in []A, taps []int, w []W, out []C, xstep, ostep int),
	mul func(A, W) C, wAt func(int) W, threads int) *dwEngine[A, W, C] {
	e := &dwEngine[A, W, C]{c: *c, isa: isa, lanes: lanes, kern: kern, mul: mul, threads: threads}
	e.cg, e.kg = c.C/c.Groups, c.K/c.Groups
	e.expand = e.cg != 1 || e.kg != 1
	e.cx = c.C
	if e.expand {
		e.cx = e.cg * c.K
	}
	e.kv = c.K / lanes * lanes
	e.w = make([]W, c.S*c.R*e.cg*c.K)
	for o := 0; o < c.K; o++ {
		for s := 0; s < c.S; s++ {
			for r := 0; r < c.R; r++ {
				for i := 0; i < e.cg; i++ {
					e.w[((s*c.R+r)*e.cg+i)*c.K+o] = wAt(c.WIndex(r, s, i, o))
				}
			}
		}
	}
	// Interior columns: x*stride - pad >= 0 and x*stride - pad + (R-1)*dil <= XIn-1.
	e.xl = min(c.X, ceilDiv(c.Pad, c.Stride))
	e.xr = max(e.xl, min(c.X, floorDiv(c.XIn-1+c.Pad-(c.R-1)*c.Dilation, c.Stride)+1))
	e.tables = map[[4]int][]int{}
	for y := 0; y < c.Y; y++ {
		s0, s1 := e.taps(y, c.S, c.YIn)
		for x := 0; x < c.X; x++ {
			r0, r1 := e.taps(x, c.R, c.XIn)
			e.table(s0, s1, r0, r1)
		}
	}
	return e
}

func floorDiv(a, b int) int {
	if a < 0 {
		return -((-a + b - 1) / b)
	}
	return a / b
}

// taps returns the filter taps [t0, t1) of output position p (a row or column) that fall
// inside the input's n positions.
func (e *dwEngine[A, W, C]) taps(p, taps, n int) (int, int) {
	c := &e.c
	o := p*c.Stride - c.Pad
	t0 := 0
	if o < 0 {
		t0 = min(taps, ceilDiv(-o, c.Dilation))
	}
	t1 := taps
	if last := o + (taps-1)*c.Dilation; last >= n {
		t1 = max(t0, taps-ceilDiv(last-n+1, c.Dilation))
	}
	return t0, t1
}

// table returns the tap table for filter rows [s0, s1) and columns [r0, r1): pairs of the
// input offset from the pixel's first tap (s0, r0) and the weight offset, for every tap and
// input channel of the group.
func (e *dwEngine[A, W, C]) table(s0, s1, r0, r1 int) []int {
	key := [4]int{s0, s1, r0, r1}
	if t, ok := e.tables[key]; ok {
		return t
	}
	c := &e.c
	var t []int
	for s := s0; s < s1; s++ {
		for r := r0; r < r1; r++ {
			for i := 0; i < e.cg; i++ {
				io := ((s-s0)*c.Dilation*c.XIn + (r-r0)*c.Dilation) * e.cx
				if e.expand {
					io += i * c.K
				}
				t = append(t, io, ((s*c.R+r)*e.cg+i)*c.K)
			}
		}
	}
	e.tables[key] = t
	return t
}

// run computes out = conv(in).
func (e *dwEngine[A, W, C]) run(in []A, out []C) {
	c := &e.c
	src := in
	if e.expand {
		bp, _ := e.pool.Get().(*[]A)
		if bp == nil {
			b := make([]A, c.N*c.YIn*c.XIn*e.cx)
			bp = &b
		}
		defer e.pool.Put(bp)
		src = *bp
		pixels := c.N * c.YIn * c.XIn
		th := min(e.threads, max(1, pixels/256))
		team.Run(th, func(t int) { e.expandRange(src, in, t*pixels/th, (t+1)*pixels/th) })
	}
	rows := c.N * c.Y
	if e.threads <= 1 || rows == 1 {
		for r := 0; r < rows; r++ {
			e.row(src, out, r/c.Y, r%c.Y)
		}
		return
	}
	var next atomic.Int64
	team.Run(min(e.threads, rows), func(int) {
		for {
			r := int(next.Add(1)) - 1
			if r >= rows {
				return
			}
			e.row(src, out, r/c.Y, r%c.Y)
		}
	})
}

// expandRange writes pixels [p0, p1) of the expanded input: channel i*K + o holds channel
// (o/kg)*cg + i of the pixel.
func (e *dwEngine[A, W, C]) expandRange(dst, in []A, p0, p1 int) {
	c := &e.c
	for p := p0; p < p1; p++ {
		src := in[p*c.C : (p+1)*c.C]
		d := dst[p*e.cx : (p+1)*e.cx]
		for i := 0; i < e.cg; i++ {
			di := d[i*c.K : (i+1)*c.K]
			for g := 0; g < c.Groups; g++ {
				v := src[g*e.cg+i]
				for j := range di[g*e.kg : (g+1)*e.kg] {
					di[g*e.kg+j] = v
				}
			}
		}
	}
}

// row computes output row y of image n.
func (e *dwEngine[A, W, C]) row(in []A, out []C, n, y int) {
	c := &e.c
	s0, s1 := e.taps(y, c.S, c.YIn)
	iy := y*c.Stride - c.Pad + s0*c.Dilation // the first tap row inside the input
	ob := (n*c.Y + y) * c.X * c.K
	if s0 == s1 {
		clear(out[ob : ob+c.X*c.K])
		return
	}
	pixel := func(x0, px, r0, r1 int) {
		t := e.table(s0, s1, r0, r1)
		if r0 == r1 {
			clear(out[ob+x0*c.K : ob+(x0+px)*c.K])
			return
		}
		ix := x0*c.Stride - c.Pad + r0*c.Dilation
		ib := ((n*c.YIn+iy)*c.XIn + ix) * e.cx
		if e.kv > 0 {
			e.kern(px, e.kv, in[ib:], t, e.w, out[ob+x0*c.K:], c.Stride*e.cx, c.K)
		}
		for o := e.kv; o < c.K; o++ { // channels past the last whole vector
			for x := 0; x < px; x++ {
				var sum C
				for k := 0; k < len(t); k += 2 {
					sum += e.mul(in[ib+x*c.Stride*e.cx+t[k]+o], e.w[t[k+1]+o])
				}
				out[ob+(x0+x)*c.K+o] = sum
			}
		}
	}
	for x := 0; x < e.xl; x++ {
		r0, r1 := e.taps(x, c.R, c.XIn)
		pixel(x, 1, r0, r1)
	}
	if e.xr > e.xl {
		pixel(e.xl, e.xr-e.xl, 0, c.R)
	}
	for x := max(e.xr, e.xl); x < c.X; x++ {
		r0, r1 := e.taps(x, c.R, c.XIn)
		pixel(x, 1, r0, r1)
	}
}

// The depthwise families of each type: the widest set that runs whose vectors divide the
// output channels (AVX-512's 16 lanes, else AVX2's or AVX-VNNI's 8), or the widest if none
// does (the channels past the last vector run a plain loop).

func dwF32(c *op.Conv2D, w []float32, threads int) *dwEngine[float32, float32, float32] {
	isa, lanes, kern := kernels.ISAAVX2, kernels.F32DepthwiseLanes, kernels.F32Depthwise
	if kernels.ForDType("float32") == kernels.ISAAVX512 && (c.K%kernels.F32ZDepthwiseLanes == 0 || c.K%lanes != 0) {
		isa, lanes, kern = kernels.ISAAVX512, kernels.F32ZDepthwiseLanes, kernels.F32ZDepthwise
	}
	return newDW(c, isa, lanes, kern, func(a, b float32) float32 { return a * b }, func(i int) float32 { return w[i] }, threads)
}

func dwI16(c *op.Conv2D, w []int16, threads int) *dwEngine[int16, int32, int32] {
	isa, lanes, kern := kernels.ISAAVX2, kernels.I16DepthwiseLanes, kernels.I16Depthwise
	switch s := kernels.ForDType("int16"); {
	case s == kernels.ISAAVX512VNNI && (c.K%kernels.I16ZVDepthwiseLanes == 0 || c.K%lanes != 0):
		isa, lanes, kern = s, kernels.I16ZVDepthwiseLanes, kernels.I16ZVDepthwise
	case s == kernels.ISAAVX2VNNI || s == kernels.ISAAVX512VNNI && kernels.Runs(kernels.ISAAVX2VNNI):
		isa, lanes, kern = kernels.ISAAVX2VNNI, kernels.I16VDepthwiseLanes, kernels.I16VDepthwise
	}
	return newDW(c, isa, lanes, kern, func(a int16, b int32) int32 { return int32(a) * b }, func(i int) int32 { return int32(w[i]) }, threads)
}

func dwU8S8(c *op.Conv2D, w []int8, threads int) *dwEngine[uint8, int32, int32] {
	isa, lanes, kern := kernels.ISAAVX2, kernels.U8S8DepthwiseLanes, kernels.U8S8Depthwise
	switch s := kernels.ForDType("u8s8"); {
	case s == kernels.ISAAVX512VNNI && (c.K%kernels.U8S8ZVDepthwiseLanes == 0 || c.K%lanes != 0):
		isa, lanes, kern = s, kernels.U8S8ZVDepthwiseLanes, kernels.U8S8ZVDepthwise
	case s == kernels.ISAAVX2VNNI || s == kernels.ISAAVX512VNNI && kernels.Runs(kernels.ISAAVX2VNNI):
		isa, lanes, kern = kernels.ISAAVX2VNNI, kernels.U8S8VDepthwiseLanes, kernels.U8S8VDepthwise
	}
	return newDW(c, isa, lanes, kern, func(a uint8, b int32) int32 { return int32(a) * b }, func(i int) int32 { return int32(w[i]) }, threads)
}
