package x86gen

// Element-wise kernels of the nn layers (cpu/kernels' ReLUF32, ReLUGradF32, MaxPool2F32): AVX2
// on ymm registers, bit for bit the plain loops' results (the layers are memory-bound, so
// wider vectors gain nothing).

// emitReLU writes asmReLUF32(n8 int, x, y *float32): y = x with negative values (and -0)
// cleared, 8 floats per step: the sign bit spread over the word (VPSRAD 31) masks the value
// out (VPANDN), the scalar relu's bit trick.
func emitReLU(a *asm) {
	a.line("// func asmReLUF32(n8 int, x, y *float32)")
	a.line("TEXT ·asmReLUF32(SB), NOSPLIT, $0-24")
	a.ins("MOVQ", "n8+0(FP)", "CX")
	a.ins("MOVQ", "x+8(FP)", "SI")
	a.ins("MOVQ", "y+16(FP)", "DI")
	a.label("loop")
	a.ins("VMOVDQU", mem(0, "SI"), "Y0")
	a.ins("VPSRAD", imm(31), "Y0", "Y1")
	a.ins("VPANDN", "Y0", "Y1", "Y1") // ~sign & x
	a.ins("VMOVDQU", "Y1", mem(0, "DI"))
	a.ins("ADDQ", imm(32), "SI")
	a.ins("ADDQ", imm(32), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitReLUGrad writes asmReLUGradF32(n8 int, g, y, gx *float32): gx = g where y's bits are
// nonzero (a ReLU output is positive), else 0: VPCMPEQD against zero, then VPANDN.
func emitReLUGrad(a *asm) {
	a.line("// func asmReLUGradF32(n8 int, gy, y, gx *float32)")
	a.line("TEXT ·asmReLUGradF32(SB), NOSPLIT, $0-32")
	a.ins("MOVQ", "n8+0(FP)", "CX")
	a.ins("MOVQ", "gy+8(FP)", "SI")
	a.ins("MOVQ", "y+16(FP)", "DX")
	a.ins("MOVQ", "gx+24(FP)", "DI")
	a.ins("VPXOR", "Y15", "Y15", "Y15")
	a.label("loop")
	a.ins("VPCMPEQD", mem(0, "DX"), "Y15", "Y1") // all ones where y == 0
	a.ins("VPANDN", mem(0, "SI"), "Y1", "Y1")    // ~(y == 0) & g
	a.ins("VMOVDQU", "Y1", mem(0, "DI"))
	a.ins("ADDQ", imm(32), "SI")
	a.ins("ADDQ", imm(32), "DX")
	a.ins("ADDQ", imm(32), "DI")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitMaxPool2 writes asmMaxPool2F32(px, c8 int, x *float32, xrow int, y *float32, arg
// *int32, base int): for px output pixels of one output row (2x2 windows, stride 2), c8
// vectors of 8 channels each, the maximum of the window's four input pixels (x, x+c, x+xrow,
// x+xrow+c, in that order, xrow and c in elements: c = 8*c8) and the input index of the first
// maximum (base is x's index in the input tensor): VCMPPS greater-than (ordered: a NaN is never
// greater, as the scalar comparison), then VBLENDVPS of the values and of the indices.
func emitMaxPool2(a *asm) {
	a.line("// func asmMaxPool2F32(px, c8 int, x *float32, xrow int, y *float32, arg *int32, base int)")
	a.line("TEXT ·asmMaxPool2F32(SB), NOSPLIT, $0-56")
	a.ins("MOVQ", "x+16(FP)", "SI")
	a.ins("MOVQ", "xrow+24(FP)", "R8")
	a.ins("MOVQ", "y+32(FP)", "DI")
	a.ins("MOVQ", "arg+40(FP)", "R9")
	a.ins("MOVQ", "c8+8(FP)", "R10")
	a.ins("SHLQ", imm(3), "R10") // c: channels
	// Y14 = 0..7 (the lane's channel), Y13 = 8 (the next vector's), Y12 = c (the next
	// window column), Y11 = xrow (the next window row), as int32 lanes.
	a.ins("MOVL", imm(0x03020100), "AX")
	a.ins("VMOVD", "AX", "X14")
	a.ins("VPMOVZXBD", "X14", "Y14")
	a.ins("MOVL", imm(0x07060504), "AX")
	a.ins("VMOVD", "AX", "X0")
	a.ins("VPMOVZXBD", "X0", "Y0")
	a.ins("VPERM2I128", imm(0x20), "Y0", "Y14", "Y14") // low: 0..3, high: 4..7
	a.ins("MOVL", imm(8), "AX")
	a.ins("VMOVD", "AX", "X13")
	a.ins("VPBROADCASTD", "X13", "Y13")
	a.ins("VMOVD", "R10", "X12")
	a.ins("VPBROADCASTD", "X12", "Y12")
	a.ins("VMOVD", "R8", "X11")
	a.ins("VPBROADCASTD", "X11", "Y11")
	a.ins("SHLQ", imm(2), "R8") // xrow in bytes
	a.ins("MOVQ", "base+48(FP)", "AX")
	a.label("pixel")
	a.ins("VMOVD", "AX", "X10")
	a.ins("VPBROADCASTD", "X10", "Y10")
	a.ins("VPADDD", "Y14", "Y10", "Y10") // the first window pixel's indices of vector 0
	a.ins("MOVQ", "c8+8(FP)", "CX")
	a.ins("MOVQ", "SI", "DX")
	a.label("vec")
	a.ins("VMOVUPS", mem(0, "DX"), "Y0") // (0, 0)
	a.ins("VMOVDQA", "Y10", "Y1")
	a.ins("VPADDD", "Y12", "Y10", "Y5") // (0, 1)'s indices
	a.ins("VMOVUPS", memIdx(0, "DX", "R10", 4), "Y2")
	a.ins("VCMPPS", imm(0x1e), "Y0", "Y2", "Y3") // Y3 = Y2 > Y0 (GT_OQ)
	a.ins("VBLENDVPS", "Y3", "Y2", "Y0", "Y0")
	a.ins("VBLENDVPS", "Y3", "Y5", "Y1", "Y1")
	a.ins("VPADDD", "Y11", "Y10", "Y5") // (1, 0)
	a.ins("VMOVUPS", memIdx(0, "DX", "R8", 1), "Y2")
	a.ins("VCMPPS", imm(0x1e), "Y0", "Y2", "Y3")
	a.ins("VBLENDVPS", "Y3", "Y2", "Y0", "Y0")
	a.ins("VBLENDVPS", "Y3", "Y5", "Y1", "Y1")
	a.ins("VPADDD", "Y12", "Y5", "Y5") // (1, 1)
	a.ins("LEAQ", memIdx(0, "DX", "R8", 1), "BX")
	a.ins("VMOVUPS", memIdx(0, "BX", "R10", 4), "Y2")
	a.ins("VCMPPS", imm(0x1e), "Y0", "Y2", "Y3")
	a.ins("VBLENDVPS", "Y3", "Y2", "Y0", "Y0")
	a.ins("VBLENDVPS", "Y3", "Y5", "Y1", "Y1")
	a.ins("VMOVUPS", "Y0", mem(0, "DI"))
	a.ins("VMOVDQU", "Y1", mem(0, "R9"))
	a.ins("VPADDD", "Y13", "Y10", "Y10")
	a.ins("ADDQ", imm(32), "DX")
	a.ins("ADDQ", imm(32), "DI")
	a.ins("ADDQ", imm(32), "R9")
	a.ins("DECQ", "CX")
	a.ins("JNZ", "vec")
	// The next output pixel: two input pixels on.
	a.ins("LEAQ", memIdx(0, "SI", "R10", 8), "SI")
	a.ins("LEAQ", memIdx(0, "AX", "R10", 2), "AX")
	a.ins("DECQ", "px+0(FP)")
	a.ins("JNZ", "pixel")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitAdadelta writes asmAdadeltaF32(n8 int, v, g, sq, acc *float32, rho, omr, eps, lr
// float32): the Adadelta step of 8 parameters at a time in float32, each operation rounded as
// the plain loop's (cpu/kernels' AdadeltaF32: multiply and add, never fused):
//
//	sq = rho*sq + (omr*g)*g;  d = sqrt(acc+eps)/sqrt(sq+eps)*g;  acc = rho*acc + (omr*d)*d;  v -= lr*d
func emitAdadelta(a *asm) {
	a.line("// func asmAdadeltaF32(n8 int, v, gr, sq, acc *float32, rho, omr, eps, lr float32)")
	a.line("TEXT ·asmAdadeltaF32(SB), NOSPLIT, $0-56")
	a.ins("MOVQ", "n8+0(FP)", "CX")
	a.ins("MOVQ", "v+8(FP)", "DI")
	a.ins("MOVQ", "gr+16(FP)", "SI")
	a.ins("MOVQ", "sq+24(FP)", "DX")
	a.ins("MOVQ", "acc+32(FP)", "BX")
	a.ins("VBROADCASTSS", "rho+40(FP)", "Y12")
	a.ins("VBROADCASTSS", "omr+44(FP)", "Y13")
	a.ins("VBROADCASTSS", "eps+48(FP)", "Y14")
	a.ins("VBROADCASTSS", "lr+52(FP)", "Y15")
	a.label("loop")
	a.ins("VMOVUPS", mem(0, "SI"), "Y0")       // g
	a.ins("VMULPS", mem(0, "DX"), "Y12", "Y1") // rho*sq
	a.ins("VMULPS", "Y0", "Y13", "Y2")         // omr*g
	a.ins("VMULPS", "Y0", "Y2", "Y2")          // (omr*g)*g
	a.ins("VADDPS", "Y2", "Y1", "Y1")          // sq
	a.ins("VMOVUPS", "Y1", mem(0, "DX"))
	a.ins("VADDPS", "Y14", "Y1", "Y1") // sq+eps
	a.ins("VSQRTPS", "Y1", "Y1")
	a.ins("VMOVUPS", mem(0, "BX"), "Y3") // acc
	a.ins("VADDPS", "Y14", "Y3", "Y4")   // acc+eps
	a.ins("VSQRTPS", "Y4", "Y4")
	a.ins("VDIVPS", "Y1", "Y4", "Y4")  // sqrt(acc+eps)/sqrt(sq+eps)
	a.ins("VMULPS", "Y0", "Y4", "Y4")  // d
	a.ins("VMULPS", "Y3", "Y12", "Y3") // rho*acc
	a.ins("VMULPS", "Y4", "Y13", "Y5") // omr*d
	a.ins("VMULPS", "Y4", "Y5", "Y5")  // (omr*d)*d
	a.ins("VADDPS", "Y5", "Y3", "Y3")
	a.ins("VMOVUPS", "Y3", mem(0, "BX"))
	a.ins("VMULPS", "Y4", "Y15", "Y4") // lr*d
	a.ins("VMOVUPS", mem(0, "DI"), "Y6")
	a.ins("VSUBPS", "Y4", "Y6", "Y6") // v - lr*d
	a.ins("VMOVUPS", "Y6", mem(0, "DI"))
	for _, r := range []string{"DI", "SI", "DX", "BX"} {
		a.ins("ADDQ", imm(32), r)
	}
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// emitDropout writes asmDropoutF32(n8 int, x, y, mask *float32, h *uint64, hstep, thr uint64,
// scale float32): inverted dropout of 8 values a step. Element k keeps its value (mask
// scale, else 0) when the SplitMix64 finalizer of its hash input, shifted right by 40, is
// greater than thr (the threshold minus one); h holds the hash inputs of the first 8 elements,
// each step adds hstep to them (internal/rng's Mix: xor-shift 30, multiply, xor-shift 27,
// multiply, xor-shift 31; the 64-bit multiplies from VPMULUDQ's 32-bit halves). Then y =
// mask*x, the plain loop's product.
func emitDropout(a *asm) {
	a.line("// func asmDropoutF32(n8 int, x, y, mask *float32, h *uint64, hstep, thr uint64, scale float32)")
	a.line("TEXT ·asmDropoutF32(SB), NOSPLIT, $0-60")
	a.ins("MOVQ", "n8+0(FP)", "CX")
	a.ins("MOVQ", "x+8(FP)", "SI")
	a.ins("MOVQ", "y+16(FP)", "DI")
	a.ins("MOVQ", "mask+24(FP)", "DX")
	a.ins("MOVQ", "h+32(FP)", "AX")
	a.ins("VMOVDQU", mem(0, "AX"), "Y8")
	a.ins("VMOVDQU", mem(32, "AX"), "Y9")
	bq := func(src, reg string) {
		a.ins("VMOVQ", src, "X"+reg[1:])
		a.ins("VPBROADCASTQ", "X"+reg[1:], reg)
	}
	a.ins("MOVQ", "hstep+40(FP)", "R8")
	bq("R8", "Y10")
	a.ins("MOVQ", "$0xbf58476d1ce4e5b9", "R8")
	bq("R8", "Y11") // its low halves: the constant's low 32 bits
	a.ins("SHRQ", imm(32), "R8")
	bq("R8", "Y12")
	a.ins("MOVQ", "$0x94d049bb133111eb", "R8")
	bq("R8", "Y13")
	a.ins("SHRQ", imm(32), "R8")
	bq("R8", "Y14")
	a.ins("MOVQ", "thr+48(FP)", "R8")
	bq("R8", "Y15")
	a.ins("VBROADCASTSS", "scale+56(FP)", "Y7")
	// mul sets out = out * C (mod 2^64) for C's halves lo, hi, with temporaries ta, tb, tc.
	mul := func(out, lo, hi, ta, tb, tc string) {
		a.ins("VPMULUDQ", lo, out, ta)    // lo(z)*lo(C)
		a.ins("VPSRLQ", imm(32), out, tb) // hi(z)
		a.ins("VPMULUDQ", lo, tb, tb)     // hi(z)*lo(C)
		a.ins("VPMULUDQ", hi, out, tc)    // lo(z)*hi(C)
		a.ins("VPADDQ", tc, tb, tb)       // the cross terms
		a.ins("VPSLLQ", imm(32), tb, tb)  // into the high half
		a.ins("VPADDQ", tb, ta, out)
	}
	hash := func(z, out, ta, tb, tc string) {
		a.ins("VPSRLQ", imm(30), z, ta)
		a.ins("VPXOR", ta, z, out)
		mul(out, "Y11", "Y12", ta, tb, tc)
		a.ins("VPSRLQ", imm(27), out, ta)
		a.ins("VPXOR", ta, out, out)
		mul(out, "Y13", "Y14", ta, tb, tc)
		a.ins("VPSRLQ", imm(31), out, ta)
		a.ins("VPXOR", ta, out, out)
		a.ins("VPSRLQ", imm(40), out, out)
		a.ins("VPCMPGTQ", "Y15", out, out) // keep: (hash >> 40) > thr
	}
	a.label("loop")
	hash("Y8", "Y0", "Y2", "Y3", "Y4")
	hash("Y9", "Y1", "Y4", "Y5", "Y6")
	// The two vectors' 64-bit masks to eight 32-bit ones, in element order.
	a.ins("VSHUFPS", imm(0x88), "Y1", "Y0", "Y2")
	a.ins("VPERMQ", imm(0xd8), "Y2", "Y2")
	a.ins("VANDPS", "Y7", "Y2", "Y2") // scale or 0
	a.ins("VMOVUPS", "Y2", mem(0, "DX"))
	a.ins("VMULPS", mem(0, "SI"), "Y2", "Y3")
	a.ins("VMOVUPS", "Y3", mem(0, "DI"))
	a.ins("VPADDQ", "Y10", "Y8", "Y8")
	a.ins("VPADDQ", "Y10", "Y9", "Y9")
	for _, r := range []string{"SI", "DI", "DX"} {
		a.ins("ADDQ", imm(32), r)
	}
	a.ins("DECQ", "CX")
	a.ins("JNZ", "loop")
	a.ins("VZEROUPPER")
	a.ins("RET")
	a.blank()
}

// elementDecls and elementOther are the Go sides of the element-wise kernels.
const elementDecls = `// dropoutF32 runs the dropout kernel on n8 blocks of 8 values.
func dropoutF32(n8 int, x, y, mask *float32, h *uint64, hstep, thr uint64, scale float32) {
	if useAsm {
		asmDropoutF32(n8, x, y, mask, h, hstep, thr, scale)
		return
	}
	goDropoutF32(n8, x, y, mask, h, hstep, thr, scale)
}

//go:noescape
func asmDropoutF32(n8 int, x, y, mask *float32, h *uint64, hstep, thr uint64, scale float32)

// adadeltaF32 runs the Adadelta step on n8 blocks of 8 parameters.
func adadeltaF32(n8 int, v, g, sq, acc *float32, rho, omr, eps, lr float32) {
	if useAsm {
		asmAdadeltaF32(n8, v, g, sq, acc, rho, omr, eps, lr)
		return
	}
	goAdadeltaF32(n8, v, g, sq, acc, rho, omr, eps, lr)
}

//go:noescape
func asmAdadeltaF32(n8 int, v, gr, sq, acc *float32, rho, omr, eps, lr float32)

// reluF32 runs the ReLU kernel on n8 blocks of 8 floats.
func reluF32(n8 int, x, y *float32) {
	if useAsm {
		asmReLUF32(n8, x, y)
		return
	}
	goReLUF32(n8, x, y)
}

//go:noescape
func asmReLUF32(n8 int, x, y *float32)

// reluGradF32 runs the ReLU gradient kernel on n8 blocks of 8 floats.
func reluGradF32(n8 int, gy, y, gx *float32) {
	if useAsm {
		asmReLUGradF32(n8, gy, y, gx)
		return
	}
	goReLUGradF32(n8, gy, y, gx)
}

//go:noescape
func asmReLUGradF32(n8 int, gy, y, gx *float32)

// maxPool2F32 runs the 2x2 max-pool kernel on px output pixels of 8*c8 channels.
func maxPool2F32(px, c8 int, x *float32, xrow int, y *float32, arg *int32, base int) {
	if useAsm {
		asmMaxPool2F32(px, c8, x, xrow, y, arg, base)
		return
	}
	goMaxPool2F32(px, c8, x, xrow, y, arg, base)
}

//go:noescape
func asmMaxPool2F32(px, c8 int, x *float32, xrow int, y *float32, arg *int32, base int)

`

const elementOther = `
func dropoutF32(n8 int, x, y, mask *float32, h *uint64, hstep, thr uint64, scale float32) {
	goDropoutF32(n8, x, y, mask, h, hstep, thr, scale)
}

func adadeltaF32(n8 int, v, g, sq, acc *float32, rho, omr, eps, lr float32) {
	goAdadeltaF32(n8, v, g, sq, acc, rho, omr, eps, lr)
}

func reluF32(n8 int, x, y *float32) { goReLUF32(n8, x, y) }

func reluGradF32(n8 int, gy, y, gx *float32) { goReLUGradF32(n8, gy, y, gx) }

func maxPool2F32(px, c8 int, x *float32, xrow int, y *float32, arg *int32, base int) {
	goMaxPool2F32(px, c8, x, xrow, y, arg, base)
}
`
