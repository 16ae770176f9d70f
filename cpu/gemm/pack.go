package gemm

import (
	"unsafe"

	"github.com/sumacdev/sumac/cpu/kernels"
)

// number is every element type that is packed: operands are converted on the way in
// (uint8 and int8 widen to int16 for the exact uint8 x int8 path).
type number interface {
	~int8 | ~uint8 | ~int16 | ~int32 | ~uint32 | ~float32 | ~float64
}

// view is a strided matrix: element (i, j) is data[i*rs + j*cs]. Row-major storage has
// cs == 1; a transposed operand has rs == 1.
type view[T number] struct {
	data   []T
	rs, cs int
}

func shiftOf(g int) uint {
	switch g {
	case 1:
		return 0
	case 2:
		return 1
	case 4:
		return 2
	}
	panic("gemm: k group must be 1, 2 or 4")
}

// packA copies rows i0..i0+mlen, columns p0..p0+klen of a into micro-panels of mr rows
// (the packed-A layout of cpu/kernels): panel ip holds a[(pg*mr+i)*g+q] = A(i0+ip*mr+i,
// p0+pg*g+q). Rows past mlen and k past klen are zero so the kernel can run whole tiles.
func packA[S, D number](dst []D, a view[S], i0, mlen, p0, klen, mr, g int) {
	gs := shiftOf(g)
	kg := (klen + g - 1) >> gs
	panel := kg * mr * g
	kFull := klen >> gs // whole k groups
	unitsD, unitsA, units := asUnits(dst, a, g, p0)
	for ip := 0; ip*mr < mlen; ip++ {
		d := dst[ip*panel : (ip+1)*panel]
		rows := min(mr, mlen-ip*mr)
		switch {
		case g == 1 && rows == 6 && mr == 6 && (a.cs == 1 || a.rs == 1):
			packA6(d, a, i0+ip*mr, p0, klen)
		case units && rows == 6 && mr == 6 && a.cs == 1 && kFull<<gs == klen:
			// k groups of g elements are 4-byte units contiguous in A's rows: pack them as
			// float32-like elements (the same layout with one unit per group).
			packA6(unitsD[ip*panel>>gs:][:kFull*mr], unitsA, i0+ip*mr, p0>>gs, kFull)
		case g == 2 && rows == 6 && mr == 6 && a.cs == 1 && packA6WidenAsm(d, a, i0+ip*mr, p0, klen):
		case g > 1 && rows == 6 && mr == 6 && a.cs == 1:
			packA6Groups(d, a, i0+ip*mr, p0, klen, g)
		case a.cs == 1 && g == 1:
			for i := 0; i < rows; i++ {
				src := a.data[(i0+ip*mr+i)*a.rs+p0:][:klen]
				for p, v := range src {
					d[p*mr+i] = D(v)
				}
			}
		case a.cs == 1:
			for i := 0; i < rows; i++ {
				src := a.data[(i0+ip*mr+i)*a.rs+p0:][:klen]
				for p, v := range src {
					d[((p>>gs)*mr+i)<<gs+p&(g-1)] = D(v)
				}
			}
		default: // a.rs == 1: the mr values of one k are contiguous
			for p := 0; p < klen; p++ {
				src := a.data[(p0+p)*a.cs+i0+ip*mr:][:rows]
				dd := d[((p>>gs)*mr)<<gs+p&(g-1):]
				for i, v := range src {
					dd[i<<gs] = D(v)
				}
			}
		}
		// Zero padding: missing rows, then the tail of the last k group.
		if rows < mr {
			for pg := 0; pg < kg; pg++ {
				clear(d[(pg*mr+rows)<<gs : (pg+1)*mr<<gs])
			}
		}
		for p := klen; p < kg<<gs; p++ {
			for i := 0; i < mr; i++ {
				d[((p>>gs)*mr+i)<<gs+p&(g-1)] = 0
			}
		}
	}
}

// packB copies rows p0..p0+klen, columns j0..j0+nlen of b into micro-panels of nr
// columns (the packed-B layout of cpu/kernels): panel jp holds b[(pg*nr+j)*g+q] =
// B(p0+pg*g+q, j0+jp*nr+j), zero-padded like packA.
func packB[S, D number](dst []D, b view[S], p0, klen, j0, nlen, nr, g int) {
	gs := shiftOf(g)
	kg := (klen + g - 1) >> gs
	panel := kg * nr * g
	if b.cs == 1 && g == 1 {
		packBRows(dst, b, p0, klen, j0, nlen, nr, panel)
		return
	}
	// Whole groups of whole 16- or 32-column panels of a row-major integer B: AVX2
	// interleaving.
	asmPanels, asmK := 0, 0
	if b.cs == 1 && g > 1 && nr%16 == 0 && p0%g == 0 {
		asmPanels, asmK = packBGroupsAsm(dst, b, p0, klen>>gs, j0, nlen/nr, nr, panel)
	}
	transDone := 0 // whole panels of a transposed float32 B packed by AVX2 transposes
	if b.rs == 1 && g == 1 && nr == 16 && nlen >= nr {
		if src, ok := any(b.data).([]float32); ok {
			if d32, ok := any(dst).([]float32); ok {
				transDone = nlen / nr
				kernels.PackB16TransF32(klen, transDone, src[j0*b.cs+p0:], b.cs, d32, panel)
			}
		}
	}
	for jp := transDone; jp*nr < nlen; jp++ {
		d := dst[jp*panel : (jp+1)*panel]
		cols := min(nr, nlen-jp*nr)
		pStart := 0
		if jp < asmPanels {
			pStart = asmK << gs // only the last, partial group is left
		}
		switch {
		case g == 1 && cols == nr && nr%4 == 0:
			packBTrans(d, b, p0, klen, j0+jp*nr, nr)
		case b.cs == 1:
			for p := pStart; p < klen; p++ {
				src := b.data[(p0+p)*b.rs+j0+jp*nr:][:cols]
				dd := d[((p>>gs)*nr)<<gs+p&(g-1):]
				for j, v := range src {
					dd[j<<gs] = D(v)
				}
			}
		default: // b.rs == 1: column j has its k values contiguous
			for j := 0; j < cols; j++ {
				src := b.data[(j0+jp*nr+j)*b.cs+p0:][:klen]
				for p, v := range src {
					d[((p>>gs)*nr+j)<<gs+p&(g-1)] = D(v)
				}
			}
		}
		if cols < nr {
			for pg := 0; pg < kg; pg++ {
				clear(d[(pg*nr+cols)<<gs : (pg+1)*nr<<gs])
			}
		}
		for p := klen; p < kg<<gs; p++ {
			for j := 0; j < nr; j++ {
				d[((p>>gs)*nr+j)<<gs+p&(g-1)] = 0
			}
		}
	}
}

// packA6 packs one full 6-row panel with one k value per group, the float32/float64 case,
// reading six rows (or six contiguous values per k) at a time so every store is sequential
// and the compiler can drop the bounds checks inside the loop.
func packA6[S, D number](d []D, a view[S], i, p0, klen int) {
	d = d[:6*klen]
	if a.cs == 1 { // AVX2 transposes for the float types
		switch src := any(a.data).(type) {
		case []float32:
			if d32, ok := any(d).([]float32); ok {
				kernels.PackA6F32(klen, src[i*a.rs+p0:], a.rs, d32)
				return
			}
		case []float64:
			if d64, ok := any(d).([]float64); ok {
				kernels.PackA6F64(klen, src[i*a.rs+p0:], a.rs, d64)
				return
			}
		case []uint32:
			// k groups of integers as 4-byte units: the float32 transposes only move bits.
			if du, ok := any(d).([]uint32); ok {
				su := src[i*a.rs+p0:]
				kernels.PackA6F32(klen, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(su))), len(su)), a.rs,
					unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(du))), len(du)))
				return
			}
		}
	}
	if a.cs == 1 {
		r0 := a.data[i*a.rs+p0:][:klen]
		r1 := a.data[(i+1)*a.rs+p0:][:klen]
		r2 := a.data[(i+2)*a.rs+p0:][:klen]
		r3 := a.data[(i+3)*a.rs+p0:][:klen]
		r4 := a.data[(i+4)*a.rs+p0:][:klen]
		r5 := a.data[(i+5)*a.rs+p0:][:klen]
		for p := range r0 {
			dd := d[6*p : 6*p+6 : 6*p+6]
			dd[0], dd[1], dd[2] = D(r0[p]), D(r1[p]), D(r2[p])
			dd[3], dd[4], dd[5] = D(r3[p]), D(r4[p]), D(r5[p])
		}
		return
	}
	if src, ok := any(a.data).([]float32); ok {
		if d32, ok := any(d).([]float32); ok {
			kernels.PackA6TransF32(klen, src[p0*a.cs+i:], a.cs, d32)
			return
		}
	}
	for p := 0; p < klen; p++ {
		off := (p0+p)*a.cs + i
		s := a.data[off : off+6 : off+6]
		dd := d[6*p : 6*p+6 : 6*p+6]
		dd[0], dd[1], dd[2], dd[3], dd[4], dd[5] = D(s[0]), D(s[1]), D(s[2]), D(s[3]), D(s[4]), D(s[5])
	}
}

// packBTrans packs one full panel of nr columns of a transposed B (each column's k values
// contiguous) four columns at a time.
func packBTrans[S, D number](d []D, b view[S], p0, klen, j, nr int) {
	d = d[:nr*klen]
	for jj := 0; jj < nr; jj += 4 {
		c0 := b.data[(j+jj)*b.cs+p0:][:klen]
		c1 := b.data[(j+jj+1)*b.cs+p0:][:klen]
		c2 := b.data[(j+jj+2)*b.cs+p0:][:klen]
		c3 := b.data[(j+jj+3)*b.cs+p0:][:klen]
		for p := range c0 {
			dd := d[nr*p+jj : nr*p+jj+4 : nr*p+jj+4]
			dd[0], dd[1], dd[2], dd[3] = D(c0[p]), D(c1[p]), D(c2[p]), D(c3[p])
		}
	}
}

// packBRows packs B stored by rows (one k value per group): each row of B is read once,
// front to back, and scattered over the panels, so the reads stream even when rows are a
// power of two apart (rows read panel by panel would all fall into the same L1 sets).
func packBRows[S, D number](dst []D, b view[S], p0, klen, j0, nlen, nr, panel int) {
	full := nlen / nr * nr
	same, isSame := any(dst).([]S)
	asm := false
	if isSame && full > 0 {
		switch src := any(b.data).(type) {
		case []float32:
			asm = kernels.PackBRows(klen, full/nr, nr, src[p0*b.rs+j0:], b.rs, any(dst).([]float32), panel)
		case []float64:
			asm = kernels.PackBRows(klen, full/nr, nr, src[p0*b.rs+j0:], b.rs, any(dst).([]float64), panel)
		}
	}
	for p := 0; p < klen; p++ {
		row := b.data[(p0+p)*b.rs+j0:][:nlen]
		if asm {
			// whole panels done above
		} else if isSame {
			for j := 0; j < full; j += nr {
				copy(same[j/nr*panel+p*nr:][:nr], row[j:j+nr])
			}
		} else {
			for j := 0; j < full; j += nr {
				dd := dst[j/nr*panel+p*nr:][:nr]
				for q, v := range row[j : j+nr] {
					dd[q] = D(v)
				}
			}
		}
		if full < nlen {
			dd := dst[full/nr*panel+p*nr:][:nr]
			for q, v := range row[full:] {
				dd[q] = D(v)
			}
			clear(dd[nlen-full:])
		}
	}
}

// asUnits views dst and a as 4-byte units (one k group of int16 pairs or byte quads) when
// that is exact: same element type, g elements of 4 bytes in all, A's rows starting on
// 4-byte boundaries. The conversion is only done on aligned addresses (checkptr-clean).
func asUnits[S, D number](dst []D, a view[S], g, p0 int) ([]uint32, view[uint32], bool) {
	var zs S
	size := int(unsafe.Sizeof(zs))
	if _, same := any(dst).([]S); !same || size*g != 4 || a.cs != 1 || len(a.data) < 4 || len(dst) < g || p0%g != 0 || (a.rs*size)%4 != 0 {
		return nil, view[uint32]{}, false
	}
	pa, pd := unsafe.Pointer(unsafe.SliceData(a.data)), unsafe.Pointer(unsafe.SliceData(dst))
	if uintptr(pa)%4 != 0 || uintptr(pd)%4 != 0 {
		return nil, view[uint32]{}, false
	}
	ua := unsafe.Slice((*uint32)(pa), len(a.data)*size/4)
	ud := unsafe.Slice((*uint32)(pd), len(dst)*size/4)
	return ud, view[uint32]{data: ua, rs: a.rs * size / 4, cs: 1}, true
}

// packA6Groups packs a full 6-row panel of a row-major A with k groups of g > 1 (the int16
// and widened uint8/int8 cases): six rows are read side by side, one group at a time.
func packA6Groups[S, D number](d []D, a view[S], i, p0, klen, g int) {
	var r [6][]S
	for q := range r {
		r[q] = a.data[(i+q)*a.rs+p0:][:klen]
	}
	full := klen / g * g
	o := 0
	for p := 0; p < full; p += g {
		for q := range r {
			src := r[q][p : p+g]
			dd := d[o : o+len(src)]
			for x, v := range src {
				dd[x] = D(v)
			}
			o += g
		}
	}
	if full < klen {
		for q := range r {
			dd := d[o : o+g]
			clear(dd)
			for x, v := range r[q][full:] {
				dd[x] = D(v)
			}
			o += g
		}
	}
}

// packBGroupsAsm runs kernels.PackBGroupsNR when B's and the panel's element types are the
// same 16- or 8-bit integer type (kernels.PackBPairsWidenNR when bytes widen to int16),
// returning how many panels of nr columns and k groups it packed.
func packBGroupsAsm[S, D number](dst []D, b view[S], p0, kg, j0, np, nr, panel int) (int, int) {
	if kg == 0 || np == 0 {
		return 0, 0
	}
	src := b.data[p0*b.rs+j0:]
	switch s := any(src).(type) {
	case []int16:
		if d, ok := any(dst).([]int16); ok {
			kernels.PackBGroupsNR(nr, kg, np, s, b.rs, d, panel)
			return np, kg
		}
	case []int8:
		if d, ok := any(dst).([]int8); ok {
			kernels.PackBGroupsNR(nr, kg, np, s, b.rs, d, panel)
			return np, kg
		}
	case []uint8:
		if d, ok := any(dst).([]uint8); ok {
			kernels.PackBGroupsNR(nr, kg, np, s, b.rs, d, panel)
			return np, kg
		}
		if d, ok := any(dst).([]int16); ok {
			kernels.PackBPairsWidenNR(nr, kg, np, s, b.rs, d, panel)
			return np, kg
		}
	}
	if s, ok := any(src).([]int8); ok {
		if d, ok := any(dst).([]int16); ok {
			kernels.PackBPairsWidenNR(nr, kg, np, s, b.rs, d, panel)
			return np, kg
		}
	}
	return 0, 0
}

// packA6WidenAsm packs a full 6-row panel of a row-major byte A into int16 pairs (the exact
// uint8 x int8 path) with the AVX2 widening transposes; false when the types do not apply.
func packA6WidenAsm[S, D number](d []D, a view[S], i, p0, klen int) bool {
	d16, ok := any(d).([]int16)
	if !ok {
		return false
	}
	even := klen &^ 1
	switch src := any(a.data).(type) {
	case []uint8:
		kernels.PackA6Widen(even, src[i*a.rs+p0:], a.rs, d16)
	case []int8:
		kernels.PackA6Widen(even, src[i*a.rs+p0:], a.rs, d16)
	default:
		return false
	}
	if even < klen { // the last pair has one value; its partner is the zero padding
		for q := 0; q < 6; q++ {
			d16[(even/2*6+q)*2] = int16(a.data[(i+q)*a.rs+p0+even])
			d16[(even/2*6+q)*2+1] = 0
		}
	}
	return true
}
