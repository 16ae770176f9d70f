package conv

import (
	"sync"

	"github.com/sumacdev/sumac/op"
)

// gemmConv lowers a convolution to GEMMs (cpu/gemm), the path of the types whose kernels
// exist only as GEMMs (bf16, the AMX tile kernels). B is the weights, transposed once to
// [S*R*C/Groups][K/Groups] per group and packed by the caller (blocks). A is, in order of
// preference:
//
//   - 1x1, stride 1, no padding, one group: the input itself (pixels x channels);
//   - stride 1, no dilation, one group ("filter rows"): the input, zero-padded once into a
//     buffer of (YIn+2*pad) x (XIn+2*pad) pixels, read in place: for filter row s, output
//     pixel (y, x) reads the R*C contiguous values from padded pixel (y+s, x), so A is the
//     padded image from row s with a row stride of C and k = R*C, if the GEMM's rows run over
//     "virtual" pixels y*(XIn+2*pad) + x (the last R-1 of each row are computed and dropped).
//     S GEMMs accumulate into a virtual-pixel output, whose real rows are then copied out
//     (seed 004's GEMM-like convolution, with the padding made explicit);
//   - otherwise an im2col buffer: each output pixel's taps (filter row, column, channel) in a
//     row, zero where the window crosses the padding, one GEMM per image and group.
//
// Rows of A and of the weights are padded with zeros to a multiple of align values, so that
// the GEMM packs whole k groups from aligned rows (its fast packing paths; bf16 packs pairs).
type gemmConv[A, W, O any] struct {
	shape op.Conv2D
	red   int   // the reduction of the im2col path: S*R*Cg, rounded up to align
	rows  bool  // the filter-rows path
	w     [][]W // per group: red x Kg, row-major
	// gemm is C (m x n, row stride ldc) = A (m x k, row stride lda) * B, or C += A * B when
	// acc is set, with B blocks()[blk] (k x n).
	gemm func(blk, m, n, k int, a []A, lda int, c []O, ldc int, acc bool) error
	bufA sync.Pool // *[]A: im2col rows or the padded input
	bufO sync.Pool // *[]O: the filter-rows path's virtual-pixel output
}

// newGemmConv transposes the weights; the caller packs blocks() and sets gemm.
func newGemmConv[A, W, O any](c *op.Conv2D, weights []W, align int) *gemmConv[A, W, O] {
	kg, cg := c.K/c.Groups, c.C/c.Groups
	red := c.S * c.R * cg
	p := &gemmConv[A, W, O]{shape: *c, red: (red + align - 1) / align * align}
	// The filter-rows path computes (R-1)/(X+R-1+2*pad) more rows than there are pixels and
	// adds S partial products into C: for narrow images im2col is faster (ResNet-50 bf16 on
	// Zen 4, oneDNN-relative: 56 and 28 pixels wide 0.65 -> 0.81x and 0.78 -> 0.80x with the
	// rows, 14 and 7 wide 0.79 -> 0.74x and 0.73 -> 0.59x), so it takes X >= 8*(R-1).
	p.rows = c.Groups == 1 && c.Stride == 1 && c.Dilation == 1 && c.R*c.S > 1 && c.C%align == 0 && (c.R*c.C)%align == 0 &&
		c.X >= 8*(c.R-1)
	for g := 0; g < c.Groups; g++ {
		w := make([]W, p.red*kg)
		for k := 0; k < kg; k++ {
			for q, v := range weights[(g*kg+k)*red:][:red] {
				w[q*kg+k] = v
			}
		}
		p.w = append(p.w, w)
	}
	return p
}

// wBlock is one B operand of the plan's GEMMs: k x n, row-major.
type wBlock[W any] struct {
	k, n int
	b    []W
}

// blocks lists the B operands gemm's blk indexes: one per group (red x Kg), or on the
// filter-rows path one per filter row (R*C x K, rows s*R*C.. of the transposed weights).
func (p *gemmConv[A, W, O]) blocks() []wBlock[W] {
	c := &p.shape
	var bs []wBlock[W]
	if p.rows {
		rc := c.R * c.C
		for s := 0; s < c.S; s++ {
			bs = append(bs, wBlock[W]{rc, c.K, p.w[0][s*rc*c.K:][:rc*c.K]})
		}
		return bs
	}
	for _, w := range p.w {
		bs = append(bs, wBlock[W]{p.red, c.K / c.Groups, w})
	}
	return bs
}

// direct reports whether the input is the GEMM's A as it is (its rows need no padding).
func (p *gemmConv[A, W, O]) direct() bool {
	c := &p.shape
	return c.R == 1 && c.S == 1 && c.Stride == 1 && c.Pad == 0 && c.Groups == 1 && c.XIn == c.X && c.YIn == c.Y && p.red == c.C
}

func getBuf[T any](pool *sync.Pool, n int) *[]T {
	b, _ := pool.Get().(*[]T)
	if b == nil {
		b = new([]T)
	}
	if cap(*b) < n {
		*b = make([]T, n) // zero: the padded input's borders stay zero (nothing writes them)
	}
	*b = (*b)[:n]
	return b
}

// run computes out = conv(in) (lengths checked by the caller).
func (p *gemmConv[A, W, O]) run(in []A, out []O) error {
	if p.rows {
		return p.runRows(in, out)
	}
	c := &p.shape
	pixels := c.X * c.Y
	kg, red := c.K/c.Groups, p.red
	var buf *[]A
	if !p.direct() {
		buf = getBuf[A](&p.bufA, pixels*red)
		defer p.bufA.Put(buf)
	}
	for n := 0; n < c.N; n++ {
		img := in[n*c.YIn*c.XIn*c.C:][:c.YIn*c.XIn*c.C]
		o := out[n*pixels*c.K:][:pixels*c.K]
		for g := 0; g < c.Groups; g++ {
			a, lda := img, c.C
			if buf != nil {
				a, lda = *buf, red
				im2col(c, a, img, g, red)
			}
			if err := p.gemm(g, pixels, kg, red, a, lda, o[g*kg:], c.K, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// runRows is the filter-rows path (see gemmConv).
func (p *gemmConv[A, W, O]) runRows(in []A, out []O) error {
	c := &p.shape
	xp, yp := c.XIn+2*c.Pad, c.YIn+2*c.Pad
	m := (c.Y-1)*xp + c.X // virtual pixels up to the last real one
	var pad *[]A
	if c.Pad > 0 {
		pad = getBuf[A](&p.bufA, yp*xp*c.C)
		defer p.bufA.Put(pad)
	}
	vo := getBuf[O](&p.bufO, m*c.K)
	defer p.bufO.Put(vo)
	for n := 0; n < c.N; n++ {
		img := in[n*c.YIn*c.XIn*c.C:][:c.YIn*c.XIn*c.C]
		if pad != nil {
			for y := 0; y < c.YIn; y++ {
				copy((*pad)[((y+c.Pad)*xp+c.Pad)*c.C:][:c.XIn*c.C], img[y*c.XIn*c.C:][:c.XIn*c.C])
			}
			img = *pad
		}
		for s := 0; s < c.S; s++ {
			if err := p.gemm(s, m, c.K, c.R*c.C, img[s*xp*c.C:], c.C, *vo, c.K, s > 0); err != nil {
				return err
			}
		}
		o := out[n*c.X*c.Y*c.K:]
		for y := 0; y < c.Y; y++ {
			copy(o[y*c.X*c.K:][:c.X*c.K], (*vo)[y*xp*c.K:][:c.X*c.K])
		}
	}
	return nil
}

// im2col writes, for every output pixel, group g's taps (filter row, column, channel) of one
// image into a row of dst (red values, zero past the taps), zero where the window crosses
// the padding.
func im2col[A any](c *op.Conv2D, dst, img []A, g, red int) {
	cg := c.C / c.Groups
	for y := 0; y < c.Y; y++ {
		for x := 0; x < c.X; x++ {
			row := dst[(y*c.X+x)*red:][:red]
			q := 0
			for s := 0; s < c.S; s++ {
				iy := y*c.Stride - c.Pad + s*c.Dilation
				if ix0 := x*c.Stride - c.Pad; c.Groups == 1 && c.Dilation == 1 && iy >= 0 && iy < c.YIn && ix0 >= 0 && ix0+c.R <= c.XIn {
					// A filter row inside the image: its R taps of all C channels are one run.
					copy(row[q:q+c.R*cg], img[(iy*c.XIn+ix0)*c.C:][:c.R*cg])
					q += c.R * cg
					continue
				}
				for r := 0; r < c.R; r++ {
					ix := x*c.Stride - c.Pad + r*c.Dilation
					seg := row[q : q+cg]
					q += cg
					if iy < 0 || iy >= c.YIn || ix < 0 || ix >= c.XIn {
						clear(seg)
						continue
					}
					copy(seg, img[(iy*c.XIn+ix)*c.C+g*cg:][:cg])
				}
			}
			clear(row[q:])
		}
	}
}
