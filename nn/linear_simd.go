package nn

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
}

func (st *linearSIMDState) forward(cfg *Config, n, in, out int, x, w, b, y []float32) {
	t := cfg.threads()
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
	// gx = gy * w: gy read in place (rows of Out values), w packed in 16-column panels.
	st.bp = packB(out, in, w, in, st.bp)
	gemmStrided(t, n, in, out, gy, out, st.bp, 0, gx, in)
	// gw = gy^T * x, reducing over the batch.
	gemmTN(t, out, in, n, gy, out, x, in, gw, in)
	colSums(gy, n, out, gb)
}
