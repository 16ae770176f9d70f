package conv

import (
	"sync"

	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/op"
)

// BF16 is a bf16 x bf16 -> float32 convolution plan (bf16 stored as uint16, the top half of
// a float32; ref.BF16Bound bounds each output's error). It lowers the convolution to
// cpu/gemm's bf16 GEMM, per image and group: a 1x1 convolution with stride 1 and no padding
// reads the input in place as the GEMM's A (pixels x channels); any other shape first
// gathers each output pixel's taps into a row of an im2col buffer (zero for padding), in
// the weights' order (filter row, column, channel). The GEMM's B is the weights,
// transposed once to [S*R*C/Groups][K/Groups] per group; its kernels are the bf16 GEMM's
// (gemm.KernelISA("bf16")). Run may be called from several goroutines at once.
type BF16 struct {
	shape op.Conv2D
	w     [][]uint16 // per group: (S*R*Cg) x Kg, row-major
	o     gemm.Options
	cols  sync.Pool // *[]uint16 im2col buffers
}

// NewBF16 takes canonical weights [K][S][R][C/Groups].
func NewBF16(c *op.Conv2D, weights []uint16, o Options) (*BF16, error) {
	if err := validate(c); err != nil {
		return nil, err
	}
	if err := checkLen("weights", len(weights), c.WLen()); err != nil {
		return nil, err
	}
	p := &BF16{shape: *c, o: gemm.Options{Threads: o.threads()}}
	kg, cg := c.K/c.Groups, c.C/c.Groups
	red := c.S * c.R * cg
	for g := 0; g < c.Groups; g++ {
		w := make([]uint16, red*kg)
		for k := 0; k < kg; k++ {
			src := weights[(g*kg+k)*red:][:red]
			for q, v := range src {
				w[q*kg+k] = v
			}
		}
		p.w = append(p.w, w)
	}
	return p, nil
}

// ISA names the instruction set of the GEMM kernels the plan runs.
func (p *BF16) ISA() string { return gemm.KernelISA("bf16") }

// direct reports whether the input is the GEMM's A as it is (1x1, stride 1, no padding,
// one group).
func (p *BF16) direct() bool {
	c := &p.shape
	return c.R == 1 && c.S == 1 && c.Stride == 1 && c.Pad == 0 && c.Groups == 1 && c.XIn == c.X && c.YIn == c.Y
}

// Run computes out = conv(in) for canonical NHWC in (bf16) and out (float32).
func (p *BF16) Run(in []uint16, out []float32) error {
	c := &p.shape
	if err := checkLen("input", len(in), c.InLen()); err != nil {
		return err
	}
	if err := checkLen("output", len(out), c.OutLen()); err != nil {
		return err
	}
	pixels := c.X * c.Y
	kg, cg := c.K/c.Groups, c.C/c.Groups
	red := c.S * c.R * cg
	var buf *[]uint16
	if !p.direct() {
		buf, _ = p.cols.Get().(*[]uint16)
		if buf == nil {
			buf = new([]uint16)
		}
		if cap(*buf) < pixels*red {
			*buf = make([]uint16, pixels*red)
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
				p.im2col(a, img, g)
			}
			if err := p.o.GemmBF16(gemm.NoTrans, gemm.NoTrans, pixels, kg, red, 1, a, lda, p.w[g], kg, 0, o[g*kg:], c.K); err != nil {
				return err
			}
		}
	}
	return nil
}

// im2col writes, for every output pixel, group g's taps (filter row, column, channel) of one
// image into a row of dst, zero where the window crosses the padding.
func (p *BF16) im2col(dst, img []uint16, g int) {
	c := &p.shape
	cg := c.C / c.Groups
	red := c.S * c.R * cg
	for y := 0; y < c.Y; y++ {
		for x := 0; x < c.X; x++ {
			row := dst[(y*c.X+x)*red:][:red]
			q := 0
			for s := 0; s < c.S; s++ {
				iy := y*c.Stride - c.Pad + s*c.Dilation
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
		}
	}
}
