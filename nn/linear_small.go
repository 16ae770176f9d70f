package nn

import (
	"bytes"
	"unsafe"

	"github.com/sumacdev/sumac/cpu/kernels"
)

// The few-outputs path of the SIMD Linear (Out < N, seed 003's fc2: 128 -> 10 at batch 64). Its
// products are so small (82 K multiply-adds each) that packing, not arithmetic, dominated: a
// 10 x 128 weight transposition per forward call, a weight repacking per backward call, and
// 88 kernel calls of k = 10 for the input gradient. Here the weights' packed forms are cached
// while the weights keep the same bits, the bias is preloaded into the output tiles, the input
// gradient runs on packed 6-row tiles of gy (one assembly call per panel), and the weight
// gradient packs x with the backend's AVX2 packer.

// weightCache holds packed forms of a weight matrix for as long as its bits do not change
// (an optimizer step or a finite-difference probe changes them; a layer-times loop does not).
// Comparing 5 KB with bytes.Equal costs far less than packing them again.
type weightCache struct {
	snap                []float32 // the weights the packed forms were made from
	wT, wP, wA          []float32 // w^T in 16-column panels, w in 16-column panels, w in 6-row tiles
	wZ                  []float32 // w in 32-column panels (the AVX-512 kernels)
	haveT, haveP, haveA bool
	haveZ               bool
}

// sync drops the packed forms when w differs from the snapshot.
func (c *weightCache) sync(w []float32) {
	if len(c.snap) == len(w) && bytes.Equal(floatBytes(c.snap), floatBytes(w)) {
		return
	}
	c.snap = append(c.snap[:0], w...)
	c.haveT, c.haveP, c.haveA, c.haveZ = false, false, false, false
}

// transposed returns w^T (w Out x In) packed in panels of 16 outputs: packBT(in, out, w).
func (c *weightCache) transposed(in, out int, w []float32) []float32 {
	c.sync(w)
	if !c.haveT {
		c.wT, c.haveT = packBT(in, out, w, in, c.wT), true
	}
	return c.wT
}

// tiles returns w packed in 6-row tiles, zero rows past out: a[(t*in+p)*6+i] = w[t*6+i][p].
func (c *weightCache) tiles(in, out int, w []float32) []float32 {
	c.sync(w)
	if !c.haveA {
		c.wA = grow(c.wA, tiles(out)*in*mr)
		for t := 0; t < tiles(out); t++ {
			for i := 0; i < mr; i++ {
				o := t*mr + i
				for p := 0; p < in; p++ {
					v := float32(0)
					if o < out {
						v = w[o*in+p]
					}
					c.wA[(t*in+p)*mr+i] = v
				}
			}
		}
		c.haveA = true
	}
	return c.wA
}

// panels returns w packed in panels of 16 inputs: packB(out, in, w).
func (c *weightCache) panels(in, out int, w []float32) []float32 {
	c.sync(w)
	if !c.haveP {
		c.wP, c.haveP = packB(out, in, w, in, c.wP), true
	}
	return c.wP
}

// panelsZ returns w (out x in, in a multiple of 32) packed in panels of 32 inputs, the
// packed B of kernels.F32ZTiles.
func (c *weightCache) panelsZ(in, out int, w []float32) []float32 {
	c.sync(w)
	if !c.haveZ {
		c.wZ = grow(c.wZ, in*out)
		kernels.PackBRows(out, in/zNR, zNR, w, in, c.wZ, out*zNR)
		c.haveZ = true
	}
	return c.wZ
}

// zNR is the width of the AVX-512 float32 kernels' panels.
const zNR = kernels.F32ZNR

func floatBytes(s []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))
}

// forwardFew computes y = x w^T + b for Out < N. With at least 6 outputs and whole 16-row
// panels of the batch it computes y^T = w x^T: w as the kernel's A (6-row tiles, zero-padded,
// cached), x^T packed by the backend's AVX2 transposing packer. For fc2 that
// is 2 x 4 kernel calls instead of 11 whose 16 columns hold 10 outputs: 27% fewer
// multiply-adds, worth more than the transposition when the core's FMA units are shared with
// another thread (measured side by side on this project's VMs: 7.1 us against 9.4 us median).
func (st *linearSIMDState) forwardFew(threads, n, in, out int, x, w, b, y []float32) {
	if out < mr || n%nr != 0 {
		st.forwardFewRows(threads, n, in, out, x, w, b, y)
		return
	}
	wA := st.cache.tiles(in, out, w)
	st.yT = grow(st.yT, tiles(out)*mr*n)
	// Each panel of x^T is packed just before its two kernel calls, into one buffer that
	// stays in L1 (in*64 bytes; packing all of x^T first would send it to L2 and back).
	parallelFor(threadsFor(threads, out, n, in), n/nr, func(p0, p1 int) {
		bufp := getScratch(in * nr)
		defer putScratch(bufp)
		xt := *bufp
		for p := p0; p < p1; p++ {
			kernels.PackB16TransF32(in, 1, x[p*nr*in:], in, xt, in*nr)
			kernels.F32Tiles(tiles(out), in, wA, xt, st.yT[p*nr:], n, 1, 0)
		}
	})
	for r := 0; r < n; r++ {
		yr := y[r*out:][:out]
		for o, bo := range b[:out] {
			yr[o] = st.yT[o*n+r] + bo
		}
	}
}

// forwardFewRows computes y = x w^T + b with x (n x in) read in place as the kernel's A and the
// cached w^T panels as B; C rows (padded to whole panels) start as the bias, so the kernel's
// beta = 1 adds it (sum + b, the order of base) and the copy out is a plain copy.
func (st *linearSIMDState) forwardFewRows(threads, n, in, out int, x, w, b, y []float32) {
	ldc := panels(out) * nr
	wT := st.cache.transposed(in, out, w)
	st.yT = grow(st.yT, n*ldc)
	st.bpad = grow(st.bpad, ldc)
	copy(st.bpad, b)
	clear(st.bpad[out:])
	for r := 0; r < n; r++ {
		copyFloats(st.yT[r*ldc:], st.bpad)
	}
	full := n / mr
	if in > kc || full == 0 {
		gemmStrided(threads, n, ldc, in, x, in, wT, 1, st.yT, ldc) // k blocked, edge tiles buffered
	} else {
		parallelFor(threadsFor(threads, n, ldc, in), full, func(t0, t1 int) {
			for t := t0; t < t1; t++ {
				for p := 0; p < ldc/nr; p++ {
					kernels.F32Strided(in, x[t*mr*in:], in, wT[p*in*nr:][:in*nr], st.yT[t*mr*ldc+p*nr:], ldc, 1, 1)
				}
			}
		})
		if i0 := n - mr; i0 < full*mr {
			// The last rows: a whole tile ending at row n, overlapping the previous tile's
			// rows, which start again from the bias and get the same sums.
			for r := i0; r < full*mr; r++ {
				copyFloats(st.yT[r*ldc:], st.bpad)
			}
			for p := 0; p < ldc/nr; p++ {
				kernels.F32Strided(in, x[i0*in:], in, wT[p*in*nr:][:in*nr], st.yT[i0*ldc+p*nr:], ldc, 1, 1)
			}
		}
	}
	for r := 0; r < n; r++ {
		copyFloats(y[r*out:][:out], st.yT[r*ldc:][:out])
	}
}

// copyFloats copies len(src) floats in runs of 8 (inlined moves, no memmove call for rows of
// a few dozen bytes).
func copyFloats(dst, src []float32) {
	dst = dst[:len(src)]
	i := 0
	for ; i+8 <= len(src); i += 8 {
		*(*[8]float32)(dst[i:]) = *(*[8]float32)(src[i:])
	}
	for ; i < len(src); i++ {
		dst[i] = src[i]
	}
}

// backwardFew computes gx = gy w, gw = gy^T x and gb for Out < N.
func (st *linearSIMDState) backwardFew(threads, n, in, out int, x, w, gy, gx, gw, gb []float32) {
	wP := st.cache.panels(in, out, w)
	if in%nr != 0 || n < mr {
		gemmStrided(threads, n, in, out, gy, out, wP, 0, gx, in)
		gemmTN(threads, out, in, n, gy, out, x, in, gw, in)
		colSumsFew(gy, n, out, gb)
		return
	}
	np := in / nr
	// gx: gy packed into 6-row tiles (the last one ending at row n, overlapping), so that
	// each 16-column panel of gx is one assembly call over the stacked tiles.
	full := n / mr
	nt := tiles(n)
	st.ga = grow(st.ga, nt*out*mr)
	for t := 0; t < nt; t++ {
		kernels.PackA6F32(out, gy[min(t*mr, n-mr)*out:], out, st.ga[t*out*mr:][:out*mr])
	}
	if kernels.AVX512() && in%zNR == 0 {
		// The AVX-512 kernels: 32-column panels, half the calls and instructions for the
		// short k (fc2: k = 10).
		wZ := st.cache.panelsZ(in, out, w)
		parallelFor(threadsFor(threads, n, in, out), in/zNR, func(p0, p1 int) {
			for p := p0; p < p1; p++ {
				bp := wZ[p*out*zNR:][:out*zNR]
				kernels.F32ZTiles(full, out, st.ga[:full*out*mr], bp, gx[p*zNR:], in, 1, 0)
				if nt > full {
					kernels.F32ZTiles(1, out, st.ga[full*out*mr:][:out*mr], bp, gx[(n-mr)*in+p*zNR:], in, 1, 0)
				}
			}
		})
		st.gradWFew(threads, n, in, out, x, gy, gw)
		colSumsFew(gy, n, out, gb)
		return
	}
	parallelFor(threadsFor(threads, n, in, out), np, func(p0, p1 int) {
		for p := p0; p < p1; p++ {
			bp := wP[p*out*nr:][:out*nr]
			kernels.F32Tiles(full, out, st.ga[:full*out*mr], bp, gx[p*nr:], in, 1, 0)
			if nt > full {
				kernels.F32(out, st.ga[full*out*mr:][:out*mr], bp, gx[(n-mr)*in+p*nr:], in, 1, 0)
			}
		}
	})
	st.gradWFew(threads, n, in, out, x, gy, gw)
	colSumsFew(gy, n, out, gb)
}

// gradWFew computes gw = gy^T x over the batch: gy^T in 6-row tiles, x packed into panels by
// the backend's row packer (32-column panels for the AVX-512 kernels).
func (st *linearSIMDState) gradWFew(threads, n, in, out int, x, gy, gw []float32) {
	np := in / nr
	if out < mr || n > tnChunk {
		gemmTN(threads, out, in, n, gy, out, x, in, gw, in)
	} else {
		st.ga = grow(st.ga, tiles(out)*n*mr)
		packATChunk(out, 0, n, gy, out, st.ga)
		if kernels.AVX512() && in%zNR == 0 {
			parallelFor(threadsFor(threads, out, in, n), in/zNR, func(p0, p1 int) {
				bufp := getScratch(n * zNR)
				defer putScratch(bufp)
				bp := *bufp
				for p := p0; p < p1; p++ {
					kernels.PackBRows(n, 1, zNR, x[p*zNR:], in, bp, n*zNR)
					for t := 0; t < tiles(out); t++ {
						kernels.F32ZTiles(1, n, st.ga[t*n*mr:][:n*mr], bp, gw[tileRow(out, t)*in+p*zNR:], in, 1, 0)
					}
				}
			})
			return
		}
		parallelFor(threadsFor(threads, out, in, n), np, func(p0, p1 int) {
			bufp := getScratch(n * nr) // one panel of x at a time, in L1
			defer putScratch(bufp)
			bp := *bufp
			for p := p0; p < p1; p++ {
				kernels.PackB16F32(n, 1, x[p*nr:], in, bp, n*nr)
				for t := 0; t < tiles(out); t++ {
					kernels.F32(n, st.ga[t*n*mr:][:n*mr], bp, gw[tileRow(out, t)*in+p*nr:], in, 1, 0)
				}
			}
		})
	}
}

// colSumsFew is colSums (the same sums in the same order) for matrices of at most 16 columns,
// accumulating in a local array instead of through the output slice.
func colSumsFew(m []float32, rows, cols int, sums []float32) {
	if cols > nr {
		colSums(m, rows, cols, sums)
		return
	}
	var acc [nr]float32
	for r := 0; r < rows; r++ {
		for j, v := range m[r*cols:][:cols] {
			acc[j&(nr-1)] += v
		}
	}
	copy(sums[:cols], acc[:cols])
}
