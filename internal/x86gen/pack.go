package x86gen

import "fmt"

// emitPackA6F32 writes asmPackA6F32(k8 int, src *float32, lda int, dst *float32): the
// packing of six float32 rows (row stride lda elements) into the packed-A layout
// dst[k][6], eight k at a time. Each block of 6 rows x 8 k is loaded as six vectors and
// transposed with VUNPCKLPS/VUNPCKHPS and VSHUFPS (the 8x8 transpose of the Intel
// optimization manual, §"Vectorization" examples, cut to the six rows present); every k's six
// values are then stored as 16 + 8 bytes. The caller packs k mod 8 in Go.
func emitPackA6F32(a *asm) {
	a.line("// func asmPackA6F32(k8 int, src *float32, lda int, dst *float32)")
	a.line("TEXT ·asmPackA6F32(SB), NOSPLIT, $0-32")
	a.ins("MOVQ", "k8+0(FP)", "CX")
	a.ins("MOVQ", "src+8(FP)", "SI")
	a.ins("MOVQ", "lda+16(FP)", "R8")
	a.ins("SHLQ", imm(2), "R8")
	a.ins("MOVQ", "dst+24(FP)", "DI")
	a.ins("LEAQ", memIdx(0, "SI", "R8", 2), "R9")
	a.ins("ADDQ", "R8", "R9") // row 3
	a.label("loop")
	// Rows 0..5, k0..k7.
	a.ins("VMOVUPS", mem(0, "SI"), "Y0")
	a.ins("VMOVUPS", memIdx(0, "SI", "R8", 1), "Y1")
	a.ins("VMOVUPS", memIdx(0, "SI", "R8", 2), "Y2")
	a.ins("VMOVUPS", mem(0, "R9"), "Y3")
	a.ins("VMOVUPS", memIdx(0, "R9", "R8", 1), "Y4")
	a.ins("VMOVUPS", memIdx(0, "R9", "R8", 2), "Y5")
	transpose6x8Units(a)
	a.ins("ADDQ", imm(32), "SI")
	a.ins("ADDQ", imm(32), "R9")
	a.ins("ADDQ", imm(192), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitPackBRows writes asmPackB<w>(k, np int, src unsafe.Pointer, ldb int, dst
// unsafe.Pointer, panel int), all strides in bytes: rows p < k of a row-major B, np whole
// panels of w bytes of each row (w = 64: 16 float32 or 8 float64 columns, the AVX2 kernels'
// panels; w = 128: the AVX-512 kernels'), into panel jp at dst + jp*panel + p*w. Each row
// is read front to back once, in ymm pieces.
func emitPackBRows(a *asm, w int) {
	sym := fmt.Sprintf("asmPackB%d", w)
	a.line("// func %s(k int, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int)", sym)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-48", sym)
	a.ins("MOVQ", "k+0(FP)", "CX")
	a.ins("MOVQ", "src+16(FP)", "SI")
	a.ins("MOVQ", "ldb+24(FP)", "R8")
	a.ins("MOVQ", "dst+32(FP)", "DI")
	a.ins("MOVQ", "panel+40(FP)", "R9")
	a.label("row")
	a.ins("MOVQ", "np+8(FP)", "DX")
	a.ins("MOVQ", "SI", "R10")
	a.ins("MOVQ", "DI", "R11")
	a.label("panel")
	for i := 0; i < w/32; i++ {
		a.ins("VMOVUPS", mem(32*i, "R10"), y(i))
	}
	for i := 0; i < w/32; i++ {
		a.ins("VMOVUPS", y(i), mem(32*i, "R11"))
	}
	a.ins("ADDQ", imm(w), "R10")
	a.ins("ADDQ", "R9", "R11")
	a.ins("DECQ", "DX")
	a.ins("JNZ", "panel")
	a.ins("ADDQ", "R8", "SI")
	a.ins("ADDQ", imm(w), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "row")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitPackA6F64 writes asmPackA6F64(k4 int, src *float64, lda int, dst *float64): six
// float64 rows into dst[k][6], four k at a time: VUNPCKLPD/VUNPCKHPD pair the rows, and each
// k's six values leave as three 16-byte stores (VEXTRACTF128 to memory for k2, k3).
func emitPackA6F64(a *asm) {
	a.line("// func asmPackA6F64(k4 int, src *float64, lda int, dst *float64)")
	a.line("TEXT ·asmPackA6F64(SB), NOSPLIT, $0-32")
	a.ins("MOVQ", "k4+0(FP)", "CX")
	a.ins("MOVQ", "src+8(FP)", "SI")
	a.ins("MOVQ", "lda+16(FP)", "R8")
	a.ins("SHLQ", imm(3), "R8")
	a.ins("MOVQ", "dst+24(FP)", "DI")
	a.ins("LEAQ", memIdx(0, "SI", "R8", 2), "R9")
	a.ins("ADDQ", "R8", "R9")
	a.label("loop")
	a.ins("VMOVUPD", mem(0, "SI"), "Y0")
	a.ins("VMOVUPD", memIdx(0, "SI", "R8", 1), "Y1")
	a.ins("VMOVUPD", memIdx(0, "SI", "R8", 2), "Y2")
	a.ins("VMOVUPD", mem(0, "R9"), "Y3")
	a.ins("VMOVUPD", memIdx(0, "R9", "R8", 1), "Y4")
	a.ins("VMOVUPD", memIdx(0, "R9", "R8", 2), "Y5")
	a.ins("VUNPCKLPD", "Y1", "Y0", "Y6")  // r0k0 r1k0 | r0k2 r1k2
	a.ins("VUNPCKHPD", "Y1", "Y0", "Y7")  // r0k1 r1k1 | r0k3 r1k3
	a.ins("VUNPCKLPD", "Y3", "Y2", "Y8")  // r2 r3 k0 | k2
	a.ins("VUNPCKHPD", "Y3", "Y2", "Y9")  // r2 r3 k1 | k3
	a.ins("VUNPCKLPD", "Y5", "Y4", "Y10") // r4 r5 k0 | k2
	a.ins("VUNPCKHPD", "Y5", "Y4", "Y11") // r4 r5 k1 | k3
	for i, r := range []string{"X6", "X8", "X10", "X7", "X9", "X11"} {
		a.ins("VMOVUPD", r, mem(16*i, "DI")) // k0, then k1
	}
	for i, r := range []string{"Y6", "Y8", "Y10", "Y7", "Y9", "Y11"} {
		a.ins("VEXTRACTF128", imm(1), r, mem(96+16*i, "DI")) // k2, then k3
	}
	a.ins("ADDQ", imm(32), "SI")
	a.ins("ADDQ", imm(32), "R9")
	a.ins("ADDQ", imm(192), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitPackBGroups writes the packing of a row-major B whose k groups interleave rows:
// asmPackBPairs16 (int16, pairs of rows) and asmPackBQuads8 (bytes, quads of rows), with
// signature (kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int),
// strides in bytes. For each group p and whole panel jp of 16 columns, the g rows' 16 values
// are interleaved (VPUNPCKL/H) so that column j's g values are adjacent: 64 bytes at
// dst + jp*panel + p*gstep (gstep 64 for 16-column panels; a 32-column panel is packed as
// two halves 64 bytes apart with gstep 128).
func emitPackBGroups(a *asm, name string, group int) {
	a.line("// func %s(kg int, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int, gstep int)", name)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-56", name)
	a.ins("MOVQ", "kg+0(FP)", "CX")
	a.ins("MOVQ", "src+16(FP)", "SI")
	a.ins("MOVQ", "ldb+24(FP)", "R8")
	a.ins("MOVQ", "dst+32(FP)", "DI")
	a.ins("MOVQ", "panel+40(FP)", "R9")
	a.label("group")
	a.ins("MOVQ", "np+8(FP)", "DX")
	a.ins("MOVQ", "SI", "R10")
	a.ins("MOVQ", "DI", "R11")
	a.label("panel")
	if group == 2 {
		// 16 int16 columns = 32 bytes per row: two xmm halves of each row.
		a.ins("VMOVDQU", mem(0, "R10"), "X0")
		a.ins("VMOVDQU", mem(16, "R10"), "X1")
		a.ins("VMOVDQU", memIdx(0, "R10", "R8", 1), "X2")
		a.ins("VMOVDQU", memIdx(16, "R10", "R8", 1), "X3")
		a.ins("VPUNPCKLWD", "X2", "X0", "X4") // columns 0-3
		a.ins("VPUNPCKHWD", "X2", "X0", "X5") // 4-7
		a.ins("VPUNPCKLWD", "X3", "X1", "X6") // 8-11
		a.ins("VPUNPCKHWD", "X3", "X1", "X7") // 12-15
		a.ins("ADDQ", imm(32), "R10")
	} else {
		// 16 byte columns per row, four rows.
		a.ins("LEAQ", memIdx(0, "R10", "R8", 2), "R12")
		a.ins("VMOVDQU", mem(0, "R10"), "X0")
		a.ins("VMOVDQU", memIdx(0, "R10", "R8", 1), "X1")
		a.ins("VMOVDQU", mem(0, "R12"), "X2")
		a.ins("VMOVDQU", memIdx(0, "R12", "R8", 1), "X3")
		a.ins("VPUNPCKLBW", "X1", "X0", "X8") // rows 0,1 columns 0-7
		a.ins("VPUNPCKHBW", "X1", "X0", "X9") // 8-15
		a.ins("VPUNPCKLBW", "X3", "X2", "X10")
		a.ins("VPUNPCKHBW", "X3", "X2", "X11")
		a.ins("VPUNPCKLWD", "X10", "X8", "X4") // rows 0-3 columns 0-3
		a.ins("VPUNPCKHWD", "X10", "X8", "X5") // 4-7
		a.ins("VPUNPCKLWD", "X11", "X9", "X6") // 8-11
		a.ins("VPUNPCKHWD", "X11", "X9", "X7") // 12-15
		a.ins("ADDQ", imm(16), "R10")
	}
	for i := 0; i < 4; i++ {
		a.ins("VMOVDQU", fmt.Sprintf("X%d", 4+i), mem(16*i, "R11"))
	}
	a.ins("ADDQ", "R9", "R11")
	a.ins("DECQ", "DX")
	a.ins("JNZ", "panel")
	for i := 0; i < group; i++ {
		a.ins("ADDQ", "R8", "SI")
	}
	a.ins("ADDQ", "gstep+48(FP)", "DI") // the next k group: 64 bytes on (16-column panels) or more
	a.ins("DECQ", "CX")
	a.ins("JNZ", "group")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitPackBPairsWiden writes name(kg, np int, src unsafe.Pointer, ldb int, dst
// unsafe.Pointer, panel, gstep int): like asmPackBPairs16 but from bytes, sign- or zero-extended to
// int16 on the way (VPMOVSXBW / VPMOVZXBW): the B side of the exact uint8 x int8 path.
// ldb is in bytes, panel in bytes of the int16 destination.
func emitPackBPairsWiden(a *asm, name string, signed bool) {
	ext := "VPMOVZXBW"
	if signed {
		ext = "VPMOVSXBW"
	}
	a.line("// func %s(kg int, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int, gstep int)", name)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-56", name)
	a.ins("MOVQ", "kg+0(FP)", "CX")
	a.ins("MOVQ", "src+16(FP)", "SI")
	a.ins("MOVQ", "ldb+24(FP)", "R8")
	a.ins("MOVQ", "dst+32(FP)", "DI")
	a.ins("MOVQ", "panel+40(FP)", "R9")
	a.label("group")
	a.ins("MOVQ", "np+8(FP)", "DX")
	a.ins("MOVQ", "SI", "R10")
	a.ins("MOVQ", "DI", "R11")
	a.label("panel")
	a.ins(ext, mem(0, "R10"), "X0") // row 2p, columns 0-7
	a.ins(ext, mem(8, "R10"), "X1") // 8-15
	a.ins(ext, memIdx(0, "R10", "R8", 1), "X2")
	a.ins(ext, memIdx(8, "R10", "R8", 1), "X3")
	a.ins("VPUNPCKLWD", "X2", "X0", "X4")
	a.ins("VPUNPCKHWD", "X2", "X0", "X5")
	a.ins("VPUNPCKLWD", "X3", "X1", "X6")
	a.ins("VPUNPCKHWD", "X3", "X1", "X7")
	for i := 0; i < 4; i++ {
		a.ins("VMOVDQU", fmt.Sprintf("X%d", 4+i), mem(16*i, "R11"))
	}
	a.ins("ADDQ", imm(16), "R10")
	a.ins("ADDQ", "R9", "R11")
	a.ins("DECQ", "DX")
	a.ins("JNZ", "panel")
	a.ins("ADDQ", "R8", "SI")
	a.ins("ADDQ", "R8", "SI")
	a.ins("ADDQ", "gstep+48(FP)", "DI") // the next k group: 64 bytes on (16-column panels) or more
	a.ins("DECQ", "CX")
	a.ins("JNZ", "group")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitPackA6Widen writes name(k16 int, src unsafe.Pointer, lda int, dst *int16): six byte
// rows (lda in bytes) widened to int16 and packed as k pairs, dst[(p*6+i)*2+q] =
// int16(src[i*lda + 2p+q]), sixteen k per iteration: each row's 16 bytes widen to one ymm
// of eight int16 pairs, which the float32 6x8 transpose then moves as 32-bit units.
func emitPackA6Widen(a *asm, name string, signed bool) {
	ext := "VPMOVZXBW"
	if signed {
		ext = "VPMOVSXBW"
	}
	a.line("// func %s(k16 int, src unsafe.Pointer, lda int, dst *int16)", name)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-32", name)
	a.ins("MOVQ", "k16+0(FP)", "CX")
	a.ins("MOVQ", "src+8(FP)", "SI")
	a.ins("MOVQ", "lda+16(FP)", "R8")
	a.ins("MOVQ", "dst+24(FP)", "DI")
	a.ins("LEAQ", memIdx(0, "SI", "R8", 2), "R9")
	a.ins("ADDQ", "R8", "R9")
	a.label("loop")
	a.ins(ext, mem(0, "SI"), "Y0")
	a.ins(ext, memIdx(0, "SI", "R8", 1), "Y1")
	a.ins(ext, memIdx(0, "SI", "R8", 2), "Y2")
	a.ins(ext, mem(0, "R9"), "Y3")
	a.ins(ext, memIdx(0, "R9", "R8", 1), "Y4")
	a.ins(ext, memIdx(0, "R9", "R8", 2), "Y5")
	transpose6x8Units(a)
	a.ins("ADDQ", imm(16), "SI")
	a.ins("ADDQ", imm(16), "R9")
	a.ins("ADDQ", imm(192), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// transpose6x8Units transposes Y0..Y5 (six rows of eight 32-bit units) and stores the eight
// columns of six units at DI, DI+24, ..., DI+168: the core of the 6-row A packers.
func transpose6x8Units(a *asm) {
	// Pairs of rows interleaved: per 128-bit lane (k0,k1 | k4,k5) and (k2,k3 | k6,k7).
	a.ins("VUNPCKLPS", "Y1", "Y0", "Y6")  // r0k0 r1k0 r0k1 r1k1
	a.ins("VUNPCKHPS", "Y1", "Y0", "Y7")  // r0k2 r1k2 r0k3 r1k3
	a.ins("VUNPCKLPS", "Y3", "Y2", "Y8")  // r2k0 r3k0 r2k1 r3k1
	a.ins("VUNPCKHPS", "Y3", "Y2", "Y9")  // r2k2 r3k2 r2k3 r3k3
	a.ins("VUNPCKLPS", "Y5", "Y4", "Y10") // r4k0 r5k0 r4k1 r5k1
	a.ins("VUNPCKHPS", "Y5", "Y4", "Y11") // r4k2 r5k2 r4k3 r5k3
	// Rows 0..3 of one k per vector lane.
	a.ins("VSHUFPS", imm(0x44), "Y8", "Y6", "Y0") // k0 | k4
	a.ins("VSHUFPS", imm(0xEE), "Y8", "Y6", "Y1") // k1 | k5
	a.ins("VSHUFPS", imm(0x44), "Y9", "Y7", "Y2") // k2 | k6
	a.ins("VSHUFPS", imm(0xEE), "Y9", "Y7", "Y3") // k3 | k7
	store := func(base int) {
		a.ins("VMOVUPS", "X0", mem(base+0, "DI"))
		a.ins("VMOVLPS", "X10", mem(base+16, "DI"))
		a.ins("VMOVUPS", "X1", mem(base+24, "DI"))
		a.ins("VMOVHPS", "X10", mem(base+40, "DI"))
		a.ins("VMOVUPS", "X2", mem(base+48, "DI"))
		a.ins("VMOVLPS", "X11", mem(base+64, "DI"))
		a.ins("VMOVUPS", "X3", mem(base+72, "DI"))
		a.ins("VMOVHPS", "X11", mem(base+88, "DI"))
	}
	store(0)
	for _, r := range []int{0, 1, 2, 3, 10, 11} {
		a.ins("VEXTRACTF128", imm(1), y(r), xreg(y(r)))
	}
	store(96)
}

// emitPackA6TransF32 writes asmPackA6TransF32(k int, src *float32, lda int, dst *float32):
// A stored transposed, so the six values of one k are contiguous: dst[p*6+i] = src[p*lda+i],
// 16 + 8 bytes per k.
func emitPackA6TransF32(a *asm) {
	a.line("// func asmPackA6TransF32(k int, src *float32, lda int, dst *float32)")
	a.line("TEXT ·asmPackA6TransF32(SB), NOSPLIT, $0-32")
	a.ins("MOVQ", "k+0(FP)", "CX")
	a.ins("MOVQ", "src+8(FP)", "SI")
	a.ins("MOVQ", "lda+16(FP)", "R8")
	a.ins("SHLQ", imm(2), "R8")
	a.ins("MOVQ", "dst+24(FP)", "DI")
	a.label("loop")
	a.ins("VMOVUPS", mem(0, "SI"), "X0")
	a.ins("VMOVSD", mem(16, "SI"), "X1")
	a.ins("VMOVUPS", "X0", mem(0, "DI"))
	a.ins("VMOVSD", "X1", mem(16, "DI"))
	a.ins("ADDQ", "R8", "SI")
	a.ins("ADDQ", imm(24), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("RET")
	a.blank()
}

// emitPackB16TransF32 writes asmPackB16TransF32(k8, np int, src *float32, ldb int, dst
// *float32, panel int): B stored transposed (column j of op(B) is row j of the storage, k
// contiguous), np panels of 16 columns, eight k per iteration: two 8x8 transposes
// (VUNPCKL/HPS, VSHUFPS, VPERM2F128) turn 16 stored rows into 8 packed rows of 16.
// dst[jp*panel + p*16 + j] = src[(16*jp+j)*ldb + p]; ldb and panel in elements.
func emitPackB16TransF32(a *asm) {
	a.line("// func asmPackB16TransF32(k8 int, np int, src *float32, ldb int, dst *float32, panel int)")
	a.line("TEXT ·asmPackB16TransF32(SB), NOSPLIT, $0-48")
	a.ins("MOVQ", "ldb+24(FP)", "R8")
	a.ins("SHLQ", imm(2), "R8")
	a.ins("MOVQ", "panel+40(FP)", "R9")
	a.ins("SHLQ", imm(2), "R9")
	a.ins("MOVQ", "src+16(FP)", "BX") // first stored row of the current panel
	a.ins("MOVQ", "dst+32(FP)", "DX") // current panel
	a.ins("MOVQ", "np+8(FP)", "AX")
	a.label("panel")
	a.ins("MOVQ", "k8+0(FP)", "CX")
	a.ins("MOVQ", "BX", "SI")
	a.ins("LEAQ", memIdx(0, "BX", "R8", 8), "R13") // stored rows 8..15
	a.ins("MOVQ", "DX", "DI")
	a.label("loop")
	half := func(base string, off int) {
		a.ins("LEAQ", memIdx(0, base, "R8", 2), "R11")
		a.ins("ADDQ", "R8", "R11") // base + 3 rows
		a.ins("LEAQ", memIdx(0, "R11", "R8", 2), "R12")
		a.ins("ADDQ", "R8", "R12") // base + 6 rows
		rows := []string{mem(0, base), memIdx(0, base, "R8", 1), memIdx(0, base, "R8", 2), mem(0, "R11"),
			memIdx(0, base, "R8", 4), memIdx(0, "R11", "R8", 2), mem(0, "R12"), memIdx(0, "R12", "R8", 1)}
		for r, m := range rows {
			a.ins("VMOVUPS", m, y(r))
		}
		for i := 0; i < 4; i++ {
			a.ins("VUNPCKLPS", y(2*i+1), y(2*i), y(8+2*i))
			a.ins("VUNPCKHPS", y(2*i+1), y(2*i), y(9+2*i))
		}
		// t0..t7 = Y8..Y15: (t0,t2), (t1,t3), (t4,t6), (t5,t7) combine into u0..u7 = Y0..Y7.
		for i, pr := range [][2]int{{8, 10}, {9, 11}, {12, 14}, {13, 15}} {
			a.ins("VSHUFPS", imm(0x44), y(pr[1]), y(pr[0]), y(2*i))
			a.ins("VSHUFPS", imm(0xEE), y(pr[1]), y(pr[0]), y(2*i+1))
		}
		// u0..u3 hold rows 0-3 of k (0,4), (1,5), (2,6), (3,7); u4..u7 rows 4-7.
		for q := 0; q < 4; q++ {
			a.ins("VPERM2F128", imm(0x20), y(4+q), y(q), y(8+q))  // k = q
			a.ins("VPERM2F128", imm(0x31), y(4+q), y(q), y(12+q)) // k = q + 4
		}
		for q := 0; q < 8; q++ {
			a.ins("VMOVUPS", y(8+q), mem(64*q+off, "DI"))
		}
	}
	half("SI", 0)
	half("R13", 32)
	a.ins("ADDQ", imm(32), "SI")
	a.ins("ADDQ", imm(32), "R13")
	a.ins("ADDQ", imm(512), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("LEAQ", memIdx(0, "BX", "R8", 8), "BX")
	a.ins("LEAQ", memIdx(0, "BX", "R8", 8), "BX") // next 16 stored rows
	a.ins("ADDQ", "R9", "DX")
	a.ins("DECQ", "AX")
	a.ins("JNZ", "panel")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}
