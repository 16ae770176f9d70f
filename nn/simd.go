package nn

import (
	"math/bits"
	"sync"

	"github.com/sumacdev/sumac/cpu/kernels"
)

// The SIMD algorithm runs on the CPU backend's fp32 micro-kernels (cpu/kernels): each call
// updates a 6 x 16 tile of C held in registers over a whole k loop, C = alpha*A*B + beta*C, with
// B packed in 16-column panels (b[p*16+j] = B[p][j]) and A either packed in 6-row tiles
// (a[p*6+i] = A[i][p]) or read in place, row i at a[i*lda] with k contiguous (lda may be smaller
// than k: overlapping rows, the sliding windows of an NHWC image). The layers choose operand
// roles so that the big operands are read in place and packing copies little.
const (
	mr = kernels.F32MR // 6 rows of C per tile
	nr = kernels.F32NR // 16 columns of C per panel
)

// kc is the k block of gemmStrided: a 16-column B panel of kc rows (24 KiB) stays in L1 while
// the tiles of A stream past it, and a kc-wide slab of A stays in L2 (HOST-ZEN3: 32 KiB
// L1d and 512 KiB L2 per core).
const kc = 384

// panels returns the number of 16-column panels covering n columns.
func panels(n int) int { return (n + nr - 1) / nr }

// tiles returns the number of 6-row tiles covering m rows.
func tiles(m int) int { return (m + mr - 1) / mr }

// packB packs the k x n row-major matrix b (row stride ldb) into zero-padded 16-column panels:
// dst[(p*k+r)*16+j] = b[r*ldb+p*16+j]. It works on blocks of 16 rows so that both the rows read
// and the panel pieces written advance sequentially (a whole panel at a time would jump ldb
// floats per row, a TLB miss each for wide matrices).
func packB(k, n int, b []float32, ldb int, dst []float32) []float32 {
	dst = grow(dst, panels(n)*k*nr)
	const rb = 16
	for r0 := 0; r0 < k; r0 += rb {
		r1 := min(k, r0+rb)
		for p := 0; p < panels(n); p++ {
			w := min(nr, n-p*nr)
			if w == nr { // whole panels: fixed-size array moves, no memmove call per piece
				for r := r0; r < r1; r++ {
					move16(dst[(p*k+r)*nr:], b[r*ldb+p*nr:])
				}
				continue
			}
			for r := r0; r < r1; r++ {
				d := dst[(p*k+r)*nr:][:nr]
				copy(d, b[r*ldb+p*nr:][:w])
				clear(d[w:])
			}
		}
	}
	return dst
}

// packBT packs B = bt^T, bt being n x k row-major (row stride ldbt), into the panels of packB:
// dst[(p*k+r)*16+j] = bt[(p*16+j)*ldbt+r]. It transposes 16 x 16 blocks: 16 contiguous reads
// from each of 16 rows, written into one 1 KiB block of the panel.
func packBT(k, n int, bt []float32, ldbt int, dst []float32) []float32 {
	dst = grow(dst, panels(n)*k*nr)
	if n < nr {
		// One partial panel (a layer with few outputs): gather each row of 16 in registers
		// and store it whole, padding included.
		for r := 0; r < k; r++ {
			var row [nr]float32
			for j := 0; j < n; j++ {
				row[j] = bt[j*ldbt+r]
			}
			move16(dst[r*nr:], row[:])
		}
		return dst
	}
	for p := 0; p < panels(n); p++ {
		w := min(nr, n-p*nr)
		pd := dst[p*k*nr:][:k*nr]
		if w < nr { // zero the padding columns only
			for r := 0; r < k; r++ {
				pr := (*[nr]float32)(pd[r*nr:])
				for j := w; j < nr; j++ {
					pr[j] = 0
				}
			}
		}
		r0 := 0
		for ; r0+nr <= k; r0 += nr {
			blk := (*[nr * nr]float32)(pd[r0*nr:])
			for j := 0; j < w; j++ {
				src := (*[nr]float32)(bt[(p*nr+j)*ldbt+r0:])
				for i, v := range src {
					blk[i*nr+j] = v
				}
			}
		}
		for j := 0; j < w; j++ {
			for r := r0; r < k; r++ {
				pd[r*nr+j] = bt[(p*nr+j)*ldbt+r]
			}
		}
	}
	return dst
}

// packATChunk packs rows [r0, r0+kb) of A = at^T (at k x m, row stride ldat) into 6-row tiles,
// dst[(t*kb+r)*6+i] = at[(r0+r)*ldat+row(t)+i], where the last tile starts at m-6 when m >= 6
// (overlapping the previous one) and is zero-padded otherwise.
func packATChunk(m, r0, kb int, at []float32, ldat int, dst []float32) {
	for t := 0; t < tiles(m); t++ {
		i0 := tileRow(m, t)
		h := min(mr, m-i0)
		d := dst[t*kb*mr:][:kb*mr]
		if h == mr {
			for r := 0; r < kb; r++ {
				move6(d[r*mr:], at[(r0+r)*ldat+i0:])
			}
			continue
		}
		clear(d)
		for r := 0; r < kb; r++ {
			copy(d[r*mr:][:h], at[(r0+r)*ldat+i0:][:h])
		}
	}
}

// tileRow is the first row of tile t of m rows: t*6, except that a partial last tile is moved
// up to end at row m when m >= 6.
func tileRow(m, t int) int {
	if i0 := t * mr; i0+mr <= m || m < mr {
		return i0
	}
	return m - mr
}

// tnChunk is the k block of gemmTN: A and B pieces of tnChunk rows stay in L2 (512 KiB,
// HOST-ZEN3) while every tile and panel of the block is computed.
const tnChunk = 256

// gemmTN computes C = A^T * B (C overwritten) for at (k x m, row stride ldat), b (k x n, row
// stride ldb) and C m x n (row stride ldc): the weight gradients, which reduce over the batch or
// the pixels. k is processed in blocks of tnChunk rows, packing A and B block by block so that
// each operand is read from memory once. Column panels are split across threads (each packs
// its own panels of B), so results do not depend on the number of threads.
func gemmTN(threads, m, n, k int, at []float32, ldat int, b []float32, ldb int, c []float32, ldc int) {
	parallelFor(threadsFor(threads, m, n, k), panels(n), func(p0, p1 int) {
		kb0 := min(k, tnChunk)
		app, bpp, tcp := getScratch(tiles(m)*kb0*mr), getScratch((p1-p0)*kb0*nr), getScratch(mr*nr)
		defer func() { putScratch(app); putScratch(bpp); putScratch(tcp) }()
		ap, bp, tc := *app, *bpp, *tcp
		// With one block C is written directly; with several, partial sums accumulate in a
		// padded buffer, because overlapping or padded edge tiles must not add twice.
		direct := k <= tnChunk
		var acc []float32
		accW := (p1 - p0) * nr
		if !direct {
			accp := getScratch(tiles(m) * mr * accW)
			defer putScratch(accp)
			acc = *accp
		}
		for r0 := 0; r0 < k; r0 += tnChunk {
			kb := min(tnChunk, k-r0)
			packATChunk(m, r0, kb, at, ldat, ap)
			packB(kb, min(n, p1*nr)-p0*nr, b[r0*ldb+p0*nr:], ldb, bp)
			beta := float32(0)
			if r0 > 0 {
				beta = 1
			}
			for p := p0; p < p1; p++ {
				bk := bp[(p-p0)*kb*nr:][:kb*nr]
				w := min(nr, n-p*nr)
				if !direct {
					// The accumulator's tiles are stacked: one call runs them all.
					kernels.F32Tiles(tiles(m), kb, ap[:tiles(m)*kb*mr], bk, acc[(p-p0)*nr:], accW, 1, beta)
					continue
				}
				// Tiles 0..full-1 start at rows 6t of C: one call when the panel is whole.
				full := m / mr
				t := 0
				if w == nr && full > 0 {
					kernels.F32Tiles(full, kb, ap[:full*kb*mr], bk, c[p*nr:], ldc, 1, 0)
					t = full
				}
				for ; t < tiles(m); t++ {
					a := ap[t*kb*mr:][:kb*mr]
					i0 := tileRow(m, t)
					if w == nr && i0+mr <= m {
						kernels.F32(kb, a, bk, c[i0*ldc+p*nr:], ldc, 1, 0)
						continue
					}
					kernels.F32(kb, a, bk, tc, nr, 1, 0)
					storeTile(tc, c, i0, p*nr, min(mr, m-i0), w, ldc)
				}
			}
		}
		if !direct {
			for t := 0; t < tiles(m); t++ {
				i0 := tileRow(m, t)
				for i := 0; i < min(mr, m-i0); i++ {
					copy(c[(i0+i)*ldc+p0*nr:min(n, p1*nr)+(i0+i)*ldc], acc[(t*mr+i)*accW:])
				}
			}
		}
	})
}

// gemmStrided computes C = A*B + beta*C for A m x k read in place (row i at a[i*lda], k
// contiguous), B in packB panels and C m x n row-major (row stride ldc). Tiles of C are split
// across threads; k is blocked by kc with a fixed order, so results do not depend on threads.
func gemmStrided(threads, m, n, k int, a []float32, lda int, bp []float32, beta float32, c []float32, ldc int) {
	parallelFor(threadsFor(threads, m, n, k), tiles(m), func(t0, t1 int) { gemmStridedTiles(m, n, k, a, lda, bp, beta, c, ldc, t0, t1) })
}

// gemmStridedTiles is gemmStrided for the row tiles [t0, t1) on the calling goroutine.
func gemmStridedTiles(m, n, k int, a []float32, lda int, bp []float32, beta float32, c []float32, ldc, t0, t1 int) {
	var ta, tc []float32 // edge buffers, taken when an edge tile occurs
	var tap, tcp *[]float32
	defer func() {
		if tap != nil {
			putScratch(tap)
			putScratch(tcp)
		}
	}()
	for k0 := 0; k0 < k; k0 += kc {
		kb := min(kc, k-k0)
		b := beta
		if k0 > 0 {
			b = 1
		}
		for p := 0; p < panels(n); p++ {
			bpk := bp[(p*k+k0)*nr:][:kb*nr]
			w := min(nr, n-p*nr)
			for t := t0; t < t1; t++ {
				i0 := t * mr
				h := min(mr, m-i0)
				if h < mr && b == 0 && m >= mr {
					// Overwriting C: the last tile may overlap the previous one (rows
					// recomputed from the same data give the same values).
					i0, h = m-mr, mr
				}
				if h == mr && w == nr {
					kernels.F32Strided(kb, a[i0*lda+k0:], lda, bpk, c[i0*ldc+p*nr:], ldc, 1, b)
					continue
				}
				// Edge tile: C through a small buffer, and A too when rows are missing.
				if ta == nil {
					tap, tcp = getScratch(mr*min(kc, k)), getScratch(mr*nr)
					ta, tc = *tap, *tcp
				}
				at, atl := a[i0*lda+k0:], lda
				if h < mr {
					clear(ta[:mr*kb])
					for i := 0; i < h; i++ {
						copy(ta[i*kb:][:kb], a[(i0+i)*lda+k0:][:kb])
					}
					at, atl = ta, kb
				}
				loadTile(tc, c, i0, p*nr, h, w, ldc, b)
				kernels.F32Strided(kb, at, atl, bpk, tc, nr, 1, b)
				storeTile(tc, c, i0, p*nr, h, w, ldc)
			}
		}
	}
}

// loadTile copies the h x w corner of C at (i0, j0) into a 6 x 16 buffer (zeros elsewhere);
// with beta = 0 C is not read (it may hold anything).
func loadTile(tc []float32, c []float32, i0, j0, h, w, ldc int, beta float32) {
	clear(tc[:])
	if beta == 0 {
		return
	}
	for i := 0; i < h; i++ {
		copy(tc[i*nr:][:w], c[(i0+i)*ldc+j0:][:w])
	}
}

func storeTile(tc []float32, c []float32, i0, j0, h, w, ldc int) {
	for i := 0; i < h; i++ {
		copy(c[(i0+i)*ldc+j0:][:w], tc[i*nr:][:w])
	}
}

// grow returns a slice of length n, reusing buf's storage when it is large enough.
func grow(buf []float32, n int) []float32 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]float32, n)
}

// colSums sets sums[j] to the sum of column j of the rows x cols matrix m, over rows in order.
func colSums(m []float32, rows, cols int, sums []float32) {
	clear(sums[:cols])
	for r := 0; r < rows; r++ {
		for j, v := range m[r*cols:][:cols] {
			sums[j] += v
		}
	}
}

// scratchPools recycle the packing buffers of the GEMM drivers, which every layer call needs
// (allocating them would give the garbage collector megabytes per batch), one pool per
// power-of-two size class so that a request never meets a buffer too small for it. Contents
// are not cleared: users overwrite what they read.
var scratchPools [64]sync.Pool

func getScratch(n int) *[]float32 {
	c := bits.Len(uint(max(n, 1) - 1))
	if p, ok := scratchPools[c].Get().(*[]float32); ok {
		*p = (*p)[:n]
		return p
	}
	b := make([]float32, n, 1<<c)
	return &b
}

func putScratch(p *[]float32) {
	c := bits.Len(uint(cap(*p) - 1))
	if cap(*p) == 1<<c {
		scratchPools[c].Put(p)
	}
}

// minParallelMACs is the product size below which a GEMM stays on one goroutine: starting and
// joining goroutines costs microseconds, as long as about 1<<18 multiply-adds take.
const minParallelMACs = 1 << 18

func threadsFor(threads, m, n, k int) int {
	if m*n*k < minParallelMACs {
		return 1
	}
	return threads
}

// move16 and move6 copy 16 and 6 floats with 16- and 8-byte moves that the compiler inlines
// (an assignment of a whole [16]float32 or [6]float32 becomes a memmove call).
func move16(dst, src []float32) {
	d, s := (*[16]float32)(dst), (*[16]float32)(src)
	*(*[4]float32)(d[0:4]) = *(*[4]float32)(s[0:4])
	*(*[4]float32)(d[4:8]) = *(*[4]float32)(s[4:8])
	*(*[4]float32)(d[8:12]) = *(*[4]float32)(s[8:12])
	*(*[4]float32)(d[12:16]) = *(*[4]float32)(s[12:16])
}

func move6(dst, src []float32) {
	d, s := (*[6]float32)(dst), (*[6]float32)(src)
	*(*[4]float32)(d[0:4]) = *(*[4]float32)(s[0:4])
	*(*[2]float32)(d[4:6]) = *(*[2]float32)(s[4:6])
}

// KernelISA names the instruction sets of the micro-kernels the simd layers run on this
// machine: "avx512+avx2" where the AVX-512 float kernels run (the convolutions' products with
// whole 32-channel panels, fc2's backward; the rest stays on AVX2), "avx2", or "go" for the
// pure-Go fallbacks.
func KernelISA() string {
	switch {
	case kernels.AVX512():
		return "avx512+avx2"
	case kernels.Runs(kernels.ISAAVX2):
		return "avx2"
	}
	return "go"
}
