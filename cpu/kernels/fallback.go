package kernels

import "unsafe"

// Pure-Go implementations of the micro-kernel contract. They serve other architectures,
// -tags noasm and amd64 processors without AVX2/FMA, and they are bit-for-bit models of
// the integer assembly (including VPMADDUBSW's int16 saturation), so tests can compare the
// two. The callers in kernels.go have checked every slice length already; the pointers
// here are re-sliced to exactly the extent the contract allows.

type float interface{ float32 | float64 }

// maxTile bounds MR*NR of every kernel x86gen accepts (AVX2: at most 13 accumulators of up
// to 8 lanes; AVX-512: at most 29 of up to 16 lanes).
const maxTile = 29 * 16

// goFloatTile finishes a tile: C = alpha*acc + beta*C, not reading C when beta == 0.
func goFloatTile[T float](mr, nr int, acc []T, c *T, ldc int, alpha, beta T) {
	cs := unsafe.Slice(c, (mr-1)*ldc+nr)
	for i := 0; i < mr; i++ {
		row := cs[i*ldc : i*ldc+nr]
		for j := range row {
			if beta == 0 {
				row[j] = alpha * acc[i*nr+j]
			} else {
				row[j] = alpha*acc[i*nr+j] + beta*row[j]
			}
		}
	}
}

// goFloatP runs tiles consecutive tiles: A micro-panels follow each other, C moves down mr
// rows per tile, B is shared (the packed-kernel contract).
func goFloatP[T float](mr, nr, kg int, a, b, c *T, ldc int, alpha, beta T, tiles int) {
	as := unsafe.Slice(a, tiles*kg*mr)
	cs := unsafe.Slice(c, (tiles*mr-1)*ldc+nr)
	for t := 0; t < tiles; t++ {
		goFloatTileP(mr, nr, kg, as[t*kg*mr:], b, &cs[t*mr*ldc], ldc, alpha, beta)
	}
}

func goFloatTileP[T float](mr, nr, kg int, as []T, b, c *T, ldc int, alpha, beta T) {
	bs := unsafe.Slice(b, kg*nr)
	var buf [maxTile]T // on the stack: no allocation per tile
	acc := buf[:mr*nr]
	for p := 0; p < kg; p++ {
		bp := bs[p*nr : p*nr+nr]
		for i := 0; i < mr; i++ {
			ai := as[p*mr+i]
			row := acc[i*nr : i*nr+nr]
			for j, bv := range bp {
				row[j] += ai * bv
			}
		}
	}
	goFloatTile(mr, nr, acc, c, ldc, alpha, beta)
}

func goFloatS[T float](mr, nr, kg int, a *T, lda int, b, c *T, ldc int, alpha, beta T) {
	as := unsafe.Slice(a, (mr-1)*lda+kg)
	bs := unsafe.Slice(b, kg*nr)
	var buf [maxTile]T // on the stack: no allocation per tile
	acc := buf[:mr*nr]
	for i := 0; i < mr; i++ {
		ar := as[i*lda : i*lda+kg]
		row := acc[i*nr : i*nr+nr]
		for p, ai := range ar {
			for j, bv := range bs[p*nr : p*nr+nr] {
				row[j] += ai * bv
			}
		}
	}
	goFloatTile(mr, nr, acc, c, ldc, alpha, beta)
}

func goF32P(mr, nr, kg int, a, b, c *float32, ldc int, alpha, beta float32, tiles int) {
	goFloatP(mr, nr, kg, a, b, c, ldc, alpha, beta, tiles)
}

// tilesS runs a single-tile strided kernel over tiles tiles stacked down A and C: tile t
// reads A from row t*mr (a[t*mr*lda:]) and writes C from row t*mr. reach is the number of
// A elements a row's k groups span.
func tilesS[A, C any](mr, lda, ldc, reach, tiles int, a *A, c *C, one func(a *A, c *C)) {
	cs := unsafe.Slice(c, (tiles*mr-1)*ldc+1)
	if reach == 0 { // kg == 0: no A is read, and the slice may end where the rows start
		for t := 0; t < tiles; t++ {
			one(a, &cs[t*mr*ldc])
		}
		return
	}
	as := unsafe.Slice(a, (tiles*mr-1)*lda+reach)
	for t := 0; t < tiles; t++ {
		one(&as[t*mr*lda], &cs[t*mr*ldc])
	}
}

func goF32S(mr, nr, kg int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32, tiles int) {
	tilesS(mr, lda, ldc, kg, tiles, a, c, func(a, c *float32) { goFloatS(mr, nr, kg, a, lda, b, c, ldc, alpha, beta) })
}

func goF64P(mr, nr, kg int, a, b, c *float64, ldc int, alpha, beta float64, tiles int) {
	goFloatP(mr, nr, kg, a, b, c, ldc, alpha, beta, tiles)
}

func goF64S(mr, nr, kg int, a *float64, lda int, b, c *float64, ldc int, alpha, beta float64, tiles int) {
	tilesS(mr, lda, ldc, kg, tiles, a, c, func(a, c *float64) { goFloatS(mr, nr, kg, a, lda, b, c, ldc, alpha, beta) })
}

// goIntTile finishes an integer tile: C = alpha*acc + beta*C with int32 wrap-around.
func goIntTile(mr, nr int, acc []int32, c *int32, ldc int, alpha, beta int32) {
	cs := unsafe.Slice(c, (mr-1)*ldc+nr)
	for i := 0; i < mr; i++ {
		row := cs[i*ldc : i*ldc+nr]
		for j := range row {
			v := alpha * acc[i*nr+j]
			if beta != 0 {
				v += beta * row[j]
			}
			row[j] = v
		}
	}
}

// maddwd is one int32 lane of VPMADDWD: the sum of two int16 products, wrapping.
func maddwd(a0, a1, b0, b1 int16) int32 {
	return int32(a0)*int32(b0) + int32(a1)*int32(b1)
}

// maddubsw is one int16 lane of VPMADDUBSW: u0*s0 + u1*s1 saturated to int16.
func maddubsw(u0, u1 uint8, s0, s1 int8) int32 {
	v := int32(u0)*int32(s0) + int32(u1)*int32(s1)
	return min(max(v, -32768), 32767)
}

// goI16 computes a tile from a group accessor: ag(i, p) returns the pair of row i, group p.
func goI16(mr, nr, kg int, ag func(i, p int) (int16, int16), b *int16, c *int32, ldc int, alpha, beta int32) {
	bs := unsafe.Slice(b, kg*nr*2)
	var buf [maxTile]int32
	acc := buf[:mr*nr]
	for p := 0; p < kg; p++ {
		for i := 0; i < mr; i++ {
			a0, a1 := ag(i, p)
			for j := 0; j < nr; j++ {
				acc[i*nr+j] += maddwd(a0, a1, bs[(p*nr+j)*2], bs[(p*nr+j)*2+1])
			}
		}
	}
	goIntTile(mr, nr, acc, c, ldc, alpha, beta)
}

// tilesP runs a single-tile packed kernel over tiles consecutive tiles.
func tilesP[A any](mr, ldc, tiles, panel int, a *A, c *int32, one func(a *A, c *int32)) {
	as := unsafe.Slice(a, tiles*panel)
	cs := unsafe.Slice(c, (tiles*mr-1)*ldc+1)
	for t := 0; t < tiles; t++ {
		pa := a // kg == 0: the kernel reads no A
		if panel > 0 {
			pa = &as[t*panel]
		}
		one(pa, &cs[t*mr*ldc])
	}
}

func goI16P(mr, nr, kg int, a, b *int16, c *int32, ldc int, alpha, beta int32, tiles int) {
	tilesP(mr, ldc, tiles, kg*mr*2, a, c, func(a *int16, c *int32) {
		as := unsafe.Slice(a, kg*mr*2)
		goI16(mr, nr, kg, func(i, p int) (int16, int16) { return as[(p*mr+i)*2], as[(p*mr+i)*2+1] }, b, c, ldc, alpha, beta)
	})
}

func goI16S(mr, nr, kg int, a *int16, lda int, b *int16, c *int32, ldc int, alpha, beta int32, tiles int) {
	tilesS(mr, lda, ldc, 2*kg, tiles, a, c, func(a *int16, c *int32) {
		as := unsafe.Slice(a, (mr-1)*lda+2*kg)
		goI16(mr, nr, kg, func(i, p int) (int16, int16) { return as[i*lda+2*p], as[i*lda+2*p+1] }, b, c, ldc, alpha, beta)
	})
}

// quad is one int32 lane of VPMADDUBSW followed by VPMADDWD by ones.
func quad(u [4]uint8, s [4]int8) int32 {
	return maddubsw(u[0], u[1], s[0], s[1]) + maddubsw(u[2], u[3], s[2], s[3])
}

// quadExact is one int32 lane of VPDPBUSD's products: the four products summed without
// saturation (the VNNI kernels' arithmetic; at most 4*255*128 in magnitude).
func quadExact(u [4]uint8, s [4]int8) int32 {
	return int32(u[0])*int32(s[0]) + int32(u[1])*int32(s[1]) + int32(u[2])*int32(s[2]) + int32(u[3])*int32(s[3])
}

func goU8S8P(mr, nr, kg int, a *uint8, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8PQ(quad, mr, nr, kg, a, b, c, ldc, alpha, beta, tiles)
}

func goU8S8PX(mr, nr, kg int, a *uint8, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8PQ(quadExact, mr, nr, kg, a, b, c, ldc, alpha, beta, tiles)
}

func goU8S8PQ(quad func([4]uint8, [4]int8) int32, mr, nr, kg int, a *uint8, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	tilesP(mr, ldc, tiles, kg*mr*4, a, c, func(a *uint8, c *int32) { goU8S8Tile(quad, mr, nr, kg, a, b, c, ldc, alpha, beta) })
}

func goU8S8Tile(quad func([4]uint8, [4]int8) int32, mr, nr, kg int, a *uint8, b *int8, c *int32, ldc int, alpha, beta int32) {
	as := unsafe.Slice(a, kg*mr*4)
	bs := unsafe.Slice(b, kg*nr*4)
	var buf [maxTile]int32
	acc := buf[:mr*nr]
	for p := 0; p < kg; p++ {
		for i := 0; i < mr; i++ {
			u := [4]uint8(as[(p*mr+i)*4:])
			for j := 0; j < nr; j++ {
				acc[i*nr+j] += quad(u, [4]int8(bs[(p*nr+j)*4:]))
			}
		}
	}
	goIntTile(mr, nr, acc, c, ldc, alpha, beta)
}

func goU8S8S(mr, nr, kg int, a *uint8, lda int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8SQ(quad, mr, nr, kg, a, lda, b, c, ldc, alpha, beta, tiles)
}

func goU8S8SX(mr, nr, kg int, a *uint8, lda int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8SQ(quadExact, mr, nr, kg, a, lda, b, c, ldc, alpha, beta, tiles)
}

func goU8S8SQ(quad func([4]uint8, [4]int8) int32, mr, nr, kg int, a *uint8, lda int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	tilesS(mr, lda, ldc, 4*kg, tiles, a, c, func(a *uint8, c *int32) { goU8S8STile(quad, mr, nr, kg, a, lda, b, c, ldc, alpha, beta) })
}

func goU8S8STile(quad func([4]uint8, [4]int8) int32, mr, nr, kg int, a *uint8, lda int, b *int8, c *int32, ldc int, alpha, beta int32) {
	as := unsafe.Slice(a, (mr-1)*lda+4*kg)
	bs := unsafe.Slice(b, kg*nr*4)
	var buf [maxTile]int32
	acc := buf[:mr*nr]
	for p := 0; p < kg; p++ {
		for i := 0; i < mr; i++ {
			u := [4]uint8(as[i*lda+4*p:])
			for j := 0; j < nr; j++ {
				acc[i*nr+j] += quad(u, [4]int8(bs[(p*nr+j)*4:]))
			}
		}
	}
	goIntTile(mr, nr, acc, c, ldc, alpha, beta)
}

func goS8U8P(mr, nr, kg int, a *int8, b *uint8, c *int32, ldc int, alpha, beta int32, tiles int) {
	tilesP(mr, ldc, tiles, kg*mr*4, a, c, func(a *int8, c *int32) { goS8U8Tile(quad, mr, nr, kg, a, b, c, ldc, alpha, beta) })
}

func goS8U8PX(mr, nr, kg int, a *int8, b *uint8, c *int32, ldc int, alpha, beta int32, tiles int) {
	tilesP(mr, ldc, tiles, kg*mr*4, a, c, func(a *int8, c *int32) { goS8U8Tile(quadExact, mr, nr, kg, a, b, c, ldc, alpha, beta) })
}

func goS8U8Tile(quad func([4]uint8, [4]int8) int32, mr, nr, kg int, a *int8, b *uint8, c *int32, ldc int, alpha, beta int32) {
	as := unsafe.Slice(a, kg*mr*4)
	bs := unsafe.Slice(b, kg*nr*4)
	var buf [maxTile]int32
	acc := buf[:mr*nr]
	for p := 0; p < kg; p++ {
		for i := 0; i < mr; i++ {
			s := [4]int8(as[(p*mr+i)*4:])
			for j := 0; j < nr; j++ {
				acc[i*nr+j] += quad([4]uint8(bs[(p*nr+j)*4:]), s)
			}
		}
	}
	goIntTile(mr, nr, acc, c, ldc, alpha, beta)
}

// goPackA6F32 is packA6F32 in Go: k8*8 values of six rows into dst[k][6].
func goPackA6F32(k8 int, src *float32, lda int, dst *float32) {
	s := unsafe.Slice(src, 5*lda+8*k8)
	d := unsafe.Slice(dst, 48*k8)
	for p := 0; p < 8*k8; p++ {
		for i := 0; i < 6; i++ {
			d[6*p+i] = s[i*lda+p]
		}
	}
}

// goPackA6F64 is packA6F64 in Go: k4*4 values of six rows into dst[k][6].
func goPackA6F64(k4 int, src *float64, lda int, dst *float64) {
	s := unsafe.Slice(src, 5*lda+4*k4)
	d := unsafe.Slice(dst, 24*k4)
	for p := 0; p < 4*k4; p++ {
		for i := 0; i < 6; i++ {
			d[6*p+i] = s[i*lda+p]
		}
	}
}

// goPackBRows is packBRows in Go (w-byte panel rows, strides in bytes).
func goPackBRows(w, k, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int) {
	s := unsafe.Slice((*byte)(src), (k-1)*ldb+w*np)
	d := unsafe.Slice((*byte)(dst), (np-1)*panel+w*k)
	for p := 0; p < k; p++ {
		for jp := 0; jp < np; jp++ {
			copy(d[jp*panel+w*p:][:w], s[p*ldb+w*jp:][:w])
		}
	}
}

// goPackBGroups is packBGroups in Go: int16 elements for g == 2,
// bytes for g == 4; strides in bytes.
func goPackBGroups(g, kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int) {
	size := 4 / g // bytes per element
	s := unsafe.Slice((*byte)(src), (kg*g-1)*ldb+16*size*np)
	d := unsafe.Slice((*byte)(dst), (np-1)*panel+gstep*(kg-1)+64)
	for p := 0; p < kg; p++ {
		for jp := 0; jp < np; jp++ {
			for j := 0; j < 16; j++ {
				for q := 0; q < g; q++ {
					from := s[(p*g+q)*ldb+(16*jp+j)*size:][:size]
					copy(d[jp*panel+gstep*p+(j*g+q)*size:][:size], from)
				}
			}
		}
	}
}

// widen reads byte b as int8 or uint8.
func widen(b byte, signed bool) int16 {
	if signed {
		return int16(int8(b))
	}
	return int16(b)
}

// goPackBPairsWiden is packBPairsWiden in Go (ldb in bytes, panel in bytes of int16).
func goPackBPairsWiden(signed bool, kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int) {
	s := unsafe.Slice((*byte)(src), (2*kg-1)*ldb+16*np)
	d := unsafe.Slice((*int16)(dst), ((np-1)*panel+gstep*(kg-1)+64)/2)
	for p := 0; p < kg; p++ {
		for jp := 0; jp < np; jp++ {
			for j := 0; j < 16; j++ {
				for q := 0; q < 2; q++ {
					d[(jp*panel+gstep*p)/2+j*2+q] = widen(s[(2*p+q)*ldb+16*jp+j], signed)
				}
			}
		}
	}
}

// goPackA6Widen is packA6Widen in Go (lda in bytes).
func goPackA6Widen(signed bool, k16 int, src unsafe.Pointer, lda int, dst *int16) {
	s := unsafe.Slice((*byte)(src), 5*lda+16*k16)
	d := unsafe.Slice(dst, 96*k16)
	for p := 0; p < 16*k16; p++ {
		for i := 0; i < 6; i++ {
			d[(p/2*6+i)*2+p%2] = widen(s[i*lda+p], signed)
		}
	}
}

// goPackA6TransF32 is packA6TransF32 in Go.
func goPackA6TransF32(k int, src *float32, lda int, dst *float32) {
	s := unsafe.Slice(src, (k-1)*lda+6)
	d := unsafe.Slice(dst, 6*k)
	for p := 0; p < k; p++ {
		copy(d[6*p:6*p+6], s[p*lda:p*lda+6])
	}
}

// goPackB16TransF32 is packB16TransF32 in Go.
func goPackB16TransF32(k8, np int, src *float32, ldb int, dst *float32, panel int) {
	s := unsafe.Slice(src, (16*np-1)*ldb+8*k8)
	d := unsafe.Slice(dst, (np-1)*panel+128*k8)
	for jp := 0; jp < np; jp++ {
		for p := 0; p < 8*k8; p++ {
			for j := 0; j < 16; j++ {
				d[jp*panel+16*p+j] = s[(16*jp+j)*ldb+p]
			}
		}
	}
}

// Window kernels run as one strided call per segment: the first with beta, the others adding
// to C (beta 1), so C = alpha*(sum of the segments' products) + beta*C. Segment s reads A
// from a + s*segStride elements and B from b + s*kg*NR*group elements. Integers give the
// assembly's results exactly; floats round once per segment instead of once per tile.

func goF32W(mr, nr, kg int, a *float32, lda, segs, segStride int, b, c *float32, ldc int, alpha, beta float32, tiles int) {
	if kg == 0 { // no A is read: one segment gives C = beta*C, and no pointer moves past A
		segs = 1
	}
	for s := 0; s < segs; s++ {
		goF32S(mr, nr, kg, (*float32)(unsafe.Add(unsafe.Pointer(a), 4*s*segStride)), lda, (*float32)(unsafe.Add(unsafe.Pointer(b), 4*s*kg*nr)), c, ldc, alpha, beta, tiles)
		beta = 1
	}
}

func goI16W(mr, nr, kg int, a *int16, lda, segs, segStride int, b *int16, c *int32, ldc int, alpha, beta int32, tiles int) {
	if kg == 0 { // no A is read: one segment gives C = beta*C, and no pointer moves past A
		segs = 1
	}
	for s := 0; s < segs; s++ {
		goI16S(mr, nr, kg, (*int16)(unsafe.Add(unsafe.Pointer(a), 2*s*segStride)), lda, (*int16)(unsafe.Add(unsafe.Pointer(b), 2*2*s*kg*nr)), c, ldc, alpha, beta, tiles)
		beta = 1
	}
}

func goU8S8W(mr, nr, kg int, a *uint8, lda, segs, segStride int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8WQ(quad, mr, nr, kg, a, lda, segs, segStride, b, c, ldc, alpha, beta, tiles)
}

func goU8S8WX(mr, nr, kg int, a *uint8, lda, segs, segStride int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8WQ(quadExact, mr, nr, kg, a, lda, segs, segStride, b, c, ldc, alpha, beta, tiles)
}

func goU8S8WQ(quad func([4]uint8, [4]int8) int32, mr, nr, kg int, a *uint8, lda, segs, segStride int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	if kg == 0 { // no A is read: one segment gives C = beta*C, and no pointer moves past A
		segs = 1
	}
	for s := 0; s < segs; s++ {
		goU8S8SQ(quad, mr, nr, kg, (*uint8)(unsafe.Add(unsafe.Pointer(a), s*segStride)), lda, (*int8)(unsafe.Add(unsafe.Pointer(b), 4*s*kg*nr)), c, ldc, alpha, beta, tiles)
		beta = 1
	}
}

// Indirect kernels: row i of tile t reads A from its own place, a[o] for an offset table
// entry o = rows[t*mr+i] >= 0 and alt[^o] otherwise; reach is the elements one row's k groups
// span. The caller checked every entry against its slice.

// indirectRow returns row i of tile t of an indirect kernel's A.
func indirectRow[A any](a, alt *A, rows *int, mr, t, i, reach int) []A {
	o := unsafe.Slice(rows, (t+1)*mr)[t*mr+i]
	base := a
	if o < 0 {
		base, o = alt, ^o
	}
	if reach == 0 {
		return nil // o may be the slice's length: no pointer one past its end
	}
	var z A
	return unsafe.Slice((*A)(unsafe.Add(unsafe.Pointer(base), o*int(unsafe.Sizeof(z)))), reach)
}

func goFloatI[T float](mr, nr, kg int, a, alt *T, rows *int, b, c *T, ldc int, alpha, beta T, tiles int) {
	bs := unsafe.Slice(b, kg*nr)
	cs := unsafe.Slice(c, (tiles*mr-1)*ldc+nr)
	for t := 0; t < tiles; t++ {
		var buf [maxTile]T
		acc := buf[:mr*nr]
		for i := 0; i < mr; i++ {
			row := acc[i*nr : i*nr+nr]
			for p, ai := range indirectRow(a, alt, rows, mr, t, i, kg) {
				for j, bv := range bs[p*nr : p*nr+nr] {
					row[j] += ai * bv
				}
			}
		}
		goFloatTile(mr, nr, acc, &cs[t*mr*ldc], ldc, alpha, beta)
	}
}

func goF32I(mr, nr, kg int, a, alt *float32, rows *int, b, c *float32, ldc int, alpha, beta float32, tiles int) {
	goFloatI(mr, nr, kg, a, alt, rows, b, c, ldc, alpha, beta, tiles)
}

func goI16I(mr, nr, kg int, a, alt *int16, rows *int, b *int16, c *int32, ldc int, alpha, beta int32, tiles int) {
	cs := unsafe.Slice(c, (tiles*mr-1)*ldc+nr)
	for t := 0; t < tiles; t++ {
		var rs [maxTile][]int16
		for i := 0; i < mr; i++ {
			rs[i] = indirectRow(a, alt, rows, mr, t, i, 2*kg)
		}
		goI16(mr, nr, kg, func(i, p int) (int16, int16) { return rs[i][2*p], rs[i][2*p+1] }, b, &cs[t*mr*ldc], ldc, alpha, beta)
	}
}

func goU8S8I(mr, nr, kg int, a, alt *uint8, rows *int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8IQ(quad, mr, nr, kg, a, alt, rows, b, c, ldc, alpha, beta, tiles)
}

func goU8S8IX(mr, nr, kg int, a, alt *uint8, rows *int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	goU8S8IQ(quadExact, mr, nr, kg, a, alt, rows, b, c, ldc, alpha, beta, tiles)
}

func goU8S8IQ(quad func([4]uint8, [4]int8) int32, mr, nr, kg int, a, alt *uint8, rows *int, b *int8, c *int32, ldc int, alpha, beta int32, tiles int) {
	bs := unsafe.Slice(b, kg*nr*4)
	cs := unsafe.Slice(c, (tiles*mr-1)*ldc+nr)
	for t := 0; t < tiles; t++ {
		var buf [maxTile]int32
		acc := buf[:mr*nr]
		for i := 0; i < mr; i++ {
			ar := indirectRow(a, alt, rows, mr, t, i, 4*kg)
			for p := 0; p < kg; p++ {
				u := [4]uint8(ar[4*p:])
				for j := 0; j < nr; j++ {
					acc[i*nr+j] += quad(u, [4]int8(bs[(p*nr+j)*4:]))
				}
			}
		}
		goIntTile(mr, nr, acc, &cs[t*mr*ldc], ldc, alpha, beta)
	}
}

// Depthwise fallbacks: out[x*ostep + c] = sum over taps of in[x*xstep + io + c] *
// w[wo + c] for mr*nb pixels and nr*ncb channels, in the kernels' arithmetic (float32 FMA
// order per channel: taps in table order; integers exact in int32, wrapping).

func goDW[A any, W int32 | float32, C int32 | float32](mr, nr, nb, ncb int, in *A, taps *int, ntaps int, w *W, out *C, xstep, ostep int, mul func(A, W) C) {
	ts := unsafe.Slice(taps, 2*ntaps)
	maxIn, maxW := 0, 0
	for t := 0; t < ntaps; t++ {
		maxIn, maxW = max(maxIn, ts[2*t]), max(maxW, ts[2*t+1])
	}
	px, ch := mr*nb, nr*ncb
	is := unsafe.Slice(in, (px-1)*xstep+maxIn+ch)
	ws := unsafe.Slice(w, maxW+ch)
	os := unsafe.Slice(out, (px-1)*ostep+ch)
	for x := 0; x < px; x++ {
		for c := 0; c < ch; c++ {
			var s C
			for t := 0; t < ntaps; t++ {
				s += mul(is[x*xstep+ts[2*t]+c], ws[ts[2*t+1]+c])
			}
			os[x*ostep+c] = s
		}
	}
}

func goF32D(mr, nr, nb, ncb int, in *float32, taps *int, ntaps int, w *float32, out *float32, xstep, ostep int) {
	goDW(mr, nr, nb, ncb, in, taps, ntaps, w, out, xstep, ostep, func(a, b float32) float32 { return a * b })
}

func goI16D(mr, nr, nb, ncb int, in *int16, taps *int, ntaps int, w *int32, out *int32, xstep, ostep int) {
	goDW(mr, nr, nb, ncb, in, taps, ntaps, w, out, xstep, ostep, func(a int16, b int32) int32 { return int32(a) * int32(int16(b)) })
}

func goU8S8D(mr, nr, nb, ncb int, in *uint8, taps *int, ntaps int, w *int32, out *int32, xstep, ostep int) {
	goDW(mr, nr, nb, ncb, in, taps, ntaps, w, out, xstep, ostep, func(a uint8, b int32) int32 { return int32(a) * int32(int8(b)) })
}

// goU8S8DX is goU8S8D for the VNNI kernels (exact alike: one product per lane).
func goU8S8DX(mr, nr, nb, ncb int, in *uint8, taps *int, ntaps int, w *int32, out *int32, xstep, ostep int) {
	goU8S8D(mr, nr, nb, ncb, in, taps, ntaps, w, out, xstep, ostep)
}
