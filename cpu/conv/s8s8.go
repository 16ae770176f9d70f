package conv

import (
	"sync"
	"unsafe"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/op"
)

// S8S8 is an int8 x int8 -> int32 convolution plan (sums wrap modulo 2^32), exact for every
// input on every path. The paths, best first:
//
//   - amx: where the AMX tile kernels run, TDPBSSD multiplies int8 by int8 directly (the
//     direct tile convolution of amxdirect.go, else the AMX GEMM lowering of gemmconv.go);
//   - shifted: the uint8 x int8 byte kernels (VPDPBUSD on the VNNI sets; VPMADDUBSW on AVX2
//     and in the Go fallbacks, exact there only when every weight is in -64..64, which the
//     plan checks) on the input shifted to uint8, x + 128 (x XOR 0x80), with a compensation
//     subtracted afterwards: sum((x+128)*w) = sum(x*w) + 128*sum(w) over the taps inside the
//     image (a tap in the zero padding reads 0 in both domains), so the plan precomputes
//     128*sum(w) for every distinct set of in-image taps (one per border row and column
//     class: a few per layer) and subtracts it per output pixel (VPDPBUSD and VPMADDUBSW
//     take only unsigned activations);
//   - widened: both operands widened to int16 and the int16 kernels (VPMADDWD / VPDPWSSD),
//     as gemm.GemmS8S8 does without AMX: for weights outside -64..64 where the byte kernels
//     would saturate, and for narrow groups (the int16 depth-wise kernels).
//
// Run may be called from several goroutines at once.
type S8S8 struct {
	shape op.Conv2D
	amx   convRunner[int8, int32]
	fast  *engine[uint8, int8, int32] // shifted path
	comp  *s8Comp
	wideE *engine[int16, int16, int32] // widened path
	dw    *dwEngine[int16, int32, int32]
	thr   int
	buf   sync.Pool // *[]uint8 (shifted) or *[]int16 (widened) activations
}

// NewS8S8 packs canonical int8 weights [K][S][R][C/Groups] for shape c.
func NewS8S8(c *op.Conv2D, weights []int8, o Options) (*S8S8, error) {
	if err := validate(c); err != nil {
		return nil, err
	}
	if err := checkLen("weights", len(weights), c.WLen()); err != nil {
		return nil, err
	}
	p := &S8S8{shape: *c, thr: o.threads()}
	kg := c.K / c.Groups
	switch {
	case amxConv(c):
		p.amx = newAMXS8S8(c, weights, p.thr)
	case kg < minPanelFill:
		p.dw = dwI16(c, widenS8(weights), p.thr)
	case exactBytes(kernelSet("u8s8", kg)) || kernels.WeightsFitU8Fast(weights):
		p.fast = newEngine(c, u8Kernel(kernelSet("u8s8", kg)), weights, p.thr)
		p.comp = newS8Comp(c, weights)
	default:
		p.wideE = newEngine(c, i16Kernel(kernelSet("int16", kg)), widenS8(weights), p.thr)
	}
	return p, nil
}

// ISA names the instruction set of the kernels the plan runs (see F32.ISA).
func (p *S8S8) ISA() string {
	switch {
	case p.amx != nil:
		return kernels.ISAAMX.String()
	case p.dw != nil:
		return dwISA(p.dw)
	case p.fast != nil:
		return engineISA(p.fast)
	}
	return engineISA(p.wideE)
}

// Path names the plan's path: "amx", "shifted" (uint8 byte kernels on x+128 with the
// compensation) or "widened" (int16 kernels).
func (p *S8S8) Path() string {
	switch {
	case p.amx != nil:
		return "amx"
	case p.fast != nil:
		return "shifted"
	}
	return "widened"
}

// Run computes out = conv(in) for canonical NHWC in (int8) and out (int32).
func (p *S8S8) Run(in []int8, out []int32) error {
	if err := checkLen("input", len(in), p.shape.InLen()); err != nil {
		return err
	}
	if err := checkLen("output", len(out), p.shape.OutLen()); err != nil {
		return err
	}
	switch {
	case p.amx != nil:
		return p.amx.run(in, out)
	case p.fast != nil:
		b := getBuf[uint8](&p.buf, len(in))
		defer p.buf.Put(b)
		shiftS8(*b, in, p.thr)
		p.fast.run(*b, out)
		p.comp.apply(out, p.thr)
	default:
		b := getBuf[int16](&p.buf, len(in))
		defer p.buf.Put(b)
		parallel(len(in), p.thr, func(lo, hi int) {
			for i, v := range in[lo:hi] {
				(*b)[lo+i] = int16(v)
			}
		})
		if p.dw != nil {
			p.dw.run(*b, out)
		} else {
			p.wideE.run(*b, out)
		}
	}
	return nil
}

func widenS8(w []int8) []int16 {
	v := make([]int16, len(w))
	for i, x := range w {
		v[i] = int16(x)
	}
	return v
}

// parallel splits 0..n over the threads in chunks of a multiple of 64 (serial below 128 Ki).
func parallel(n, threads int, f func(lo, hi int)) {
	const chunk = 1 << 16
	if threads <= 1 || n < 2*chunk {
		f(0, n)
		return
	}
	per := roundUp(ceilDiv(n, threads), 64)
	team.Run(ceilDiv(n, per), func(t int) {
		f(t*per, min(n, (t+1)*per))
	})
}

// shiftS8 writes x + 128 as uint8 (x XOR 0x80) for every int8 x of src, eight at a time.
func shiftS8(dst []uint8, src []int8, threads int) {
	parallel(len(src), threads, func(lo, hi int) {
		s, d := src[lo:hi], dst[lo:hi]
		i := 0
		for ; i+8 <= len(s); i += 8 {
			*(*uint64)(unsafe.Pointer(&d[i])) = *(*uint64)(unsafe.Pointer(&s[i])) ^ 0x8080808080808080
		}
		for ; i < len(s); i++ {
			d[i] = uint8(s[i]) ^ 0x80
		}
	})
}

// s8Comp is the shifted path's compensation: for output pixel (y, x), 128 times the sum of
// the weights of the taps inside the image, per output channel. Along y the taps inside are
// filter rows s0..s1 (a range: the input row y*stride - pad + s*dilation grows with s), along
// x columns r0..r1, so the pixels fall into a few classes (interior, each border row and
// column) and the table holds one K-vector per pair of classes.
type s8Comp struct {
	shape  op.Conv2D
	yc, xc []int   // class of each output row and column
	nx     int     // column classes
	tab    []int32 // [row class][column class][K]
}

// tapRange is the range [lo, hi) of taps whose input index (o*stride - pad + t*dilation) lies
// in 0..in-1.
func tapRange(o, stride, pad, dil, taps, in int) (lo, hi int) {
	lo, hi = taps, 0
	for t := 0; t < taps; t++ {
		if i := o*stride - pad + t*dil; i >= 0 && i < in {
			lo, hi = min(lo, t), t+1
		}
	}
	if hi == 0 {
		lo = 0
	}
	return lo, hi
}

func newS8Comp(c *op.Conv2D, w []int8) *s8Comp {
	cg := c.C / c.Groups
	// ws[k][s][r]: the sum of tap (s, r)'s weights of output channel k (wrapping int32)
	ws := make([]int32, c.K*c.S*c.R)
	for k := 0; k < c.K; k++ {
		for t := 0; t < c.S*c.R; t++ {
			var sum int32
			for _, v := range w[(k*c.S*c.R+t)*cg:][:cg] {
				sum += int32(v)
			}
			ws[k*c.S*c.R+t] = sum
		}
	}
	classes := func(n, stride, taps, in int) (cls []int, ranges [][2]int) {
		idx := map[[2]int]int{}
		for o := 0; o < n; o++ {
			lo, hi := tapRange(o, stride, c.Pad, c.Dilation, taps, in)
			key := [2]int{lo, hi}
			i, ok := idx[key]
			if !ok {
				i = len(ranges)
				idx[key] = i
				ranges = append(ranges, key)
			}
			cls = append(cls, i)
		}
		return cls, ranges
	}
	p := &s8Comp{shape: *c}
	var yr, xr [][2]int
	p.yc, yr = classes(c.Y, c.Stride, c.S, c.YIn)
	p.xc, xr = classes(c.X, c.Stride, c.R, c.XIn)
	p.nx = len(xr)
	p.tab = make([]int32, len(yr)*len(xr)*c.K)
	for i, y := range yr {
		for j, x := range xr {
			t := p.tab[(i*len(xr)+j)*c.K:][:c.K]
			for k := range t {
				var sum int32
				for s := y[0]; s < y[1]; s++ {
					for r := x[0]; r < x[1]; r++ {
						sum += ws[(k*c.S+s)*c.R+r]
					}
				}
				t[k] = 128 * sum
			}
		}
	}
	return p
}

// apply subtracts the compensation from every output pixel.
func (p *s8Comp) apply(out []int32, threads int) {
	c := &p.shape
	rows := c.N * c.Y
	if len(out) < 1<<16 {
		threads = 1
	}
	threads = max(1, min(threads, rows))
	team.Run(threads, func(th int) {
		for row := th * rows / threads; row < (th+1)*rows/threads; row++ {
			y := row % c.Y
			o := out[row*c.X*c.K:][:c.X*c.K]
			for x := 0; x < c.X; {
				// a run of pixels of one class (the interior of a row is one run)
				x1 := x + 1
				for x1 < c.X && p.xc[x1] == p.xc[x] {
					x1++
				}
				subVec(o[x*c.K:x1*c.K], p.tab[(p.yc[y]*p.nx+p.xc[x])*c.K:][:c.K])
				x = x1
			}
		}
	})
}

// subVecGo is subVec in Go.
func subVecGo(dst, v []int32) {
	for i := 0; i+len(v) <= len(dst); i += len(v) {
		d := dst[i : i+len(v)]
		for k, x := range v {
			d[k] -= x
		}
	}
}
