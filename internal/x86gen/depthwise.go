package x86gen

import "fmt"

// Depthwise kernels: a convolution channel by channel, vectorized across the channels
// instead of one tiny GEMM per group (a depth-wise layer has one channel per group, where a
// 16-channel GEMM panel would be 15/16 padding). The kernel computes MR output pixels x NR
// channels (one or two vectors) at a time:
//
//	out[x][c] = sum over taps t of in[x*xstep + io_t + c] * w[wo_t + c]
//
// for x < MR*nb (nb blocks of MR pixels, the next block MR*xstep input and MR*ostep output
// elements on) and c < NR*ncb (ncb blocks of NR channels, NR elements apart in the input,
// the weights and the output). The taps are a table of ntaps pairs (io_t, wo_t): element
// offsets of the tap's input from the pixel's and of its weights. A convolution's taps are
// its filter positions (r, s) inside the input; grouped convolutions run on an expanded
// input (cpu/conv). Weights are one 32-bit value per channel and tap: float32 for F32, the
// int16 or int8 weight sign-extended to int32 for I16 and U8S8; the integer inputs are
// zero-extended to 32-bit lanes (VPMOVZXWD, VPMOVZXBD), so one lane's product is
// in*w + 0*(the weight's high part): VPMADDWD then VPADDD on AVX2, one VPDPWSSD or VPDPBUSD
// on the VNNI sets. The results are stored (no alpha, beta).
//
// Per tap the NR channels' weights are loaded once for the MR pixels; each pixel's input
// vector is a memory operand of the FMA (or the zero-extending load of the integer kernels).
// MR is 1, 2 or 4: the pixels' inputs are P, P+X, P+2X, P+3X for one tap pointer P and the
// pixel step X, all addressing modes of two registers.

// dwMaxMR is the largest depthwise MR the addressing above supports.
const dwMaxMR = 4

func (k Kernel) validateDepthwise() error {
	e := elems[k.Elem]
	if k.Elem != F32 && k.Elem != I16 && k.Elem != U8S8 {
		return fmt.Errorf("x86gen: %s: depthwise kernels are float32, int16 or uint8 x int8", e.tag)
	}
	if k.MR != 1 && k.MR != 2 && k.MR != 4 {
		return fmt.Errorf("x86gen: %s: depthwise MR=%d is not 1, 2 or 4", e.tag, k.MR)
	}
	if n := k.dwVecs(); k.NR%k.dwLanes() != 0 || n < 1 || n > 2 {
		return fmt.Errorf("x86gen: %s: depthwise NR=%d is not one or two vectors of %d lanes", e.tag, k.NR, k.dwLanes())
	}
	if k.Strided || k.Window || k.Indirect || k.PrefetchA != 0 || k.PrefetchB != 0 {
		return fmt.Errorf("x86gen: %s: a depthwise kernel has no other form or prefetch", e.tag)
	}
	if k.VNNI && k.Elem == F32 {
		return fmt.Errorf("x86gen: %s: VNNI kernels are integer kernels", e.tag)
	}
	if k.AVX512 && k.Elem != F32 && !k.VNNI {
		return fmt.Errorf("x86gen: %s: AVX-512 integer kernels are VNNI kernels", e.tag)
	}
	return nil
}

// dwLanes is the 32-bit lanes of one vector; dwVecs the vectors of NR channels.
func (k Kernel) dwLanes() int { return k.vecBytes() / 4 }
func (k Kernel) dwVecs() int  { return k.NR / k.dwLanes() }

// dwWeight is the Go type of the weights: 32 bits per channel and tap.
func (k Kernel) dwWeight() string {
	if k.Elem == F32 {
		return "float32"
	}
	return "int32"
}

func (k Kernel) depthwiseArgs() (args []arg, frame int) {
	e := elems[k.Elem]
	list := []arg{
		{name: "nb", typ: "int", size: 8}, {name: "ncb", typ: "int", size: 8},
		{name: "in", typ: "*" + e.goA, size: 8}, {name: "taps", typ: "*int", size: 8}, {name: "ntaps", typ: "int", size: 8},
		{name: "w", typ: "*" + k.dwWeight(), size: 8}, {name: "out", typ: "*" + e.goC, size: 8},
		{name: "xstep", typ: "int", size: 8}, {name: "ostep", typ: "int", size: 8},
	}
	for i := range list {
		list[i].off = 8 * i
	}
	return list, 8 * len(list)
}

// dwPixel is the memory operand of pixel x (0..3) from base (the pixel step in one, three
// times it in three), at byte displacement disp.
func dwPixel(disp int, base, one, three string, x int) string {
	switch x {
	case 0:
		return mem(disp, base)
	case 1:
		return memIdx(disp, base, one, 1)
	case 2:
		return memIdx(disp, base, one, 2)
	}
	return memIdx(disp, base, three, 1)
}

// emitDepthwise writes the kernel. Registers: AX the pixel block's input, DI its output,
// R8/R9 the input pixel step and three times it (bytes), R12/R13 the same for the output,
// R14 channel blocks left, SI/BX/R11 the channel block's input, weights and output, DX the
// tap table, CX taps left, R10 the tap's weights offset, then its input pointer.
func (k Kernel) emitDepthwise(a *asm) {
	e := elems[k.Elem]
	_, frame := k.args()
	sym := k.Symbol()
	nv := k.dwVecs()
	lanes := k.dwLanes()
	inVec := lanes * e.aElem // input bytes of one vector of channels
	var acc [][]string
	n := 0
	for x := 0; x < k.MR; x++ {
		var row []string
		for v := 0; v < nv; v++ {
			row = append(row, k.vreg(n))
			n++
		}
		acc = append(acc, row)
	}
	var wr []string
	for v := 0; v < nv; v++ {
		wr = append(wr, k.vreg(n))
		n++
	}
	tmp := k.vreg(n)

	a.line("// func %s(%s)", sym, k.goSignature())
	a.line("TEXT ·%s(SB), NOSPLIT, $0-%d", sym, frame)
	a.ins("MOVQ", k.argOff("in"), "AX")
	a.ins("MOVQ", k.argOff("out"), "DI")
	a.ins("MOVQ", k.argOff("xstep"), "R8")
	if e.aElem > 1 {
		a.ins("SHLQ", imm(log2(e.aElem)), "R8")
	}
	a.ins("LEAQ", memIdx(0, "R8", "R8", 2), "R9")
	a.ins("MOVQ", k.argOff("ostep"), "R12")
	a.ins("SHLQ", imm(2), "R12")
	a.ins("LEAQ", memIdx(0, "R12", "R12", 2), "R13")
	a.label("pixloop")
	a.ins("MOVQ", k.argOff("ncb"), "R14")
	a.ins("MOVQ", "AX", "SI")
	a.ins("MOVQ", k.argOff("w"), "BX")
	a.ins("MOVQ", "DI", "R11")
	a.label("cbloop")
	for _, row := range acc {
		for _, r := range row {
			if k.AVX512 {
				a.ins("VPXORQ", r, r, r)
			} else {
				a.ins("VPXOR", r, r, r)
			}
		}
	}
	a.ins("MOVQ", k.argOff("taps"), "DX")
	a.ins("MOVQ", k.argOff("ntaps"), "CX")
	a.ins("TESTQ", "CX", "CX")
	a.ins("JZ", "store")
	a.label("taploop")
	a.ins("MOVQ", mem(8, "DX"), "R10") // the tap's weight offset, elements of 4 bytes
	a.ins("SHLQ", imm(2), "R10")
	for v, r := range wr {
		mov := "VMOVDQU"
		switch {
		case k.Elem == F32:
			mov = "VMOVUPS"
		case k.AVX512:
			mov = "VMOVDQU32"
		}
		a.ins(mov, memIdx(k.vecBytes()*v, "BX", "R10", 1), r)
	}
	a.ins("MOVQ", mem(0, "DX"), "R10") // the tap's input offset
	if e.aElem > 1 {
		a.ins("SHLQ", imm(log2(e.aElem)), "R10")
	}
	a.ins("ADDQ", "SI", "R10")
	for x := 0; x < k.MR; x++ {
		for v := 0; v < nv; v++ {
			m := dwPixel(inVec*v, "R10", "R8", "R9", x)
			switch k.Elem {
			case F32:
				a.ins("VFMADD231PS", m, wr[v], acc[x][v])
				continue
			case I16:
				a.ins("VPMOVZXWD", m, tmp)
			default:
				a.ins("VPMOVZXBD", m, tmp)
			}
			switch {
			case k.VNNI && k.AVX512 && k.Elem == I16:
				a.ins("VPDPWSSD", wr[v], tmp, acc[x][v])
			case k.VNNI && k.AVX512:
				a.ins("VPDPBUSD", wr[v], tmp, acc[x][v]) // tmp (unsigned bytes) is the first source
			case k.VNNI && k.Elem == I16:
				a.vexVNNI("VPDPWSSD", acc[x][v], tmp, wr[v])
			case k.VNNI:
				a.vexVNNI("VPDPBUSD", acc[x][v], tmp, wr[v])
			default:
				a.ins("VPMADDWD", wr[v], tmp, tmp)
				a.ins("VPADDD", tmp, acc[x][v], acc[x][v])
			}
		}
	}
	a.ins("ADDQ", imm(16), "DX")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "taploop")
	a.label("store")
	for x := 0; x < k.MR; x++ {
		for v := 0; v < nv; v++ {
			st := "VMOVUPS"
			switch {
			case k.Elem == F32:
			case k.AVX512:
				st = "VMOVDQU32"
			default:
				st = "VMOVDQU"
			}
			a.ins(st, acc[x][v], dwPixel(k.vecBytes()*v, "R11", "R12", "R13", x))
		}
	}
	a.ins("ADDQ", imm(nv*inVec), "SI")
	a.ins("ADDQ", imm(nv*k.vecBytes()), "BX")
	a.ins("ADDQ", imm(nv*k.vecBytes()), "R11")
	a.ins("DECQ", "R14")
	a.ins("JNZ", "cbloop")
	switch k.MR {
	case 1:
		a.ins("ADDQ", "R8", "AX")
		a.ins("ADDQ", "R12", "DI")
	default:
		a.ins("LEAQ", memIdx(0, "AX", "R8", k.MR), "AX")
		a.ins("LEAQ", memIdx(0, "DI", "R12", k.MR), "DI")
	}
	a.ins("DECQ", k.argOff("nb"))
	a.ins("JNZ", "pixloop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}
