package cfront

import (
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// The AI Engine API (aie::) as kernels use it on AIE1, lowered to the intrinsic IR the way the
// API's AIE1 implementation issues it ("detail/aie1" headers of the API; the cases are cited
// below). Every lowering is checked against the g++ emulation header's own implementation of
// the API from its documented semantics (target/aie1/emul): `sumac sim` compares them bit for
// bit.

// opAPIDone marks a binary expression apiBinary lowered completely (its result is the first
// operand).
const opAPIDone = kernel.OpInvalid

// apiObj is an API object that is not one register value: an aie::mmul.
type apiObj struct {
	kind    string
	m, k, n int
	ta, tb  kernel.Elem
	accs    []*kernel.Var // the accumulators (mmul's C), in row order
	accType kernel.Type
	pos     Pos
}

// apiCall lowers a call of an API function, an ADF builtin with a value, or an intrinsic
// form the intrinsic table does not hold (the short fp forms, the simple mul/mac/msc).
func (l *lowerer) apiCall(b *kernel.Builder, c *Call, dst *kernel.Var) (kernel.Operand, bool) {
	if o, ok := l.portRead(b, c, dst); ok {
		return o, true
	}
	if o, ok := l.builtinValue(b, c, dst); ok {
		return o, true
	}
	if o, ok := l.shortIntrinsic(b, c); ok {
		return o, true
	}
	name := c.Fun
	if !strings.HasPrefix(name, "aie::") {
		return kernel.Operand{}, false
	}
	p := c.Pos
	need := func(n int) {
		if len(c.Args) != n {
			l.fail(p, "%s takes %d arguments, %d given", name, n, len(c.Args))
		}
	}
	switch name {
	case "aie::zeros":
		if len(c.TArgs) != 2 || c.TArgs[0].Type == nil {
			l.fail(p, "aie::zeros<T, N>() needs an element or accumulator type and a lane count")
		}
		need(0)
		t := l.apiValueType(&TypeName{Pos: p, Base: l.zerosKind(c.TArgs[0].Type), Args: c.TArgs})
		return kernel.V(l.emitInto(b, p, dst, t, kernel.OpNull)), true
	case "aie::broadcast":
		need(1)
		if len(c.TArgs) != 2 || c.TArgs[0].Type == nil {
			l.fail(p, "aie::broadcast<T, N>(x) needs an element type and a lane count")
		}
		t := l.apiValueType(&TypeName{Pos: p, Base: "aie::vector", Args: c.TArgs})
		x := l.expr(b, c.Args[0])
		l.checkOp(p, kernel.OpBroadcast, []kernel.Operand{x}, t)
		return kernel.V(l.emitInto(b, p, dst, t, kernel.OpBroadcast, x)), true
	case "aie::load_v":
		need(1)
		n := l.templateLanes(c)
		base, idx, view := l.address(b, c.Args[0], p)
		t := kernel.VecOf(view.Pointee().Elem, n)
		if !t.Valid() {
			l.fail(p, "aie::load_v<%d> of %v is not a vector type", n, view.Pointee())
		}
		l.checkOp(p, kernel.OpLoad, []kernel.Operand{kernel.V(base), idx}, t)
		return kernel.V(l.emitInto(b, p, dst, t, kernel.OpLoad, kernel.V(base), idx)), true
	case "aie::store_v":
		need(2)
		base, idx, view := l.address(b, c.Args[0], p)
		v := l.expr(b, c.Args[1])
		if !v.Type().IsVector() || v.Type().Elem != view.Pointee().Elem {
			l.fail(p, "aie::store_v of %v through %v", v.Type(), view)
		}
		args := []kernel.Operand{kernel.V(base), idx, v}
		l.checkOp(p, kernel.OpStore, args, kernel.Type{})
		b.At(kpos(p)).Emit(kernel.OpStore, nil, args...)
		return kernel.Operand{}, true
	case "aie::begin_vector", "aie::cbegin_vector", "aie::begin_restrict_vector", "aie::cbegin_restrict_vector",
		"aie::begin", "aie::cbegin":
		need(1)
		ptr := l.expr(b, c.Args[0])
		if !ptr.Type().IsPointer() || ptr.Var == nil {
			l.fail(p, "%s takes a buffer port or a pointer, not %v", name, ptr.Type())
		}
		et := ptr.Type().Pointee()
		t := kernel.PtrTo(et.Elem, 1)
		if strings.Contains(name, "vector") {
			t = kernel.PtrTo(et.Elem, l.templateLanes(c))
			if !t.Valid() {
				l.fail(p, "%s<%d> over %v is not a vector iterator", name, t.Lanes, et)
			}
		}
		v := l.k.NewTemp(t)
		b.At(kpos(p)).Mov(v, ptr)
		return kernel.V(v), true
	case "aie::begin_circular", "aie::begin_vector_circular", "aie::begin_random_circular", "aie::begin_vector_random_circular",
		"aie::cbegin_circular", "aie::cbegin_vector_circular":
		l.fail(p, "%s: circular iterators are not supported yet (use a window, whose position wraps)", name)
	case "aie::concat":
		if len(c.Args) != 2 && len(c.Args) != 4 {
			l.fail(p, "aie::concat takes 2 or 4 vectors")
		}
		args := l.args(b, c)
		t := l.checkOp(p, kernel.OpConcat, args, kernel.Type{})
		return kernel.V(l.emitInto(b, p, dst, t, kernel.OpConcat, args...)), true
	case "aie::add", "aie::sub":
		need(2)
		a, y := l.expr(b, c.Args[0]), l.expr(b, c.Args[1])
		return l.apiAddSub(b, p, name == "aie::sub", a, y), true
	case "aie::max", "aie::min":
		need(2)
		a, y := l.expr(b, c.Args[0]), l.expr(b, c.Args[1])
		return l.apiMaxMin(b, p, name == "aie::min", a, y), true
	case "aie::mul", "aie::mac", "aie::msc":
		kind := map[string]kernel.MACKind{"aie::mul": kernel.Mul, "aie::mac": kernel.Mac, "aie::msc": kernel.Msc}[name]
		var acc kernel.Operand
		args := c.Args
		if kind != kernel.Mul {
			need(3)
			acc = l.expr(b, args[0])
			args = args[1:]
		} else {
			need(2)
		}
		return l.product(b, p, kind, acc, args[0], args[1]), true
	case "aie::to_vector":
		if len(c.Args) < 1 || len(c.Args) > 2 || len(c.TArgs) != 1 || c.TArgs[0].Type == nil {
			l.fail(p, "aie::to_vector<T>(acc[, shift])")
		}
		acc := l.expr(b, c.Args[0])
		shift := kernel.Imm(0)
		if len(c.Args) == 2 {
			shift = l.expr(b, c.Args[1])
		}
		return l.toVector(b, p, acc, l.elemOf(c.TArgs[0].Type), shift), true
	case "aie::neg":
		need(1)
		return l.apiNeg(b, p, l.expr(b, c.Args[0])), true
	case "aie::tile::current":
		l.fail(p, "aie::tile::current() is an object: call aie::tile::current().cycles()")
	}
	l.fail(p, "%s is not supported (sumac's AI Engine API: zeros, broadcast, load_v, store_v, begin/begin_vector, concat, add, sub, max, min, mul, mac, msc, to_vector, mmul, tile::cycles)", name)
	return kernel.Operand{}, false
}

// zerosKind tells aie::zeros<T, N> of a vector from one of an accumulator.
func (l *lowerer) zerosKind(t *TypeName) string {
	if _, ok := l.accElem(t); ok {
		return "aie::accum"
	}
	return "aie::vector"
}

// shortIntrinsic lowers intrinsic forms that are shorthands of table ones: fpmul(x, z),
// fpmac/fpmsc(acc, x, z) with v8float operands (lane by lane: the full form with xoffs and
// zoffs 0x76543210), fpadd/fpsub/fpmax/fpmin(acc, x) likewise, fpshuffle(x), and the simple mul/mac/msc(a, b)
// (intrinsics reference, groups intr_gpvectorfpop, intr_gpvectorop_arit_adv_flt and
// intr_gpvectorop_mul_simple).
func (l *lowerer) shortIntrinsic(b *kernel.Builder, c *Call) (kernel.Operand, bool) {
	p := c.Pos
	ident := kernel.Imm(0x76543210)
	switch c.Fun {
	case "fpmul", "fpmac", "fpmsc", "fpabs_mul":
		want := 2
		if c.Fun == "fpmac" || c.Fun == "fpmsc" {
			want = 3
		}
		if len(c.Args) != want {
			return kernel.Operand{}, false
		}
		args := l.args(b, c)
		op := map[string]kernel.Op{"fpmul": kernel.OpFPMul, "fpmac": kernel.OpFPMac, "fpmsc": kernel.OpFPMsc}[c.Fun]
		if op == 0 {
			l.fail(p, "%s is not supported", c.Fun)
		}
		full := []kernel.Operand{args[len(args)-2], kernel.Imm(0), ident, args[len(args)-1], kernel.Imm(0), ident}
		if want == 3 {
			full = append([]kernel.Operand{args[0]}, full...)
		}
		t := l.checkOp(p, op, full, kernel.Type{})
		return kernel.V(b.At(kpos(p)).OpT(op, t, full...)), true
	case "fpshuffle":
		// fpshuffle(xbuf): the identity selection
		if len(c.Args) != 1 {
			return kernel.Operand{}, false
		}
		args := l.args(b, c)
		full := []kernel.Operand{args[0], kernel.Imm(0), ident}
		t := l.checkOp(p, kernel.OpFPShuffle, full, kernel.Type{})
		return kernel.V(b.At(kpos(p)).OpT(kernel.OpFPShuffle, t, full...)), true
	case "fpadd", "fpsub", "fpmax", "fpmin":
		if len(c.Args) != 2 {
			return kernel.Operand{}, false
		}
		args := l.args(b, c)
		op := map[string]kernel.Op{"fpadd": kernel.OpFPAdd, "fpsub": kernel.OpFPSub, "fpmax": kernel.OpFPMax, "fpmin": kernel.OpFPMin}[c.Fun]
		full := []kernel.Operand{args[0], args[1], kernel.Imm(0), ident}
		t := l.checkOp(p, op, full, kernel.Type{})
		return kernel.V(b.At(kpos(p)).OpT(op, t, full...)), true
	case "mul", "mac", "msc":
		kind := map[string]kernel.MACKind{"mul": kernel.Mul, "mac": kernel.Mac, "msc": kernel.Msc}[c.Fun]
		want := 2
		if kind != kernel.Mul {
			want = 3
		}
		if len(c.Args) != want {
			l.fail(p, "%s takes %d arguments (the simple lane-by-lane form), %d given", c.Fun, want, len(c.Args))
		}
		args := l.args(b, c)
		var acc kernel.Operand
		if want == 3 {
			acc, args = args[0], args[1:]
		}
		if !args[0].Type().IsVector() || args[0].Type() != args[1].Type() {
			l.fail(p, "%s(a, b): a and b are vectors of one type, have %v and %v", c.Fun, args[0].Type(), args[1].Type())
		}
		return l.lanewise(b, p, kind, acc, args[0], args[1]), true
	}
	return kernel.Operand{}, false
}

// emitOp emits a new temporary = op(args) with its type checked.
func (l *lowerer) emitOp(b *kernel.Builder, p Pos, op kernel.Op, args ...kernel.Operand) kernel.Operand {
	t := l.checkOp(p, op, args, kernel.Type{})
	return kernel.V(b.At(kpos(p)).OpT(op, t, args...))
}

func (l *lowerer) null(b *kernel.Builder, p Pos, t kernel.Type) kernel.Operand {
	return kernel.V(b.At(kpos(p)).OpT(kernel.OpNull, t))
}

// grow widens a vector to lanes lanes with zero lanes above (concat with null_*).
func (l *lowerer) grow(b *kernel.Builder, p Pos, v kernel.Operand, lanes int) kernel.Operand {
	x, _ := l.growWith(b, p, v, lanes, kernel.OpNull)
	return x
}

// growUnread widens a MAC's X operand to the X buffer's lanes with the lanes above left
// undefined (undef_*: no instruction on the hardware, where null_* is a vzero), as the AI
// Engine API's grow() does ("the contents of the new elements are undefined", UG1079 on
// aie::vector) and as llvm-aie's AIE1 patterns widen a narrower X operand (AIE1InstrInfo.td:
// INSERT_SUBREG into an IMPLICIT_DEF register). Once the MACs that read it are emitted,
// keep(macs) checks that none reads those lanes (kernel.XElemsRead) and otherwise makes them
// zeros after all: the interpreter and the g++ emulation give undef_* zeros, the hardware
// whatever the register holds, so only unread lanes may stay undefined.
func (l *lowerer) growUnread(b *kernel.Builder, p Pos, v kernel.Operand, lanes int) (kernel.Operand, func(macs []*kernel.Instr)) {
	n := v.Type().Lanes
	x, fill := l.growWith(b, p, v, lanes, kernel.OpUndef)
	return x, func(macs []*kernel.Instr) {
		for _, m := range macs {
			if r, ok := kernel.XElemsRead(m.Op, m.Args); !ok || r > n {
				for _, f := range fill {
					f.Op = kernel.OpNull
				}
				return
			}
		}
	}
}

// growWith widens a vector to lanes lanes, the lanes above made by op (null_* or undef_*), and
// returns the instructions that make them.
func (l *lowerer) growWith(b *kernel.Builder, p Pos, v kernel.Operand, lanes int, op kernel.Op) (kernel.Operand, []*kernel.Instr) {
	t := v.Type()
	var fill []*kernel.Instr
	for t.Lanes < lanes {
		k := 2
		if t.Lanes*4 <= lanes {
			k = 4
		}
		zv := b.Kernel().NewTemp(t)
		fill = append(fill, b.At(kpos(p)).Emit(op, zv))
		z := kernel.V(zv)
		parts := []kernel.Operand{v}
		for i := 1; i < k; i++ {
			parts = append(parts, z)
		}
		v = l.emitOp(b, p, kernel.OpConcat, parts...)
		t = v.Type()
	}
	return v, fill
}

// scalarVec puts a scalar in lane 0 of a vector of type t whose other lanes are undefined (a
// MAC's Z operand whose every lane selects lane 0: a vector x scalar product). The AI Engine
// API on AIE1 does the same (API "detail/aie1/mul_acc32_fp.hpp": the float x scalar
// overload builds `vector<float, 16> tmp(a)`, whose constructor shifts the value into lane 0 of an
// undefined register, "detail/aie1/vector.hpp" init_from_values_simple: shft_elem; the MAC
// then selects lane 0 with zstart 0, zoffsets 0): one move, no zeroed register. The integer
// forms select the same way; the other lanes never reach a result (mac16's second column,
// which may read another lane, multiplies X's zero column). sumac gives undef_* zeros
// everywhere (interpreter, emulation, simulator), so the three agree bit for bit.
func (l *lowerer) scalarVec(b *kernel.Builder, p Pos, s kernel.Operand, t kernel.Type) kernel.Operand {
	if !s.Type().IsScalar() {
		l.fail(p, "want a scalar, have %v", s.Type())
	}
	u := kernel.V(b.At(kpos(p)).OpT(kernel.OpUndef, t))
	return l.emitOp(b, p, kernel.OpUpdElem, u, kernel.Imm(0), s)
}

// product lowers aie::mul/mac/msc of operands a0 and a1. A float vector times an element of
// another float vector, w[i] with i a compile-time constant, takes the element's lane where it
// is, as the API does on AIE1 ("detail/aie1/mul_acc32_fp.hpp", the vector_elem_const_ref
// overloads: Z is the 8-lane part of w holding the element, zstart i % 8, zoffsets 0): no move
// of the element. Other operands go to lanewise.
func (l *lowerer) product(b *kernel.Builder, p Pos, kind kernel.MACKind, acc kernel.Operand, a0, a1 Expr) kernel.Operand {
	vecE, refE := a0, a1
	w, i := l.constVectorElem(refE)
	if w == nil {
		vecE, refE = a1, a0
		w, i = l.constVectorElem(refE)
	}
	x := l.expr(b, vecE)
	xt := x.Type()
	if w == nil || w.Type.Elem != kernel.Float32 || (w.Type.Lanes != 8 && w.Type.Lanes != 16) ||
		!xt.IsVector() || xt.Elem != kernel.Float32 || (xt.Lanes != 8 && xt.Lanes != 16 && xt.Lanes != 32) {
		return l.lanewise(b, p, kind, acc, x, l.expr(b, refE))
	}
	z := kernel.V(w)
	if w.Type.Lanes > 8 {
		z = l.emitOp(b, p, kernel.OpExtW, z, kernel.Imm(i/8))
	}
	ops := map[kernel.MACKind]kernel.Op{kernel.Mul: kernel.OpFPMul, kernel.Mac: kernel.OpFPMac, kernel.Msc: kernel.OpFPMsc}
	var parts []kernel.Operand
	for h := 0; h < xt.Lanes/8; h++ {
		var a kernel.Operand
		if kind != kernel.Mul {
			a = acc
			if xt.Lanes > 8 {
				a = l.emitOp(b, p, kernel.OpExtW, acc, kernel.Imm(int64(h)))
			}
		}
		args := []kernel.Operand{x, kernel.Imm(int64(8 * h)), kernel.Imm(0x76543210), z, kernel.Imm(i % 8), kernel.Imm(0)}
		parts = append(parts, l.macOp(b, p, ops[kind], a, args))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return l.emitOp(b, p, kernel.OpConcat, parts...)
}

// constVectorElem reports the vector and the lane of e when e is v[i] of a vector variable v
// with i a compile-time constant within its lanes.
func (l *lowerer) constVectorElem(e Expr) (*kernel.Var, int64) {
	ix, ok := stripParen(e).(*Index)
	if !ok {
		return nil, 0
	}
	v := l.vectorElem(ix)
	if v == nil {
		return nil, 0
	}
	i, err := constEval(ix.Index, l.constEnv)
	if err != nil || i < 0 || i >= int64(v.Type.Lanes) {
		return nil, 0
	}
	return v, i
}

// lanewise lowers the element-wise products aie::mul/mac/msc and the simple mul/mac/msc
// intrinsics: acc[i] (+|-)= x[i] * y[i] (y may be a scalar). The AIE1 lowering (API
// "detail/aie1/mul_acc48.hpp", "mul_acc32_fp.hpp"):
//   - int16 x 16 lanes: one mul16 with X = concat(x, zeros): lane 2m reads word m and lane
//     2m+1 word m relative ... so column 0 of lane i is x[i] and column 1 a zero (xoffsets
//     0x43526170 / 0x07162534, xsquare 0x3120), Z = y (zoffsets 0x76543210 / 0xfedcba98);
//   - int16 x 8 lanes: one mul8, X = x and 24 zero lanes (xoffsets 0x03122130, xstep 8,
//     xsquare 0x3120), Z = y and 8 zero lanes;
//   - int32 x 8 lanes: one lmul8, X = concat(x, zeros), offsets 0x76543210;
//   - float x 8 lanes: one fpmul/fpmac/fpmsc per 8 lanes, offsets 0x76543210.
//
// A scalar y goes into lane 0 of an undefined vector that every lane selects (zoffsets 0).
func (l *lowerer) lanewise(b *kernel.Builder, p Pos, kind kernel.MACKind, acc, x, y kernel.Operand) kernel.Operand {
	if x.Type().IsScalar() && y.Type().IsVector() {
		x, y = y, x
	}
	if x.Type() == kernel.VecOf(kernel.Int16, 16) && y.Type() == kernel.VecOf(kernel.Int32, 16) {
		x, y = y, x // int16 x int32: the int32 lanes are the X operand (Form32x16)
	}
	xt := x.Type()
	if !xt.IsVector() {
		l.fail(p, "a vector product needs a vector operand, have %v and %v", x.Type(), y.Type())
	}
	scalar := !y.Type().IsVector()
	if !scalar && y.Type() != xt && !(xt == kernel.VecOf(kernel.Int32, 16) && y.Type() == kernel.VecOf(kernel.Int16, 16)) {
		l.fail(p, "vector product of %v and %v: the types must match", xt, y.Type())
	}
	ops := map[kernel.Elem][3]kernel.Op{
		kernel.Int16:   {kernel.OpMul16, kernel.OpMac16, kernel.OpMsc16},
		kernel.Int32:   {kernel.OpLMul8, kernel.OpLMac8, kernel.OpLMsc8},
		kernel.Float32: {kernel.OpFPMul, kernel.OpFPMac, kernel.OpFPMsc},
	}
	switch {
	case xt == kernel.VecOf(kernel.Int16, 16):
		z := y
		zo, zoh := int64(0x76543210), int64(0xFEDCBA98)
		if scalar {
			z, zo, zoh = l.scalarVec(b, p, y, xt), 0, 0
		}
		X := l.grow(b, p, x, 32)
		op := ops[kernel.Int16][kind]
		args := []kernel.Operand{X, kernel.Imm(0), kernel.Imm(0x43526170), kernel.Imm(0x07162534), kernel.Imm(0x3120), z, kernel.Imm(0), kernel.Imm(zo), kernel.Imm(zoh), kernel.Imm(1)}
		return l.macOp(b, p, op, acc, args)
	case xt == kernel.VecOf(kernel.Int16, 8):
		var z kernel.Operand
		zo := int64(0x76543210)
		if scalar {
			z, zo = l.scalarVec(b, p, y, kernel.VecOf(kernel.Int16, 16)), 0
		} else {
			z = l.grow(b, p, y, 16)
		}
		X := l.grow(b, p, x, 32)
		op := map[kernel.MACKind]kernel.Op{kernel.Mul: kernel.OpMul8, kernel.Mac: kernel.OpMac8, kernel.Msc: kernel.OpMsc8}[kind]
		args := []kernel.Operand{X, kernel.Imm(0), kernel.Imm(0x03122130), kernel.Imm(8), kernel.Imm(0x3120), z, kernel.Imm(0), kernel.Imm(zo), kernel.Imm(1)}
		return l.macOp(b, p, op, acc, args)
	case xt == kernel.VecOf(kernel.Int32, 16) && (scalar || y.Type() == kernel.VecOf(kernel.Int16, 16)):
		// int32 x int16, 16 lanes into acc48: mul16/mac16/msc16 with an int32 X buffer (API
		// "mul.hpp": a 32b x 16b product accumulates in acc48 on AIE1; llvm-aie
		// AIE1InstrInfo.td VMAC48_S32_S16_BM)
		if kind == kernel.Mul {
			// the API's accumulator for mul without one is not acc48 for every type pair
			l.fail(p, "aie::mul of int32 and int16 lanes: start from an accumulator (aie::mac of aie::accum<acc48, 16>), which sumac lowers to the int32 x int16 mac16")
		}
		z, zo, zoh := y, int64(0x76543210), int64(0xFEDCBA98)
		if scalar {
			z, zo, zoh = l.scalarVec(b, p, y, kernel.VecOf(kernel.Int16, 16)), 0, 0
		}
		op := ops[kernel.Int16][kind]
		args := []kernel.Operand{x, kernel.Imm(0), kernel.Imm(0x76543210), kernel.Imm(0xFEDCBA98), z, kernel.Imm(0), kernel.Imm(zo), kernel.Imm(zoh)}
		return l.macOp(b, p, op, acc, args)
	case xt == kernel.VecOf(kernel.Int32, 8):
		z := y
		zo := int64(0x76543210)
		if scalar {
			z, zo = l.scalarVec(b, p, y, xt), 0
		}
		X := l.grow(b, p, x, 16)
		args := []kernel.Operand{X, kernel.Imm(0), kernel.Imm(0x76543210), z, kernel.Imm(0), kernel.Imm(zo)}
		return l.macOp(b, p, ops[kernel.Int32][kind], acc, args)
	case xt.Elem == kernel.Float32 && (xt.Lanes == 8 || xt.Lanes == 16 || xt.Lanes == 32):
		v8 := kernel.VecOf(kernel.Float32, 8)
		var zs kernel.Operand
		if scalar {
			zs = l.scalarVec(b, p, y, v8)
		}
		var parts []kernel.Operand
		for h := 0; h < xt.Lanes/8; h++ {
			z, zo := zs, int64(0)
			if !scalar {
				z, zo = y, 0x76543210
				if xt.Lanes > 8 {
					z = l.emitOp(b, p, kernel.OpExtW, y, kernel.Imm(int64(h)))
				}
			}
			var a kernel.Operand
			if kind != kernel.Mul {
				a = acc
				if xt.Lanes > 8 {
					a = l.emitOp(b, p, kernel.OpExtW, acc, kernel.Imm(int64(h)))
				}
			}
			args := []kernel.Operand{x, kernel.Imm(int64(8 * h)), kernel.Imm(0x76543210), z, kernel.Imm(0), kernel.Imm(zo)}
			parts = append(parts, l.macOp(b, p, ops[kernel.Float32][kind], a, args))
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return l.emitOp(b, p, kernel.OpConcat, parts...)
	}
	l.fail(p, "element-wise products of %v are not supported (int16 x 8 or 16, int32 x 8, int32 x 16 by int16, float x 8, 16 or 32 lanes)", xt)
	return kernel.Operand{}
}

// macOp emits a MAC with or without the accumulator argument.
func (l *lowerer) macOp(b *kernel.Builder, p Pos, op kernel.Op, acc kernel.Operand, args []kernel.Operand) kernel.Operand {
	if op.Info().Acc {
		if acc.Var == nil && !acc.IsImm() {
			l.fail(p, "missing accumulator")
		}
		args = append([]kernel.Operand{acc}, args...)
	}
	return l.emitOp(b, p, op, args...)
}

// apiAddSub lowers aie::add / aie::sub and operator+ / operator- on API values: float vectors
// of 8 lanes take fpadd/fpsub (API "add.hpp": fpadd on AIE1), others the vector add.
func (l *lowerer) apiAddSub(b *kernel.Builder, p Pos, sub bool, a, y kernel.Operand) kernel.Operand {
	v8 := kernel.VecOf(kernel.Float32, 8)
	if a.Type() == v8 && y.Type() == v8 {
		op := kernel.OpFPAdd
		if sub {
			op = kernel.OpFPSub
		}
		return l.emitOp(b, p, op, a, y, kernel.Imm(0), kernel.Imm(0x76543210))
	}
	// acc48 and an int32 vector of its lanes: the vector joins the accumulator unshifted
	// (API "add.hpp": add(accum, vector) adds the vector's values), by lups as
	// accum::from_vector does; acc48 with int16 and acc80 with int32 add directly
	if a.Type().IsAcc() && a.Type().Elem == kernel.Acc48 && y.Type().IsVector() && y.Type().Elem == kernel.Int32 && y.Type().Lanes == a.Type().Lanes {
		y = l.emitOp(b, p, kernel.OpLUPS, y, kernel.Imm(0))
	}
	op := kernel.OpVAdd
	if sub {
		op = kernel.OpVSub
	}
	return l.emitOp(b, p, op, a, y)
}

// apiMaxMin lowers aie::max / aie::min: fpmax/fpmin for 8 float lanes, else the element-wise
// op (API "max_min.hpp": max16/32, min16/32, fpmax).
func (l *lowerer) apiMaxMin(b *kernel.Builder, p Pos, min bool, a, y kernel.Operand) kernel.Operand {
	if y.Type().IsScalar() && a.Type().IsVector() {
		y = l.emitOpT(b, p, kernel.OpBroadcast, a.Type(), y)
	}
	v8 := kernel.VecOf(kernel.Float32, 8)
	if a.Type() == v8 && y.Type() == v8 {
		op := kernel.OpFPMax
		if min {
			op = kernel.OpFPMin
		}
		return l.emitOp(b, p, op, a, y, kernel.Imm(0), kernel.Imm(0x76543210))
	}
	op := kernel.OpVMax
	if min {
		op = kernel.OpVMin
	}
	return l.emitOp(b, p, op, a, y)
}

func (l *lowerer) emitOpT(b *kernel.Builder, p Pos, op kernel.Op, t kernel.Type, args ...kernel.Operand) kernel.Operand {
	l.checkOp(p, op, args, t)
	return kernel.V(b.At(kpos(p)).OpT(op, t, args...))
}

// toVector lowers acc.to_vector<T>(shift): srs to int16 (or int32 from acc80), lsrs to int32
// from acc48, bsrs/ubsrs to int8/uint8 (API "accum.hpp"); a float accumulator is already a
// float vector.
func (l *lowerer) toVector(b *kernel.Builder, p Pos, acc kernel.Operand, e kernel.Elem, shift kernel.Operand) kernel.Operand {
	t := acc.Type()
	if t.IsVector() && t.Elem == kernel.Float32 {
		if e != kernel.Float32 {
			l.fail(p, "to_vector<%v> of a float accumulator", e)
		}
		return acc
	}
	if !t.IsAcc() {
		l.fail(p, "to_vector of %v: not an accumulator", t)
	}
	var op kernel.Op
	switch {
	case e == kernel.Int16 && t.Elem == kernel.Acc48, e == kernel.Int32 && t.Elem == kernel.Acc80:
		op = kernel.OpSRS
	case e == kernel.Int32 && t.Elem == kernel.Acc48:
		op = kernel.OpLSRS
	case e == kernel.Int8:
		op = kernel.OpBSRS
	case e == kernel.UInt8:
		op = kernel.OpUBSRS
	default:
		l.fail(p, "to_vector<%v> of %v is not supported on AIE1", e, t)
	}
	return l.emitOp(b, p, op, acc, shift)
}

func (l *lowerer) apiNeg(b *kernel.Builder, p Pos, a kernel.Operand) kernel.Operand {
	t := a.Type()
	if t.IsVector() || t.IsAcc() {
		return l.apiAddSub(b, p, true, l.null(b, p, t), a)
	}
	l.fail(p, "negation of %v is not supported", t)
	return kernel.Operand{}
}

// apiBinary lowers a binary operator on vectors or accumulators: + and - (the intrinsics'
// operator+ / operator-, aie::add / aie::sub) and * (aie::operators: aie::mul).
func (l *lowerer) apiBinary(b *kernel.Builder, x *Binary, a, c kernel.Operand) (kernel.Op, kernel.Operand, kernel.Operand) {
	switch x.Op {
	case "+":
		if a.Type() == kernel.VecOf(kernel.Float32, 8) && c.Type() == a.Type() {
			return opAPIDone, l.apiAddSub(b, x.Pos, false, a, c), kernel.Operand{}
		}
		return kernel.OpVAdd, a, c
	case "-":
		if a.Type() == kernel.VecOf(kernel.Float32, 8) && c.Type() == a.Type() {
			return opAPIDone, l.apiAddSub(b, x.Pos, true, a, c), kernel.Operand{}
		}
		return kernel.OpVSub, a, c
	case "*":
		return opAPIDone, l.lanewise(b, x.Pos, kernel.Mul, kernel.Operand{}, a, c), kernel.Operand{}
	}
	l.fail(x.Pos, "operator %s on %v and %v is not supported", x.Op, a.Type(), c.Type())
	return 0, a, c
}

// apiAutoObject binds `auto m = aie::mmul<...>{};` (nil: not an object initializer).
func (l *lowerer) apiAutoObject(b *kernel.Builder, d *Declarator, init Expr) *sym {
	if c, ok := init.(*Call); ok && c.Recv == nil && c.Fun == "aie::mmul" && c.HasTA && len(c.Args) == 0 {
		return l.apiObject(b, d, &TypeName{Pos: c.Pos, Base: "aie::mmul", Args: c.TArgs})
	}
	return nil
}

// apiObject declares an aie::mmul<M, K, N, TA, TB> object: its accumulators.
func (l *lowerer) apiObject(b *kernel.Builder, d *Declarator, t *TypeName) *sym {
	if len(t.Args) < 5 || t.Args[3].Type == nil || t.Args[4].Type == nil {
		l.fail(t.Pos, "aie::mmul<M, K, N, TypeA, TypeB> needs five arguments")
	}
	o := &apiObj{kind: "mmul", pos: t.Pos,
		m: int(l.constArg(t.Args[0], "M")), k: int(l.constArg(t.Args[1], "K")), n: int(l.constArg(t.Args[2], "N")),
		ta: l.elemOf(t.Args[3].Type), tb: l.elemOf(t.Args[4].Type)}
	if err := o.shapeCheck(); err != "" {
		l.fail(t.Pos, "aie::mmul<%d, %d, %d, %v, %v>: %s", o.m, o.k, o.n, o.ta, o.tb, err)
	}
	lanes, nacc := 16, o.m*o.n/16
	o.accType = kernel.AccOf(kernel.Acc48, 16)
	if o.ta == kernel.Float32 {
		lanes, nacc = 8, o.m*o.n/8
		o.accType = kernel.VecOf(kernel.Float32, 8)
	}
	if o.ta == kernel.Int32 {
		// int32 x int32 accumulates in acc80 (API "detail/aie1/mmul_32_32.hpp")
		lanes, nacc = 8, o.m*o.n/8
		o.accType = kernel.AccOf(kernel.Acc80, 8)
	}
	_ = lanes
	for i := 0; i < nacc; i++ {
		o.accs = append(o.accs, l.newVar(b, d.Pos, d.Name+"_c"+itoa(i), o.accType))
	}
	if d.Init != nil {
		l.fail(d.Pos, "an aie::mmul object is declared without an initializer")
	}
	return &sym{kind: symObj, obj: o}
}

// shapeCheck says why sumac does not lower a shape ("" if it does). The supported shapes are
// the AIE1 ones of the API ("detail/mmul.hpp") that the lowerings below cover.
func (o *apiObj) shapeCheck() string {
	switch {
	case o.ta == kernel.Int16 && o.tb == kernel.Int16:
		if (o.m*o.n != 16 && o.m*o.n != 32) || o.k%2 != 0 || o.n%2 != 0 || o.n > 8 || (o.m-1)*o.k > 31 || o.m*o.k > 64 {
			return "sumac lowers int16 x int16 shapes with 16 or 32 outputs, even K, N of 2, 4 or 8 (4x4x4, 2x4x8, 4x4x8, 4x2x8)"
		}
	case (o.ta == kernel.Int8 || o.ta == kernel.UInt8) && (o.tb == kernel.Int8 || o.tb == kernel.UInt8):
		if o.m != 4 || o.k != 8 || o.n != 4 {
			return "sumac lowers the 8-bit shape 4x8x4"
		}
	case o.ta == kernel.Float32 && o.tb == kernel.Float32:
		if o.m*o.n%8 != 0 || o.k*o.n > 8 || o.m*o.k > 16 {
			return "sumac lowers float shapes with outputs in whole 8-lane accumulators, K*N <= 8 and M*K <= 16 (4x2x4, 4x2x2, 4x4x2)"
		}
	case o.ta == kernel.Int32 && o.tb == kernel.Int32:
		if o.m*o.n%8 != 0 || o.k*o.n > 8 || o.m*o.k > 16 {
			return "sumac lowers int32 shapes with outputs in whole 8-lane accumulators, K*N <= 8 and M*K <= 16 (4x2x4, 4x2x2, 4x4x2)"
		}
	default:
		return "sumac lowers int16 x int16, 8-bit x 8-bit, int32 x int32 and float x float"
	}
	return ""
}

// apiObjMethod lowers m.mul(a, b), m.mac(a, b), m.to_vector<T>(shift) and m.to_accum().
func (l *lowerer) apiObjMethod(b *kernel.Builder, c *Call, s *sym, dst *kernel.Var) (kernel.Operand, bool) {
	o := s.obj
	p := c.Pos
	switch c.Fun {
	case "mul", "mac":
		if len(c.Args) != 2 {
			l.fail(p, "mmul::%s(a, b) takes two vectors", c.Fun)
		}
		a, bm := l.expr(b, c.Args[0]), l.expr(b, c.Args[1])
		l.mmul(b, p, o, a, bm, c.Fun == "mac")
		return kernel.Operand{}, true
	case "to_vector":
		if len(c.TArgs) != 1 || c.TArgs[0].Type == nil || len(c.Args) > 1 {
			l.fail(p, "mmul::to_vector<T>([shift])")
		}
		e := l.elemOf(c.TArgs[0].Type)
		shift := kernel.Imm(0)
		if len(c.Args) == 1 {
			shift = l.expr(b, c.Args[0])
		}
		var parts []kernel.Operand
		for _, a := range o.accs {
			parts = append(parts, l.toVector(b, p, kernel.V(a), e, shift))
		}
		if len(parts) == 1 {
			return parts[0], true
		}
		return l.emitOp(b, p, kernel.OpConcat, parts...), true
	case "to_accum":
		if len(o.accs) != 1 {
			l.fail(p, "mmul::to_accum(): this shape's result spans %d accumulator registers", len(o.accs))
		}
		return kernel.V(o.accs[0]), true
	}
	l.fail(p, "mmul::%s is not supported (mul, mac, to_vector, to_accum)", c.Fun)
	return kernel.Operand{}, false
}

func (l *lowerer) apiObjValue(b *kernel.Builder, x *Ident, s *sym) kernel.Operand {
	if len(s.obj.accs) == 1 {
		return kernel.V(s.obj.accs[0])
	}
	l.fail(x.Pos, "%s is an aie::mmul object: use %s.to_vector<T>() or %s.to_accum()", x.Name, x.Name, x.Name)
	return kernel.Operand{}
}

// mmul lowers C (+)= A * B for one aie::mmul (API "detail/aie1/mmul_16_16.hpp",
// "mmul_8_8.hpp", "mmul_32_32.hpp"):
//   - int16: per 16-lane accumulator, K/2 mac16 (the first a mul16 for mul): X is A grown to
//     32 (or 64) lanes, each lane pair reading its row's two values at xstart = k
//     (xoffsets: the even lane's word m*K/2, xsquare 0x1010: both lanes take the even lane's
//     pair), Z the 16 values of B holding rows k and k+1 (zoffsets n, zstep N). 4x4x4 is the
//     API's two mac16 (xoffsets 0x02020000 / 0x06060404, xsquare 0x1010, zstart 0 then 8,
//     zoffsets 0x32103210, zstep 4).
//   - int8 4x8x4: one 8-bit mac16 with B as X (xoffsets 0, xstep 8, xsquare 0x3120) and A as
//     Z (zoffsets 0xcc884400, zstep 2, zsquare 0x1010).
//   - float: per 8-lane accumulator, K fpmac (the first an fpmul for mul): X = A (xstart k,
//     xoffsets m*K per lane), Z = B (zstart k*N, zoffsets n).
//   - int32: as float with lmul8/lmac8 (8 lanes x 1 column, 32-bit selection; UG1079 "MAC on
//     32x32 bits") into acc80, X = A grown to the 16 lanes lmac8 takes.
func (l *lowerer) mmul(b *kernel.Builder, p Pos, o *apiObj, a, bm kernel.Operand, accumulate bool) {
	at, bt := a.Type(), bm.Type()
	if !at.IsVector() || at.Elem != o.ta || at.Lanes != o.m*o.k {
		l.fail(p, "mmul<%d, %d, %d>: A must be a vector of %d %v, have %v", o.m, o.k, o.n, o.m*o.k, o.ta, at)
	}
	if !bt.IsVector() || bt.Elem != o.tb || bt.Lanes != o.k*o.n {
		l.fail(p, "mmul<%d, %d, %d>: B must be a vector of %d %v, have %v", o.m, o.k, o.n, o.k*o.n, o.tb, bt)
	}
	nib := func(vals []int) int64 {
		var w int64
		for i, v := range vals {
			w |= int64(v&0xF) << (4 * i)
		}
		return w
	}
	var macs []*kernel.Instr
	emit := func(acc *kernel.Var, first bool, mulOp, macOp kernel.Op, args []kernel.Operand) {
		if first && !accumulate {
			macs = append(macs, b.At(kpos(p)).Set(acc, mulOp, args...))
			return
		}
		macs = append(macs, b.At(kpos(p)).Set(acc, macOp, append([]kernel.Operand{kernel.V(acc)}, args...)...))
	}
	keep := func([]*kernel.Instr) {}
	defer func() { keep(macs) }()
	switch {
	case o.ta == kernel.Int16:
		X := a
		if at.Lanes < 32 {
			X, keep = l.growUnread(b, p, a, 32)
		}
		rowsPerAcc := 16 / o.n
		for j, acc := range o.accs {
			var xo [16]int
			var zo [16]int
			for ln := 0; ln < 16; ln++ {
				m := j*rowsPerAcc + ln/o.n
				if ln%2 == 0 {
					xo[ln] = m * o.k / 2
				}
				zo[ln] = ln % o.n
			}
			for kk := 0; kk < o.k; kk += 2 {
				var Z kernel.Operand
				zstart := kk * o.n
				switch {
				case bt.Lanes == 16:
					Z = bm
				case bt.Lanes < 16:
					Z = l.grow(b, p, bm, 16)
				default:
					Z = l.emitOp(b, p, kernel.OpExtW, bm, kernel.Imm(int64(zstart/16)))
					zstart %= 16
				}
				args := []kernel.Operand{X, kernel.Imm(int64(kk)), kernel.Imm(nib(xo[:8])), kernel.Imm(nib(xo[8:])), kernel.Imm(0x1010),
					Z, kernel.Imm(int64(zstart)), kernel.Imm(nib(zo[:8])), kernel.Imm(nib(zo[8:])), kernel.Imm(int64(o.n))}
				emit(acc, kk == 0, kernel.OpMul16, kernel.OpMac16, args)
			}
		}
	case o.ta == kernel.Int8 || o.ta == kernel.UInt8:
		X, k := l.growUnread(b, p, bm, 64)
		keep = k
		args := []kernel.Operand{X, kernel.Imm(0), kernel.Imm(0), kernel.Imm(8), kernel.Imm(0x3120),
			a, kernel.Imm(0), kernel.Imm(0xcc884400), kernel.Imm(2), kernel.Imm(0x1010)}
		emit(o.accs[0], true, kernel.OpMul16, kernel.OpMac16, args)
	case o.ta == kernel.Float32 || o.ta == kernel.Int32:
		mulOp, macOp, xl := kernel.OpFPMul, kernel.OpFPMac, 8
		if o.ta == kernel.Int32 {
			mulOp, macOp, xl = kernel.OpLMul8, kernel.OpLMac8, 16
		}
		X := a
		if at.Lanes < xl {
			X, keep = l.growUnread(b, p, a, xl)
		}
		Z := bm
		if bt.Lanes < 8 {
			Z = l.grow(b, p, bm, 8)
		}
		for j, acc := range o.accs {
			var xo, zo [8]int
			for ln := 0; ln < 8; ln++ {
				out := 8*j + ln
				xo[ln] = (out / o.n) * o.k
				zo[ln] = out % o.n
			}
			for k := 0; k < o.k; k++ {
				args := []kernel.Operand{X, kernel.Imm(int64(k)), kernel.Imm(nib(xo[:])), Z, kernel.Imm(int64(k * o.n)), kernel.Imm(nib(zo[:]))}
				emit(acc, k == 0, mulOp, macOp, args)
			}
		}
	}
}

// apiMethod lowers the member functions of API values: acc.to_vector<T>(shift),
// acc.from_vector(v, shift), v.extract<N>(i), v.insert(i, w), v.get(i), v.set(x, i),
// v.grow<N>(), v.size().
func (l *lowerer) apiMethod(b *kernel.Builder, c *Call, dst *kernel.Var) (kernel.Operand, bool) {
	p := c.Pos
	recv := l.expr(b, c.Recv)
	t := recv.Type()
	target := func() *kernel.Var {
		if id, ok := stripParen(c.Recv).(*Ident); ok {
			if s := l.lookup(id.Name); s != nil && s.kind == symVar {
				return s.v
			}
		}
		l.fail(p, "%s modifies its object: call it on a variable", c.Fun)
		return nil
	}
	switch c.Fun {
	case "to_vector":
		if len(c.TArgs) == 0 && len(c.Args) == 0 && t.Elem == kernel.Float32 {
			// accum<accfloat, N>::to_vector(): its floats
			return l.toVector(b, p, recv, kernel.Float32, kernel.Imm(0)), true
		}
		if len(c.TArgs) != 1 || c.TArgs[0].Type == nil || len(c.Args) > 1 {
			l.fail(p, "to_vector<T>([shift])")
		}
		shift := kernel.Imm(0)
		if len(c.Args) == 1 {
			shift = l.expr(b, c.Args[0])
		}
		return l.toVector(b, p, recv, l.elemOf(c.TArgs[0].Type), shift), true
	case "from_vector":
		if len(c.Args) < 1 || len(c.Args) > 2 {
			l.fail(p, "from_vector(v[, shift])")
		}
		v := l.expr(b, c.Args[0])
		shift := kernel.Imm(0)
		if len(c.Args) == 2 {
			shift = l.expr(b, c.Args[1])
		}
		if t.IsVector() && t.Elem == kernel.Float32 && v.Type() == t {
			// accum<accfloat, N> is a float vector on AIE1 (API "accum_native_types.hpp"):
			// from_vector copies the lanes
			tv := target()
			b.At(kpos(p)).Mov(tv, v)
			return kernel.V(tv), true
		}
		op := kernel.OpUPS
		if t.IsAcc() && t.Elem == kernel.Acc48 && v.Type().Elem == kernel.Int32 {
			op = kernel.OpLUPS
		}
		tv := target()
		args := []kernel.Operand{v, shift}
		l.checkOp(p, op, args, kernel.Type{})
		b.At(kpos(p)).Set(tv, op, args...)
		return kernel.V(tv), true
	case "extract":
		n := l.templateLanes(c)
		if len(c.Args) != 1 || !t.IsVector() {
			l.fail(p, "extract<N>(i) on a vector")
		}
		part := kernel.VecOf(t.Elem, n)
		op := map[int]kernel.Op{128: kernel.OpExtV, 256: kernel.OpExtW, 512: kernel.OpExtX}[part.Bits()]
		if op == 0 || part.Bits() >= t.Bits() {
			l.fail(p, "extract<%d> of %v: the part must be 128, 256 or 512 bits and narrower than the vector", n, t)
		}
		return l.emitOp(b, p, op, recv, l.expr(b, c.Args[0])), true
	case "insert":
		if len(c.Args) != 2 || !t.IsVector() {
			l.fail(p, "insert(i, part) on a vector")
		}
		idx, part := l.expr(b, c.Args[0]), l.expr(b, c.Args[1])
		op := map[int]kernel.Op{128: kernel.OpUpdV, 256: kernel.OpUpdW, 512: kernel.OpUpdX}[part.Type().Bits()]
		if op == 0 {
			l.fail(p, "insert of %v: the part must be 128, 256 or 512 bits", part.Type())
		}
		tv := target()
		args := []kernel.Operand{kernel.V(tv), idx, part}
		l.checkOp(p, op, args, kernel.Type{})
		b.At(kpos(p)).Set(tv, op, args...)
		return kernel.V(tv), true
	case "get":
		if len(c.Args) != 1 || !t.IsVector() {
			l.fail(p, "get(i) on a vector")
		}
		return l.emitOp(b, p, kernel.OpExtElem, recv, l.expr(b, c.Args[0])), true
	case "set":
		if len(c.Args) != 2 || !t.IsVector() {
			l.fail(p, "set(value, i) on a vector")
		}
		val, idx := l.expr(b, c.Args[0]), l.expr(b, c.Args[1])
		tv := target()
		args := []kernel.Operand{kernel.V(tv), idx, val}
		l.checkOp(p, kernel.OpUpdElem, args, kernel.Type{})
		b.At(kpos(p)).Set(tv, kernel.OpUpdElem, args...)
		return kernel.V(tv), true
	case "grow":
		n := l.templateLanes(c)
		if !t.IsVector() || n <= t.Lanes || n%t.Lanes != 0 {
			l.fail(p, "grow<%d> of %v", n, t)
		}
		if len(c.Args) > 0 {
			l.fail(p, "grow<N>(position) is not supported (the vector goes in the low lanes)")
		}
		return l.grow(b, p, recv, n), true
	case "size":
		return kernel.Imm(int64(t.Lanes)), true
	}
	l.fail(p, "member function %s of %v is not supported", c.Fun, t)
	return kernel.Operand{}, false
}
