package x86gen

import (
	"fmt"
	"strings"
)

// Elem is the operand and accumulator type combination of a micro-kernel.
type Elem int

const (
	// F32: float32 x float32 -> float32 with VFMADD231PS (one k value per lane).
	F32 Elem = iota
	// F64: float64 x float64 -> float64 with VFMADD231PD.
	F64
	// I16: int16 x int16 -> int32 with VPMADDWD + VPADDD. Each int32 lane sums the products of
	// two consecutive k values ("2 columns" in the 2D-SIMD sense of seed 000).
	I16
	// U8S8: uint8 (broadcast side) x int8 (vector side) -> int32 with VPMADDUBSW, VPMADDWD by
	// ones and VPADDD: each lane sums four consecutive k values. VPMADDUBSW saturates each pair
	// sum to int16, so the result is exact only when every pair sum fits (see cpu/kernels).
	U8S8
	// S8U8: the same with the signedness of the operands swapped (broadcast side int8, vector
	// side uint8); it serves column-major outputs, where the roles of A and B swap.
	S8U8
)

// elemInfo describes how a type combination maps to vector instructions.
type elemInfo struct {
	tag       string // symbol fragment: F32, F64, I16, U8S8, S8U8
	goA, goB  string // Go types of the broadcast-side (A) and vector-side (B) operands
	goC       string // Go type of C, alpha and beta
	group     int    // consecutive k values folded into one lane
	laneBytes int    // bytes of one lane of a vector register (and of one broadcast unit)
	aElem     int    // bytes of one A element (for the row stride of strided kernels)
	cElem     int    // bytes of one C element
	isFloat   bool
	dtype     string // the name callers use (cpu/kernels.MeasurePeak)
	// shape prefixes cpu/kernels' shape constants (F32MR, U8NR, I16KGroup): U8S8 and S8U8
	// share theirs.
	shape string
}

var elems = map[Elem]elemInfo{
	F32:  {"F32", "float32", "float32", "float32", 1, 4, 4, 4, true, "float32", "F32"},
	F64:  {"F64", "float64", "float64", "float64", 1, 8, 8, 8, true, "float64", "F64"},
	I16:  {"I16", "int16", "int16", "int32", 2, 4, 2, 4, false, "int16", "I16"},
	U8S8: {"U8S8", "uint8", "int8", "int32", 4, 4, 1, 4, false, "u8s8", "U8"},
	S8U8: {"S8U8", "int8", "uint8", "int32", 4, 4, 1, 4, false, "s8u8", "U8"},
}

// Kernel is the parameter set of one generated micro-kernel. The kernel computes the MR x NR
// tile C = alpha*(A*B) + beta*C for kg groups of k, where A is MR x (kg*group), B is
// (kg*group) x NR in the packed layout described in cpu/kernels, and C has row stride ldc.
type Kernel struct {
	Elem   Elem
	MR, NR int // rows and columns of the C tile held in registers
	Unroll int // k groups per loop iteration; a power of two
	// Strided kernels read A in place (MR rows, row stride lda elements, k contiguous in a row);
	// packed kernels read A as [kg][MR] groups, the BLIS packed micro-panel.
	Strided bool
	// Window kernels are strided kernels whose k runs over segs segments of kg groups each,
	// segment s reading A at a + s*segStride elements (a convolution's filter rows: one
	// contiguous run of input per row, the rows XIn*C apart), B continuing across segments;
	// the tile stays in registers for all of them.
	Window bool
	// Indirect kernels read A in place like strided ones, but each row from its own place:
	// row i of tile t starts at entry t*MR+i of an offset table, an element offset into a
	// when it is not negative and ^offset into a second slice alt otherwise (a convolution's
	// tile whose pixels cross an output row, or whose border pixels read a copied row or a
	// row of zeros).
	Indirect bool
	// PrefetchA is the distance in bytes of PREFETCHT0 hints on the packed A stream (0: none).
	PrefetchA int
	// PrefetchB is the same for the packed B micro-panel (0: none).
	PrefetchB int
	// AVX512 kernels use the 32 zmm registers of AVX-512F (64-byte vectors) instead of the
	// 16 ymm of AVX2; packed float kernels only. On Zen 4 a zmm FMA issues as one
	// instruction for two 256-bit halves, so the same flops take half the instructions,
	// loads and broadcasts; on Intel server cores with two 512-bit FMA units it doubles the
	// peak.
	AVX512 bool
	// VNNI integer kernels multiply and accumulate in one instruction: VPDPWSSD (int16 pairs)
	// or VPDPBUSD (uint8 x int8 quads, summed into int32 without the int16 saturation of
	// VPMADDUBSW, so exact for every input). With AVX512 they are AVX-512 VNNI kernels on zmm
	// registers; without, AVX-VNNI kernels on the 16 ymm registers, whose VEX encodings Go's
	// assembler lacks and the generator writes as bytes (vexVNNI).
	VNNI bool
	// Depthwise kernels compute a convolution channel by channel (depth-wise and, on an
	// expanded input, grouped convolutions): MR output pixels x NR channels, each channel's
	// sum over a table of taps of input x per-channel weight, vectorized across the channels
	// (depthwise.go). NR is one or two vectors.
	Depthwise bool
	// Tag tells apart variants of one shape (tuning experiments); it suffixes the symbol.
	Tag string
}

// Symbol is the Go name of the assembly function (the dispatcher adds a "k" prefix).
func (k Kernel) Symbol() string {
	return fmt.Sprintf("asm%s%s%dx%d%s%s", elems[k.Elem].tag, k.form(), k.MR, k.NR, k.Suffix(), k.Tag)
}

// Sets are the instruction sets of the kernels, in the names cpu/kernels uses (its ISA
// type): every kernel belongs to one, and a CPU runs a set's kernels when it has the set.
const (
	SetAVX2       = "avx2"        // AVX2 and FMA, 16 ymm registers
	SetAVX2VNNI   = "avx2-vnni"   // AVX2 with AVX-VNNI (VEX-encoded VPDPBUSD, VPDPWSSD)
	SetAVX512     = "avx512"      // AVX-512F, 32 zmm registers
	SetAVX512VNNI = "avx512-vnni" // AVX-512F with AVX512_VNNI
)

// Set names the kernel's instruction set.
func (k Kernel) Set() string {
	switch {
	case k.AVX512 && k.VNNI:
		return SetAVX512VNNI
	case k.AVX512:
		return SetAVX512
	case k.VNNI:
		return SetAVX2VNNI
	}
	return SetAVX2
}

// setSuffix is the symbol and wrapper suffix of each set: F32Tiles, I16VStridedTiles,
// F32ZTiles, U8S8ZVIndirectTiles.
var setSuffix = map[string]string{SetAVX2: "", SetAVX2VNNI: "V", SetAVX512: "Z", SetAVX512VNNI: "ZV"}

// Suffix is the kernel's set suffix.
func (k Kernel) Suffix() string { return setSuffix[k.Set()] }

// Dispatcher is the Go function that callers use: assembly when available, Go otherwise.
func (k Kernel) Dispatcher() string { return "k" + strings.TrimPrefix(k.Symbol(), "asm") }

// fallback is the pure-Go implementation of the same contract (cpu/kernels/fallback.go).
// VPDPBUSD sums uint8 x int8 products without saturation, so the VNNI byte kernels have
// exact fallbacks (suffix X); VPDPWSSD computes what VPMADDWD and VPADDD do.
func (k Kernel) fallback() string {
	x := ""
	if k.VNNI && (k.Elem == U8S8 || k.Elem == S8U8) {
		x = "X"
	}
	return "go" + elems[k.Elem].tag + k.form() + x
}

// form is the symbol letter of the A access: P packed, S strided, W window, I indirect,
// D depthwise.
func (k Kernel) form() string {
	switch {
	case k.Depthwise:
		return "D"
	case k.Indirect:
		return "I"
	case k.Window:
		return "W"
	case k.Strided:
		return "S"
	}
	return "P"
}

func (k Kernel) lanes() int { return k.vecBytes() / elems[k.Elem].laneBytes }

// vecBytes is the width of one vector register: 32 (ymm) or 64 (zmm).
func (k Kernel) vecBytes() int {
	if k.AVX512 {
		return 64
	}
	return 32
}

// numRegs is the size of the vector register file: 16 ymm or 32 zmm.
func (k Kernel) numRegs() int {
	if k.AVX512 {
		return 32
	}
	return 16
}

// vreg names vector register i of the kernel's width.
func (k Kernel) vreg(i int) string {
	if k.AVX512 {
		return fmt.Sprintf("Z%d", i)
	}
	return y(i)
}

// nv is the number of vector registers per row of the C tile.
func (k Kernel) nv() int { return k.NR / k.lanes() }

// Validate checks that the kernel fits the vector registers (16 ymm of AVX2, 32 zmm of
// AVX-512) and is well formed.
func (k Kernel) Validate() error {
	e, ok := elems[k.Elem]
	if !ok {
		return fmt.Errorf("x86gen: unknown element type %d", k.Elem)
	}
	if k.Depthwise {
		return k.validateDepthwise()
	}
	maxMR := 8 // packed A: one broadcast address per row from AX; the register check below bounds MR*NR
	if k.Strided {
		maxMR = 6 // A rows from two base registers, 3 rows each; R12 keeps the tile start
	}
	if k.AVX512 && !k.Strided && !k.Indirect {
		maxMR = 14
	}
	if k.VNNI && e.isFloat {
		return fmt.Errorf("x86gen: %s: VNNI kernels are integer kernels", e.tag)
	}
	if k.AVX512 && !e.isFloat && !k.VNNI {
		return fmt.Errorf("x86gen: %s: AVX-512 integer kernels are VNNI kernels", e.tag)
	}
	if k.MR < 1 || k.MR > maxMR {
		return fmt.Errorf("x86gen: %s: MR=%d outside 1..%d", e.tag, k.MR, maxMR)
	}
	if k.NR < k.lanes() || k.NR%k.lanes() != 0 {
		return fmt.Errorf("x86gen: %s: NR=%d is not a positive multiple of %d lanes", e.tag, k.NR, k.lanes())
	}
	if k.Unroll < 1 || k.Unroll&(k.Unroll-1) != 0 {
		return fmt.Errorf("x86gen: %s: Unroll=%d is not a power of two", e.tag, k.Unroll)
	}
	// Accumulators, the B vectors of one k group, at least one broadcast register and, for
	// the integer types, one product temporary; the epilogue needs three free registers
	// (alpha, beta and a load temporary) once the B and broadcast registers are dead.
	need := k.MR*k.nv() + k.nv() + 1
	if k.needsTmp() {
		need++
	}
	if regs := k.numRegs(); need > regs || k.MR*k.nv() > regs-3 {
		return fmt.Errorf("x86gen: %s %dx%d needs %d vector registers, there are %d", e.tag, k.MR, k.NR, need, regs)
	}
	if k.Window && !k.Strided {
		return fmt.Errorf("x86gen: %s: a window kernel reads A in place (Strided)", e.tag)
	}
	if k.Indirect && (k.Strided || k.Window || k.MR > len(indirectRows) || k.PrefetchA != 0) {
		// (Hints 256 bytes ahead on each row measured 2% slower on ResNet-50's 3x3 layers.)
		return fmt.Errorf("x86gen: %s: an indirect kernel has at most %d rows and is not strided, window or A-prefetching", e.tag, len(indirectRows))
	}
	if k.PrefetchA < 0 || k.PrefetchA%64 != 0 {
		return fmt.Errorf("x86gen: PrefetchA=%d is not a non-negative multiple of 64", k.PrefetchA)
	}
	if k.PrefetchB < 0 || k.PrefetchB%64 != 0 {
		return fmt.Errorf("x86gen: PrefetchB=%d is not a non-negative multiple of 64", k.PrefetchB)
	}
	return nil
}

// arg is one Go parameter of a kernel with its ABI0 frame offset.
type arg struct {
	name, typ string
	size, off int
}

func (k Kernel) args() (args []arg, frame int) {
	e := elems[k.Elem]
	if k.Depthwise {
		return k.depthwiseArgs()
	}
	cSize := 4
	if k.Elem == F64 {
		cSize = 8
	}
	list := []arg{{name: "kg", typ: "int", size: 8}, {name: "a", typ: "*" + e.goA, size: 8}}
	if k.Indirect {
		// "g" would name the goroutine register in Go assembly.
		list = append(list, arg{name: "alt", typ: "*" + e.goA, size: 8}, arg{name: "rows", typ: "*int", size: 8})
	}
	if k.Strided {
		list = append(list, arg{name: "lda", typ: "int", size: 8})
	}
	if k.Window {
		list = append(list, arg{name: "segs", typ: "int", size: 8}, arg{name: "segStride", typ: "int", size: 8})
	}
	list = append(list,
		arg{name: "b", typ: "*" + e.goB, size: 8},
		arg{name: "c", typ: "*" + e.goC, size: 8},
		arg{name: "ldc", typ: "int", size: 8},
		arg{name: "alpha", typ: e.goC, size: cSize},
		arg{name: "beta", typ: e.goC, size: cSize})
	list = append(list, arg{name: "tiles", typ: "int", size: 8})
	off := 0
	for i := range list {
		off = (off + list[i].size - 1) / list[i].size * list[i].size
		list[i].off = off
		off += list[i].size
	}
	return list, (off + 7) / 8 * 8
}

func (k Kernel) argOff(name string) string {
	args, _ := k.args()
	for _, a := range args {
		if a.name == name {
			return fmt.Sprintf("%s+%d(FP)", a.name, a.off)
		}
	}
	panic("x86gen: no argument " + name)
}

// goSignature is the parameter list of the kernel in Go syntax.
func (k Kernel) goSignature() string {
	args, _ := k.args()
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.name + " " + a.typ
	}
	return strings.Join(parts, ", ")
}

func (k Kernel) goArgNames() string {
	args, _ := k.args()
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.name
	}
	return strings.Join(parts, ", ")
}

// Register roles. General-purpose registers:
//
//	CX  k groups left (tail loop)     R11 unrolled iterations left, epilogue scratch
//	AX  A pointer (row 0 when strided) R8 A row stride in bytes (strided)
//	R9  A pointer of row 3 (strided)   R12 the tile's A start (strided)
//	BX  B pointer                      DI  C row pointer    DX  C row stride in bytes
//	R10 C prefetch walker; segments left (window kernels)
//	SI  B micro-panel start            R13 C tile start
//
// Indirect kernels keep A row i in indirectRows[i] (AX, R8, R9, R12, R10, DI), the k offset
// along the rows in SI (the B micro-panel start is read from its argument slot instead);
// R10 and DI take their other roles (C prefetch walker, C row pointer) only outside the k
// loop.
//
// Kernels run `tiles` tiles down C: B is the same micro-panel for every tile and C moves MR
// rows per tile; packed A micro-panels are consecutive (AX simply runs on), strided A moves
// MR rows (MR*lda elements) per tile. The tile count lives in its argument slot.
//
// Vector registers: accumulators Y0 .. Y(MR*nv-1) (row-major over the tile), then nv B
// registers, then broadcast registers, then (integers) one product temporary.
type regs struct {
	acc   [][]string // [row][vector]
	b     []string
	bcast []string
	tmp   string
}

// needsTmp reports whether the kernel needs a product temporary: the integer kernels other
// than the VNNI ones, whose multiply accumulates.
func (k Kernel) needsTmp() bool { return !elems[k.Elem].isFloat && !k.VNNI }

// intMove is the integer vector load and store: VMOVDQU on ymm, VMOVDQU32 on zmm.
func (k Kernel) intMove() string {
	if k.AVX512 {
		return "VMOVDQU32"
	}
	return "VMOVDQU"
}

func (k Kernel) allocate() regs {
	var r regs
	n := 0
	for i := 0; i < k.MR; i++ {
		row := make([]string, k.nv())
		for j := range row {
			row[j] = k.vreg(n)
			n++
		}
		r.acc = append(r.acc, row)
	}
	for j := 0; j < k.nv(); j++ {
		r.b = append(r.b, k.vreg(n))
		n++
	}
	last := k.numRegs() - 1
	if k.needsTmp() {
		r.tmp = k.vreg(last)
		last--
	}
	for ; n <= last; n++ {
		r.bcast = append(r.bcast, k.vreg(n))
	}
	return r
}

// aOperand is the memory operand of the broadcast unit of A for row i in k step s of the
// unrolled body.
func (k Kernel) aOperand(i, s int) string {
	lb := elems[k.Elem].laneBytes
	if k.Indirect {
		return memIdx(s*lb, indirectRows[i], "SI", 1)
	}
	if !k.Strided {
		return mem((s*k.MR+i)*lb, "AX")
	}
	base := []string{"AX", "R9"}[i/3]
	switch i % 3 {
	case 0:
		return mem(s*lb, base)
	case 1:
		return memIdx(s*lb, base, "R8", 1)
	default:
		return memIdx(s*lb, base, "R8", 2)
	}
}

// step emits one rank-group update of the tile for unrolled step s.
func (k Kernel) step(a *asm, r regs, s int, bcastNext *int) { k.update(a, r, s, bcastNext, true) }

// update emits the instructions of one k group; without loads (a peak loop) the B and
// broadcast registers are used as they are.
func (k Kernel) update(a *asm, r regs, s int, bcastNext *int, loads bool) {
	e := elems[k.Elem]
	bStep := k.NR * e.laneBytes
	for j, rb := range r.b {
		if !loads {
			break
		}
		load := "VMOVUPS"
		switch {
		case k.Elem == F64:
			load = "VMOVUPD"
		case !e.isFloat:
			load = k.intMove()
		}
		a.ins(load, mem(s*bStep+k.vecBytes()*j, "BX"), rb)
	}
	for i := 0; i < k.MR; i++ {
		ra := r.bcast[*bcastNext%len(r.bcast)]
		*bcastNext++
		switch {
		case !loads:
		case k.Elem == F32:
			a.ins("VBROADCASTSS", k.aOperand(i, s), ra)
		case k.Elem == F64:
			a.ins("VBROADCASTSD", k.aOperand(i, s), ra)
		default:
			a.ins("VPBROADCASTD", k.aOperand(i, s), ra)
		}
		for j, rb := range r.b {
			acc := r.acc[i][j]
			if k.VNNI {
				k.vnni(a, rb, ra, acc)
				continue
			}
			switch k.Elem {
			case F32:
				a.ins("VFMADD231PS", rb, ra, acc)
			case F64:
				a.ins("VFMADD231PD", rb, ra, acc)
			case I16:
				a.ins("VPMADDWD", rb, ra, r.tmp)
				a.ins("VPADDD", r.tmp, acc, acc)
			case U8S8:
				// Intel order VPMADDUBSW dst, src1(unsigned bytes), src2(signed bytes);
				// Go order reverses it: the broadcast A (unsigned) is the middle operand.
				a.ins("VPMADDUBSW", rb, ra, r.tmp)
				a.ins("VPMADDWD", "onesw<>(SB)", r.tmp, r.tmp)
				a.ins("VPADDD", r.tmp, acc, acc)
			case S8U8:
				// Here the vector B holds the unsigned bytes.
				a.ins("VPMADDUBSW", ra, rb, r.tmp)
				a.ins("VPMADDWD", "onesw<>(SB)", r.tmp, r.tmp)
				a.ins("VPADDD", r.tmp, acc, acc)
			}
		}
	}
}

// vnni emits acc += the dot products of B vector rb and A broadcast ra: VPDPWSSD for int16,
// VPDPBUSD with the unsigned operand (A for U8S8, B for S8U8) as the first source. Go's
// operand order reverses Intel's: second source, first source, destination.
func (k Kernel) vnni(a *asm, rb, ra, acc string) {
	op, src1, src2 := "VPDPWSSD", ra, rb
	switch k.Elem {
	case U8S8:
		op = "VPDPBUSD"
	case S8U8:
		op, src1, src2 = "VPDPBUSD", rb, ra
	}
	if k.AVX512 {
		a.ins(op, src2, src1, acc)
		return
	}
	a.vexVNNI(op, acc, src1, src2)
}

// advance moves the A and B pointers past n k groups.
func (k Kernel) advance(a *asm, n int) {
	e := elems[k.Elem]
	if k.Indirect {
		a.ins("ADDQ", imm(n*e.laneBytes), "SI") // the k offset along every row
	} else if k.Strided {
		a.ins("ADDQ", imm(n*e.laneBytes), "AX")
		if k.MR > 3 {
			a.ins("ADDQ", imm(n*e.laneBytes), "R9")
		}
	} else {
		a.ins("ADDQ", imm(n*k.MR*e.laneBytes), "AX")
	}
	a.ins("ADDQ", imm(n*k.NR*e.laneBytes), "BX")
}

// emit writes the kernel's TEXT block.
func (k Kernel) emit(a *asm) {
	if k.Depthwise {
		k.emitDepthwise(a)
		return
	}
	e := elems[k.Elem]
	r := k.allocate()
	_, frame := k.args()
	sym := k.Symbol()
	a.line("// func %s(%s)", sym, k.goSignature())
	a.line("TEXT ·%s(SB), NOSPLIT, $0-%d", sym, frame)
	a.ins("MOVQ", k.argOff("kg"), "CX")
	if !k.Indirect { // indirect kernels load their row pointers per tile
		a.ins("MOVQ", k.argOff("a"), "AX")
	}
	if k.Strided {
		a.ins("MOVQ", k.argOff("lda"), "R8")
		if e.aElem > 1 {
			a.ins("SHLQ", imm(log2(e.aElem)), "R8")
		}
	}
	if !k.Indirect { // SI is the k index of indirect kernels
		a.ins("MOVQ", k.argOff("b"), "SI")
	}
	a.ins("MOVQ", k.argOff("c"), "R13")
	a.ins("MOVQ", k.argOff("ldc"), "DX")
	a.ins("SHLQ", imm(log2(e.cElem)), "DX")
	// The ldc slot becomes the bytes from one C tile to the next (MR rows), and a strided
	// kernel's lda slot the same for A, so the next tile's pointers are one add away
	// instead of a chain of MR adds (and, for A, a store and reload of the tile start).
	a.ins("IMUL3Q", imm(k.MR), "DX", "R11")
	a.ins("MOVQ", "R11", k.argOff("ldc"))
	if k.Strided {
		a.ins("IMUL3Q", imm(k.MR), "R8", "R11")
		a.ins("MOVQ", "R11", k.argOff("lda"))
		a.ins("MOVQ", "AX", "R12") // the tile's A start (R12 is free for MR <= 6)
	}
	if k.Window {
		// The segment stride's slot becomes the bytes from the end of one segment's k
		// groups to the start of the next: segStride*aElem - kg*laneBytes.
		a.ins("MOVQ", k.argOff("segStride"), "R10")
		if e.aElem > 1 {
			a.ins("SHLQ", imm(log2(e.aElem)), "R10")
		}
		a.ins("MOVQ", "CX", "R11")
		if e.laneBytes > 1 {
			a.ins("SHLQ", imm(log2(e.laneBytes)), "R11")
		}
		a.ins("SUBQ", "R11", "R10")
		a.ins("MOVQ", "R10", k.argOff("segStride"))
	}
	a.label("tileloop")
	if !k.Indirect { // indirectPointers sets CX and BX below
		a.ins("MOVQ", k.argOff("kg"), "CX")
		if k.Strided {
			a.ins("MOVQ", "R12", "AX")
			k.rowPointers(a)
		}
		a.ins("MOVQ", "SI", "BX")
	}

	// Touch the C tile early so its lines arrive while the k loop runs. The convolution's
	// kernels (strided, indirect) skip it when beta is zero and C is only written
	// (ResNet-50's one-block 1x1 layers +0.6%); the GEMM's keep it (4096x4096x290, C
	// written once, -1.9% without).
	inPlaceA := k.Strided || k.Indirect
	if inPlaceA {
		a.comment("Touch the C tile early unless beta is zero (then C is only written).")
	} else {
		a.comment("Touch the C tile early so its lines arrive while the k loop runs.")
	}
	switch {
	case !inPlaceA:
	case k.Elem == F64:
		a.ins("MOVQ", k.argOff("beta"), "R10")
		a.ins("SHLQ", imm(1), "R10") // ±0
	case e.isFloat:
		a.ins("MOVL", k.argOff("beta"), "R10")
		a.ins("SHLL", imm(1), "R10")
	default:
		a.ins("MOVL", k.argOff("beta"), "R10")
		a.ins("TESTL", "R10", "R10")
	}
	if inPlaceA {
		a.ins("JZ", "cready")
	}
	rowBytes := k.NR * e.cElem
	a.ins("MOVQ", "R13", "R10")
	for i := 0; i < k.MR; i++ {
		for off := 0; off < rowBytes-1; off += 64 {
			a.ins("PREFETCHT0", mem(off, "R10"))
		}
		a.ins("PREFETCHT0", mem(rowBytes-1, "R10"))
		if i < k.MR-1 {
			a.ins("ADDQ", "DX", "R10")
		}
	}
	if inPlaceA {
		a.label("cready")
	}

	if k.Indirect {
		k.indirectPointers(a)
	}
	for _, row := range r.acc {
		for _, acc := range row {
			switch {
			case k.AVX512:
				a.ins("VPXORQ", acc, acc, acc) // VXORPS on zmm would need AVX512DQ
			case e.isFloat:
				a.ins("VXORPS", acc, acc, acc)
			default:
				a.ins("VPXOR", acc, acc, acc)
			}
		}
	}

	bc := 0
	done := "epilogue" // where the k loop ends
	if k.Window {
		// R10 counts the segments left (the C prefetch above is its only other use).
		done = "segnext"
		a.ins("MOVQ", k.argOff("segs"), "R10")
		a.label("segloop")
		a.ins("MOVQ", k.argOff("kg"), "CX")
	}
	a.ins("MOVQ", "CX", "R11")
	a.ins("SHRQ", imm(log2(k.Unroll)), "R11")
	a.ins("JZ", "tail")
	a.label("loop")
	aStep := k.MR * e.laneBytes
	for s := 0; s < k.Unroll; s++ {
		if k.PrefetchA > 0 && !k.Strided && !k.Indirect {
			// One hint per cache line of A consumed by this step.
			if s == 0 || (s*aStep)/64 != ((s-1)*aStep)/64 {
				a.ins("PREFETCHT0", mem(k.PrefetchA+s*aStep, "AX"))
			}
		}
		if bStep := k.NR * elems[k.Elem].laneBytes; k.PrefetchB > 0 && (s == 0 || (s*bStep)/64 != ((s-1)*bStep)/64) {
			a.ins("PREFETCHT0", mem(k.PrefetchB+s*bStep, "BX"))
		}
		k.step(a, r, s, &bc)
	}
	k.advance(a, k.Unroll)
	a.ins("DECQ", "R11")
	a.ins("JNZ", "loop")
	a.label("tail")
	if k.Unroll > 1 {
		a.ins("ANDQ", imm(k.Unroll-1), "CX")
		a.ins("JZ", done)
		a.label("tailloop")
		k.step(a, r, 0, &bc)
		k.advance(a, 1)
		a.ins("DECQ", "CX")
		a.ins("JNZ", "tailloop")
	}
	if k.Window {
		a.label("segnext")
		a.ins("DECQ", "R10")
		a.ins("JZ", "epilogue")
		a.ins("ADDQ", k.argOff("segStride"), "AX")
		k.rowPointers(a)
		a.ins("JMP", "segloop")
	}
	a.label("epilogue")
	if e.isFloat {
		k.floatEpilogue(a, r)
	} else {
		k.intEpilogue(a, r)
	}
	a.label("next")
	if k.Indirect {
		a.ins("ADDQ", imm(8*k.MR), k.argOff("rows"))
	}
	if k.Strided {
		// The next tile's A rows start MR rows further (the k loop moved AX along the row;
		// R12 keeps the tile's start).
		a.ins("ADDQ", k.argOff("lda"), "R12")
	}
	a.ins("ADDQ", k.argOff("ldc"), "R13")
	a.ins("DECQ", k.argOff("tiles"))
	a.ins("JNZ", "tileloop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	if k.Indirect {
		for i, r := range indirectRows[:k.MR] {
			a.label(fmt.Sprintf("altrow%d", i))
			a.ins("NOTQ", r)
			if e.aElem > 1 {
				a.ins("SHLQ", imm(log2(e.aElem)), r)
			}
			a.ins("ADDQ", k.argOff("alt"), r)
			a.ins("JMP", fmt.Sprintf("rowset%d", i))
		}
	}
	a.blank()
}

// indirectRows are the A row registers of indirect kernels.
var indirectRows = []string{"AX", "R8", "R9", "R12", "R10", "DI"}

// indirectPointers loads the tile's A row pointers from its offset table entries: an entry
// o >= 0 points at a + o elements, o < 0 at alt + ^o. The rows in a fall through; a row in
// alt (a border pixel's copy, or the zero row) branches to a fix-up after the RET. A
// branchless select (a + (o XOR m)*size + (m AND (alt-a)), m = o>>63) took 42 instead of 24
// instructions per tile: 1.7% at k = 64 and 0.5% at k = 192 slower (cpu/kernels'
// BenchmarkF32Indirect), 0.2-0.8% on ResNet-50's 3x3 layers. R11 and the k count and B
// pointer are set again at the end.
func (k Kernel) indirectPointers(a *asm) {
	e := elems[k.Elem]
	a.comment("A rows from the offset table: a[o] for o >= 0, alt[^o] otherwise.")
	a.ins("MOVQ", k.argOff("rows"), "R11")
	for i, r := range indirectRows[:k.MR] {
		a.ins("MOVQ", mem(8*i, "R11"), r)
	}
	a.ins("MOVQ", k.argOff("a"), "R11")
	for i, r := range indirectRows[:k.MR] {
		// Rows in a (the common case) fall through; rows in alt take a branch out of line.
		a.ins("TESTQ", r, r)
		a.ins("JS", fmt.Sprintf("altrow%d", i))
		if e.aElem > 1 {
			a.ins("SHLQ", imm(log2(e.aElem)), r)
		}
		a.ins("ADDQ", "R11", r)
		a.label(fmt.Sprintf("rowset%d", i))
	}
	a.ins("MOVQ", k.argOff("kg"), "CX")
	a.ins("MOVQ", k.argOff("b"), "BX")
	a.ins("XORQ", "SI", "SI")
}

// rowPointers sets R9 to A row 3 from AX (row 0) and R8 (the row stride).
func (k Kernel) rowPointers(a *asm) {
	if k.MR > 3 {
		a.ins("LEAQ", memIdx(0, "AX", "R8", 2), "R9")
		a.ins("ADDQ", "R8", "R9")
	}
}

// Epilogue registers: the B, broadcast and temporary registers are dead after the loop.
func (k Kernel) spare(r regs) (alpha, beta, tmp string) {
	free := append(append([]string{}, r.b...), r.bcast...)
	if r.tmp != "" {
		free = append(free, r.tmp)
	}
	return free[0], free[1], free[2]
}

// storeRows emits body(acc, memOperand) for every accumulator, walking DI over the rows.
func (k Kernel) storeRows(a *asm, r regs, body func(acc, m string)) {
	a.ins("MOVQ", "R13", "DI")
	for i, row := range r.acc {
		for j, acc := range row {
			body(acc, mem(k.vecBytes()*j, "DI"))
		}
		if i < k.MR-1 {
			a.ins("ADDQ", "DX", "DI")
		}
	}
}

func (k Kernel) floatEpilogue(a *asm, r regs) {
	alpha, beta, tmp := k.spare(r)
	bcast, mul, fma, load, store := "VBROADCASTSS", "VMULPS", "VFMADD231PS", "VMOVUPS", "VMOVUPS"
	mov, shl := "MOVL", "SHLL"
	if k.Elem == F64 {
		bcast, mul, fma, load, store = "VBROADCASTSD", "VMULPD", "VFMADD231PD", "VMOVUPD", "VMOVUPD"
		mov, shl = "MOVQ", "SHLQ"
	}
	a.comment("C = alpha*AB + beta*C; beta == ±0 must not read C (BLAS: C may hold NaN).")
	a.ins(bcast, k.argOff("alpha"), alpha)
	a.ins(mov, k.argOff("beta"), "R11")
	a.ins(shl, imm(1), "R11")
	a.ins("JZ", "beta0")
	a.ins(bcast, k.argOff("beta"), beta)
	k.storeRows(a, r, func(acc, m string) {
		a.ins(load, m, tmp)
		a.ins(mul, alpha, acc, acc)
		a.ins(fma, beta, tmp, acc)
		a.ins(store, acc, m)
	})
	a.ins("JMP", "next")
	a.label("beta0")
	k.storeRows(a, r, func(acc, m string) {
		a.ins(mul, alpha, acc, acc)
		a.ins(store, acc, m)
	})
}

func (k Kernel) intEpilogue(a *asm, r regs) {
	alpha, beta, tmp := k.spare(r)
	a.comment("C = alpha*AB + beta*C in wrapping int32 arithmetic; beta == 0 does not read C.")
	a.ins("MOVL", k.argOff("alpha"), "R11")
	a.ins("CMPL", "R11", imm(1))
	a.ins("JEQ", "scaled")
	// vet's asmdecl misreads a 4-byte VPBROADCASTD from the frame, so go through R11.
	a.ins("VMOVD", "R11", xreg(alpha))
	a.ins("VPBROADCASTD", xreg(alpha), alpha)
	for _, row := range r.acc {
		for _, acc := range row {
			a.ins("VPMULLD", alpha, acc, acc)
		}
	}
	a.label("scaled")
	a.ins("MOVL", k.argOff("beta"), "R11")
	a.ins("TESTL", "R11", "R11")
	a.ins("JZ", "beta0")
	a.ins("CMPL", "R11", imm(1))
	a.ins("JEQ", "beta1")
	a.ins("VMOVD", "R11", xreg(beta))
	a.ins("VPBROADCASTD", xreg(beta), beta)
	mov := k.intMove()
	k.storeRows(a, r, func(acc, m string) {
		a.ins(mov, m, tmp)
		a.ins("VPMULLD", beta, tmp, tmp)
		a.ins("VPADDD", tmp, acc, acc)
		a.ins(mov, acc, m)
	})
	a.ins("JMP", "next")
	a.label("beta1")
	k.storeRows(a, r, func(acc, m string) {
		a.ins("VPADDD", m, acc, acc)
		a.ins(mov, acc, m)
	})
	a.ins("JMP", "next")
	a.label("beta0")
	k.storeRows(a, r, func(acc, m string) {
		a.ins(mov, acc, m)
	})
}

// PeakSymbol is the Go name of the kernel's compute-only loop.
func (k Kernel) PeakSymbol() string { return "peak" + elems[k.Elem].tag + k.Suffix() }

// emitPeak writes a loop of n iterations of the kernel's arithmetic without its loads: the
// instruction mix of the micro-kernel on registers only, the ceiling the kernel can reach on
// this machine right now (HOST-ZEN3 measures peaks the same way). Every register
// starts at zero so no float operation meets a subnormal (which costs microcode assists).
func (k Kernel) emitPeak(a *asm) {
	r := k.allocate()
	a.line("// func %s(n int)", k.PeakSymbol())
	a.line("TEXT ·%s(SB), NOSPLIT, $0-8", k.PeakSymbol())
	a.ins("MOVQ", "n+0(FP)", "CX")
	for i := 0; i < k.numRegs(); i++ {
		if k.AVX512 {
			a.ins("VPXORQ", k.vreg(i), k.vreg(i), k.vreg(i))
		} else {
			a.ins("VPXOR", y(i), y(i), y(i))
		}
	}
	a.label("loop")
	bc := 0
	k.update(a, r, 0, &bc, false)
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}
