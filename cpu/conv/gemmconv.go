package conv

import (
	"sync"

	"github.com/sumacdev/sumac/op"
)

// gemmConv lowers a convolution to one GEMM per image and group (cpu/gemm), the path of the
// types whose kernels exist only as GEMMs (bf16, the AMX tile kernels): a 1x1 convolution
// with stride 1, no padding and one group reads the input in place as the GEMM's A (pixels x
// channels); any other shape first gathers each output pixel's taps into a row of an im2col
// buffer (zero for padding), in the weights' order (filter row, column, channel). B is the
// weights, transposed once to [S*R*C/Groups][K/Groups] per group. The im2col rows are padded
// with zeros to a multiple of align values (and the weights with zero rows), so that the GEMM
// packs whole k groups from aligned rows (its fast packing paths; bf16 packs k pairs).
type gemmConv[A, W, O any] struct {
	shape op.Conv2D
	red   int   // the reduction: S*R*Cg, rounded up to align (im2col rows)
	w     [][]W // per group: red x Kg, row-major
	// gemm is C (m x n, row stride ldc) = A (m x k, row stride lda) * B (k x n, row stride n),
	// B group g's weights w[g] (k = red).
	gemm func(g, m, n, k int, a []A, lda int, b []W, c []O, ldc int) error
	cols sync.Pool // *[]A im2col buffers
}

func newGemmConv[A, W, O any](c *op.Conv2D, weights []W, align int, gemm func(g, m, n, k int, a []A, lda int, b []W, c []O, ldc int) error) *gemmConv[A, W, O] {
	kg, cg := c.K/c.Groups, c.C/c.Groups
	red := c.S * c.R * cg
	p := &gemmConv[A, W, O]{shape: *c, gemm: gemm, red: (red + align - 1) / align * align}
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

// direct reports whether the input is the GEMM's A as it is (its rows need no padding).
func (p *gemmConv[A, W, O]) direct() bool {
	c := &p.shape
	return c.R == 1 && c.S == 1 && c.Stride == 1 && c.Pad == 0 && c.Groups == 1 && c.XIn == c.X && c.YIn == c.Y && p.red == c.C
}

// run computes out = conv(in) (lengths checked by the caller).
func (p *gemmConv[A, W, O]) run(in []A, out []O) error {
	c := &p.shape
	pixels := c.X * c.Y
	kg, red := c.K/c.Groups, p.red
	var buf *[]A
	if !p.direct() {
		buf, _ = p.cols.Get().(*[]A)
		if buf == nil {
			buf = new([]A)
		}
		if cap(*buf) < pixels*red {
			*buf = make([]A, pixels*red)
		}
		defer p.cols.Put(buf)
	}
	for n := 0; n < c.N; n++ {
		img := in[n*c.YIn*c.XIn*c.C:][:c.YIn*c.XIn*c.C]
		o := out[n*pixels*c.K:][:pixels*c.K]
		for g := 0; g < c.Groups; g++ {
			a, lda := img, c.C
			if buf != nil {
				a, lda = (*buf)[:pixels*red], red
				im2col(c, a, img, g, red)
			}
			if err := p.gemm(g, pixels, kg, red, a, lda, p.w[g], o[g*kg:], c.K); err != nil {
				return err
			}
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
