package nn

// convSIMDState holds the SIMD algorithm's scratch buffers for one Conv2D.
//
// The SIMD algorithm lowers the convolution to GEMM (im2col, Chellapilla, Puri, Simard, "High
// Performance Convolutional Neural Networks for Document Processing", 2006): with the patch
// matrix col[p, (kh, kw, ic)] = x[n, oh+kh, ow+kw, ic] for positions p = (n, oh, ow),
//
//	forward      y[P, OC]     = col[P, KKC] x w[OC, KKC]^T  (+ bias)
//	weight grad  gw[OC, KKC]  = gy[P, OC]^T x col[P, KKC]
//	input grad   gcol[P, KKC] = gy[P, OC] x w[OC, KKC], scattered back into gx (col2im)
//
// In NHWC each (kh) slice of a patch row is a contiguous run of K*IC inputs, so im2col copies
// K runs per position. The forward pass keeps col for the weight gradient.
type convSIMDState struct {
	col []float32 // [P, KKC] patches of the last forward input, reused as gcol in backward
}

func (st *convSIMDState) forward(cfg *Config, s convShape, x, w, b, y []float32) {
	kkc := s.K * s.K * s.IC
	pos := s.OH * s.OW // positions per image
	st.col = grow(st.col, s.N*pos*kkc)
	col := st.col
	t := cfg.threads()
	parallelFor(t, s.N, func(lo, hi int) {
		im2col(s, x, col, lo, hi)
		for p := lo * pos; p < hi*pos; p++ {
			copy(y[p*s.OC:][:s.OC], b)
		}
	})
	sgemmRows(t, false, true, s.N*pos, s.OC, kkc, 1, col, kkc, w, kkc, 1, y, s.OC)
}

func (st *convSIMDState) backward(cfg *Config, s convShape, x, w, gy, gx, gw, gb []float32) {
	kkc := s.K * s.K * s.IC
	pos := s.OH * s.OW
	P := s.N * pos
	t := cfg.threads()
	// Weight gradient from the patches of the forward pass; columns split across threads.
	sgemmCols(t, true, false, s.OC, kkc, P, 1, gy, s.OC, st.col, kkc, 0, gw, kkc)
	colSums(gy, P, s.OC, gb)
	if gx == nil {
		return
	}
	gcol := st.col // patches no longer needed
	parallelFor(t, s.N, func(lo, hi int) {
		kern.Sgemm(false, false, (hi-lo)*pos, kkc, s.OC, 1, gy[lo*pos*s.OC:], s.OC, w, kkc, 0, gcol[lo*pos*kkc:], kkc)
		col2im(s, gcol, gx, lo, hi)
	})
}

// im2col writes the patch rows of images [lo, hi).
func im2col(s convShape, x, col []float32, lo, hi int) {
	kc := s.K * s.IC
	kkc := s.K * kc
	for n := lo; n < hi; n++ {
		for oh := 0; oh < s.OH; oh++ {
			for ow := 0; ow < s.OW; ow++ {
				row := col[((n*s.OH+oh)*s.OW+ow)*kkc:][:kkc]
				for kh := 0; kh < s.K; kh++ {
					copy(row[kh*kc:][:kc], x[((n*s.H+oh+kh)*s.W+ow)*s.IC:][:kc])
				}
			}
		}
	}
}

// col2im sets gx of images [lo, hi) to the sum of the patch gradients that cover each input.
func col2im(s convShape, gcol, gx []float32, lo, hi int) {
	kc := s.K * s.IC
	kkc := s.K * kc
	clear(gx[lo*s.H*s.W*s.IC : hi*s.H*s.W*s.IC])
	for n := lo; n < hi; n++ {
		for oh := 0; oh < s.OH; oh++ {
			for ow := 0; ow < s.OW; ow++ {
				row := gcol[((n*s.OH+oh)*s.OW+ow)*kkc:][:kkc]
				for kh := 0; kh < s.K; kh++ {
					dst := gx[((n*s.H+oh+kh)*s.W+ow)*s.IC:][:kc]
					for i, v := range row[kh*kc:][:kc] {
						dst[i] += v
					}
				}
			}
		}
	}
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

// grow returns a slice of length n, reusing buf's storage when it is large enough.
func grow(buf []float32, n int) []float32 {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]float32, n)
}
