package conv

import (
	"sync"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/op"
)

// amxDirect is the AMX convolution without im2col or A packing (docs/cpu-amx.md): stride 1,
// no dilation, one group. A tile row is 64 bytes of k of one GEMM row; in NHWC the R taps of
// a filter row and all C channels of a pixel are R*C contiguous bytes, and consecutive output
// pixels start C bytes apart. So on the input zero-padded once into (YIn+2*pad) x
// (XIn+2*pad) pixels, with the GEMM's rows running over "virtual" pixels v = y*xp + x (xp the
// padded width; the last R-1 of each row are computed and dropped, as on gemmConv's
// filter-rows path), the A tile of 16 pixels from v for filter row s and k step j is the
// input itself at byte (v + s*xp)*C + 64*j with a row stride of C: the kernel loads it in
// place (kernels.AMXConv*), one pointer offset per k step, s*xp*C + 64*j. A step may reach
// past a filter row's R*C bytes into the next pixels: the weights there are zero. B, the
// weights, is packed once per plan into the VNNI tiles, [column panel of 32][filter row s][step
// j][2 tiles]. The output goes to a virtual-pixel buffer of whole 32 x 32 blocks (K rounded up
// to 32), whose real pixels and channels are then copied out: no edge blocks.
type amxDirect[A uint8 | int8] struct {
	c        op.Conv2D
	xp, yp   int   // padded input size
	steps    int   // k steps of one filter row: ceil(R*C/64)
	offs     []int // per step (s, j): s*xp*C + 64*j
	kp       int   // K rounded up to whole 32-column panels
	m, mb    int   // virtual pixels and 32-pixel blocks of one image
	padLen   int   // bytes of the padded input with the kernel's read slack
	b        []int8
	kern     func(tiles, kg int, a []A, lda int, offs []int, b []int8, c []int32, ldc int, load bool)
	threads  int
	padPool  sync.Pool // *[]A
	vOutPool sync.Pool // *[]int32
}

// amxKC is the k steps of one kernel call: 16 steps, a 32 KiB B panel that stays in L1 (as
// cpu/gemm's amxKCBytes) while the blocks of a chunk stream their A tiles.
const amxKC = 16

// amxChunk is the 32-pixel blocks a thread runs against one B panel before the next panel:
// 256 pixels (cpu/gemm's MC), their input rows in L2.
const amxChunk = 8

// amxDirectFits reports whether a layer takes the direct tile kernels: stride 1, no
// dilation, one group (the rest lower to the AMX GEMM, gemmConv).
func amxDirectFits(c *op.Conv2D) bool {
	return c.Stride == 1 && c.Dilation == 1 && c.Groups == 1
}

func newAMXDirect[A uint8 | int8](c *op.Conv2D, weights []int8, threads int,
	kern func(tiles, kg int, a []A, lda int, offs []int, b []int8, c []int32, ldc int, load bool)) *amxDirect[A] {
	const blk, ks = kernels.AMXBlock, kernels.AMXKStep
	p := &amxDirect[A]{c: *c, xp: c.XIn + 2*c.Pad, yp: c.YIn + 2*c.Pad, kern: kern, threads: threads}
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
	// the last block's last row reads up to the largest offset plus 64 bytes
	p.padLen = max(p.yp*p.xp*c.C, (p.mb*blk-1)*c.C+p.offs[len(p.offs)-1]+ks)
	// B: per column panel, per step (s, j), the two VNNI tiles of columns 0-15 and 16-31:
	// tile row r holds, for each column, the 4 weights of k = 64j + 4r .. 64j + 4r + 3 of
	// filter row s (k = filter column * C + channel; zero past R*C and past K)
	nSteps := len(p.offs)
	p.b = make([]int8, p.kp/blk*nSteps*2*kernels.AMXTileBytes)
	for col := 0; col < c.K; col++ {
		panel, half, cc := col/blk, col%blk/16, col%16
		for s := 0; s < c.S; s++ {
			w := weights[(col*c.S+s)*rc:][:rc] // [R][C] of filter row s
			for q, v := range w {
				st := s*p.steps + q/ks
				r, i := q%ks/4, q%4
				p.b[((panel*nSteps+st)*2+half)*kernels.AMXTileBytes+r*64+cc*4+i] = v
			}
		}
	}
	return p
}

// run computes out = conv(in), one image at a time.
func (p *amxDirect[A]) run(in []A, out []int32) error {
	c := &p.c
	const blk = kernels.AMXBlock
	pad := getBuf[A](&p.padPool, p.padLen) // zero borders and slack: only the interior is written
	defer p.padPool.Put(pad)
	vo := getBuf[int32](&p.vOutPool, p.mb*blk*p.kp)
	defer p.vOutPool.Put(vo)
	threads := max(1, min(p.threads, ceilDiv(p.mb, 2)))
	for n := 0; n < c.N; n++ {
		img := in[n*c.YIn*c.XIn*c.C:][:c.YIn*c.XIn*c.C]
		team.Run(threads, func(t int) {
			for y := t * c.YIn / threads; y < (t+1)*c.YIn/threads; y++ {
				copy((*pad)[((y+c.Pad)*p.xp+c.Pad)*c.C:][:c.XIn*c.C], img[y*c.XIn*c.C:][:c.XIn*c.C])
			}
		})
		team.Run(threads, func(t int) {
			b0, b1 := t*p.mb/threads, (t+1)*p.mb/threads
			p.blocks(*pad, *vo, b0, b1)
		})
		o := out[n*c.Y*c.X*c.K:]
		team.Run(threads, func(t int) {
			for y := t * c.Y / threads; y < (t+1)*c.Y/threads; y++ {
				for x := 0; x < c.X; x++ {
					copy(o[(y*c.X+x)*c.K:][:c.K], (*vo)[(y*p.xp+x)*p.kp:][:c.K])
				}
			}
		})
	}
	return nil
}

// blocks computes the virtual-pixel blocks b0..b1-1 into vo (row stride kp).
func (p *amxDirect[A]) blocks(pad []A, vo []int32, b0, b1 int) {
	const blk = kernels.AMXBlock
	nSteps := len(p.offs)
	panelLen := nSteps * 2 * kernels.AMXTileBytes
	for cb := b0; cb < b1; cb += amxChunk {
		tiles := min(amxChunk, b1-cb)
		a := pad[cb*blk*p.c.C:]
		for jp := 0; jp < p.kp/blk; jp++ {
			bp := p.b[jp*panelLen:][:panelLen]
			cv := vo[cb*blk*p.kp+jp*blk:]
			for k0 := 0; k0 < nSteps; k0 += amxKC {
				kg := min(amxKC, nSteps-k0)
				p.kern(tiles, kg, a, p.c.C, p.offs[k0:k0+kg], bp[k0*2*kernels.AMXTileBytes:], cv, p.kp, k0 > 0)
			}
		}
	}
}
