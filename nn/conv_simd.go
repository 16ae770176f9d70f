package nn

import "github.com/sumacdev/sumac/cpu/kernels"

// convSIMDState is the SIMD algorithm of Conv2D on the CPU backend's micro-kernels, in NHWC.
//
// Direct path (a filter row has K*IC >= 16 values, e.g. conv2): the GEMM-like direct
// convolution of seed 004 (Fig. 3). For an output row (n, oh) and a filter row kh, the K*IC
// inputs under output pixel ow are one contiguous run starting at x[n, oh+kh, ow, 0], so the
// kernel reads 6 overlapping runs (row stride IC) in place: y[n, oh, :, :] += A_kh x W_kh with
// W_kh[(kw, ic), oc] packed once per call. The input gradient is the same computation on the
// output gradient padded by K-1, with the filters flipped and their channels swapped. The
// weight gradient reduces over pixels, which NHWC does not store contiguously per channel, so
// x is repacked channel-panel-major (x_p[q][n][h][w][16 channels]) and gy into 6-channel tiles
// over "wide" rows of W pixels (zeros in the K-1 columns past the output width): then for each
// (kh, kw, q) the pixels of a whole image form one contiguous k loop of OH*W values.
//
// im2col path (small filter rows, e.g. conv1 with one input channel): patches are copied into
// rows of 16 (K*K*IC values, then a 1 that multiplies the bias), the forward A operand read in
// place (one output row at a time, in L1) and, built again for the whole batch, the weight
// gradient's A^T, whose bias column gives the bias gradient.
type convSIMDState struct {
	wp, bp, ap []float32 // packed operands
	col        []float32 // im2col path: [P][colW] patches for the weight gradient
	xp         []float32 // direct path: x repacked per 16-channel panel
	gyp        []float32 // direct path: padded output gradient
	gwp        []float32 // direct path: weight gradient with output channels padded to tiles
	gyShape    [4]int
	colShape   convShape // shape whose ones and padding st.col holds
}

// directPath reports whether a filter row is long enough for the in-place kernel to pay off.
func directPath(s convShape) bool { return s.K*s.IC >= nr }

func (st *convSIMDState) forward(cfg *Config, s convShape, x, w, b, y []float32) {
	if directPath(s) {
		st.forwardDirect(cfg, s, x, w, b, y)
	} else {
		st.forwardIm2col(cfg, s, x, w, b, y)
	}
}

func (st *convSIMDState) backward(cfg *Config, s convShape, x, w, gy, gx, gw, gb []float32) {
	if directPath(s) {
		st.weightGradDirect(cfg, s, x, gy, gw, gb)
		if gx != nil {
			st.inputGradDirect(cfg, s, w, gy, gx)
		}
		return
	}
	st.weightGradIm2col(cfg, s, x, gy, gw, gb)
	if gx != nil {
		st.inputGradIm2col(cfg, s, w, gy, gx)
	}
}

// forwardDirect: bias first, then one in-place GEMM per filter row accumulating into y.
func (st *convSIMDState) forwardDirect(cfg *Config, s convShape, x, w, b, y []float32) {
	kc := s.K * s.IC
	kkc := s.K * kc
	if kernels.AVX512() && s.OC%zNR == 0 && s.OW%mr == 0 {
		st.forwardDirectZ(cfg, s, x, w, b, y)
		return
	}
	// W_kh[(kw, ic), oc] = w[oc, kh, kw, ic]: the transposed rows of w, packed per kh.
	per := panels(s.OC) * kc * nr
	st.wp = grow(st.wp, s.K*per)
	for kh := 0; kh < s.K; kh++ {
		packBT(kc, s.OC, w[kh*kc:], kkc, st.wp[kh*per:][:per])
	}
	parallelFor(cfg.threads(), s.N*s.OH, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			n, oh := r/s.OH, r%s.OH
			yr := y[r*s.OW*s.OC:][:s.OW*s.OC]
			for p := 0; p < s.OW; p++ {
				if s.OC%nr == 0 { // inlined moves rather than a memmove call per pixel
					for j := 0; j < s.OC; j += nr {
						move16(yr[p*s.OC+j:], b[j:])
					}
				} else {
					copy(yr[p*s.OC:][:s.OC], b)
				}
			}
			for kh := 0; kh < s.K; kh++ {
				gemmStridedTiles(s.OW, s.OC, kc, x[((n*s.H+oh+kh)*s.W)*s.IC:], s.IC, st.wp[kh*per:][:per], 1, yr, s.OC, 0, tiles(s.OW))
			}
		}
	})
}

// inputGradDirect: gx[n, ih, :, :] = sum over valid kh' of gyp rows x the flipped filters.
func (st *convSIMDState) inputGradDirect(cfg *Config, s convShape, w, gy, gx []float32) {
	k1 := s.K - 1
	hp, wp := s.OH+2*k1, s.OW+2*k1
	// Slack past the last image: the wide grid's last tile reads a few pixels beyond it.
	slack := (s.K + mr) * s.OC
	if st.gyShape != [4]int{s.N, hp, wp, s.OC} || len(st.gyp) != s.N*hp*wp*s.OC+slack {
		st.gyp = make([]float32, s.N*hp*wp*s.OC+slack) // borders stay zero from here on
		st.gyShape = [4]int{s.N, hp, wp, s.OC}
	}
	gyp := st.gyp
	for n := 0; n < s.N; n++ {
		for oh := 0; oh < s.OH; oh++ {
			copy(gyp[((n*hp+oh+k1)*wp+k1)*s.OC:][:s.OW*s.OC], gy[(n*s.OH+oh)*s.OW*s.OC:][:s.OW*s.OC])
		}
	}
	// F_kh'[(kw', oc), ic] = w[oc, K-1-kh', K-1-kw', ic], packed per kh' in panels of pw
	// channels: 32 for the AVX-512 kernels where they run, else 16.
	pw := nr
	if kernels.AVX512() && s.IC%zNR == 0 {
		pw = zNR
	}
	np := (s.IC + pw - 1) / pw
	kc := s.K * s.OC
	per := np * kc * pw
	st.bp = grow(st.bp, s.K*per)
	for kh := 0; kh < s.K; kh++ {
		f := st.bp[kh*per:][:per]
		clear(f)
		for kw := 0; kw < s.K; kw++ {
			for oc := 0; oc < s.OC; oc++ {
				src := w[((oc*s.K+k1-kh)*s.K+k1-kw)*s.IC:][:s.IC]
				r := kw*s.OC + oc
				for ic, v := range src {
					f[((ic/pw)*kc+r)*pw+ic%pw] = v
				}
			}
		}
	}
	// The wide grid: gx's pixel (ih, iw) for every iw < wp (the columns past W are
	// discarded). For filter row kh its A row starts at gyp[((n*hp+ih+kh)*wp+iw)*OC], so an
	// image's pixels are one strided run (lda = OC) and each (kh, panel) is one kernel call
	// over all its tiles, the weight panel in L1 throughout, instead of a call per tile and
	// output row with copied edge tiles.
	m := s.H * wp
	mt := tiles(m)
	ldc := np * pw
	parallelFor(cfg.threads(), s.N, func(lo, hi int) {
		cp := getScratch(mt * mr * ldc)
		defer putScratch(cp)
		c := *cp
		for n := lo; n < hi; n++ {
			for kh := 0; kh < s.K; kh++ {
				a := gyp[((n*hp+kh)*wp)*s.OC:]
				a = a[:(mt*mr-1)*s.OC+kc]
				beta := float32(1)
				if kh == 0 {
					beta = 0
				}
				for p := 0; p < np; p++ {
					b := st.bp[kh*per+p*kc*pw:][:kc*pw]
					if pw == zNR {
						kernels.F32ZStridedTiles(mt, kc, a, s.OC, b, c[p*pw:], ldc, 1, beta)
					} else {
						kernels.F32StridedTiles(mt, kc, a, s.OC, b, c[p*pw:], ldc, 1, beta)
					}
				}
			}
			for ih := 0; ih < s.H; ih++ {
				dst := gx[((n*s.H+ih)*s.W)*s.IC:][:s.W*s.IC]
				if ldc == s.IC {
					copy(dst, c[ih*wp*ldc:][:s.W*ldc])
					continue
				}
				for iw := 0; iw < s.W; iw++ {
					copy(dst[iw*s.IC:][:s.IC], c[(ih*wp+iw)*ldc:][:s.IC])
				}
			}
		}
	})
}

// weightGradDirect computes gw and gb from x repacked per channel panel and gy in tiles.
func (st *convSIMDState) weightGradDirect(cfg *Config, s convShape, x, gy, gw, gb []float32) {
	if kernels.AVX512() && s.IC == zNR {
		st.weightGradOnePanel(cfg, s, x, gy, gw, gb)
		return
	}
	q := panels(s.IC)
	img := s.H * s.W * nr                  // one image of one panel
	pad := (s.K - 1) * nr                  // the last k loop runs K-1 pixels past the end
	xpLen := q*(s.N*img+pad) + s.OH*s.W*nr // + a ones panel for the bias gradient
	st.xp = grow(st.xp, xpLen)
	xp := st.xp
	for p := 0; p < q; p++ {
		dst := xp[p*(s.N*img+pad):][:s.N*img+pad]
		w := min(nr, s.IC-p*nr)
		if w == nr {
			for pix := 0; pix < s.N*s.H*s.W; pix++ {
				move16(dst[pix*nr:], x[pix*s.IC+p*nr:])
			}
		} else {
			for pix := 0; pix < s.N*s.H*s.W; pix++ {
				d := dst[pix*nr:][:nr]
				copy(d, x[pix*s.IC+p*nr:][:w])
				clear(d[w:])
			}
		}
		clear(dst[s.N*img:])
	}
	ones := xp[q*(s.N*img+pad):][:s.OH*s.W*nr]
	clear(ones)
	for i := 0; i < s.OH*s.W; i++ {
		ones[i*nr] = 1
	}
	// gy in 6-channel tiles over wide rows: ap[n][t][oh*W+ow][6], zero for ow >= OW.
	t := tiles(s.OC)
	klen := s.OH * s.W
	ap := st.gyTiles(cfg, s, gy)
	// gwp[oc][(kh, kw)][q*16 channels] (channels padded to whole panels, so that each job owns
	// its columns), then one more panel whose column 0 is the bias gradient.
	icp := q * nr
	kkp := s.K * s.K * icp
	ldc := kkp + nr
	st.gwp = grow(st.gwp, t*mr*ldc)
	gwp := st.gwp
	jobs := s.K*s.K*q + 1
	// Images outermost: one image's gy tiles and x panels stay in L2 while every job uses them.
	parallelFor(cfg.threads(), jobs, func(lo, hi int) {
		for n := 0; n < s.N; n++ {
			beta := float32(1)
			if n == 0 {
				beta = 0
			}
			for j := lo; j < hi; j++ {
				b, col := ones, kkp
				if j != jobs-1 {
					kh, kw, p := j/(s.K*q), j/q%s.K, j%q
					b = xp[p*(s.N*img+pad)+n*img+((kh*s.W)+kw)*nr:][:klen*nr]
					col = (kh*s.K+kw)*icp + p*nr
				}
				for ti := 0; ti < t; ti++ {
					kernels.F32(klen, ap[(n*t+ti)*klen*mr:][:klen*mr], b, gwp[ti*mr*ldc+col:], ldc, 1, beta)
				}
			}
		}
	})
	for oc := 0; oc < s.OC; oc++ {
		row := gwp[oc*ldc:][:ldc]
		for f := 0; f < s.K*s.K; f++ {
			copy(gw[(oc*s.K*s.K+f)*s.IC:][:s.IC], row[f*icp:][:s.IC])
		}
		gb[oc] = row[kkp]
	}
}

// colW is the row length of the im2col path's patch matrix: K*K*IC patch values, a 1 for the
// bias, zeros up to a whole number of panels.
func colW(s convShape) int { return panels(s.K*s.K*s.IC+1) * nr }

// forwardIm2col: patches (with a 1) x [w; bias] in one in-place GEMM, bias included.
func (st *convSIMDState) forwardIm2col(cfg *Config, s convShape, x, w, b, y []float32) {
	kkc := s.K * s.K * s.IC
	cw := colW(s)
	// B[(kh, kw, ic) | bias, oc] = w[oc, ...] | b[oc].
	st.wp = packBT(kkc, s.OC, w, kkc, st.wp)
	bp := grow(st.bp, panels(s.OC)*(kkc+1)*nr)
	for p := 0; p < panels(s.OC); p++ {
		dst := bp[p*(kkc+1)*nr:]
		copy(dst[:kkc*nr], st.wp[p*kkc*nr:][:kkc*nr])
		last := dst[kkc*nr:][:nr]
		clear(last)
		copy(last, b[p*nr:min(s.OC, (p+1)*nr)])
	}
	st.bp = bp
	// Row by row, through a buffer that stays in L1: the patches of one output row are built
	// and multiplied at once (the weight gradient builds them again; storing them all here
	// would cost a pass over memory as large as half the output).
	parallelFor(cfg.threads(), s.N*s.OH, func(lo, hi int) {
		bufp := getScratch(s.OW * cw)
		defer putScratch(bufp)
		buf := *bufp
		initPatchRows(buf, s.OW, cw, kkc)
		for r := lo; r < hi; r++ {
			im2colRows(s, x, buf, cw, r, r+1)
			gemmStridedTiles(s.OW, s.OC, kkc+1, buf, cw, bp, 0, y[r*s.OW*s.OC:], s.OC, 0, tiles(s.OW))
		}
	})
}

// initPatchRows sets rows of patch rows to zero with the bias column at 1.
func initPatchRows(col []float32, rows, cw, kkc int) {
	clear(col[:rows*cw])
	for p := 0; p < rows; p++ {
		col[p*cw+kkc] = 1
	}
}

// im2colRows writes the patches of output rows [r0, r1) (r = n*OH + oh) into col, one row of
// cw values per output pixel, starting at col[0]; the bias 1 and padding are left as they are.
func im2colRows(s convShape, x, col []float32, cw, r0, r1 int) {
	kc := s.K * s.IC
	for r := r0; r < r1; r++ {
		n, oh := r/s.OH, r%s.OH
		out := col[(r-r0)*s.OW*cw:][:s.OW*cw]
		for kh := 0; kh < s.K; kh++ {
			src := x[(n*s.H+oh+kh)*s.W*s.IC:][:s.W*s.IC]
			if kc == 3 { // 3x3 filters on one channel (conv1): 12-byte moves
				for ow := 0; ow < s.OW; ow++ {
					*(*[3]float32)(out[ow*cw+kh*3:]) = *(*[3]float32)(src[ow:])
				}
				continue
			}
			// Runs of K*IC values are short here: an explicit loop beats copy's call.
			for ow := 0; ow < s.OW; ow++ {
				dst, in := out[ow*cw+kh*kc:][:kc], src[ow*s.IC:][:kc]
				for i, v := range in {
					dst[i] = v
				}
			}
		}
	}
}

// weightGradIm2col: [gw | gb]^T = patches^T x gy.
func (st *convSIMDState) weightGradIm2col(cfg *Config, s convShape, x, gy, gw, gb []float32) {
	kkc := s.K * s.K * s.IC
	cw := colW(s)
	P := s.N * s.OH * s.OW
	if len(st.col) != P*cw || st.colShape != s {
		// The 1 and the zero padding of each row are written once per shape.
		st.col = grow(st.col, P*cw)
		initPatchRows(st.col, P, cw, kkc)
		st.colShape = s
	}
	parallelFor(cfg.threads(), s.N, func(lo, hi int) {
		im2colRows(s, x, st.col[lo*s.OH*s.OW*cw:], cw, lo*s.OH, hi*s.OH)
	})
	// gwT[r, oc] for r < kkc, bias at r = kkc: A = patches^T (packed tiles), B = gy panels.
	gwT := grow(st.gwp, (kkc+1)*s.OC)
	st.gwp = gwT
	gemmTN(cfg.threads(), kkc+1, s.OC, P, st.col, cw, gy, s.OC, gwT, s.OC)
	for oc := 0; oc < s.OC; oc++ {
		for r := 0; r < kkc; r++ {
			gw[oc*kkc+r] = gwT[r*s.OC+oc]
		}
		gb[oc] = gwT[kkc*s.OC+oc]
	}
}

// inputGradIm2col: patch gradients gy x w (gy in place), scattered back onto the input.
func (st *convSIMDState) inputGradIm2col(cfg *Config, s convShape, w, gy, gx []float32) {
	kkc := s.K * s.K * s.IC
	P := s.N * s.OH * s.OW
	st.bp = packB(s.OC, kkc, w, kkc, st.bp)
	st.ap = grow(st.ap, P*kkc)
	gcol := st.ap
	gemmStrided(cfg.threads(), P, kkc, s.OC, gy, s.OC, st.bp, 0, gcol, kkc)
	parallelFor(cfg.threads(), s.N, func(lo, hi int) { col2im(s, gcol, gx, lo, hi) })
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

// gyTiles packs gy in 6-channel tiles over wide rows: ap[n][t][oh*W+ow][6], zero for ow >= OW.
func (st *convSIMDState) gyTiles(cfg *Config, s convShape, gy []float32) []float32 {
	t := tiles(s.OC)
	klen := s.OH * s.W
	st.ap = grow(st.ap, s.N*t*klen*mr)
	ap := st.ap
	parallelFor(cfg.threads(), s.N, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			for ti := 0; ti < t; ti++ {
				a := ap[(n*t+ti)*klen*mr:][:klen*mr]
				h := min(mr, s.OC-ti*mr)
				for oh := 0; oh < s.OH; oh++ {
					for ow := 0; ow < s.W; ow++ {
						d := a[(oh*s.W+ow)*mr:][:mr]
						switch {
						case ow >= s.OW:
							clear(d)
						case h == mr:
							move6(d, gy[((n*s.OH+oh)*s.OW+ow)*s.OC+ti*mr:])
						default:
							clear(d)
							copy(d, gy[((n*s.OH+oh)*s.OW+ow)*s.OC+ti*mr:][:h])
						}
					}
				}
			}
		}
	})
	return ap
}

// weightGradOnePanel is weightGradDirect when the input channels are exactly one panel of the
// AVX-512 kernels (32, conv2's): x in NHWC is then already the packed B of F32ZTiles (k = the
// pixels, 32 channels each), so it is read in place instead of repacked, and an image's gy
// tiles (consecutive packed A micro-panels) run in one call per filter tap. The wide rows'
// last loop reads K-1 pixels past an image, where gy's tiles hold zeros; past the last image
// it reads a copy of that image with zero slack.
func (st *convSIMDState) weightGradOnePanel(cfg *Config, s convShape, x, gy, gw, gb []float32) {
	img := s.H * s.W * zNR
	pad := (s.K - 1) * zNR
	klen := s.OH * s.W
	// The last image with slack, then a ones panel (column 0) for the bias gradient.
	st.xp = grow(st.xp, img+pad+klen*zNR)
	last := st.xp[:img+pad]
	copy(last, x[(s.N-1)*img:][:img])
	clear(last[img:])
	ones := st.xp[img+pad:][:klen*zNR]
	clear(ones)
	for i := 0; i < klen; i++ {
		ones[i*zNR] = 1
	}
	t := tiles(s.OC)
	ap := st.gyTiles(cfg, s, gy)
	kkp := s.K * s.K * zNR
	ldc := kkp + zNR
	st.gwp = grow(st.gwp, t*mr*ldc)
	gwp := st.gwp
	jobs := s.K*s.K + 1
	parallelFor(cfg.threads(), jobs, func(lo, hi int) {
		for n := 0; n < s.N; n++ {
			beta := float32(1)
			if n == 0 {
				beta = 0
			}
			a := ap[n*t*klen*mr:][:t*klen*mr]
			for j := lo; j < hi; j++ {
				b, col := ones, kkp
				if j != jobs-1 {
					off := (j/s.K*s.W + j%s.K) * zNR // the tap's first pixel
					if n == s.N-1 {
						b = last[off:][:klen*zNR]
					} else {
						b = x[n*img+off:][:klen*zNR]
					}
					col = j * zNR
				}
				kernels.F32ZTiles(t, klen, a, b, gwp[col:], ldc, 1, beta)
			}
		}
	})
	for oc := 0; oc < s.OC; oc++ {
		row := gwp[oc*ldc:][:ldc]
		copy(gw[oc*s.K*s.K*s.IC:][:s.K*s.K*s.IC], row[:kkp])
		gb[oc] = row[kkp]
	}
}

// forwardDirectZ is forwardDirect on the AVX-512 kernels when the output channels are whole
// 32-channel panels and an output row whole 6-pixel tiles (conv2: 64 channels, 24 pixels):
// each output row, filter row and panel is one multi-tile call of the strided kernel, where
// the 16-channel path made a call per tile.
func (st *convSIMDState) forwardDirectZ(cfg *Config, s convShape, x, w, b, y []float32) {
	kc := s.K * s.IC
	kkc := s.K * kc
	np := s.OC / zNR
	per := np * kc * zNR
	// W_kh[(kw, ic), oc] = w[oc, kh, kw, ic] in 32-column panels, per kh.
	st.wp = grow(st.wp, s.K*per)
	for kh := 0; kh < s.K; kh++ {
		for p := 0; p < np; p++ {
			d := st.wp[kh*per+p*kc*zNR:][:kc*zNR]
			for j := 0; j < zNR; j++ {
				src := w[(p*zNR+j)*kkc+kh*kc:][:kc]
				for r, v := range src {
					d[r*zNR+j] = v
				}
			}
		}
	}
	t := s.OW / mr
	parallelFor(cfg.threads(), s.N*s.OH, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			n, oh := r/s.OH, r%s.OH
			yr := y[r*s.OW*s.OC:][:s.OW*s.OC]
			for q := 0; q < s.OW; q++ {
				for j := 0; j < s.OC; j += nr {
					move16(yr[q*s.OC+j:], b[j:])
				}
			}
			for kh := 0; kh < s.K; kh++ {
				a := x[((n*s.H+oh+kh)*s.W)*s.IC:][:(s.OW-1)*s.IC+kc]
				for p := 0; p < np; p++ {
					kernels.F32ZStridedTiles(t, kc, a, s.IC, st.wp[kh*per+p*kc*zNR:][:kc*zNR], yr[p*zNR:], s.OC, 1, 1)
				}
			}
		}
	})
}
