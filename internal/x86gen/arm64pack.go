package x86gen

import "fmt"

// The arm64 packers: the same routines, names and Go signatures as the amd64 ones (pack.go,
// declared by packDecls), on NEON. The interleaving stores do most of the work: ST2, ST3 and
// ST4 write 2, 3 or 4 registers element-interleaved, which is what the packed layouts are
// (k pairs and quads of B's rows; A's six rows per k as three 64-bit row pairs).

func f(i int) string { return fmt.Sprintf("F%d", i) }

// emitPackA6F32ARM64 writes asmPackA6F32(k8 int, src *float32, lda int, dst *float32): six
// float32 rows into dst[k][6], eight k per block. ZIP1/ZIP2 pair rows (0,1), (2,3), (4,5)
// into 64-bit units, one per k; ST3 of the three pairs' registers writes two k of six values.
func emitPackA6F32ARM64(a *asm) {
	a.line("// func asmPackA6F32(k8 int, src *float32, lda int, dst *float32)")
	a.line("TEXT ·asmPackA6F32(SB), NOSPLIT, $0-32")
	a.ins("MOVD", "k8+0(FP)", "R0")
	a.ins("MOVD", "src+8(FP)", "R8")
	a.ins("MOVD", "lda+16(FP)", "R1")
	a.ins("LSL", imm(2), "R1", "R1")
	a.ins("MOVD", "dst+24(FP)", "R2")
	for i := 1; i < 6; i++ {
		a.ins("ADD", "R1", aRow(i-1), aRow(i))
	}
	a.label("loop")
	for i := 0; i < 6; i++ {
		a.ins("VLD1.P", "32("+aRow(i)+")", vlist(2*i, 2, "S4")) // row i: k0-3 in V(2i), k4-7 in V(2i+1)
	}
	// Group g of two k: (k0,k1) ZIP1 of the low halves, (k2,k3) ZIP2, (k4,k5), (k6,k7) the same
	// of the high halves; pair q of rows (2q, 2q+1) into V(16+3g+q).
	for g := 0; g < 4; g++ {
		op := []string{"VZIP1", "VZIP2"}[g%2]
		for q := 0; q < 3; q++ {
			lo, hi := 2*(2*q)+g/2, 2*(2*q+1)+g/2
			a.ins(op, vname(hi, "S4"), vname(lo, "S4"), vname(16+3*g+q, "S4"))
		}
		a.ins("VST3.P", vlist(16+3*g, 3, "D2"), "48(R2)")
	}
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "loop")
	a.ins("RET")
	a.blank()
}

// emitPackA6F64ARM64 writes asmPackA6F64(k4 int, src *float64, lda int, dst *float64): six
// float64 rows into dst[k][6], four k per block: ZIP1/ZIP2 pair the rows per k, ST1 writes a
// k's three pairs.
func emitPackA6F64ARM64(a *asm) {
	a.line("// func asmPackA6F64(k4 int, src *float64, lda int, dst *float64)")
	a.line("TEXT ·asmPackA6F64(SB), NOSPLIT, $0-32")
	a.ins("MOVD", "k4+0(FP)", "R0")
	a.ins("MOVD", "src+8(FP)", "R8")
	a.ins("MOVD", "lda+16(FP)", "R1")
	a.ins("LSL", imm(3), "R1", "R1")
	a.ins("MOVD", "dst+24(FP)", "R2")
	for i := 1; i < 6; i++ {
		a.ins("ADD", "R1", aRow(i-1), aRow(i))
	}
	a.label("loop")
	for i := 0; i < 6; i++ {
		a.ins("VLD1.P", "32("+aRow(i)+")", vlist(2*i, 2, "D2")) // k0-1 in V(2i), k2-3 in V(2i+1)
	}
	for k := 0; k < 4; k++ {
		op := []string{"VZIP1", "VZIP2"}[k%2]
		for q := 0; q < 3; q++ {
			lo, hi := 2*(2*q)+k/2, 2*(2*q+1)+k/2
			a.ins(op, vname(hi, "D2"), vname(lo, "D2"), vname(16+3*k+q, "D2"))
		}
		a.ins("VST1.P", vlist(16+3*k, 3, "D2"), "48(R2)")
	}
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "loop")
	a.ins("RET")
	a.blank()
}

// emitPackBRowsARM64 writes asmPackB<w>(k, np int, src unsafe.Pointer, ldb int, dst
// unsafe.Pointer, panel int), strides in bytes: w-byte pieces of k rows into np panels.
func emitPackBRowsARM64(a *asm, w int) {
	sym := fmt.Sprintf("asmPackB%d", w)
	a.line("// func %s(k int, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int)", sym)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-48", sym)
	a.ins("MOVD", "k+0(FP)", "R0")
	a.ins("MOVD", "src+16(FP)", "R1")
	a.ins("MOVD", "ldb+24(FP)", "R3")
	a.ins("MOVD", "dst+32(FP)", "R2")
	a.ins("MOVD", "panel+40(FP)", "R4")
	a.label("row")
	a.ins("MOVD", "np+8(FP)", "R5")
	a.ins("MOVD", "R1", "R6")
	a.ins("MOVD", "R2", "R7")
	a.label("panel")
	a.ins("MOVD", "R7", "R8")
	for i := 0; i < w/64; i++ {
		a.ins("VLD1.P", "64(R6)", vlist(4*i, 4, "B16"))
	}
	for i := 0; i < w/64; i++ {
		a.ins("VST1.P", vlist(4*i, 4, "B16"), "64(R8)")
	}
	a.ins("ADD", "R4", "R7", "R7")
	a.ins("SUBS", imm(1), "R5", "R5")
	a.ins("BNE", "panel")
	a.ins("ADD", "R3", "R1", "R1")
	a.ins("ADD", imm(w), "R2", "R2")
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "row")
	a.ins("RET")
	a.blank()
}

// emitPackBGroupsARM64 writes asmPackBPairs16 (group 2: int16 rows) and asmPackBQuads8
// (group 4: byte rows), (kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel,
// gstep int), strides in bytes: each group's g rows of 16 columns, element-interleaved by ST2
// or ST4, 64 bytes at dst + jp*panel + p*gstep (gstep 64 for 16-column panels; a 32-column
// panel is packed as two halves 64 bytes apart with gstep 128). With widen (asmPackBPairsS8/U8) the rows are bytes,
// sign- or zero-extended to int16 pairs on the way.
func emitPackBGroupsARM64(a *asm, name string, group int, widen, signed bool) {
	a.line("// func %s(kg int, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int, gstep int)", name)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-56", name)
	a.ins("MOVD", "kg+0(FP)", "R0")
	a.ins("MOVD", "src+16(FP)", "R1")
	a.ins("MOVD", "ldb+24(FP)", "R3")
	a.ins("MOVD", "dst+32(FP)", "R2")
	a.ins("MOVD", "panel+40(FP)", "R4")
	a.ins("MOVD", "gstep+48(FP)", "R13")
	a.label("group")
	a.ins("MOVD", "np+8(FP)", "R5")
	a.ins("MOVD", "R1", aRow(0))
	for r := 1; r < group; r++ {
		a.ins("ADD", "R3", aRow(r-1), aRow(r))
	}
	a.ins("MOVD", "R2", "R7")
	a.label("panel")
	a.ins("MOVD", "R7", "R6")
	switch {
	case widen:
		// 16 byte columns of two rows, widened: (row 0, row 1) cols 0-7 in V0, V1, 8-15 in V2, V3.
		a.ins("FMOVQ.P", mem(16, aRow(0)), f(4))
		a.ins("FMOVQ.P", mem(16, aRow(1)), f(5))
		a.word(xtl(!signed, false, 0, 4))
		a.word(xtl(!signed, false, 1, 5))
		a.word(xtl(!signed, true, 2, 4))
		a.word(xtl(!signed, true, 3, 5))
		a.ins("VST2.P", vlist(0, 2, "H8"), "32(R6)")
		a.ins("VST2.P", vlist(2, 2, "H8"), "32(R6)")
	case group == 2:
		// 16 int16 columns of two rows: cols 0-7 in V0 (row 0), V1 (row 1), 8-15 in V2, V3.
		for r := 0; r < 2; r++ {
			a.ins("FMOVQ.P", mem(16, aRow(r)), f(r))
			a.ins("FMOVQ.P", mem(16, aRow(r)), f(2+r))
		}
		a.ins("VST2.P", vlist(0, 2, "H8"), "32(R6)")
		a.ins("VST2.P", vlist(2, 2, "H8"), "32(R6)")
	default:
		for r := 0; r < 4; r++ {
			a.ins("FMOVQ.P", mem(16, aRow(r)), f(r))
		}
		a.ins("VST4", vlist(0, 4, "B16"), "(R6)")
	}
	a.ins("ADD", "R4", "R7", "R7")
	a.ins("SUBS", imm(1), "R5", "R5")
	a.ins("BNE", "panel")
	a.ins("ADD", fmt.Sprintf("R3<<%d", log2(group)), "R1", "R1")
	a.ins("ADD", "R13", "R2", "R2")
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "group")
	a.ins("RET")
	a.blank()
}

// emitPackA6WidenARM64 writes name(k16 int, src unsafe.Pointer, lda int, dst *int16): six
// byte rows (lda in bytes) widened to int16 k pairs, sixteen k per block; each row's pairs
// are 32-bit units, transposed as in asmPackA6F32.
func emitPackA6WidenARM64(a *asm, name string, signed bool) {
	a.line("// func %s(k16 int, src unsafe.Pointer, lda int, dst *int16)", name)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-32", name)
	a.ins("MOVD", "k16+0(FP)", "R0")
	a.ins("MOVD", "src+8(FP)", "R8")
	a.ins("MOVD", "lda+16(FP)", "R1")
	a.ins("MOVD", "dst+24(FP)", "R2")
	for i := 1; i < 6; i++ {
		a.ins("ADD", "R1", aRow(i-1), aRow(i))
	}
	a.label("loop")
	for i := 0; i < 6; i++ {
		a.ins("FMOVQ.P", mem(16, aRow(i)), f(i))
	}
	for i := 0; i < 6; i++ { // row i: pairs 0-3 in V(8+2i), 4-7 in V(9+2i)
		a.word(xtl(!signed, false, 8+2*i, i))
		a.word(xtl(!signed, true, 9+2*i, i))
	}
	for g := 0; g < 4; g++ {
		op := []string{"VZIP1", "VZIP2"}[g%2]
		for q := 0; q < 3; q++ {
			lo, hi := 8+2*(2*q)+g/2, 8+2*(2*q+1)+g/2
			a.ins(op, vname(hi, "S4"), vname(lo, "S4"), vname(20+3*g+q, "S4"))
		}
		a.ins("VST3.P", vlist(20+3*g, 3, "D2"), "48(R2)")
	}
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "loop")
	a.ins("RET")
	a.blank()
}

// emitPackA6TransF32ARM64 writes asmPackA6TransF32(k int, src *float32, lda int, dst
// *float32): the six contiguous values of each k, 16 + 8 bytes.
func emitPackA6TransF32ARM64(a *asm) {
	a.line("// func asmPackA6TransF32(k int, src *float32, lda int, dst *float32)")
	a.line("TEXT ·asmPackA6TransF32(SB), NOSPLIT, $0-32")
	a.ins("MOVD", "k+0(FP)", "R0")
	a.ins("MOVD", "src+8(FP)", "R1")
	a.ins("MOVD", "lda+16(FP)", "R3")
	a.ins("LSL", imm(2), "R3", "R3")
	a.ins("MOVD", "dst+24(FP)", "R2")
	a.label("loop")
	a.ins("FMOVQ", "(R1)", f(0))
	a.ins("FMOVD", "16(R1)", f(1))
	a.ins("FMOVQ.P", f(0), "16(R2)")
	a.ins("FMOVD.P", f(1), "8(R2)")
	a.ins("ADD", "R3", "R1", "R1")
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "loop")
	a.ins("RET")
	a.blank()
}

// emitPackB16TransF32ARM64 writes asmPackB16TransF32(k8, np int, src *float32, ldb int, dst
// *float32, panel int): sixteen stored rows per panel transposed into packed B, four k at a
// time: each group of four rows is a 4x4 transpose (TRN1/TRN2 on 32- then 64-bit units).
// ldb and panel in elements.
func emitPackB16TransF32ARM64(a *asm) {
	a.line("// func asmPackB16TransF32(k8 int, np int, src *float32, ldb int, dst *float32, panel int)")
	a.line("TEXT ·asmPackB16TransF32(SB), NOSPLIT, $0-48")
	a.ins("MOVD", "np+8(FP)", "R5")
	a.ins("MOVD", "src+16(FP)", "R1") // first stored row of the current panel
	a.ins("MOVD", "ldb+24(FP)", "R3")
	a.ins("LSL", imm(2), "R3", "R3")
	a.ins("MOVD", "dst+32(FP)", "R2") // current panel
	a.ins("MOVD", "panel+40(FP)", "R4")
	a.ins("LSL", imm(2), "R4", "R4")
	a.label("panel")
	a.ins("MOVD", "k8+0(FP)", "R0")
	a.ins("MOVD", "R1", "R6") // k offset along the rows
	a.ins("MOVD", "R2", "R7") // packed row walker
	a.label("loop")
	for half := 0; half < 2; half++ {
		a.ins("MOVD", "R6", "R8")
		for j := 0; j < 16; j++ {
			a.ins("FMOVQ", mem(16*half, "R8"), f(j)) // stored row j, k 4*half..4*half+3
			if j < 15 {
				a.ins("ADD", "R3", "R8", "R8")
			}
		}
		for g := 0; g < 4; g++ {
			r := 4 * g
			a.ins("VTRN1", vname(r+1, "S4"), vname(r, "S4"), vname(16, "S4"))
			a.ins("VTRN2", vname(r+1, "S4"), vname(r, "S4"), vname(17, "S4"))
			a.ins("VTRN1", vname(r+3, "S4"), vname(r+2, "S4"), vname(18, "S4"))
			a.ins("VTRN2", vname(r+3, "S4"), vname(r+2, "S4"), vname(19, "S4"))
			a.ins("VTRN1", vname(18, "D2"), vname(16, "D2"), vname(r, "D2"))   // k0, columns r..r+3
			a.ins("VTRN1", vname(19, "D2"), vname(17, "D2"), vname(r+1, "D2")) // k1
			a.ins("VTRN2", vname(18, "D2"), vname(16, "D2"), vname(r+2, "D2")) // k2
			a.ins("VTRN2", vname(19, "D2"), vname(17, "D2"), vname(r+3, "D2")) // k3
			for q := 0; q < 4; q++ {
				a.ins("FMOVQ", f(r+q), mem(64*(4*half+q)+16*g, "R7"))
			}
		}
	}
	a.ins("ADD", imm(32), "R6", "R6")
	a.ins("ADD", imm(512), "R7", "R7")
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "loop")
	a.ins("ADD", "R3<<4", "R1", "R1") // next 16 stored rows
	a.ins("ADD", "R4", "R2", "R2")
	a.ins("SUBS", imm(1), "R5", "R5")
	a.ins("BNE", "panel")
	a.ins("RET")
	a.blank()
}

// emitPacksARM64 writes every arm64 packer (the routines packDecls declares).
func emitPacksARM64(a *asm) {
	emitPackA6F32ARM64(a)
	emitPackA6F64ARM64(a)
	emitPackBRowsARM64(a, 64)
	emitPackBRowsARM64(a, 128)
	emitPackBGroupsARM64(a, "asmPackBPairs16", 2, false, false)
	emitPackBGroupsARM64(a, "asmPackBQuads8", 4, false, false)
	emitPackBGroupsARM64(a, "asmPackBPairsS8", 2, true, true)
	emitPackBGroupsARM64(a, "asmPackBPairsU8", 2, true, false)
	emitPackA6WidenARM64(a, "asmPackA6S8", true)
	emitPackA6WidenARM64(a, "asmPackA6U8", false)
	emitPackA6TransF32ARM64(a)
	emitPackB16TransF32ARM64(a)
}
