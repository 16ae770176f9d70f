package x86gen

import (
	"bytes"
	"fmt"
)

// BF16Kernel is a packed AVX-512 BF16 micro-kernel: the MR x 32 float32 tile
// C = alpha*A*B + beta*C from bf16 operands, with VDPBF16PS (Intel SDM vol. 2C, "VDPBF16PS":
// each fp32 lane of the destination adds the two products of a pair of bf16 values of its
// two sources, k and k+1). That is a two-column 2D-SIMD multiply in the sense of seed 000,
// like VPDPWSSD for int16, so the layouts are int16's: packed A is [kg][MR][2] (a row's k pair
// is one dword, broadcast with VPBROADCASTD), packed B [kg][32][2] (two zmm per k pair).
// The accumulators are 2*MR zmm registers; two hold B; the rest rotate as broadcast
// registers. Go's assembler has no AVX512_BF16 mnemonics, so VDPBF16PS is written as the
// bytes of its EVEX encoding (evexDPBF16PS).
type BF16Kernel struct {
	MR     int
	Unroll int // k pairs per loop iteration: 1, 2 or 4
}

// bf16NR is the column count of the bf16 kernels: two zmm of 16 fp32 lanes.
const bf16NR = 32

// Symbol is the assembly function of the kernel.
func (k BF16Kernel) Symbol() string { return fmt.Sprintf("asmBF16P%dx%dZB", k.MR, bf16NR) }

// Validate checks the register budget and parameters.
func (k BF16Kernel) Validate() error {
	if k.MR < 1 || 2*k.MR+2+1 > 32 {
		return fmt.Errorf("x86gen: bf16 kernel MR=%d does not fit 32 zmm registers", k.MR)
	}
	if k.Unroll != 1 && k.Unroll != 2 && k.Unroll != 4 {
		return fmt.Errorf("x86gen: bf16 kernel unroll %d", k.Unroll)
	}
	return nil
}

// BF16Catalog is the bf16 kernel set cpu/kernels ships: 6x32 (the AVX-512 VNNI int16
// kernel's shape: 12 accumulators cover VDPBF16PS's latency at one or two per cycle).
func BF16Catalog() []BF16Kernel { return []BF16Kernel{{MR: 6, Unroll: 4}} }

// evexDPBF16PS encodes VDPBF16PS zmm dst, zmm src1, zmm src2 (Intel order; no masking, no
// broadcast): EVEX.512.F3.0F38.W0 52 /r (SDM vol. 2C; the EVEX prefix, vol. 2A section 2.7).
func evexDPBF16PS(dst, src1, src2 int) []byte {
	if dst < 0 || dst > 31 || src1 < 0 || src1 > 31 || src2 < 0 || src2 > 31 {
		panic(fmt.Sprintf("x86gen: no EVEX encoding of VDPBF16PS Z%d, Z%d, Z%d", dst, src1, src2))
	}
	inv := func(v, bit int) byte { return byte(^(v >> bit) & 1) }
	// P0: R X B R' 0 mmm (R, R': dst bits 3, 4; B, X: the r/m register's bits 3, 4; inverted), map 0F38.
	p0 := inv(dst, 3)<<7 | inv(src2, 4)<<6 | inv(src2, 3)<<5 | inv(dst, 4)<<4 | 0x02
	// P1: W0, vvvv (src1 bits 0-3 inverted), 1, pp = 10 (F3).
	p1 := byte(^src1&15)<<3 | 1<<2 | 0x02
	// P2: z=0, L'L = 10 (512 bits), b=0, V' (src1 bit 4 inverted), aaa = 000.
	p2 := byte(0x40) | inv(src1, 4)<<3
	modrm := 0xC0 | byte(dst&7)<<3 | byte(src2&7)
	return []byte{0x62, p0, p1, p2, 0x52, modrm}
}

// dpbf16 emits acc += the pair products of src1 and src2 as VDPBF16PS bytes.
func (a *asm) dpbf16(acc, src1, src2 int) {
	for _, b := range evexDPBF16PS(acc, src1, src2) {
		a.ins("BYTE", fmt.Sprintf("$0x%02x", b))
	}
	a.comment("VDPBF16PS Z%d, Z%d, Z%d", acc, src1, src2)
}

// step emits one k pair: two B loads at boff(BX), MR broadcasts of A at aoff(AX), 2*MR
// VDPBF16PS. bc rotates through the broadcast registers.
func (k BF16Kernel) step(a *asm, aoff, boff int, bc *int) {
	nb := 32 - 2*k.MR - 2
	b0, b1 := 2*k.MR, 2*k.MR+1
	a.ins("VMOVDQU32", mem(boff, "BX"), fmt.Sprintf("Z%d", b0))
	a.ins("VMOVDQU32", mem(boff+64, "BX"), fmt.Sprintf("Z%d", b1))
	for i := 0; i < k.MR; i++ {
		r := 2*k.MR + 2 + *bc%nb
		*bc++
		a.ins("VPBROADCASTD", mem(aoff+4*i, "AX"), fmt.Sprintf("Z%d", r))
		a.dpbf16(2*i, b0, r)
		a.dpbf16(2*i+1, b1, r)
	}
}

// emit writes the kernel:
//
//	func asmBF16P6x32ZB(kg int, a *uint16, b *uint16, c *float32, ldc int, alpha, beta float32, tiles int)
//
// tiles MR x 32 tiles stacked down C, each from the next packed A micro-panel (MR*kg*2
// values) and the shared packed B micro-panel (32*kg*2 values). kg >= 1, tiles >= 1.
func (k BF16Kernel) emit(a *asm) {
	sym := k.Symbol()
	aStep := 4 * k.MR
	const bStep = 4 * bf16NR
	a.line("// func %s(kg int, a *uint16, b *uint16, c *float32, ldc int, alpha, beta float32, tiles int)", sym)
	a.line("TEXT ·%s(SB), NOSPLIT, $0-56", sym)
	a.ins("MOVQ", "a+8(FP)", "AX")
	a.ins("MOVQ", "c+24(FP)", "R13")
	a.ins("MOVQ", "ldc+32(FP)", "DX")
	a.ins("SHLQ", "$2", "DX")
	a.ins("MOVQ", "tiles+48(FP)", "R12")
	a.label("tileloop")
	a.ins("MOVQ", "kg+0(FP)", "CX")
	a.ins("MOVQ", "b+16(FP)", "BX")
	for i := 0; i < 2*k.MR; i++ {
		a.ins("VPXORQ", fmt.Sprintf("Z%d", i), fmt.Sprintf("Z%d", i), fmt.Sprintf("Z%d", i))
	}
	bc := 0
	if k.Unroll > 1 {
		a.ins("MOVQ", "CX", "R11")
		a.ins("SHRQ", imm(log2(k.Unroll)), "R11")
		a.ins("JZ", "tail")
		a.label("loop")
		for s := 0; s < k.Unroll; s++ {
			k.step(a, s*aStep, s*bStep, &bc)
		}
		a.ins("ADDQ", imm(k.Unroll*aStep), "AX")
		a.ins("ADDQ", imm(k.Unroll*bStep), "BX")
		a.ins("DECQ", "R11")
		a.ins("JNZ", "loop")
		a.label("tail")
		a.ins("ANDQ", imm(k.Unroll-1), "CX")
		a.ins("JZ", "epilogue")
	}
	a.label("tailloop")
	k.step(a, 0, 0, &bc)
	a.ins("ADDQ", imm(aStep), "AX")
	a.ins("ADDQ", imm(bStep), "BX")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "tailloop")
	a.label("epilogue")
	// C = alpha*acc + beta*C; C is not read when beta is +-0 (BLAS semantics).
	al, be := 2*k.MR, 2*k.MR+1
	a.ins("VBROADCASTSS", "alpha+40(FP)", fmt.Sprintf("Z%d", al))
	a.ins("VBROADCASTSS", "beta+44(FP)", fmt.Sprintf("Z%d", be))
	a.ins("MOVL", "beta+44(FP)", "R8")
	a.ins("ANDL", "$0x7fffffff", "R8")
	a.ins("MOVQ", "R13", "R10")
	for i := 0; i < 2*k.MR; i++ {
		a.ins("VMULPS", fmt.Sprintf("Z%d", al), fmt.Sprintf("Z%d", i), fmt.Sprintf("Z%d", i))
	}
	a.ins("TESTL", "R8", "R8")
	a.ins("JZ", "store")
	for i := 0; i < k.MR; i++ {
		for h := 0; h < 2; h++ {
			a.ins("VFMADD231PS", mem(64*h, "R10"), fmt.Sprintf("Z%d", be), fmt.Sprintf("Z%d", 2*i+h))
		}
		a.ins("ADDQ", "DX", "R10")
	}
	a.ins("MOVQ", "R13", "R10")
	a.label("store")
	for i := 0; i < k.MR; i++ {
		for h := 0; h < 2; h++ {
			a.ins("VMOVUPS", fmt.Sprintf("Z%d", 2*i+h), mem(64*h, "R10"))
		}
		a.ins("ADDQ", "DX", "R10")
	}
	a.ins("MOVQ", "R10", "R13") // the next tile's C rows follow this tile's
	a.ins("DECQ", "R12")
	a.ins("JNZ", "tileloop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// peakSymbol is the register-only loop of the kernel's arithmetic.
func (k BF16Kernel) peakSymbol() string { return fmt.Sprintf("peakBF16P%dx%dZB", k.MR, bf16NR) }

func (k BF16Kernel) emitPeak(a *asm) {
	a.line("// func %s(n int)", k.peakSymbol())
	a.line("TEXT ·%s(SB), NOSPLIT, $0-8", k.peakSymbol())
	a.ins("MOVQ", "n+0(FP)", "CX")
	for i := 0; i < 32; i++ {
		a.ins("VPXORQ", fmt.Sprintf("Z%d", i), fmt.Sprintf("Z%d", i), fmt.Sprintf("Z%d", i))
	}
	a.label("loop")
	for i := 0; i < k.MR; i++ {
		r := 2*k.MR + 2 + i%(32-2*k.MR-2)
		a.dpbf16(2*i, 2*k.MR, r)
		a.dpbf16(2*i+1, 2*k.MR+1, r)
	}
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// generateBF16 returns the bf16 kernels' assembly and amd64 Go declarations: the dispatchers
// run the assembly when cpu/kernels' useAVX512BF16 is set, else goBF16P (the Go model of
// VDPBF16PS in cpu/kernels), and register the peak loops.
func generateBF16(pkg string, ks []BF16Kernel) (asmSrc, goSrc []byte, err error) {
	var s asm
	s.buf.WriteString(header)
	s.line("//go:build amd64 && !noasm")
	s.blank()
	s.line(`#include "textflag.h"`)
	s.blank()
	var g bytes.Buffer
	g.WriteString(header)
	fmt.Fprintf(&g, "//go:build amd64 && !noasm\n\npackage %s\n\n", pkg)
	g.WriteString("func init() {\n\tpeaks[ISAAVX512BF16] = map[string]peak{\n")
	for _, k := range ks {
		if err := k.Validate(); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(&g, "\t\t%q: {%s, %d},\n", "bf16", k.peakSymbol(), 2*k.MR*bf16NR)
	}
	g.WriteString("\t}\n}\n\n")
	for _, k := range ks {
		k.emit(&s)
		k.emitPeak(&s)
		name := fmt.Sprintf("kBF16P%dx%dZB", k.MR, bf16NR)
		fmt.Fprintf(&g, "// %s runs %s when the CPU has AVX512_BF16, else its Go fallback.\n", name, k.Symbol())
		fmt.Fprintf(&g, "func %s(kg int, a *uint16, b *uint16, c *float32, ldc int, alpha, beta float32, tiles int) {\n", name)
		fmt.Fprintf(&g, "\tif useAVX512BF16 {\n\t\t%s(kg, a, b, c, ldc, alpha, beta, tiles)\n\t\treturn\n\t}\n", k.Symbol())
		fmt.Fprintf(&g, "\tgoBF16P(%d, %d, kg, a, b, c, ldc, alpha, beta, tiles)\n}\n\n", k.MR, bf16NR)
		fmt.Fprintf(&g, "//go:noescape\nfunc %s(kg int, a *uint16, b *uint16, c *float32, ldc int, alpha, beta float32, tiles int)\n\n", k.Symbol())
		fmt.Fprintf(&g, "// %s runs n iterations of the bf16 kernel's arithmetic on registers.\n//\n//go:noescape\nfunc %s(n int)\n\n", k.peakSymbol(), k.peakSymbol())
	}
	return s.buf.Bytes(), g.Bytes(), nil
}
