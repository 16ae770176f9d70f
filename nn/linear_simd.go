package nn

import "github.com/sumacdev/sumac/cpu/kernels"

// linearSIMDState is the SIMD algorithm of Linear: three products on the micro-kernels, with the
// big operands (x, w) read in place where the kernel allows and packed with contiguous copies
// otherwise:
//
//	forward      y^T[Out, N] = w[Out, In] (in place) x x^T (packed, transposing); when
//	             Out < N the same with the backend's packer, or y[N, Out] = x (in place) x
//	             w^T (packed, cached) when Out < 6 or N is not a multiple of 16
//	input grad   gx[N, In]   = gy[N, Out] (in place) x w (packed panels of rows), or
//	             gy in packed tiles x w (panels, cached) when Out < N
//	weight grad  gw[Out, In] = gy^T x x (both packed block by block)
//
// The Out < N path (forwardFew, backwardFew) is in linear_small.go.
type linearSIMDState struct {
	bp, yT     []float32
	cache      weightCache // packed weights of the Out < N path
	ga, xp, xt []float32   // packed gy, x and x^T of the Out < N path
	bpad       []float32   // the bias padded to whole panels
	// xg: the forward's input packed in 32-column panels for the ten-output weight gradient
	// (gradWFew), when a training forward packed it (xgN = its batch, else 0)
	xg  []float32
	xgN int
}

func (st *linearSIMDState) forward(cfg *Config, n, in, out int, x, w, b, y []float32, training bool) {
	t := cfg.threads()
	st.xgN = 0
	if training && tenRows(n, in, out) {
		// The backward's weight gradient reads x in 32-column panels: pack them here, where
		// x has just been read (the layer keeps x for the backward as it is).
		st.xg = grow(st.xg, in*n)
		kernels.PackBRows(n, in/zNR, zNR, x, in, st.xg, n*zNR)
		st.xgN = n
	}
	if out < n {
		st.forwardFew(t, n, in, out, x, w, b, y)
		return
	}
	ldc := max(n, nr) // the kernel's C row stride must cover a whole panel
	st.bp = packBT(in, n, x, in, st.bp)
	st.yT = grow(st.yT, out*ldc)
	gemmStrided(t, out, n, in, w, in, st.bp, 0, st.yT, ldc)
	for o := 0; o < out; o++ {
		row := st.yT[o*ldc:][:n]
		for r, v := range row {
			y[r*out+o] = v + b[o]
		}
	}
}

func (st *linearSIMDState) backward(cfg *Config, n, in, out int, x, w, gy, gx, gw, gb []float32) {
	t := cfg.threads()
	if out < n {
		st.backwardFew(t, n, in, out, x, w, gy, gx, gw, gb)
		return
	}
	if kernels.AVX512() && in%zNR == 0 && n >= mr && out <= tnChunk {
		st.backwardZ(t, n, in, out, x, w, gy, gx, gw, gb)
		return
	}
	// gx = gy * w: gy read in place (rows of Out values), w packed in 16-column panels.
	st.bp = packB(out, in, w, in, st.bp)
	gemmStrided(t, n, in, out, gy, out, st.bp, 0, gx, in)
	// gw = gy^T * x, reducing over the batch.
	gemmTN(t, out, in, n, gy, out, x, in, gw, in)
	colSums(gy, n, out, gb)
}

// backwardZ is backward on the AVX-512 kernels (fc1: In = 9216 in 32-column panels, N = 64):
// gx = gy x w with gy read in place, w packed by the backend's row packer a 32-column panel
// at a time, and one multi-tile call per panel (the last tile moved up to end at row N,
// overlapping); gw through gradWFew's 32-column path. Where the 16-column path made a call
// per tile and panel (6336 for fc1's gx), this makes two per panel (576).
func (st *linearSIMDState) backwardZ(threads, n, in, out int, x, w, gy, gx, gw, gb []float32) {
	np := in / zNR
	full := n / mr
	parallelFor(threadsFor(threads, n, in, out), np, func(p0, p1 int) {
		// Each panel of w is packed just before its calls, into a buffer that stays in L1
		// (out*128 bytes), instead of all of w first (4.7 MB for fc1, written to memory and
		// read back).
		bufp := getScratch(out * zNR)
		defer putScratch(bufp)
		bp := (*bufp)[:out*zNR]
		for p := p0; p < p1; p++ {
			kernels.PackBRows(out, 1, zNR, w[p*zNR:], in, bp, out*zNR)
			kernels.F32ZStridedTiles(full, out, gy, out, bp, gx[p*zNR:], in, 1, 0)
			if n%mr != 0 {
				kernels.F32ZStrided(out, gy[(n-mr)*out:], out, bp, gx[(n-mr)*in+p*zNR:], in, 1, 0)
			}
		}
	})
	st.gradWFew(threads, n, in, out, x, gy, gw)
	colSums(gy, n, out, gb)
}
