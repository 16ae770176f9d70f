package x86gen

import "fmt"

// Encodings of the Advanced SIMD instructions the arm64 kernels need and Go's arm64
// assembler does not spell (FMLA and FMUL by element, SMLAL/SMLAL2 by element, SDOT/UDOT,
// SXTL/UXTL, integer MUL/MLA/ADD/SUB, DUP), written as WORD directives with the
// instruction in a comment. The bit layouts are those of the Arm Architecture Reference
// Manual for A-profile (DDI 0487), section C7.2 (the Advanced SIMD instruction
// descriptions); TestNEONEncodings checks every one of them against an independent
// assembler (llvm-mc) when it is installed and against a fixed table otherwise.

// neonInst is one encoded instruction and its GNU/LLVM assembler text.
type neonInst struct {
	word uint32
	text string
}

func vreg3(d, n, m int) uint32 {
	for _, r := range []int{d, n, m} {
		if r < 0 || r > 31 {
			panic(fmt.Sprintf("x86gen: vector register %d", r))
		}
	}
	return uint32(m)<<16 | uint32(n)<<5 | uint32(d)
}

// elemS is the by-element form for 32-bit elements: index H:L (bits 11, 21), Rm in 5 bits.
func elemS(base uint32, d, n, m, idx int) uint32 {
	if idx < 0 || idx > 3 {
		panic(fmt.Sprintf("x86gen: 32-bit element index %d", idx))
	}
	return base | uint32(idx&1)<<21 | uint32(idx>>1)<<11 | vreg3(d, n, m)
}

// fmlaS: fmla vd.4s, vn.4s, vm.s[idx] (vd += vn * vm[idx], fused).
func fmlaS(d, n, m, idx int) neonInst {
	return neonInst{elemS(0x4f801000, d, n, m, idx), fmt.Sprintf("fmla v%d.4s, v%d.4s, v%d.s[%d]", d, n, m, idx)}
}

// fmulS: fmul vd.4s, vn.4s, vm.s[idx].
func fmulS(d, n, m, idx int) neonInst {
	return neonInst{elemS(0x4f809000, d, n, m, idx), fmt.Sprintf("fmul v%d.4s, v%d.4s, v%d.s[%d]", d, n, m, idx)}
}

// elemD is the by-element form for 64-bit elements: index H (bit 11), Rm in 5 bits.
func elemD(base uint32, d, n, m, idx int) uint32 {
	if idx < 0 || idx > 1 {
		panic(fmt.Sprintf("x86gen: 64-bit element index %d", idx))
	}
	return base | uint32(idx)<<11 | vreg3(d, n, m)
}

// fmlaD: fmla vd.2d, vn.2d, vm.d[idx].
func fmlaD(d, n, m, idx int) neonInst {
	return neonInst{elemD(0x4fc01000, d, n, m, idx), fmt.Sprintf("fmla v%d.2d, v%d.2d, v%d.d[%d]", d, n, m, idx)}
}

// fmulD: fmul vd.2d, vn.2d, vm.d[idx].
func fmulD(d, n, m, idx int) neonInst {
	return neonInst{elemD(0x4fc09000, d, n, m, idx), fmt.Sprintf("fmul v%d.2d, v%d.2d, v%d.d[%d]", d, n, m, idx)}
}

// smlalH: smlal vd.4s, vn.4h, vm.h[idx] (hi: smlal2 with vn.8h, the upper four lanes):
// vd += widened products. For 16-bit elements the index is H:L:M, so vm is one of v0..v15.
func smlalH(d, n, m, idx int, hi bool) neonInst {
	if m > 15 || idx < 0 || idx > 7 {
		panic(fmt.Sprintf("x86gen: smlal by element v%d.h[%d]", m, idx))
	}
	w := uint32(0x0f402000) | uint32(idx&1)<<20 | uint32(idx>>1&1)<<21 | uint32(idx>>2)<<11 | vreg3(d, n, m)
	if hi {
		return neonInst{w | 1<<30, fmt.Sprintf("smlal2 v%d.4s, v%d.8h, v%d.h[%d]", d, n, m, idx)}
	}
	return neonInst{w, fmt.Sprintf("smlal v%d.4s, v%d.4h, v%d.h[%d]", d, n, m, idx)}
}

// dotElem: sdot (unsigned: udot) vd.4s, vn.16b, vm.4b[idx]: each 32-bit lane of vd adds
// the dot product of its four bytes of vn with the four bytes idx of vm (FEAT_DotProd).
func dotElem(unsigned bool, d, n, m, idx int) neonInst {
	base, op := uint32(0x4f80e000), "sdot"
	if unsigned {
		base, op = 0x6f80e000, "udot"
	}
	return neonInst{elemS(base, d, n, m, idx), fmt.Sprintf("%s v%d.4s, v%d.16b, v%d.4b[%d]", op, d, n, m, idx)}
}

// dotVec: sdot (udot) vd.4s, vn.16b, vm.16b.
func dotVec(unsigned bool, d, n, m int) neonInst {
	base, op := uint32(0x4e809400), "sdot"
	if unsigned {
		base, op = 0x6e809400, "udot"
	}
	return neonInst{base | vreg3(d, n, m), fmt.Sprintf("%s v%d.4s, v%d.16b, v%d.16b", op, d, n, m)}
}

// xtl: sxtl (unsigned: uxtl) vd.8h, vn.8b, or with hi sxtl2/uxtl2 vd.8h, vn.16b: bytes
// widened to 16 bits (SSHLL/USHLL by 0).
func xtl(unsigned, hi bool, d, n int) neonInst {
	w, op, src := uint32(0x0f08a400), "sxtl", "8b"
	if unsigned {
		w, op = w|1<<29, "uxtl"
	}
	if hi {
		w, op, src = w|1<<30, op+"2", "16b"
	}
	return neonInst{w | vreg3(d, n, 0), fmt.Sprintf("%s v%d.8h, v%d.%s", op, d, n, src)}
}

// vec4S is a three-register int32 vector operation: add, sub, mul, mla (vd += vn*vm).
func vec4S(op string, d, n, m int) neonInst {
	base := map[string]uint32{"add": 0x4ea08400, "sub": 0x6ea08400, "mul": 0x4ea09c00, "mla": 0x4ea09400}[op]
	if base == 0 {
		panic("x86gen: no int32 vector op " + op)
	}
	return neonInst{base | vreg3(d, n, m), fmt.Sprintf("%s v%d.4s, v%d.4s, v%d.4s", op, d, n, m)}
}

// dupW: dup vd.4s, wn (a general register into every 32-bit lane).
func dupW(d, n int) neonInst {
	return neonInst{0x4e040c00 | vreg3(d, n, 0), fmt.Sprintf("dup v%d.4s, w%d", d, n)}
}

// word emits an encoded instruction.
func (a *asm) word(i neonInst) {
	fmt.Fprintf(&a.buf, "\tWORD $0x%08x // %s\n", i.word, i.text)
}
