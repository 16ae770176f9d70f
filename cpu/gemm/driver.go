package gemm

import (
	"sync"
	"unsafe"

	"github.com/sumacdev/sumac/internal/team"
)

// kernelFn is a cpu/kernels multi-tile micro-kernel: for each of tiles consecutive packed A
// micro-panels, the mr x nr tile of C below the previous one = alpha*A*B + beta*C, over kg
// k groups of the shared packed B micro-panel.
type kernelFn[PA, PB, C number] func(tiles, kg int, a []PA, b []PB, c []C, ldc int, alpha, beta C)

// plan is one GEMM on row-major C: C = alpha*op(A)*op(B) + beta*C, with op(A) m x k read
// through a view of TA converted to the kernel's PA while packing, likewise B.
type plan[TA, TB, PA, PB, C number] struct {
	s       shape
	kern    kernelFn[PA, PB, C]
	blk     Blocking
	threads int
	ws      *wsPool[PA, PB, C]
	// packedB, when set, returns B's block (columns from jc, k from pc) packed beforehand
	// (PackBF16): the workers then pack no B.
	packedB func(jc, pc int) []PB
}

// minParallelMACs: below this many multiply-adds the goroutine hand-offs and barriers cost
// more than a second core gains (about 100 us of work per call). A variable so tests can run
// the threaded paths on small problems.
var minParallelMACs = 1 << 20

// job is one GEMM call in progress: what every worker goroutine needs (a struct rather than
// a closure so that single-threaded calls allocate nothing).
type job[TA, TB, PA, PB, C number] struct {
	pl          *plan[TA, TB, PA, PB, C]
	m, n, k     int
	alpha, beta C
	a           view[TA]
	b           view[TB]
	c           []C
	ldc         int
	blk         Blocking
	threads     int
	splitRows   bool
	mPanels     int
	ws          *workspace[PA, PB, C]
	bar         *team.Barrier
}

func (pl *plan[TA, TB, PA, PB, C]) run(m, n, k int, alpha C, a view[TA], b view[TB], beta C, c []C, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scale(m, n, beta, c, ldc)
		return
	}
	s := pl.s
	blk := pl.blk.fit(s, m, n, k)
	kcPad := (blk.KC + s.group - 1) / s.group * s.group
	mPanels := (m + s.mr - 1) / s.mr

	threads := max(1, pl.threads)
	if m*n*k < minParallelMACs {
		threads = 1
	}
	// Workers split the rows of C when there are enough micro-panels of them (each then packs
	// its own A block into its own L2); otherwise they split the micro-panels of B.
	splitRows := mPanels >= 2*threads
	if !splitRows {
		threads = min(threads, (min(blk.NC, n)+s.nr-1)/s.nr)
	}

	ws := pl.ws.get(threads, kcPad*blk.NC, kcPad*blk.MC, s.mr*s.nr)
	defer pl.ws.put(ws)
	jb := job[TA, TB, PA, PB, C]{pl: pl, m: m, n: n, k: k, alpha: alpha, beta: beta, a: a, b: b, c: c, ldc: ldc,
		blk: blk, threads: threads, splitRows: splitRows, mPanels: mPanels, ws: ws}
	if threads == 1 {
		jb.body(0)
		return
	}
	shared := new(job[TA, TB, PA, PB, C]) // goroutines share a heap copy; jb stays on the stack
	*shared = jb
	shared.bar = team.NewBarrier(threads)
	team.Run(threads, shared.body)
}

// body is worker t's part of the five loops around the micro-kernel.
func (j *job[TA, TB, PA, PB, C]) body(t int) {
	s, blk := j.pl.s, j.blk
	w := &j.ws.work[t]
	bufB := j.ws.b
	for jc := 0; jc < j.n; jc += blk.NC {
		nb := min(blk.NC, j.n-jc)
		nPanels := (nb + s.nr - 1) / s.nr
		for pc := 0; pc < j.k; pc += blk.KC {
			kb := min(blk.KC, j.k-pc)
			kg := (kb + s.group - 1) / s.group
			panelB := kg * s.group * s.nr
			// Pack this thread's share of B's micro-panels.
			p0, p1 := share(nPanels, j.threads, t)
			bB := bufB
			if j.pl.packedB != nil {
				bB = j.pl.packedB(jc, pc)
			} else if p1 > p0 {
				j0 := p0 * s.nr
				packB(bufB[p0*panelB:], j.b, pc, kb, jc+j0, min(nb, p1*s.nr)-j0, s.nr, s.group)
			}
			j.bar.Wait()
			betaEff := j.beta
			if pc > 0 {
				betaEff = 1
			}
			r0, r1, jr0, jr1 := 0, j.mPanels, 0, nPanels
			if j.splitRows {
				r0, r1 = share(j.mPanels, j.threads, t)
			} else {
				jr0, jr1 = share(nPanels, j.threads, t)
			}
			for ic := r0 * s.mr; ic < min(j.m, r1*s.mr); ic += blk.MC {
				mb := min(blk.MC, min(j.m, r1*s.mr)-ic)
				packA(w.a, j.a, ic, mb, pc, kb, s.mr, s.group)
				j.pl.macro(w, kg, mb, ic, jc, nb, jr0, jr1, bB, panelB, j.alpha, betaEff, j.c, j.ldc)
			}
			j.bar.Wait() // B's buffer is reused by the next iteration
		}
	}
}

type worker[PA, C number] struct {
	a    []PA // packed mc x kc block of A
	tile []C  // scratch tile for partial edge tiles
}

// macro runs the micro-kernel over the packed A block (mb rows from ic) and the B
// micro-panels jr0..jr1 of the packed B block (columns from jc, nb wide): loops L4 and L5
// of seed 001 Fig. 2, the B micro-panel outside so it stays in L1 across A's panels.
func (pl *plan[TA, TB, PA, PB, C]) macro(w *worker[PA, C], kg, mb, ic, jc, nb, jr0, jr1 int, bufB []PB, panelB int, alpha, beta C, c []C, ldc int) {
	s := pl.s
	panelA := kg * s.group * s.mr
	fullRows := mb / s.mr
	for jr := jr0; jr < jr1; jr++ {
		bp := bufB[jr*panelB : (jr+1)*panelB]
		cols := min(s.nr, nb-jr*s.nr)
		off := ic*ldc + jc + jr*s.nr
		ir := 0
		if cols == s.nr && fullRows > 0 {
			// Every whole tile of this column strip in one call.
			pl.kern(fullRows, kg, w.a, bp, c[off:], ldc, alpha, beta)
			ir = fullRows
		}
		for ; ir*s.mr < mb; ir++ {
			// Edge tiles: the kernel writes a scratch tile, the valid part is merged.
			ap := w.a[ir*panelA : (ir+1)*panelA]
			rows := min(s.mr, mb-ir*s.mr)
			pl.kern(1, kg, ap, bp, w.tile, s.nr, alpha, 0)
			o := off + ir*s.mr*ldc
			for i := 0; i < rows; i++ {
				dst := c[o+i*ldc:][:cols]
				src := w.tile[i*s.nr:][:cols]
				if beta == 0 {
					copy(dst, src)
					continue
				}
				for j := range dst {
					dst[j] = src[j] + beta*dst[j]
				}
			}
		}
	}
}

// share splits n items among parts and returns part t's half-open range.
func share(n, parts, t int) (int, int) { return n * t / parts, n * (t + 1) / parts }

// scale sets C = beta*C (C = 0 when beta is zero, whatever C held, as BLAS specifies).
func scale[C number](m, n int, beta C, c []C, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc:][:n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// workspace holds the packing buffers and scratch tiles of one GEMM call. Buffers are large
// (megabytes for B) and needed on every call, so they are recycled through a wsPool: a
// small GEMM in steady state allocates nothing.
type workspace[PA, PB, C number] struct {
	b    []PB
	work []worker[PA, C]
}

// wsPool recycles workspaces of one element-type combination.
type wsPool[PA, PB, C number] struct{ p sync.Pool }

func (wp *wsPool[PA, PB, C]) get(threads, nB, nA, tile int) *workspace[PA, PB, C] {
	ws, _ := wp.p.Get().(*workspace[PA, PB, C])
	if ws == nil {
		ws = new(workspace[PA, PB, C])
	}
	ws.b = grow(ws.b, nB)
	if cap(ws.work) < threads {
		ws.work = append(ws.work[:cap(ws.work)], make([]worker[PA, C], threads-cap(ws.work))...)
	}
	ws.work = ws.work[:threads]
	for t := range ws.work {
		ws.work[t].a = grow(ws.work[t].a, nA)
		ws.work[t].tile = grow(ws.work[t].tile, tile)
	}
	return ws
}

func (wp *wsPool[PA, PB, C]) put(ws *workspace[PA, PB, C]) { wp.p.Put(ws) }

// grow returns s resliced to n elements, or a new buffer starting on a 64-byte boundary so
// packed panels do not straddle cache lines.
func grow[T number](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	raw := make([]T, n+64/size)
	off := 0
	if addr := uintptr(unsafe.Pointer(unsafe.SliceData(raw))); addr%64 != 0 {
		off = int(64-addr%64) / size
	}
	return raw[off : off+n : off+n]
}
