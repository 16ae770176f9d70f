package nn

// linearSIMDState is the SIMD algorithm of Linear: three GEMMs,
//
//	forward      y[N, Out]  = x[N, In] x w[Out, In]^T (+ bias)
//	input grad   gx[N, In]  = gy[N, Out] x w[Out, In]
//	weight grad  gw[Out, In] = gy[N, Out]^T x x[N, In]
type linearSIMDState struct{}

func (linearSIMDState) forward(cfg *Config, n, in, out int, x, w, b, y []float32) {
	for r := 0; r < n; r++ {
		copy(y[r*out:][:out], b)
	}
	t := cfg.threads()
	if n >= 8*t {
		sgemmRows(t, false, true, n, out, in, 1, x, in, w, in, 1, y, out)
	} else {
		sgemmCols(t, false, true, n, out, in, 1, x, in, w, in, 1, y, out)
	}
}

func (linearSIMDState) backward(cfg *Config, n, in, out int, x, w, gy, gx, gw, gb []float32) {
	t := cfg.threads()
	sgemmCols(t, false, false, n, in, out, 1, gy, out, w, in, 0, gx, in)
	sgemmCols(t, true, false, out, in, n, 1, gy, out, x, in, 0, gw, in)
	colSums(gy, n, out, gb)
}
