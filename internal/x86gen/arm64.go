package x86gen

import (
	"bytes"
	"fmt"
	"strings"
)

// The arm64 back end: Advanced SIMD (NEON) versions of the catalog's kernels, with the same
// Go signatures, operand layouts and register blocks as the amd64 ones, so cpu/kernels'
// wrappers, packers and callers serve both.
//
// Arm64 has 32 vector registers of 128 bits. An MR x NR tile of C takes MR*NR*4/16
// registers: the 6x16 32-bit tiles and the 6x8 float64 tile are 24 accumulators (V8..V31),
// where AVX2 holds the same 96 values in 12 ymm registers; V0..V7 hold A, B and constants.
// Two FMA pipes of latency 4 (Neoverse N1) need at least 8 independent accumulators and
// four (Neoverse V1) 16: 24 cover both (docs/cpu-arm64.md).
//
// A is not broadcast: its values stay packed in vector registers and each
// multiply-accumulate takes its A operand "by element" (FMLA, SMLAL, SDOT/UDOT with a lane
// index), so one 16-byte load feeds four (float32) steps instead of four broadcasts.
//
//   - float32, float64: FMLA vd, vB, vA.s[i] (.d[i]): one fused multiply-add per k per lane,
//     in the same order as the AVX2 kernels (results are bit for bit the same).
//   - int16 -> int32, k pairs: LD2 de-interleaves each packed B pair group into a k0 and a
//     k1 vector of eight columns; SMLAL/SMLAL2 by element multiply-accumulate four columns
//     each into int32 lanes.
//   - uint8 x int8 (and int8 x uint8) -> int32, k quads, with FEAT_DotProd: SDOT/UDOT by
//     element add a row's four A bytes times a column's four B bytes into one lane. Both
//     operands must have the same signedness, so A is flipped into the other one with XOR
//     0x80 (u - 128 as int8, or s + 128 as uint8) and the column sums of B times 128 are
//     subtracted at the end: sum (a^0x80)*b = sum a*b -+ 128*sum b. The column sums are
//     one SDOT/UDOT of B with 0x80 bytes per group, computed once per call (B is shared by
//     the call's tiles) into the stack frame. Exact for every input (no saturation).
//   - the same without FEAT_DotProd: LD4 de-interleaves B into one vector per k of the
//     quad, SXTL/UXTL widen A and B to int16, SMLAL/SMLAL2 by element accumulate. Exact too,
//     at a quarter of the dot product's multiply-adds per instruction.

// neon is one catalog kernel as the arm64 back end emits it.
type neon struct {
	Kernel
	dot bool // an int8 kernel on SDOT/UDOT (FEAT_DotProd) rather than widening SMLAL
}

// accBase is the first accumulator register: C tiles live in V8..V31.
const accBase = 8

func (k neon) sym() string {
	if k.dot {
		return k.Symbol() + "DP"
	}
	return k.Symbol()
}

func (k neon) int8() bool { return k.Elem == U8S8 || k.Elem == S8U8 }

// nv is the number of 16-byte vectors per row of the C tile.
func (k neon) nv() int { return k.NR * elems[k.Elem].cElem / 16 }

func (k neon) acc(i, j int) int { return accBase + i*k.nv() + j }

// inPlace reports whether A is read in place, a row pointer per row (strided, window and
// indirect kernels), rather than packed.
func (k neon) inPlace() bool { return k.Strided || k.Indirect }

// aBytes is the size of one A row's k group: the by-element unit.
func (k neon) aBytes() int { return elems[k.Elem].laneBytes }

// unroll is the k groups per loop iteration: the catalog's, except for the widening int8
// kernels, whose one group is already about 110 instructions.
func (k neon) unroll() int {
	if k.int8() && !k.dot {
		return 1
	}
	return k.Unroll
}

// rowChunk is the k groups an in-place kernel loads per row at once: one 16-byte vector
// (one group for the widening int8 kernels, whose rows are gathered into lanes).
func (k neon) rowChunk() int {
	if k.int8() && !k.dot {
		return 1
	}
	return min(k.unroll(), 16/k.aBytes())
}

// packedRegs is the number of vector registers that cs k groups of packed A occupy
// (widened to int16 for the widening int8 kernels).
func (k neon) packedRegs(cs int) int {
	n := cs * k.MR * k.aBytes()
	if k.int8() && !k.dot {
		n *= 2
	}
	return (n + 15) / 16
}

// aAvail is the number of registers below the B registers left for packed A.
func (k neon) aAvail() int {
	if k.dot {
		return 3 // V3 holds the 0x80 bytes
	}
	return 4
}

// packedChunk is the k groups of packed A loaded at once: as many as fit in the registers
// left for A, a power of two up to the unroll.
func (k neon) packedChunk() int {
	cs := 1
	for cs*2 <= k.unroll() && k.packedRegs(cs*2) <= k.aAvail() {
		cs *= 2
	}
	return cs
}

// validate checks that k fits the arm64 register plan (and the catalog's own checks).
func (k neon) validate() error {
	if err := k.Kernel.Validate(); err != nil {
		return err
	}
	e := elems[k.Elem]
	name := k.sym()
	if k.AVX512 {
		return fmt.Errorf("x86gen: %s: AVX-512 kernels have no arm64 form", name)
	}
	if (k.NR*e.cElem)%16 != 0 || k.nv() > 4 {
		return fmt.Errorf("x86gen: %s: a C row must be 1 to 4 whole vectors", name)
	}
	if (k.Elem == I16 || (k.int8() && !k.dot)) && k.nv()%2 != 0 {
		return fmt.Errorf("x86gen: %s: the widening kernels take 8 columns at a time", name)
	}
	if k.MR*k.nv() > 32-accBase {
		return fmt.Errorf("x86gen: %s: %d accumulators, V%d..V31 hold %d", name, k.MR*k.nv(), accBase, 32-accBase)
	}
	if k.inPlace() && k.MR > 6 {
		return fmt.Errorf("x86gen: %s: in-place A rows live in V0..V5", name)
	}
	if !k.inPlace() {
		if r := k.MR * k.aBytes() % 16; r != 0 && r != 8 && !(r == 4 && k.MR*k.aBytes() < 16) {
			return fmt.Errorf("x86gen: %s: a packed A group of %d bytes does not split into 16- and 8-byte loads", name, k.MR*k.aBytes())
		}
		if k.packedRegs(1) > k.aAvail() {
			return fmt.Errorf("x86gen: %s: packed A needs %d registers, there are %d", name, k.packedRegs(1), k.aAvail())
		}
	}
	return nil
}

// General-purpose registers (R18 is the platform register, R26..R30 belong to Go):
//
//	R0  k groups per segment      R1  packed A pointer       R2  B pointer
//	R3  C tile                    R4  C row stride (bytes)   R5  B micro-panel start
//	R6  tiles left                R7  loop counter           R8..R13 A rows 0..5 (in place)
//	R14 the tile's A row 0        R15 A row stride (bytes)   R16 C tile step (MR rows)
//	R17 scratch                   R19 segments left          R20 bytes from a segment's end to the next one's start
//	R21 C row walker              R22 alt                    R23 offset table walker
//	R24 a (indirect)              R25 A tile step (MR rows)
func aRow(i int) string { return fmt.Sprintf("R%d", 8+i) }

func vname(r int, arr string) string { return fmt.Sprintf("V%d.%s", r, arr) }

// vlist formats a register list [Vr.T, Vr+1.T, ...].
func vlist(first, n int, arr string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = vname(first+i, arr)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// emit writes the kernel's arm64 TEXT block.
func (k neon) emit(a *asm) {
	e := elems[k.Elem]
	_, frame := k.args()
	locals := 0
	if k.dot {
		locals = 16 * k.nv() // the column sums of B times 128
	}
	a.line("// func %s(%s)", k.sym(), k.goSignature())
	a.line("TEXT ·%s(SB), NOSPLIT, $%d-%d", k.sym(), locals, frame)
	a.ins("MOVD", k.argOff("kg"), "R0")
	switch {
	case k.Indirect:
		a.ins("MOVD", k.argOff("a"), "R24")
		a.ins("MOVD", k.argOff("alt"), "R22")
		a.ins("MOVD", k.argOff("rows"), "R23")
	case k.Strided:
		a.ins("MOVD", k.argOff("a"), "R14")
		a.ins("MOVD", k.argOff("lda"), "R15")
		if e.aElem > 1 {
			a.ins("LSL", imm(log2(e.aElem)), "R15", "R15")
		}
		a.ins("MOVD", imm(k.MR), "R17")
		a.ins("MUL", "R17", "R15", "R25")
	default:
		a.ins("MOVD", k.argOff("a"), "R1")
	}
	a.ins("MOVD", k.argOff("b"), "R5")
	a.ins("MOVD", k.argOff("c"), "R3")
	a.ins("MOVD", k.argOff("ldc"), "R4")
	a.ins("LSL", imm(log2(e.cElem)), "R4", "R4")
	a.ins("MOVD", imm(k.MR), "R17")
	a.ins("MUL", "R17", "R4", "R16")
	a.ins("MOVD", k.argOff("tiles"), "R6")
	if k.Window {
		// R20: from the end of a segment's k groups to the next segment's start.
		a.ins("MOVD", k.argOff("segStride"), "R20")
		if e.aElem > 1 {
			a.ins("LSL", imm(log2(e.aElem)), "R20", "R20")
		}
		a.ins("SUB", fmt.Sprintf("R0<<%d", log2(k.aBytes())), "R20", "R20")
	}
	if k.dot {
		k.columnSums(a)
	}

	a.label("tileloop")
	switch {
	case k.Indirect:
		k.indirectRows(a)
	case k.Strided:
		a.ins("MOVD", "R14", aRow(0))
		for i := 1; i < k.MR; i++ {
			a.ins("ADD", "R15", aRow(i-1), aRow(i))
		}
	}
	a.ins("MOVD", "R5", "R2")
	if k.dot && k.c80() != 3 {
		a.ins("VMOVI", imm(128), vname(k.c80(), "B16"))
	}
	k.prefetchC(a)
	for i := 0; i < k.MR; i++ {
		for j := 0; j < k.nv(); j++ {
			r := k.acc(i, j)
			a.ins("VEOR", vname(r, "B16"), vname(r, "B16"), vname(r, "B16"))
		}
	}

	done := "kdone"
	if k.Window {
		done = "segnext"
		a.ins("MOVD", k.argOff("segs"), "R19")
		a.label("segloop")
	}
	a.ins("LSR", imm(log2(k.unroll())), "R0", "R7")
	a.ins("CBZ", "R7", "tail")
	a.label("loop")
	k.prefetchAB(a)
	cs := k.packedChunk()
	if k.inPlace() {
		cs = k.rowChunk()
	}
	for c := 0; c < k.unroll()/cs; c++ {
		k.loadA(a, cs)
		for s := 0; s < cs; s++ {
			k.group(a, s, true)
		}
	}
	a.ins("SUBS", imm(1), "R7", "R7")
	a.ins("BNE", "loop")
	a.label("tail")
	if k.unroll() > 1 {
		a.ins("AND", imm(k.unroll()-1), "R0", "R7")
		a.ins("CBZ", "R7", done)
		a.label("tailloop")
		k.loadA(a, 1)
		k.group(a, 0, true)
		a.ins("SUBS", imm(1), "R7", "R7")
		a.ins("BNE", "tailloop")
	}
	if k.Window {
		a.label("segnext")
		a.ins("SUBS", imm(1), "R19", "R19")
		a.ins("BEQ", "kdone")
		for i := 0; i < k.MR; i++ {
			a.ins("ADD", "R20", aRow(i), aRow(i))
		}
		a.ins("B", "segloop")
	}
	a.label("kdone")
	if k.dot {
		a.comment("Take out the 128 * column sums that the flipped A added.")
		a.ins("MOVD", fmt.Sprintf("$colsums-%d(SP)", locals), "R17")
		a.ins("VLD1", "(R17)", vlist(4, k.nv(), "S4"))
		for i := 0; i < k.MR; i++ {
			for j := 0; j < k.nv(); j++ {
				a.word(vec4S("sub", k.acc(i, j), k.acc(i, j), 4+j))
			}
		}
	}
	if e.isFloat {
		k.floatEpilogue(a)
	} else {
		k.intEpilogue(a)
	}
	a.label("next")
	a.ins("ADD", "R16", "R3", "R3")
	if k.Strided {
		a.ins("ADD", "R25", "R14", "R14")
	}
	a.ins("SUBS", imm(1), "R6", "R6")
	a.ins("BNE", "tileloop")
	a.ins("RET")
	a.blank()
}

// columnSums computes, once per call, sum over the call's k groups of B times the 0x80
// bytes (SDOT: -128*sum b for U8S8, UDOT: 128*sum b for S8U8) per column, into the frame,
// leaving the 0x80 bytes in V3 (the packed kernels' register for them; the in-place kernels
// set theirs, V7, at each tile, as their epilogue reuses it).
func (k neon) columnSums(a *asm) {
	a.comment("The 0x80 bytes; the column sums of B times them, over all of B, into the frame.")
	a.ins("VMOVI", imm(128), vname(3, "B16")) // below the B registers V4..V7
	a.ins("MOVD", "R5", "R2")
	a.ins("MOVD", "R0", "R7")
	if k.Window {
		a.ins("MOVD", k.argOff("segs"), "R17")
		a.ins("MUL", "R17", "R0", "R7")
	}
	for j := 0; j < k.nv(); j++ {
		a.ins("VEOR", vname(accBase+j, "B16"), vname(accBase+j, "B16"), vname(accBase+j, "B16"))
	}
	a.ins("CBZ", "R7", "sumsdone")
	a.label("sumsloop")
	a.ins("VLD1.P", fmt.Sprintf("%d(R2)", 16*k.nv()), vlist(4, k.nv(), "B16"))
	for j := 0; j < k.nv(); j++ {
		a.word(dotVec(k.Elem == S8U8, accBase+j, 4+j, 3))
	}
	a.ins("SUBS", imm(1), "R7", "R7")
	a.ins("BNE", "sumsloop")
	a.label("sumsdone")
	a.ins("MOVD", fmt.Sprintf("$colsums-%d(SP)", 16*k.nv()), "R17")
	a.ins("VST1", vlist(accBase, k.nv(), "S4"), "(R17)")
}

// c80 is the register of the 0x80 bytes in the dot-product kernels.
func (k neon) c80() int {
	if k.inPlace() {
		return 7
	}
	return 3
}

// indirectRows points R8.. at the tile's rows from the offset table: a + o*size for an
// entry o >= 0, alt + ^o*size otherwise (branch-free: CSEL on the entry's sign).
func (k neon) indirectRows(a *asm) {
	sh := log2(elems[k.Elem].aElem)
	a.comment("A rows from the offset table: a[o] for o >= 0, alt[^o] otherwise.")
	for i := 0; i < k.MR; i++ {
		a.ins("MOVD.P", "8(R23)", "R17")
		a.ins("CMP", imm(0), "R17")
		a.ins("ADD", fmt.Sprintf("R17<<%d", sh), "R24", aRow(i))
		a.ins("MVN", "R17", "R17")
		a.ins("ADD", fmt.Sprintf("R17<<%d", sh), "R22", "R17")
		a.ins("CSEL", "LT", "R17", aRow(i), aRow(i))
	}
}

// prefetchC touches the C tile's lines while the k loop runs; like the amd64 kernels, the
// in-place (convolution) kernels skip it when beta is zero and C is only written.
func (k neon) prefetchC(a *asm) {
	e := elems[k.Elem]
	if k.inPlace() {
		a.comment("Touch the C tile early unless beta is zero (then C is only written).")
		switch {
		case k.Elem == F64:
			a.ins("MOVD", k.argOff("beta"), "R17")
			a.ins("LSL", imm(1), "R17", "R17") // ±0
			a.ins("CBZ", "R17", "cready")
		case e.isFloat:
			a.ins("MOVWU", k.argOff("beta"), "R17")
			a.ins("LSLW", imm(1), "R17", "R17")
			a.ins("CBZW", "R17", "cready")
		default:
			a.ins("MOVWU", k.argOff("beta"), "R17")
			a.ins("CBZW", "R17", "cready")
		}
	} else {
		a.comment("Touch the C tile early so its lines arrive while the k loop runs.")
	}
	rowBytes := k.NR * e.cElem
	a.ins("MOVD", "R3", "R21")
	for i := 0; i < k.MR; i++ {
		for off := 0; off < rowBytes; off += 64 {
			a.ins("PRFM", mem(off, "R21"), "PLDL1KEEP")
		}
		// The row's last byte (its first need not be line-aligned); Go's assembler would
		// round an unaligned PRFM offset down, so compute the address.
		a.ins("ADD", imm(rowBytes-1), "R21", "R17")
		a.ins("PRFM", "(R17)", "PLDL1KEEP")
		if i < k.MR-1 {
			a.ins("ADD", "R4", "R21", "R21")
		}
	}
	if k.inPlace() {
		a.label("cready")
	}
}

// prefetchAB emits the catalog's prefetch hints for one unrolled iteration: one per cache
// line of packed A or B it consumes, the catalog's distance ahead.
func (k neon) prefetchAB(a *asm) {
	e := elems[k.Elem]
	if k.PrefetchA > 0 && !k.inPlace() {
		for off := 0; off < k.unroll()*k.MR*e.laneBytes; off += 64 {
			a.ins("PRFM", mem(k.PrefetchA+off, "R1"), "PLDL1KEEP")
		}
	}
	if k.PrefetchB > 0 {
		for off := 0; off < k.unroll()*k.NR*e.laneBytes; off += 64 {
			a.ins("PRFM", mem(k.PrefetchB+off, "R2"), "PLDL1KEEP")
		}
	}
}

// loadA loads cs k groups of A: packed, as consecutive bytes into V0.. (the widening int8
// kernels widen them to int16 in place); in place, each row's cs groups into V(row) (the
// widening int8 kernels gather two rows' groups into the lanes of one register).
func (k neon) loadA(a *asm, cs int) {
	e := elems[k.Elem]
	widen := k.int8() && !k.dot
	if k.inPlace() {
		if widen {
			for i := 0; i < k.MR; i++ {
				a.ins("VLD1.P", mem(4, aRow(i)), fmt.Sprintf("V%d.S[%d]", i/2, i%2))
			}
			for r := 0; r < (k.MR+1)/2; r++ {
				a.word(xtl(k.Elem == U8S8, false, r, r))
			}
			return
		}
		n := cs * k.aBytes()
		mov := map[int]string{4: "FMOVS.P", 8: "FMOVD.P", 16: "FMOVQ.P"}[n]
		for i := 0; i < k.MR; i++ {
			a.ins(mov, mem(n, aRow(i)), fmt.Sprintf("F%d", i))
		}
		if k.dot {
			for i := 0; i < k.MR; i++ {
				a.ins("VEOR", vname(k.c80(), "B16"), vname(i, "B16"), vname(i, "B16"))
			}
		}
		return
	}
	n := cs * k.MR * e.laneBytes
	full, rest := n/16, n%16
	step := 1
	if widen {
		step = 2 // raw vector c goes to V(2c); it widens into V(2c) and V(2c+1)
	}
	if widen {
		for c := 0; c < full; c++ {
			a.ins("FMOVQ.P", mem(16, "R1"), fmt.Sprintf("F%d", step*c))
		}
	} else {
		for c := 0; c < full; c += 4 {
			m := min(4, full-c)
			a.ins("VLD1.P", fmt.Sprintf("%d(R1)", 16*m), vlist(c, m, "B16"))
		}
	}
	if rest > 0 {
		mov := map[int]string{4: "FMOVS.P", 8: "FMOVD.P"}[rest]
		a.ins(mov, mem(rest, "R1"), fmt.Sprintf("F%d", step*full))
	}
	regs := full
	if rest > 0 {
		regs++
	}
	switch {
	case widen:
		unsigned := k.Elem == U8S8
		for c := 0; c < full; c++ {
			a.word(xtl(unsigned, true, 2*c+1, 2*c))
			a.word(xtl(unsigned, false, 2*c, 2*c))
		}
		if rest > 0 {
			a.word(xtl(unsigned, false, 2*full, 2*full))
		}
	case k.dot:
		for r := 0; r < regs; r++ {
			a.ins("VEOR", vname(k.c80(), "B16"), vname(r, "B16"), vname(r, "B16"))
		}
	}
}

// aElem returns the register and by-element index of A for row i, k group s of the loaded
// chunk and, for the widening kernels, element q of the group.
func (k neon) aElem(i, s, q int) (reg, idx int) {
	e := elems[k.Elem]
	widen := k.int8() && !k.dot
	if k.inPlace() {
		switch {
		case widen:
			return i / 2, (i%2)*4 + q
		case k.Elem == I16:
			return i, 2*s + q
		}
		return i, s // float lanes, or int8 groups
	}
	o := (s*k.MR + i) * e.laneBytes
	switch {
	case widen:
		o = (s*k.MR+i)*8 + 2*q
		return o / 16, o % 16 / 2
	case k.Elem == I16:
		return o / 16, o%16/2 + q
	case k.Elem == F64:
		return o / 16, o % 16 / 8
	}
	return o / 16, o % 16 / 4
}

// group emits the multiply-accumulates of k group s of the loaded A chunk, loading B as it
// goes (without loads: the peak loop, on whatever the registers hold).
func (k neon) group(a *asm, s int, loads bool) {
	nv := k.nv()
	switch {
	case elems[k.Elem].isFloat:
		// B in one batch of nv registers V4.. (packed) or pairs in V6, V7 (in place, whose
		// A rows take V0..V5).
		batch, first := nv, 4
		if k.inPlace() {
			batch, first = min(2, nv), 6
		}
		arr := "S4"
		if k.Elem == F64 {
			arr = "D2"
		}
		for j0 := 0; j0 < nv; j0 += batch {
			m := min(batch, nv-j0)
			if loads {
				a.ins("VLD1.P", fmt.Sprintf("%d(R2)", 16*m), vlist(first, m, arr))
			}
			for i := 0; i < k.MR; i++ {
				r, idx := k.aElem(i, s, 0)
				for j := 0; j < m; j++ {
					if k.Elem == F64 {
						a.word(fmlaD(k.acc(i, j0+j), first+j, r, idx))
					} else {
						a.word(fmlaS(k.acc(i, j0+j), first+j, r, idx))
					}
				}
			}
		}
	case k.Elem == I16:
		// Eight columns at a time: LD2 puts their k0 values in one register, k1 in the next.
		for h := 0; h < nv/2; h++ {
			first := 4 + 2*h
			if k.inPlace() {
				first = 6
			}
			if loads {
				a.ins("VLD2.P", "32(R2)", vlist(first, 2, "H8"))
			}
			for q := 0; q < 2; q++ {
				for i := 0; i < k.MR; i++ {
					r, idx := k.aElem(i, s, q)
					a.word(smlalH(k.acc(i, 2*h), first+q, r, idx, false))
					a.word(smlalH(k.acc(i, 2*h+1), first+q, r, idx, true))
				}
			}
		}
	case k.dot:
		// Each B register holds four columns' k quads.
		for j := 0; j < nv; j++ {
			breg := 4 + j
			if k.inPlace() {
				breg = 6
				if loads {
					a.ins("VLD1.P", "16(R2)", vlist(breg, 1, "B16"))
				}
			} else if loads && j == 0 {
				a.ins("VLD1.P", fmt.Sprintf("%d(R2)", 16*nv), vlist(4, nv, "B16"))
			}
			for i := 0; i < k.MR; i++ {
				r, idx := k.aElem(i, s, 0)
				a.word(dotElem(k.Elem == S8U8, k.acc(i, j), breg, r, idx))
			}
		}
	default:
		// Widening int8: LD4 puts the k0..k3 bytes of eight columns in V4..V7, widened to
		// int16 in place (sign-extended for int8 B, zero-extended for uint8 B).
		for h := 0; h < nv/2; h++ {
			if loads {
				a.ins("VLD4.P", "32(R2)", vlist(4, 4, "B8"))
			}
			for q := 0; q < 4; q++ {
				a.word(xtl(k.Elem == S8U8, false, 4+q, 4+q))
			}
			for q := 0; q < 4; q++ {
				for i := 0; i < k.MR; i++ {
					r, idx := k.aElem(i, s, q)
					a.word(smlalH(k.acc(i, 2*h), 4+q, r, idx, false))
					a.word(smlalH(k.acc(i, 2*h+1), 4+q, r, idx, true))
				}
			}
		}
	}
}

// rows emits body(i) for every row of the tile, walking R21 down C.
func (k neon) rows(a *asm, body func(i int)) {
	a.ins("MOVD", "R3", "R21")
	for i := 0; i < k.MR; i++ {
		body(i)
		if i < k.MR-1 {
			a.ins("ADD", "R4", "R21", "R21")
		}
	}
}

func (k neon) floatEpilogue(a *asm) {
	nv := k.nv()
	arr, fmov, mul, fma := "S4", "FMOVS", fmulS, fmlaS
	if k.Elem == F64 {
		arr, fmov, mul, fma = "D2", "FMOVD", fmulD, fmlaD
	}
	a.comment("C = alpha*AB + beta*C; beta == ±0 must not read C (BLAS: C may hold NaN).")
	a.ins(fmov, k.argOff("alpha"), "F0")
	if k.Elem == F64 {
		a.ins("MOVD", k.argOff("beta"), "R17")
		a.ins("LSL", imm(1), "R17", "R17")
		a.ins("CBZ", "R17", "beta0")
	} else {
		a.ins("MOVWU", k.argOff("beta"), "R17")
		a.ins("LSLW", imm(1), "R17", "R17")
		a.ins("CBZW", "R17", "beta0")
	}
	a.ins(fmov, k.argOff("beta"), "F1")
	k.rows(a, func(i int) {
		a.ins("VLD1", "(R21)", vlist(4, nv, arr))
		for j := 0; j < nv; j++ {
			a.word(mul(k.acc(i, j), k.acc(i, j), 0, 0))
			a.word(fma(k.acc(i, j), 4+j, 1, 0))
		}
		a.ins("VST1", vlist(k.acc(i, 0), nv, arr), "(R21)")
	})
	a.ins("B", "next")
	a.label("beta0")
	k.rows(a, func(i int) {
		for j := 0; j < nv; j++ {
			a.word(mul(k.acc(i, j), k.acc(i, j), 0, 0))
		}
		a.ins("VST1", vlist(k.acc(i, 0), nv, arr), "(R21)")
	})
}

func (k neon) intEpilogue(a *asm) {
	nv := k.nv()
	a.comment("C = alpha*AB + beta*C in wrapping int32 arithmetic; beta == 0 does not read C.")
	a.ins("MOVW", k.argOff("alpha"), "R17")
	a.ins("CMPW", imm(1), "R17")
	a.ins("BEQ", "scaled")
	a.word(dupW(0, 17))
	for i := 0; i < k.MR; i++ {
		for j := 0; j < nv; j++ {
			a.word(vec4S("mul", k.acc(i, j), k.acc(i, j), 0))
		}
	}
	a.label("scaled")
	a.ins("MOVW", k.argOff("beta"), "R17")
	a.ins("CBZW", "R17", "beta0")
	a.ins("CMPW", imm(1), "R17")
	a.ins("BEQ", "beta1")
	a.word(dupW(1, 17))
	k.rows(a, func(i int) {
		a.ins("VLD1", "(R21)", vlist(4, nv, "S4"))
		for j := 0; j < nv; j++ {
			a.word(vec4S("mla", k.acc(i, j), 4+j, 1))
		}
		a.ins("VST1", vlist(k.acc(i, 0), nv, "S4"), "(R21)")
	})
	a.ins("B", "next")
	a.label("beta1")
	k.rows(a, func(i int) {
		a.ins("VLD1", "(R21)", vlist(4, nv, "S4"))
		for j := 0; j < nv; j++ {
			a.word(vec4S("add", k.acc(i, j), k.acc(i, j), 4+j))
		}
		a.ins("VST1", vlist(k.acc(i, 0), nv, "S4"), "(R21)")
	})
	a.ins("B", "next")
	a.label("beta0")
	k.rows(a, func(i int) {
		a.ins("VST1", vlist(k.acc(i, 0), nv, "S4"), "(R21)")
	})
}

// peakSym is the Go name of the kernel's register-only loop on arm64.
func (k neon) peakSym() string {
	s := "peak" + elems[k.Elem].tag
	if k.dot {
		s += "DP"
	}
	return s
}

// peakMACs is the multiply-adds of one iteration of the peak loop: one packed A chunk.
func (k neon) peakMACs() int { return k.MR * k.NR * elems[k.Elem].group * k.packedChunk() }

// emitPeak writes n iterations of the packed kernel's arithmetic for one A chunk, without
// its loads (the widening and XOR steps stay: they are part of the kernel's work), on
// registers that start at zero.
func (k neon) emitPeak(a *asm) {
	a.line("// func %s(n int)", k.peakSym())
	a.line("TEXT ·%s(SB), NOSPLIT, $0-8", k.peakSym())
	a.ins("MOVD", "n+0(FP)", "R0")
	for r := 0; r < 32; r++ {
		a.ins("VEOR", vname(r, "B16"), vname(r, "B16"), vname(r, "B16"))
	}
	a.label("loop")
	cs := k.packedChunk()
	switch {
	case k.dot:
		for r := 0; r < k.packedRegs(cs); r++ {
			a.ins("VEOR", vname(k.c80(), "B16"), vname(r, "B16"), vname(r, "B16"))
		}
	case k.int8():
		for r := 0; r < k.packedRegs(cs)/2; r++ {
			a.word(xtl(k.Elem == U8S8, true, 2*r+1, 2*r))
			a.word(xtl(k.Elem == U8S8, false, 2*r, 2*r))
		}
	}
	for s := 0; s < cs; s++ {
		k.group(a, s, false)
	}
	a.ins("SUBS", imm(1), "R0", "R0")
	a.ins("BNE", "loop")
	a.ins("RET")
	a.blank()
}

// neonKernels lists the arm64 kernels for a catalog: every kernel but the AVX-512 ones,
// and for the int8 types a dot-product version besides the widening one. (A catalog kernel
// that only makes sense on amd64, like the AVX-512 ones, must be skipped here; its
// dispatcher then calls the Go fallback on arm64.)
func neonKernels(ks []Kernel) []neon {
	var out []neon
	for _, k := range ks {
		if k.AVX512 || k.VNNI || k.Depthwise {
			continue // amd64-only forms: arm64 runs their Go fallbacks
		}
		out = append(out, neon{Kernel: k})
		if k.Elem == U8S8 || k.Elem == S8U8 {
			out = append(out, neon{Kernel: k, dot: true})
		}
	}
	return out
}

// neonPeaks returns the first packed arm64 kernel of each element type and kind.
func neonPeaks(ns []neon) []neon {
	var out []neon
	seen := map[string]bool{}
	for _, k := range ns {
		if k.inPlace() || seen[k.peakSym()] {
			continue
		}
		seen[k.peakSym()] = true
		out = append(out, k)
	}
	return out
}

// generateARM64 returns zkernels_arm64.s and the (unformatted) zkernels_arm64.go for ks.
func generateARM64(pkg string, ks []Kernel) (asmSrc, goSrc []byte, err error) {
	ns := neonKernels(ks)
	for _, k := range ns {
		if err := k.validate(); err != nil {
			return nil, nil, err
		}
	}
	var s asm
	s.buf.WriteString(header)
	s.line("//go:build arm64 && !noasm")
	s.blank()
	s.line(`#include "textflag.h"`)
	s.blank()
	for _, k := range ns {
		k.emit(&s)
	}
	peaks := neonPeaks(ns)
	for _, k := range peaks {
		k.emitPeak(&s)
	}
	emitPacksARM64(&s)

	var g bytes.Buffer
	g.WriteString(header)
	fmt.Fprintf(&g, "//go:build arm64 && !noasm\n\npackage %s\n\nimport \"unsafe\"\n\n", pkg)
	byKernel := map[Kernel][]neon{}
	for _, k := range ns {
		byKernel[k.Kernel] = append(byKernel[k.Kernel], k)
	}
	for _, k := range ks {
		fb := fmt.Sprintf("\t%s(%d, %d, %s)\n", k.fallback(), k.MR, k.NR, k.goArgNames())
		switch v := byKernel[k]; len(v) {
		case 0:
			fmt.Fprintf(&g, "// %s has no arm64 form: its Go fallback.\n", k.Dispatcher())
			fmt.Fprintf(&g, "func %s(%s) {\n%s}\n\n", k.Dispatcher(), k.goSignature(), fb)
		case 1:
			fmt.Fprintf(&g, "// %s runs %s (NEON), or its Go fallback when the kernels are off.\n", k.Dispatcher(), v[0].sym())
			fmt.Fprintf(&g, "func %s(%s) {\n\tif useAsm {\n\t\t%s(%s)\n\t\treturn\n\t}\n%s}\n\n", k.Dispatcher(), k.goSignature(), v[0].sym(), k.goArgNames(), fb)
		default:
			fmt.Fprintf(&g, "// %s runs %s where the CPU has the dot-product extension, else %s (NEON).\n", k.Dispatcher(), v[1].sym(), v[0].sym())
			fmt.Fprintf(&g, "func %s(%s) {\n\tswitch {\n\tcase useDot:\n\t\t%s(%s)\n\tcase useAsm:\n\t\t%s(%s)\n\tdefault:\n%s\t}\n}\n\n",
				k.Dispatcher(), k.goSignature(), v[1].sym(), k.goArgNames(), v[0].sym(), k.goArgNames(), "\t"+fb)
		}
		for _, n := range byKernel[k] {
			fmt.Fprintf(&g, "//go:noescape\nfunc %s(%s)\n\n", n.sym(), k.goSignature())
		}
	}
	for _, k := range peaks {
		fmt.Fprintf(&g, "// %s runs n iterations of the %s kernel's arithmetic (%d MACs each) on registers.\n", k.peakSym(), k.sym(), k.peakMACs())
		fmt.Fprintf(&g, "//\n//go:noescape\nfunc %s(n int)\n\n", k.peakSym())
	}
	for _, m := range []struct {
		name, doc string
		dot       bool
	}{{"peaks", "", false}, {"peaksDot", " of the dot-product kernels", true}} {
		fmt.Fprintf(&g, "// %s maps an element type to the peak loop%s and the MACs of one iteration.\n", m.name, m.doc)
		fmt.Fprintf(&g, "var %s = map[string]struct {\n\tloop func(int)\n\tmacs int\n}{\n", m.name)
		for _, k := range peaks {
			if k.dot == m.dot {
				fmt.Fprintf(&g, "\t%q: {%s, %d},\n", elems[k.Elem].dtype, k.peakSym(), k.peakMACs())
			}
		}
		fmt.Fprintf(&g, "}\n\n")
	}
	g.WriteString(packDecls)    // the same routines as amd64's, arm64pack.go
	g.WriteString(elementOther) // the element-wise kernels have no NEON form yet: Go's
	return s.buf.Bytes(), g.Bytes(), nil
}
