package conv

import (
	"sync"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/op"
)

// amxDirect is the AMX convolution without im2col or A packing (docs/cpu-amx.md): stride 1,
// no dilation, one group; int8 (TDPBUSD, TDPBSSD) or bf16 (TDPBF16PS). A tile row is 64 bytes
// of k of one GEMM row; in NHWC the R taps of a filter row and all C channels of a pixel are
// R*C contiguous values, and consecutive output pixels start C values apart. So on the input
// zero-padded once into (YIn+2*pad) x (XIn+2*pad) pixels, with the GEMM's rows running over
// "virtual" pixels v = y*xp + x (xp the padded width; the last R-1 of each row are computed
// and dropped, as on gemmConv's filter-rows path), the A tile of 16 pixels from v for filter
// row s and k step j is the input itself at element (v + s*xp)*C + kps*j (kps = 64 bytes of
// values) with a row stride of C: the kernel loads it in place (kernels.AMXConv*), one offset
// per k step, s*xp*C + kps*j. A step may reach past a filter row's R*C values into the next
// pixels: the weights there are zero. B, the weights, is packed once per plan into the VNNI
// tiles, [column panel of 32][filter row s][step j][2 tiles]. The output goes to a
// virtual-pixel buffer of whole 32 x 32 blocks (K rounded up to 32), whose real pixels and
// channels are then copied out: no edge blocks. Strided 1x1 layers gather their pixels into
// a dense image first (sub); other strided layers run one call per output row (perRow,
// amxDirectRows).
type amxDirect[A uint8 | int8 | uint16, W int8 | uint16, O int32 | float32] struct {
	c        op.Conv2D
	xp, yp   int   // padded input size (sub: the output's)
	sub      bool  // a strided 1x1 layer: the input pixels it reads gathered densely
	perRow   bool  // a strided layer: one kernel call per output row (amxDirectRows)
	lda      int   // A's row stride: C, or stride*C per row
	vw       int   // pixels of a row of the virtual-pixel output: xp, X (sub), X rounded up to 32 (perRow)
	voLen    int   // elements of the virtual-pixel output
	eb       int   // bytes of an element: 1 (int8), 2 (bf16)
	kps      int   // values of k per step: 64/eb
	steps    int   // k steps of one filter row: ceil(R*C/kps)
	offs     []int // per step (s, j): s*xp*C + kps*j, in elements
	kp       int   // K rounded up to whole 32-column panels
	m, mb    int   // virtual pixels and 32-pixel blocks of one image
	padLen   int   // elements of the padded input with the kernel's read slack
	b        []W
	kern     func(tiles, kg int, a []A, lda int, offs []int, b []W, c []O, ldc int, load bool)
	threads  int
	padPool  sync.Pool // *[]A
	vOutPool sync.Pool // *[]O
}

// amxKC is the k steps of one kernel call: 16 steps, a 32 KiB B panel that stays in L1 (as
// cpu/gemm's amxKCBytes) while the blocks of a chunk stream their A tiles.
const amxKC = 16

// amxChunk is the 32-pixel blocks a thread runs against one B panel before the next panel:
// 256 pixels (cpu/gemm's MC), their input rows in L2.
const amxChunk = 8

// amxDirectFits reports whether a layer takes the direct tile kernels: one group, and stride
// 1 without dilation, or a 1x1 filter (any stride: the pixels it reads are gathered into a
// dense image first, the "sub" mode, where the GEMM lowering would gather them too); the
// rest lower to the AMX GEMM, gemmConv. For bf16 (eb = 2) also C a multiple of 32, so that
// no step reads past its filter row's R*C values: those would meet zero weights, exact for
// integers but NaN for an Inf or NaN in the next pixel.
func amxDirectFits(c *op.Conv2D, eb int) bool {
	return c.Groups == 1 && (c.Stride == 1 && c.Dilation == 1 || c.R == 1 && c.S == 1 || amxDirectRows(c)) &&
		(eb == 1 || c.C%(kernels.AMXKStep/eb) == 0)
}

// amxDirectRows reports whether a strided, undilated layer runs the direct kernels one output
// row at a time: output pixels (y, x), x = 0.., are input pixels y*stride*xp + x*stride, a
// tile of them has the row stride stride*C, but the rows do not continue one another, so a
// row is padded to whole 32-pixel blocks, which the rule bounds to a quarter of the computed
// pixels (X rounded up to 32 at most 4/3 X: 24-32, 48-64 or at least 72 pixels; ResNet-50 v1.5's
// 112- and 28-pixel-wide strided layers; the 14- and 7-pixel ones keep the GEMM lowering).
func amxDirectRows(c *op.Conv2D) bool {
	return c.Stride > 1 && c.Dilation == 1 && 3*roundUp(c.X, kernels.AMXBlock) <= 4*c.X
}

func newAMXDirect[A uint8 | int8 | uint16, W int8 | uint16, O int32 | float32](c *op.Conv2D, weights []W, threads, eb int,
	kern func(tiles, kg int, a []A, lda int, offs []int, b []W, c []O, ldc int, load bool)) *amxDirect[A, W, O] {
	const blk = kernels.AMXBlock
	p := &amxDirect[A, W, O]{c: *c, xp: c.XIn + 2*c.Pad, yp: c.YIn + 2*c.Pad, kern: kern, threads: threads,
		eb: eb, kps: kernels.AMXKStep / eb}
	if c.R == 1 && c.S == 1 && (c.Stride > 1 || c.Dilation > 1) {
		// gathered: output pixel (y, x) reads input pixel (y*stride - pad, x*stride - pad)
		p.sub, p.xp, p.yp = true, c.X, c.Y
	}
	p.perRow = !p.sub && c.Stride > 1
	p.lda, p.vw = c.C, p.xp
	if p.perRow {
		p.lda, p.vw = c.Stride*c.C, roundUp(c.X, blk)
	}
	ks := p.kps
	rc := c.R * c.C
	p.steps = ceilDiv(rc, ks)
	for s := 0; s < c.S; s++ {
		for j := 0; j < p.steps; j++ {
			p.offs = append(p.offs, s*p.xp*c.C+ks*j)
		}
	}
	p.kp = roundUp(c.K, blk)
	p.m = (c.Y-1)*p.xp + c.X
	p.mb = ceilDiv(p.m, blk)
	p.voLen = p.mb * blk * p.kp
	// the last block's last row reads up to the largest offset plus 64 bytes
	last := (p.mb*blk - 1) * c.C
	if p.perRow {
		p.voLen = c.Y * p.vw * p.kp
		last = (c.Y-1)*c.Stride*p.xp*c.C + (p.vw-1)*p.lda
	}
	p.padLen = max(p.yp*p.xp*c.C, last+p.offs[len(p.offs)-1]+ks)
	// B: per column panel, per step (s, j), the two VNNI tiles of columns 0-15 and 16-31:
	// tile row r holds, for each column, the g = 4/eb weights (TDPBUSD's group of 4 bytes,
	// TDPBF16PS's pair) of k = kps*j + g*r .. + g-1 of filter row s (k = filter column * C +
	// channel; zero past R*C and past K)
	nSteps := len(p.offs)
	g, tile := 4/eb, kernels.AMXTileBytes/eb
	p.b = make([]W, p.kp/blk*nSteps*2*tile)
	for col := 0; col < c.K; col++ {
		panel, half, cc := col/blk, col%blk/16, col%16
		for s := 0; s < c.S; s++ {
			w := weights[(col*c.S+s)*rc:][:rc] // [R][C] of filter row s
			for q, v := range w {
				st := s*p.steps + q/ks
				r, i := q%ks/g, q%g
				p.b[((panel*nSteps+st)*2+half)*tile+r*16*g+cc*g+i] = v
			}
		}
	}
	return p
}

// run computes out = conv(in), one image at a time.
func (p *amxDirect[A, W, O]) run(in []A, out []O) error {
	c := &p.c
	const blk = kernels.AMXBlock
	pad := getBuf[A](&p.padPool, p.padLen) // zero borders and slack: only the interior is written
	defer p.padPool.Put(pad)
	vo := getBuf[O](&p.vOutPool, p.voLen)
	defer p.vOutPool.Put(vo)
	threads := max(1, min(p.threads, ceilDiv(p.mb, 2)))
	if p.perRow {
		threads = max(1, min(p.threads, c.Y))
	}
	for n := 0; n < c.N; n++ {
		img := in[n*c.YIn*c.XIn*c.C:][:c.YIn*c.XIn*c.C]
		team.Run(threads, func(t int) {
			if p.sub {
				p.gather(*pad, img, t*c.Y/threads, (t+1)*c.Y/threads)
				return
			}
			for y := t * c.YIn / threads; y < (t+1)*c.YIn/threads; y++ {
				copy((*pad)[((y+c.Pad)*p.xp+c.Pad)*c.C:][:c.XIn*c.C], img[y*c.XIn*c.C:][:c.XIn*c.C])
			}
		})
		team.Run(threads, func(t int) {
			if p.perRow {
				p.rows(*pad, *vo, t*c.Y/threads, (t+1)*c.Y/threads)
				return
			}
			b0, b1 := t*p.mb/threads, (t+1)*p.mb/threads
			p.blocks(*pad, *vo, b0, b1)
		})
		o := out[n*c.Y*c.X*c.K:]
		team.Run(threads, func(t int) {
			for y := t * c.Y / threads; y < (t+1)*c.Y/threads; y++ {
				for x := 0; x < c.X; x++ {
					copy(o[(y*c.X+x)*c.K:][:c.K], (*vo)[(y*p.vw+x)*p.kp:][:c.K])
				}
			}
		})
	}
	return nil
}

// gather copies, for output rows y0..y1-1 of a strided 1x1 layer, the input pixel each output
// pixel reads into the dense image d (pixels in the padding are never written: zero).
func (p *amxDirect[A, W, O]) gather(d, img []A, y0, y1 int) {
	c := &p.c
	for y := y0; y < y1; y++ {
		iy := y*c.Stride - c.Pad
		if iy < 0 || iy >= c.YIn {
			continue
		}
		for x := 0; x < c.X; x++ {
			if ix := x*c.Stride - c.Pad; ix >= 0 && ix < c.XIn {
				copy(d[(y*c.X+x)*c.C:][:c.C], img[(iy*c.XIn+ix)*c.C:][:c.C])
			}
		}
	}
}

// blocks computes the virtual-pixel blocks b0..b1-1 into vo (row stride kp).
func (p *amxDirect[A, W, O]) blocks(pad []A, vo []O, b0, b1 int) {
	const blk = kernels.AMXBlock
	nSteps := len(p.offs)
	tile := kernels.AMXTileBytes / p.eb
	panelLen := nSteps * 2 * tile
	for cb := b0; cb < b1; cb += amxChunk {
		tiles := min(amxChunk, b1-cb)
		a := pad[cb*blk*p.c.C:]
		for jp := 0; jp < p.kp/blk; jp++ {
			bp := p.b[jp*panelLen:][:panelLen]
			cv := vo[cb*blk*p.kp+jp*blk:]
			for k0 := 0; k0 < nSteps; k0 += amxKC {
				kg := min(amxKC, nSteps-k0)
				p.kern(tiles, kg, a, p.lda, p.offs[k0:k0+kg], bp[k0*2*tile:], cv, p.kp, k0 > 0)
			}
		}
	}
}

// rows computes output rows y0..y1-1 of a strided layer into vo (row y at y*vw pixels, row
// stride kp): per row one call of vw/32 blocks, A from padded input row y*stride with the
// row stride stride*C.
func (p *amxDirect[A, W, O]) rows(pad []A, vo []O, y0, y1 int) {
	const blk = kernels.AMXBlock
	c := &p.c
	nSteps := len(p.offs)
	tile := kernels.AMXTileBytes / p.eb
	panelLen := nSteps * 2 * tile
	for y := y0; y < y1; y++ {
		a := pad[y*c.Stride*p.xp*c.C:]
		for jp := 0; jp < p.kp/blk; jp++ {
			bp := p.b[jp*panelLen:][:panelLen]
			cv := vo[y*p.vw*p.kp+jp*blk:]
			for k0 := 0; k0 < nSteps; k0 += amxKC {
				kg := min(amxKC, nSteps-k0)
				p.kern(p.vw/blk, kg, a, p.lda, p.offs[k0:k0+kg], bp[k0*2*tile:], cv, p.kp, k0 > 0)
			}
		}
	}
}
