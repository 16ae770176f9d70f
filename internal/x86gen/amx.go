package x86gen

import (
	"bytes"
	"fmt"
	"strings"
)

// AMX tile kernels (docs/cpu-amx.md).
//
// An AMX tile register (palette 1: eight tiles tmm0..tmm7) holds up to 16 rows of 64 bytes;
// TDPBUSD/TDPBSSD multiply a 16 x 64-byte tile of A (16 rows of M, 64 int8 values of k) by a
// 16 x 64-byte tile of B in the "VNNI" layout (16 rows of 4 consecutive k values for each of
// 16 columns) into a 16 x 16 int32 tile of C; TDPBF16PS does the same with 32 bf16 values of
// k per A row and k pairs in B's rows (Intel SDM vol. 2C "TDPBUSD/TDPBSSD", "TDPBF16PS";
// Intel 64 and IA-32 Optimization Reference Manual, chapter "Intel AMX"). That is the AI
// Engine's mac16 shape grown to 16 lanes x 16 rows of C with 4 (int8) or 2 (bf16) columns
// per lane and 16 k groups per instruction. The kernel keeps a 2 x 2 block of C tiles
// (tmm0..3, 32 x 32 outputs) and per 64-byte k step loads two A tiles (tmm4, 5) and two B
// tiles (tmm6, 7): 4 tile multiplies per 4 tile loads, each A tile used twice and each B tile
// twice, the tile-register analogue of the register-blocked micro-kernel (seed 001).
//
// Go's assembler has no AMX mnemonics: every tile instruction is written as the bytes of its
// VEX encoding (amxBytes), checked against GNU as in the tests. The kernel is generated from
// a small program (AMXKernel.Program) that also goes to cpu/kernels as a table: its Go model
// of the tile instructions runs the same program where the CPU has no AMX.

// AMXElem is the operand type of an AMX kernel.
type AMXElem int

const (
	AMXU8S8 AMXElem = iota // uint8 A x int8 B -> int32, TDPBUSD
	AMXS8S8                // int8 x int8 -> int32, TDPBSSD
	AMXBF16                // bf16 x bf16 -> float32, TDPBF16PS
)

var amxElems = []struct{ tag, op string }{{"U8S8", "TDPBUSD"}, {"S8S8", "TDPBSSD"}, {"BF16", "TDPBF16PS"}}

// AMX tile geometry (palette 1): rows and bytes per row of every tile the kernels configure.
const (
	amxRows    = 16
	amxColsB   = 64
	amxTile    = amxRows * amxColsB // bytes of one packed tile
	amxBlockMN = 2 * amxRows        // the kernel's C block: 32 x 32
)

// AMXKernel is one tile kernel: C (32 x 32, int32 or float32, row stride ldc bytes) = the
// sum over kg k steps of packed A (two 16 x 64-byte tiles per step) times packed B (two
// VNNI tiles per step), plus C itself when load is set (beta = 1), else from zero; repeated
// for tiles blocks stacked down C, each with the next packed A panel and the same B panel
// (one tile configuration per call).
type AMXKernel struct{ Elem AMXElem }

// Symbol is the assembly function's name.
func (k AMXKernel) Symbol() string { return "asmAMX" + amxElems[k.Elem].tag }

// Tile program operations (mirrored by cpu/kernels' model).
const (
	AMXOpLoad  = iota // TILELOADD tile, [ptr + off + row*stride]
	AMXOpStore        // TILESTORED [ptr + off + row*stride], tile
	AMXOpZero         // TILEZERO tile
	AMXOpDot          // TDP* tile, t1, t2
)

// Pointers of a tile program: packed A and B (stride 64), C and C's second block of 16 rows
// (stride ldc).
//
// The direct convolution kernels (AMXConvKernel) read A in place through a table of byte
// offsets, one per k step: AMXPtrAX is A + offs[step] (the tile of rows 0-15), AMXPtrAX16 that
// plus 16 rows (rows 16-31), both with A's row stride lda.
const (
	AMXPtrA = iota
	AMXPtrB
	AMXPtrC
	AMXPtrC16
	AMXPtrAX
	AMXPtrAX16
)

// AMXOp is one tile instruction of a kernel program.
type AMXOp struct {
	Op, T, T1, T2, Ptr, Off int
}

// AMXProgram is a kernel as cpu/kernels' model runs it: LoadC (beta = 1) or ZeroC, Body kg
// times (A and B advance by Step bytes after each), then Store.
type AMXProgram struct {
	LoadC, ZeroC, Body, Store []AMXOp
	Step                      int
	// Indirect: A is read in place through the offset table (AMXPtrAX, AMXPtrAX16) and only
	// B advances by Step bytes a step.
	Indirect bool
}

// Program returns the kernel's tile program: tmm0..3 hold C's 2 x 2 tiles (row block i,
// column block j in tmm 2i+j), tmm4, 5 the A tiles of row blocks 0, 1, tmm6, 7 the B tiles
// of column blocks 0, 1. Packed A holds per k step the tile of rows 0-15, then of rows
// 16-31; packed B the tile of columns 0-15, then of columns 16-31.
func (k AMXKernel) Program() AMXProgram {
	var p AMXProgram
	for t := 0; t < 4; t++ {
		ptr := []int{AMXPtrC, AMXPtrC16}[t/2]
		off := (t % 2) * amxColsB
		p.LoadC = append(p.LoadC, AMXOp{Op: AMXOpLoad, T: t, Ptr: ptr, Off: off})
		p.ZeroC = append(p.ZeroC, AMXOp{Op: AMXOpZero, T: t})
		p.Store = append(p.Store, AMXOp{Op: AMXOpStore, T: t, Ptr: ptr, Off: off})
	}
	p.Body = []AMXOp{
		{Op: AMXOpLoad, T: 4, Ptr: AMXPtrA}, {Op: AMXOpLoad, T: 5, Ptr: AMXPtrA, Off: amxTile},
		{Op: AMXOpLoad, T: 6, Ptr: AMXPtrB}, {Op: AMXOpLoad, T: 7, Ptr: AMXPtrB, Off: amxTile},
		{Op: AMXOpDot, T: 0, T1: 4, T2: 6}, {Op: AMXOpDot, T: 1, T1: 4, T2: 7},
		{Op: AMXOpDot, T: 2, T1: 5, T2: 6}, {Op: AMXOpDot, T: 3, T1: 5, T2: 7},
	}
	p.Step = 2 * amxTile
	return p
}

// gpr numbers Go's names of the general registers (the ModRM/SIB register numbers).
var gpr = map[string]int{"AX": 0, "CX": 1, "DX": 2, "BX": 3, "SP": 4, "BP": 5, "SI": 6, "DI": 7,
	"R8": 8, "R9": 9, "R10": 10, "R11": 11, "R12": 12, "R13": 13, "R14": 14, "R15": 15}

// vex3 is a 3-byte VEX prefix for map 0F38, W0, L0 (Intel SDM vol. 2A section 2.3.5): r, x,
// b are the high bits of ModRM.reg, SIB.index and ModRM.rm/SIB.base, vvvv the extra
// register (1111 when unused is passed as 0 here: the field is stored inverted), pp the
// implied prefix (0 none, 1 66, 2 F3, 3 F2).
func vex3(r, x, b int, vvvv int, pp byte) []byte {
	inv := func(v int) byte { return byte(^v & 1) }
	return []byte{0xC4, inv(r)<<7 | inv(x)<<6 | inv(b)<<5 | 0x02, byte(^vvvv&15)<<3 | pp}
}

// amxMem encodes a memory operand [base + index*1 + disp] (index < 0: none) with ModRM.reg
// = reg: the prefix's x and b bits and the ModRM, SIB and displacement bytes.
func amxMem(reg, base, index, disp int) (x, b int, tail []byte) {
	mod := byte(0)
	switch {
	case disp == 0 && base&7 != 5: // [rbp]/[r13] have no mod-00 form
	case disp >= -128 && disp < 128:
		mod = 1
	default:
		mod = 2
	}
	if index < 0 && base&7 != 4 {
		tail = []byte{mod<<6 | byte(reg&7)<<3 | byte(base&7)}
	} else {
		idx := 4 // none
		if index >= 0 {
			if index == 4 {
				panic("x86gen: SP cannot be an index register")
			}
			idx = index
		}
		tail = []byte{mod<<6 | byte(reg&7)<<3 | 4, byte(idx&7)<<3 | byte(base&7)}
		x = idx >> 3
	}
	switch mod {
	case 1:
		tail = append(tail, byte(int8(disp)))
	case 2:
		tail = append(tail, byte(disp), byte(disp>>8), byte(disp>>16), byte(disp>>24))
	}
	return x, base >> 3, tail
}

// amxBytes encodes one AMX instruction (Intel SDM vol. 2C; AMX opcodes in map 0F38):
//
//	LDTILECFG m512       VEX.128.NP.0F38.W0 49 /0
//	STTILECFG m512       VEX.128.66.0F38.W0 49 /0
//	TILELOADD tmm, sib   VEX.128.F2.0F38.W0 4B /r
//	TILESTORED sib, tmm  VEX.128.F3.0F38.W0 4B /r
//	TILEZERO tmm         VEX.128.F2.0F38.W0 49 11:rrr:000
//	TILERELEASE          VEX.128.NP.0F38.W0 49 C0
//	TDPBUSD tmm1, tmm2, tmm3   VEX.128.66.0F38.W0 5E 11:rrr:bbb (tmm3 in vvvv)
//	TDPBSSD tmm1, tmm2, tmm3   VEX.128.F2.0F38.W0 5E 11:rrr:bbb
//	TDPBF16PS tmm1, tmm2, tmm3 VEX.128.F3.0F38.W0 5C 11:rrr:bbb
//
// Memory operands are base + index + disp (index -1: none; TILELOADD/TILESTORED need one).
func amxBytes(op string, tile, t1, t2 int, base, index, disp int) []byte {
	memOp := func(pp, opcode byte, reg int) []byte {
		x, b, tail := amxMem(reg, base, index, disp)
		return append(append(vex3(0, x, b, 0, pp), opcode), tail...)
	}
	switch op {
	case "LDTILECFG":
		return memOp(0, 0x49, 0)
	case "STTILECFG":
		return memOp(1, 0x49, 0)
	case "TILELOADD":
		return memOp(3, 0x4B, tile)
	case "TILESTORED":
		return memOp(2, 0x4B, tile)
	case "TILEZERO":
		return append(vex3(0, 0, 0, 0, 3), 0x49, 0xC0|byte(tile)<<3)
	case "TILERELEASE":
		return append(vex3(0, 0, 0, 0, 0), 0x49, 0xC0)
	case "TDPBUSD", "TDPBSSD", "TDPBF16PS":
		pp, opcode := map[string]byte{"TDPBUSD": 1, "TDPBSSD": 3, "TDPBF16PS": 2}[op], byte(0x5E)
		if op == "TDPBF16PS" {
			opcode = 0x5C
		}
		return append(vex3(0, 0, 0, t2, pp), opcode, 0xC0|byte(tile)<<3|byte(t1))
	}
	panic("x86gen: unknown AMX instruction " + op)
}

// amxIns emits an AMX instruction as BYTE lines with its Intel-syntax text as a comment.
func (a *asm) amxIns(text, op string, tile, t1, t2 int, base, index string, disp int) {
	b, x := -1, -1
	if base != "" {
		b = gpr[base]
	}
	if index != "" {
		x = gpr[index]
	}
	enc := amxBytes(op, tile, t1, t2, b, x, disp)
	parts := make([]string, len(enc))
	for i, v := range enc {
		parts[i] = fmt.Sprintf("$0x%02x", v)
	}
	for _, p := range parts {
		a.ins("BYTE", p)
	}
	a.comment("%s", text)
}

// emitOp writes one program operation: A in SI, B in DI (stride 64 in R11), C in R8, C's
// second row block in R12 (stride ldc in R9).
func (k AMXKernel) emitOp(a *asm, o AMXOp) {
	base := []string{"SI", "DI", "R8", "R12"}[o.Ptr]
	stride := "R11"
	if o.Ptr >= AMXPtrC {
		stride = "R9"
	}
	emitAMXOp(a, k.Elem, o, base, stride)
}

// emitAMXOp writes one program operation with its memory operand at [base + off + stride].
func emitAMXOp(a *asm, elem AMXElem, o AMXOp, base, stride string) {
	switch o.Op {
	case AMXOpLoad:
		a.amxIns(fmt.Sprintf("TILELOADD tmm%d, [%s + %d + %s*1]", o.T, base, o.Off, stride), "TILELOADD", o.T, 0, 0, base, stride, o.Off)
	case AMXOpStore:
		a.amxIns(fmt.Sprintf("TILESTORED [%s + %d + %s*1], tmm%d", base, o.Off, stride, o.T), "TILESTORED", o.T, 0, 0, base, stride, o.Off)
	case AMXOpZero:
		a.amxIns(fmt.Sprintf("TILEZERO tmm%d", o.T), "TILEZERO", o.T, 0, 0, "", "", 0)
	case AMXOpDot:
		op := amxElems[elem].op
		a.amxIns(fmt.Sprintf("%s tmm%d, tmm%d, tmm%d", op, o.T, o.T1, o.T2), op, o.T, o.T1, o.T2, "", "", 0)
	}
}

// emit writes
//
//	func asmAMXU8S8(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int)
//
// (ldc in bytes; kg, tiles >= 1): configure the tiles; per block, C's tiles from C (load !=
// 0) or zero, kg k steps, store C; release the tiles.
func (k AMXKernel) emit(a *asm) {
	p := k.Program()
	a.line("// func %s(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int)", k.Symbol())
	a.line("TEXT ·%s(SB), NOSPLIT, $0-56", k.Symbol())
	a.ins("MOVQ", "a+8(FP)", "SI")
	a.ins("MOVQ", "c+24(FP)", "R8")
	a.ins("MOVQ", "ldc+32(FP)", "R9")
	a.ins("MOVQ", "load+40(FP)", "R10")
	a.ins("MOVQ", "tiles+48(FP)", "DX")
	a.ins("MOVQ", imm(amxColsB), "R11")
	a.ins("LEAQ", "amxcfg<>(SB)", "AX")
	a.amxIns("LDTILECFG [AX]", "LDTILECFG", 0, 0, 0, "AX", "", 0)
	a.label("block")
	a.ins("MOVQ", "kg+0(FP)", "CX")
	a.ins("MOVQ", "b+16(FP)", "DI")
	emitAMXSecondCBlock(a)
	a.ins("TESTQ", "R10", "R10")
	emitAMXCTiles(a, "JZ", p, func(o AMXOp) { k.emitOp(a, o) })
	for _, o := range p.Body {
		k.emitOp(a, o)
	}
	a.ins("ADDQ", imm(p.Step), "SI")
	a.ins("ADDQ", imm(p.Step), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	for _, o := range p.Store {
		k.emitOp(a, o)
	}
	// The next block: 32 rows of C further (R12 + 16 rows), the next A panel (SI already
	// points at it), the same B panel.
	emitAMXNextBlock(a)
}

// emitAMXCTiles writes, after the caller's test of the load flag, the jump (jz) past the C
// tile loads to the zeroing, both ending at the k loop's label.
func emitAMXCTiles(a *asm, jz string, p AMXProgram, emitOp func(AMXOp)) {
	a.ins(jz, "zero")
	for _, o := range p.LoadC {
		emitOp(o)
	}
	a.ins("JMP", "loop")
	a.label("zero")
	for _, o := range p.ZeroC {
		emitOp(o)
	}
	a.label("loop")
}

// emitAMXNextBlock writes the step to the next block of 32 C rows (R8 = R12 + 16 rows), the
// block loop's branch on DX and the tiles' release.
func emitAMXNextBlock(a *asm) {
	a.ins("MOVQ", "R9", "R8")
	a.ins("SHLQ", imm(log2(amxRows)), "R8")
	a.ins("ADDQ", "R12", "R8")
	a.ins("DECQ", "DX")
	a.ins("JNZ", "block")
	a.amxIns("TILERELEASE", "TILERELEASE", 0, 0, 0, "", "", 0)
	a.ins("RET")
	a.blank()
}

// emitAMXSecondCBlock writes R12 = R8 + 16 rows of C (ldc in R9): C's second row block.
func emitAMXSecondCBlock(a *asm) {
	a.ins("MOVQ", "R9", "R12")
	a.ins("SHLQ", imm(log2(amxRows)), "R12")
	a.ins("ADDQ", "R8", "R12") // C's second row block
}

// emitPeak writes the register-only loop of the kernel's arithmetic: n iterations of its four
// tile multiplies on zeroed tiles (kernels.MeasurePeak; 4 x 16 x 16 x 64 int8 or x 32 bf16
// multiply-adds an iteration).
func (k AMXKernel) emitPeak(a *asm) {
	op := amxElems[k.Elem].op
	a.line("// func peakAMX%s(n int)", amxElems[k.Elem].tag)
	a.line("TEXT ·peakAMX%s(SB), NOSPLIT, $0-8", amxElems[k.Elem].tag)
	a.ins("MOVQ", "n+0(FP)", "CX")
	a.ins("LEAQ", "amxcfg<>(SB)", "AX")
	a.amxIns("LDTILECFG [AX]", "LDTILECFG", 0, 0, 0, "AX", "", 0)
	for t := 0; t < 8; t++ {
		a.amxIns(fmt.Sprintf("TILEZERO tmm%d", t), "TILEZERO", t, 0, 0, "", "", 0)
	}
	a.label("loop")
	for _, o := range k.Program().Body {
		if o.Op == AMXOpDot {
			a.amxIns(fmt.Sprintf("%s tmm%d, tmm%d, tmm%d", op, o.T, o.T1, o.T2), op, o.T, o.T1, o.T2, "", "", 0)
		}
	}
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.amxIns("TILERELEASE", "TILERELEASE", 0, 0, 0, "", "", 0)
	a.ins("RET")
	a.blank()
}

// AMXCatalog is the AMX kernel set cpu/kernels ships.
func AMXCatalog() []AMXKernel { return []AMXKernel{{AMXU8S8}, {AMXS8S8}, {AMXBF16}} }

// generateAMX returns the AMX kernels' assembly and amd64 declarations (each dispatcher runs
// the assembly when cpu/kernels' useAMX is set, else the model on the kernel's program) and
// the portable file of the programs.
func generateAMX(pkg string, ks []AMXKernel) (asmSrc, amd64Go, progGo []byte) {
	var s asm
	s.buf.WriteString(header)
	s.line("//go:build amd64 && !noasm")
	s.blank()
	s.line(`#include "textflag.h"`)
	s.blank()
	s.line("// The tile configuration (LDTILECFG's 64 bytes): palette 1, tiles 0-7 of 16 rows x 64 bytes.")
	s.line("DATA amxcfg<>+0(SB)/8, $0x0000000000000001")
	s.line("DATA amxcfg<>+8(SB)/8, $0")
	s.line("DATA amxcfg<>+16(SB)/8, $0x0040004000400040")
	s.line("DATA amxcfg<>+24(SB)/8, $0x0040004000400040")
	s.line("DATA amxcfg<>+32(SB)/8, $0")
	s.line("DATA amxcfg<>+40(SB)/8, $0")
	s.line("DATA amxcfg<>+48(SB)/8, $0x1010101010101010")
	s.line("DATA amxcfg<>+56(SB)/8, $0")
	s.line("GLOBL amxcfg<>(SB), RODATA|NOPTR, $64")
	s.blank()
	var g, pg bytes.Buffer
	g.WriteString(header)
	fmt.Fprintf(&g, "//go:build amd64 && !noasm\n\npackage %s\n\nimport \"unsafe\"\n\n", pkg)
	pg.WriteString(header)
	fmt.Fprintf(&pg, "package %s\n\n", pkg)
	g.WriteString("func init() {\n\tpeaks[ISAAMX] = map[string]peak{\n")
	for _, k := range ks {
		macs := 4 * 16 * 16 * 64
		if k.Elem == AMXBF16 {
			macs /= 2
		}
		fmt.Fprintf(&g, "\t\t%q: {peakAMX%s, %d},\n", strings.ToLower(amxElems[k.Elem].tag), amxElems[k.Elem].tag, macs)
	}
	g.WriteString("\t}\n}\n\n")
	for _, k := range ks {
		k.emit(&s)
		k.emitPeak(&s)
		tag := amxElems[k.Elem].tag
		fmt.Fprintf(&g, "// peakAMX%s runs n iterations of the %s kernel's tile multiplies on zeroed tiles.\n//\n//go:noescape\nfunc peakAMX%s(n int)\n\n", tag, tag, tag)
		fmt.Fprintf(&g, "// kAMX%s runs %s when the AMX kernels are in use, else the Go model of the tile\n// instructions on the same program (amxProg%s).\n", tag, k.Symbol(), tag)
		fmt.Fprintf(&g, "func kAMX%s(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int) {\n", tag)
		fmt.Fprintf(&g, "\tif useAMX {\n\t\t%s(kg, a, b, c, ldc, load, tiles)\n\t\treturn\n\t}\n", k.Symbol())
		fmt.Fprintf(&g, "\tamxRun(&amxProg%s, kg, a, b, c, ldc, load, tiles)\n}\n\n", tag)
		fmt.Fprintf(&g, "//go:noescape\nfunc %s(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int)\n\n", k.Symbol())
		fmt.Fprintf(&pg, "// amxProg%s is %s's tile program (internal/x86gen AMXKernel.Program).\n", tag, k.Symbol())
		writeAMXProgram(&pg, "amxProg"+tag, tag, k.Program())
	}
	generateAMXConv(&s, &g, &pg, AMXConvCatalog())
	return s.buf.Bytes(), g.Bytes(), pg.Bytes()
}

// AMXConvKernel is a direct convolution tile kernel (TDPBUSD, TDPBSSD or TDPBF16PS): the
// AMXKernel's 32 x 32 block of C and its 2 x 2 tiles, but A is not packed. In NHWC, the input
// rows a stride-1 convolution multiplies are already tiles: 16 consecutive (virtual) pixels
// x 64 bytes of channels, with a row stride of lda = C bytes, so k step i loads its two A
// tiles straight from the (padded) input at a + offs[i] and a + offs[i] + 16*lda, one filter
// row's 64-byte run of taps and channels at a time (offs holds each step's pointer offset).
// B (the weights) is packed once per plan in the VNNI tiles of AMXKernel, its steps in offs'
// order. The next block of 32 pixels starts 32*lda elements further; B's panel is the same.
// lda and offs count elements (bytes for int8, bf16 values for bf16: the kernel doubles them).
type AMXConvKernel struct{ Elem AMXElem }

// Symbol is the assembly function's name.
func (k AMXConvKernel) Symbol() string { return "asmAMXConv" + amxElems[k.Elem].tag }

// Program returns the kernel's tile program: AMXKernel's, with the A tiles read through the
// offset table.
func (k AMXConvKernel) Program() AMXProgram {
	p := AMXKernel(k).Program()
	p.Body = append([]AMXOp(nil), p.Body...)
	p.Body[0] = AMXOp{Op: AMXOpLoad, T: 4, Ptr: AMXPtrAX}
	p.Body[1] = AMXOp{Op: AMXOpLoad, T: 5, Ptr: AMXPtrAX16}
	p.Indirect = true
	return p
}

// emitOp writes one program operation: A tiles at AX (rows 0-15) and R13 (rows 16-31) with
// stride lda in R11, B in DI with stride 64 in R10, C in R8 and R12 with stride ldc in R9.
func (k AMXConvKernel) emitOp(a *asm, o AMXOp) {
	base := []string{"", "DI", "R8", "R12", "AX", "R13"}[o.Ptr]
	stride := map[int]string{AMXPtrB: "R10", AMXPtrC: "R9", AMXPtrC16: "R9", AMXPtrAX: "R11", AMXPtrAX16: "R11"}[o.Ptr]
	if base == "" && (o.Op == AMXOpLoad || o.Op == AMXOpStore) {
		panic("x86gen: a direct convolution kernel has no packed A")
	}
	emitAMXOp(a, k.Elem, o, base, stride)
}

// emit writes
//
//	func asmAMXConvU8S8(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int)
//
// (ldc in bytes, lda and offs in elements; kg, tiles >= 1; offs has kg entries): configure the tiles; per block
// of 32 rows, C's tiles from C (load != 0) or zero, kg k steps, store C; release the tiles.
func (k AMXConvKernel) emit(a *asm) {
	p := k.Program()
	a.line("// func %s(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int)", k.Symbol())
	a.line("TEXT ·%s(SB), NOSPLIT, $0-72", k.Symbol())
	a.ins("MOVQ", "a+8(FP)", "SI")
	a.ins("MOVQ", "c+24(FP)", "R8")
	a.ins("MOVQ", "ldc+32(FP)", "R9")
	a.ins("MOVQ", "tiles+48(FP)", "DX")
	a.ins("MOVQ", "lda+56(FP)", "R11")
	if k.Elem == AMXBF16 {
		a.ins("SHLQ", imm(1), "R11") // bf16 values to bytes
	}
	a.ins("MOVQ", imm(amxColsB), "R10")
	a.ins("LEAQ", "amxcfg<>(SB)", "AX")
	a.amxIns("LDTILECFG [AX]", "LDTILECFG", 0, 0, 0, "AX", "", 0)
	a.label("block")
	a.ins("MOVQ", "kg+0(FP)", "CX")
	a.ins("MOVQ", "b+16(FP)", "DI")
	a.ins("MOVQ", "offs+64(FP)", "BX")
	emitAMXSecondCBlock(a)
	a.ins("CMPQ", "load+40(FP)", "$0")
	emitAMXCTiles(a, "JEQ", p, func(o AMXOp) { k.emitOp(a, o) })
	a.ins("MOVQ", "(BX)", "AX") // this step's A: a + offs[step]
	if k.Elem == AMXBF16 {
		a.ins("SHLQ", imm(1), "AX")
	}
	a.ins("ADDQ", "SI", "AX")
	a.ins("MOVQ", "R11", "R13") // and 16 rows further
	a.ins("SHLQ", imm(log2(amxRows)), "R13")
	a.ins("ADDQ", "AX", "R13")
	for _, o := range p.Body {
		k.emitOp(a, o)
	}
	a.ins("ADDQ", imm(8), "BX")
	a.ins("ADDQ", imm(p.Step), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	for _, o := range p.Store {
		k.emitOp(a, o)
	}
	// The next block: 32 rows of A and of C further, the same B panel and offsets.
	a.ins("MOVQ", "R11", "AX")
	a.ins("SHLQ", imm(log2(amxBlockMN)), "AX")
	a.ins("ADDQ", "AX", "SI")
	emitAMXNextBlock(a)
}

// AMXConvCatalog is the direct convolution tile kernel set cpu/kernels ships.
func AMXConvCatalog() []AMXConvKernel { return []AMXConvKernel{{AMXU8S8}, {AMXS8S8}, {AMXBF16}} }

// writeAMXProgram writes a program as a cpu/kernels table.
func writeAMXProgram(pg *bytes.Buffer, name, tag string, p AMXProgram) {
	fmt.Fprintf(pg, "var %s = amxProgram{elem: amx%s, step: %d,", name, strings.ToLower(tag), p.Step)
	if p.Indirect {
		pg.WriteString(" indirect: true,")
	}
	pg.WriteString("\n")
	for _, part := range []struct {
		name string
		ops  []AMXOp
	}{{"loadC", p.LoadC}, {"zeroC", p.ZeroC}, {"body", p.Body}, {"store", p.Store}} {
		fmt.Fprintf(pg, "\t%s: []amxOp{", part.name)
		for _, o := range part.ops {
			fmt.Fprintf(pg, "{%d, %d, %d, %d, %d, %d}, ", o.Op, o.T, o.T1, o.T2, o.Ptr, o.Off)
		}
		pg.WriteString("},\n")
	}
	pg.WriteString("}\n\n")
}

// generateAMXConv appends the direct convolution kernels to generateAMX's three files.
func generateAMXConv(s *asm, g, pg *bytes.Buffer, ks []AMXConvKernel) {
	for _, k := range ks {
		k.emit(s)
		tag := amxElems[k.Elem].tag
		fmt.Fprintf(g, "// kAMXConv%s runs %s when the AMX kernels are in use, else the Go model of the\n// tile instructions on the same program (amxProgConv%s).\n", tag, k.Symbol(), tag)
		fmt.Fprintf(g, "func kAMXConv%s(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int) {\n", tag)
		fmt.Fprintf(g, "\tif useAMX {\n\t\t%s(kg, a, b, c, ldc, load, tiles, lda, offs)\n\t\treturn\n\t}\n", k.Symbol())
		fmt.Fprintf(g, "\tamxRunConv(&amxProgConv%s, kg, a, b, c, ldc, load, tiles, lda, offs)\n}\n\n", tag)
		fmt.Fprintf(g, "//go:noescape\nfunc %s(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int)\n\n", k.Symbol())
		fmt.Fprintf(pg, "// amxProgConv%s is %s's tile program (internal/x86gen AMXConvKernel.Program).\n", tag, k.Symbol())
		writeAMXProgram(pg, "amxProgConv"+tag, tag, k.Program())
	}
}
