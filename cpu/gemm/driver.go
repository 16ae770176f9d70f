package gemm

import (
	"sync"
	"unsafe"
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
	poolA   *bufPool[PA]
	poolB   *bufPool[PB]
}

// minParallelMACs: below this many multiply-adds the goroutine hand-offs and barriers cost
// more than a second core gains (about 100 us of work per call). A variable so tests can run
// the threaded paths on small problems.
var minParallelMACs = 1 << 20

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

	bufB := pl.poolB.get(kcPad * blk.NC)
	defer pl.poolB.put(bufB)
	work := make([]worker[PA, C], threads)
	for t := range work {
		work[t].a = pl.poolA.get(kcPad * blk.MC)
		work[t].tile = make([]C, s.mr*s.nr)
		defer pl.poolA.put(work[t].a)
	}

	var bar *barrier
	if threads > 1 {
		bar = newBarrier(threads)
	}
	body := func(t int) {
		w := &work[t]
		for jc := 0; jc < n; jc += blk.NC {
			nb := min(blk.NC, n-jc)
			nPanels := (nb + s.nr - 1) / s.nr
			for pc := 0; pc < k; pc += blk.KC {
				kb := min(blk.KC, k-pc)
				kg := (kb + s.group - 1) / s.group
				panelB := kg * s.group * s.nr
				// Pack this thread's share of B's micro-panels.
				p0, p1 := share(nPanels, threads, t)
				if p1 > p0 {
					j0 := p0 * s.nr
					packB(bufB[p0*panelB:], b, pc, kb, jc+j0, min(nb, p1*s.nr)-j0, s.nr, s.group)
				}
				bar.wait()
				betaEff := beta
				if pc > 0 {
					betaEff = 1
				}
				r0, r1, jr0, jr1 := 0, mPanels, 0, nPanels
				if splitRows {
					r0, r1 = share(mPanels, threads, t)
				} else {
					jr0, jr1 = share(nPanels, threads, t)
				}
				for ic := r0 * s.mr; ic < min(m, r1*s.mr); ic += blk.MC {
					mb := min(blk.MC, min(m, r1*s.mr)-ic)
					packA(w.a, a, ic, mb, pc, kb, s.mr, s.group)
					pl.macro(w, kg, mb, ic, jc, nb, jr0, jr1, bufB, panelB, alpha, betaEff, c, ldc)
				}
				bar.wait() // B's buffer is reused by the next iteration
			}
		}
	}
	if threads == 1 {
		body(0)
		return
	}
	var wg sync.WaitGroup
	for t := 1; t < threads; t++ {
		wg.Add(1)
		go func() { defer wg.Done(); body(t) }()
	}
	body(0)
	wg.Wait()
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

// barrier is a reusable rendezvous of a fixed number of goroutines. A nil barrier is a
// no-op (one thread).
type barrier struct {
	mu    sync.Mutex
	cond  *sync.Cond
	n     int
	count int
	gen   int
}

func newBarrier(n int) *barrier {
	b := &barrier{n: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *barrier) wait() {
	if b == nil {
		return
	}
	b.mu.Lock()
	gen := b.gen
	b.count++
	if b.count == b.n {
		b.count = 0
		b.gen++
		b.cond.Broadcast()
	} else {
		for gen == b.gen {
			b.cond.Wait()
		}
	}
	b.mu.Unlock()
}

// bufPool recycles packing buffers, which are large (megabytes for B) and needed on every
// call. Buffers start on a 64-byte boundary so packed panels do not straddle cache lines.
type bufPool[T number] struct{ p sync.Pool }

func (bp *bufPool[T]) get(n int) []T {
	if v, ok := bp.p.Get().(*[]T); ok && cap(*v) >= n {
		return (*v)[:n]
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

func (bp *bufPool[T]) put(b []T) { bp.p.Put(&b) }
