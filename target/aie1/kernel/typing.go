package kernel

import "fmt"

// MACForm identifies which overload of a MAC intrinsic a call is; it fixes the argument
// layout, the lanes x columns and the operand selection rule.
type MACForm uint8

const (
	NoForm MACForm = iota
	// Form16x16: int16 x int16, 16 lanes x 2 columns (mul16/mac16/msc16 with v32int16 or
	// v64int16 X, v16int16 Z); AIE intrinsics reference, group vect_mult_16x16.
	Form16x16
	// Form8x8: 8-bit x 8-bit, 16 lanes x 8 columns (mul16/mac16/msc16 with v64(u)int8 or
	// v128(u)int8 X, v32(u)int8 Z); group vect_mult_8x8.
	Form8x8
	// Form16x16x4: int16 x int16, 8 lanes x 4 columns (mul8/mac8/msc8); group vect_mult_16x16.
	Form16x16x4
	// Form32x32: int32 x int32, 8 lanes x 1 column (lmul8/lmac8/lmsc8 with v8int32 Z);
	// group vect_mult_32x32.
	Form32x32
	// FormFloat: fp32, 8 lanes x 1 column (fpmul/fpmac/fpmsc).
	FormFloat
	// Form32x16: int32 x int16, 16 lanes x 1 column into 48-bit lanes (mul16/mac16/msc16 with
	// v16int32 or v32int32 X, v16int16 Z); llvm-aie AIE1InstrInfo.td: int_aie_mac16_v32int32 /
	// int_aie_mul16_v32int32 select VMAC48_S32_S16_BM / VMUL48_S32_S16_BM ("vmac.48 ... s32 ...
	// s16", II_VMAC / II_VMUL, an ACC768 accumulator: 16 lanes of 48 bits).
	Form32x16
)

var formNames = [...]string{"none", "int16x16 16x2", "int8x8 16x8", "int16x16 8x4", "int32x32 8x1", "fp32 8x1", "int32x16 16x1"}

func (f MACForm) String() string {
	if int(f) < len(formNames) {
		return formNames[f]
	}
	return "MACForm(?)"
}

// Shape returns lanes and columns of a MAC form (UG1079 "MAC Intrinsics", "MAC on 16x16 bits", "MAC on 8x8 bits").
func (f MACForm) Shape() (lanes, cols int) {
	switch f {
	case Form16x16:
		return 16, 2
	case Form8x8:
		return 16, 8
	case Form16x16x4:
		return 8, 4
	case Form32x32, FormFloat:
		return 8, 1
	case Form32x16:
		return 16, 1
	}
	return 0, 0
}

// MACLayout gives the argument index of each MAC parameter (-1: the form has none).
type MACLayout struct {
	Form                                      MACForm
	Acc                                       int
	X, XStart, XOffs, XOffsHi, XStep, XSquare int
	Z, ZStart, ZOffs, ZOffsHi, ZStep, ZSquare int
	NumArgs                                   int
}

// Layout returns the argument layout of a form, with or without the accumulator argument.
func Layout(f MACForm, withAcc bool) MACLayout {
	l := MACLayout{Form: f, Acc: -1, X: -1, XStart: -1, XOffs: -1, XOffsHi: -1, XStep: -1, XSquare: -1,
		Z: -1, ZStart: -1, ZOffs: -1, ZOffsHi: -1, ZStep: -1, ZSquare: -1}
	var order []*int
	switch f {
	case Form16x16:
		order = []*int{&l.X, &l.XStart, &l.XOffs, &l.XOffsHi, &l.XSquare, &l.Z, &l.ZStart, &l.ZOffs, &l.ZOffsHi, &l.ZStep}
	case Form8x8:
		order = []*int{&l.X, &l.XStart, &l.XOffs, &l.XStep, &l.XSquare, &l.Z, &l.ZStart, &l.ZOffs, &l.ZStep, &l.ZSquare}
	case Form16x16x4:
		order = []*int{&l.X, &l.XStart, &l.XOffs, &l.XStep, &l.XSquare, &l.Z, &l.ZStart, &l.ZOffs, &l.ZStep}
	case Form32x32, FormFloat:
		order = []*int{&l.X, &l.XStart, &l.XOffs, &l.Z, &l.ZStart, &l.ZOffs}
	case Form32x16:
		order = []*int{&l.X, &l.XStart, &l.XOffs, &l.XOffsHi, &l.Z, &l.ZStart, &l.ZOffs, &l.ZOffsHi}
	}
	n := 0
	if withAcc {
		l.Acc = 0
		n = 1
	}
	for _, p := range order {
		*p = n
		n++
	}
	l.NumArgs = n
	return l
}

// FormOf determines the MAC form of a call from the op and its X operand type.
func FormOf(op Op, args []Operand) (MACForm, error) {
	if !op.IsMAC() {
		return NoForm, fmt.Errorf("%v is not a MAC", op)
	}
	xi := 0
	if op.Info().Acc {
		xi = 1
	}
	if len(args) <= xi {
		return NoForm, fmt.Errorf("%v: missing X buffer", op)
	}
	x := args[xi].Type()
	switch op {
	case OpMul16, OpMac16, OpMsc16:
		switch {
		case x.Is(Vector, Int16) && (x.Lanes == 32 || x.Lanes == 64):
			return Form16x16, nil
		case x.Class == Vector && (x.Elem == Int8 || x.Elem == UInt8) && (x.Lanes == 64 || x.Lanes == 128):
			return Form8x8, nil
		case x.Is(Vector, Int32) && (x.Lanes == 16 || x.Lanes == 32):
			return Form32x16, nil
		}
		return NoForm, argErr(op, xi, "X buffer %v: want v32int16/v64int16 (int16 16x2), v64int8/v128int8/v64uint8/v128uint8 (8-bit 16x8) or v16int32/v32int32 (int32 x int16 16x1)", x)
	case OpMul8, OpMac8, OpMsc8:
		if x.Is(Vector, Int16) && (x.Lanes == 32 || x.Lanes == 64) {
			return Form16x16x4, nil
		}
		return NoForm, argErr(op, xi, "X buffer %v: want v32int16 or v64int16", x)
	case OpLMul8, OpLMac8, OpLMsc8:
		if x.Is(Vector, Int32) && (x.Lanes == 16 || x.Lanes == 32) {
			return Form32x32, nil
		}
		return NoForm, argErr(op, xi, "X buffer %v: want v16int32 or v32int32", x)
	case OpFPMul, OpFPMac, OpFPMsc:
		if x.Is(Vector, Float32) && (x.Lanes == 8 || x.Lanes == 16 || x.Lanes == 32) {
			return FormFloat, nil
		}
		return NoForm, argErr(op, xi, "X buffer %v: want v8float, v16float or v32float", x)
	}
	return NoForm, fmt.Errorf("%v: unknown MAC", op)
}

// macTypes gives the accumulator (= result) type and the Z buffer type check of each form.
func macAccType(f MACForm) Type {
	switch f {
	case Form16x16, Form8x8, Form32x16:
		return AccOf(Acc48, 16)
	case Form16x16x4:
		return AccOf(Acc48, 8)
	case Form32x32:
		return AccOf(Acc80, 8)
	case FormFloat:
		return VecOf(Float32, 8)
	}
	return Type{}
}

func macZOK(f MACForm, z Type) bool {
	switch f {
	case Form16x16, Form16x16x4, Form32x16:
		return z == VecOf(Int16, 16)
	case Form8x8:
		return z.Class == Vector && (z.Elem == Int8 || z.Elem == UInt8) && z.Lanes == 32
	case Form32x32:
		return z == VecOf(Int32, 8)
	case FormFloat:
		return z == VecOf(Float32, 8)
	}
	return false
}

var macZNames = [...]string{"", "v16int16", "v32int8 or v32uint8", "v16int16", "v8int32", "v8float", "v16int16"}

// ResultType returns the type of op applied to args, checking the operand types. For ops
// whose result type is not determined by the operands (OpInfo.DstTyped: undef_*, null_*,
// window reads, loads) want is the requested type and is checked; otherwise want is ignored
// (pass Type{}).
func ResultType(op Op, args []Operand, want Type) (Type, error) {
	info := op.Info()
	if op <= OpInvalid || op >= numOps {
		return Type{}, fmt.Errorf("invalid op %d", op)
	}
	if len(args) < info.MinArgs || len(args) > info.MaxArgs {
		if info.MinArgs == info.MaxArgs {
			return Type{}, fmt.Errorf("%v: %d arguments, want %d", op, len(args), info.MinArgs)
		}
		return Type{}, fmt.Errorf("%v: %d arguments, want %d to %d", op, len(args), info.MinArgs, info.MaxArgs)
	}
	for i, a := range args {
		if a.Var != nil && !a.Var.Type.Valid() {
			return Type{}, argErr(op, i, "variable %s has invalid type %v", a.Var.Name, a.Var.Type)
		}
	}
	t := func(i int) Type { return args[i].Type() }
	intArg := func(i int) error {
		if !t(i).IsIntScalar() {
			return argErr(op, i, "want an integer, have %v", t(i))
		}
		return nil
	}
	switch {
	case op == OpMov:
		return t(0), nil
	case op.IsCompare(), op == OpLNot:
		for i := range args {
			if !t(i).IsScalar() && !t(i).IsPointer() {
				return Type{}, argErr(op, i, "want a scalar, have %v", t(i))
			}
		}
		return ScalarOf(Int32), nil
	case op.IsScalarArith():
		for i := range args {
			if !t(i).IsScalar() {
				return Type{}, argErr(op, i, "want a scalar, have %v", t(i))
			}
			if t(i).Elem == Float32 && (op == OpRem || op == OpShl || op == OpShr || op == OpAnd || op == OpOr || op == OpXor || op == OpNot) {
				return Type{}, argErr(op, i, "%v needs integers, have float", op)
			}
		}
		if op.IsUnary() {
			return promote(t(0), t(0)), nil
		}
		if op == OpShl || op == OpShr {
			return promote(t(0), t(0)), nil // C: the shift's type is the promoted left operand
		}
		return promote(t(0), t(1)), nil
	case op == OpPtrAdd:
		if !t(0).IsPointer() {
			return Type{}, argErr(op, 0, "want a pointer, have %v", t(0))
		}
		if err := intArg(1); err != nil {
			return Type{}, err
		}
		return t(0), nil
	case op == OpVAdd || op == OpVSub:
		// vector op vector (same type), accumulator op accumulator (same type), and
		// accumulator op vector with matching lanes: acc48 with int16, acc80 with int32
		// (intrinsics reference, group intr_gpvectorop_arit, "Operators").
		a, b := t(0), t(1)
		switch {
		case a.Class != Vector && a.Class != Accum:
			return Type{}, argErr(op, 0, "want a vector or accumulator, have %v", a)
		case b == a:
			return a, nil
		case a.Class == Accum && b.Class == Vector && b.Lanes == a.Lanes &&
			((a.Elem == Acc48 && b.Elem == Int16) || (a.Elem == Acc80 && b.Elem == Int32)):
			return a, nil
		}
		return Type{}, argErr(op, 1, "cannot combine %v with %v", b, a)
	case partBits(op) != 0:
		return partType(op, args)
	case op == OpConcat:
		if len(args) != 2 && len(args) != 4 {
			return Type{}, fmt.Errorf("concat: %d arguments, want 2 or 4", len(args))
		}
		a := t(0)
		if a.Class != Vector && a.Class != Accum {
			return Type{}, argErr(op, 0, "want a vector or accumulator, have %v", a)
		}
		for i := 1; i < len(args); i++ {
			if t(i) != a {
				return Type{}, argErr(op, i, "type %v differs from %v", t(i), a)
			}
		}
		r := a.WithLanes(a.Lanes * len(args))
		if err := r.check(); err != nil {
			return Type{}, fmt.Errorf("concat: %v", err)
		}
		return r, nil
	case op == OpExtElem:
		if t(0).Class != Vector {
			return Type{}, argErr(op, 0, "want a vector, have %v", t(0))
		}
		if err := intArg(1); err != nil {
			return Type{}, err
		}
		return ScalarOf(t(0).Elem), nil
	case op == OpUpdElem:
		if t(0).Class != Vector {
			return Type{}, argErr(op, 0, "want a vector, have %v", t(0))
		}
		if err := intArg(1); err != nil {
			return Type{}, err
		}
		if !t(2).IsScalar() {
			return Type{}, argErr(op, 2, "want a scalar, have %v", t(2))
		}
		return t(0), nil
	case op == OpUndef || op == OpNull:
		if want.Class != Vector && want.Class != Accum || !want.Valid() {
			return Type{}, fmt.Errorf("%v: result type %v is not a vector or accumulator", op, want)
		}
		return want, nil
	case op >= OpSRS && op <= OpLUPS:
		return srsType(op, args)
	case op.IsMAC():
		return macType(op, args)
	case op == OpWinRead || op == OpWinReadIncr:
		w := t(0)
		if !w.IsWindow() || w.Out {
			return Type{}, argErr(op, 0, "want an input window, have %v", w)
		}
		switch {
		case want.Class == Scalar && want.Elem == w.Elem:
		case want.Class == Vector && want.Elem == w.Elem && want.Valid():
		default:
			return Type{}, fmt.Errorf("%v: cannot read %v from %v", op, want, w)
		}
		return want, nil
	case op == OpWinWrite || op == OpWinWriteIncr:
		w := t(0)
		if !w.IsWindow() || !w.Out {
			return Type{}, argErr(op, 0, "want an output window, have %v", w)
		}
		v := t(1)
		if (v.Class != Vector && v.Class != Scalar) || v.Elem != w.Elem {
			return Type{}, argErr(op, 1, "cannot write %v to %v", v, w)
		}
		return Type{}, nil
	case op == OpWinIncr:
		if !t(0).IsWindow() {
			return Type{}, argErr(op, 0, "want a window, have %v", t(0))
		}
		return Type{}, intArg(1)
	case op == OpLoad || op == OpStore:
		if !t(0).IsPointer() {
			return Type{}, argErr(op, 0, "want a pointer, have %v", t(0))
		}
		if err := intArg(1); err != nil {
			return Type{}, err
		}
		val := want
		if op == OpStore {
			val = t(2)
		}
		if (val.Class != Vector && val.Class != Scalar) || !val.Valid() {
			return Type{}, fmt.Errorf("%v: cannot access %v through %v", op, val, t(0))
		}
		if op == OpStore {
			return Type{}, nil
		}
		return want, nil
	case op == OpSetRnd || op == OpSetSat:
		n := int64(10) // num's rounding modes
		if op == OpSetSat {
			n = 3
		}
		if !args[0].IsIntImm() || args[0].Imm < 0 || args[0].Imm >= n {
			return Type{}, argErr(op, 0, "want a constant mode 0..%d, have %v", n-1, args[0])
		}
		return Type{}, nil
	case op == OpSelect:
		c, a, b := t(0), t(1), t(2)
		if !c.IsScalar() && !c.IsPointer() {
			return Type{}, argErr(op, 0, "want a scalar condition, have %v", c)
		}
		switch {
		case a.IsScalar() && b.IsScalar():
			return promote(a, b), nil
		case a == b && (a.IsVector() || a.IsAcc() || a.IsPointer()):
			return a, nil
		}
		return Type{}, argErr(op, 2, "cannot select between %v and %v", a, b)
	case op == OpBarrier:
		if !args[0].IsIntImm() {
			return Type{}, argErr(op, 0, "want a constant cycle count, have %v", args[0])
		}
		return Type{}, nil
	case op == OpWinPtr:
		if !t(0).IsWindow() {
			return Type{}, argErr(op, 0, "want a window, have %v", t(0))
		}
		if !want.IsPointer() || !want.Valid() {
			return Type{}, fmt.Errorf("%v: result type %v is not a pointer", op, want)
		}
		return want, nil
	case op == OpStreamRead:
		s := t(0)
		if !s.IsStream() || s.Out {
			return Type{}, argErr(op, 0, "want an input stream, have %v", s)
		}
		ok := false
		switch {
		case s.Elem.IsAcc():
			ok = want.Class == Accum && want.Elem == s.Elem && want.Valid()
		case want.Class == Scalar:
			ok = want.Elem == s.Elem
		case want.Class == Vector:
			ok = want.Elem == s.Elem && want.Valid()
		}
		if !ok {
			return Type{}, fmt.Errorf("%v: cannot read %v from %v", op, want, s)
		}
		return want, nil
	case op == OpStreamWrite:
		s, v := t(0), t(1)
		if !s.IsStream() || !s.Out {
			return Type{}, argErr(op, 0, "want an output stream, have %v", s)
		}
		ok := false
		switch {
		case s.Elem.IsAcc():
			ok = v.Class == Accum && v.Elem == s.Elem
		default:
			ok = (v.Class == Scalar || v.Class == Vector) && v.Elem == s.Elem
		}
		if !ok {
			return Type{}, argErr(op, 1, "cannot write %v to %v", v, s)
		}
		return Type{}, nil
	case op == OpUnpack:
		if x := t(0); !(x.Is(Vector, Int8) || x.Is(Vector, UInt8)) || !(x.Lanes == 16 || x.Lanes == 32) {
			return Type{}, argErr(op, 0, "want v16int8, v32int8, v16uint8 or v32uint8, have %v", x)
		}
		return VecOf(Int16, t(0).Lanes), nil
	case op == OpFPShuffle:
		if x := t(0); !x.Is(Vector, Float32) || !(x.Lanes == 8 || x.Lanes == 16 || x.Lanes == 32) {
			return Type{}, argErr(op, 0, "want v8float, v16float or v32float, have %v", x)
		}
		if err := intArg(1); err != nil {
			return Type{}, err
		}
		if err := intArg(2); err != nil {
			return Type{}, err
		}
		return VecOf(Float32, 8), nil
	case op.IsFPLane():
		v8 := VecOf(Float32, 8)
		if t(0) != v8 {
			return Type{}, argErr(op, 0, "want v8float, have %v", t(0))
		}
		if x := t(1); !x.Is(Vector, Float32) || !(x.Lanes == 8 || x.Lanes == 16 || x.Lanes == 32) {
			return Type{}, argErr(op, 1, "want v8float, v16float or v32float, have %v", x)
		}
		if err := intArg(2); err != nil {
			return Type{}, err
		}
		if err := intArg(3); err != nil {
			return Type{}, err
		}
		return v8, nil
	case op == OpVMax || op == OpVMin:
		a, b := t(0), t(1)
		if !a.IsVector() || a != b {
			return Type{}, argErr(op, 1, "want two vectors of one type, have %v and %v", a, b)
		}
		return a, nil
	case op == OpBroadcast:
		if !want.IsVector() || !want.Valid() {
			return Type{}, fmt.Errorf("%v: result type %v is not a vector", op, want)
		}
		if !t(0).IsScalar() {
			return Type{}, argErr(op, 0, "want a scalar, have %v", t(0))
		}
		return want, nil
	case op == OpCycles:
		if !want.IsIntScalar() || want.Elem.Bits() != 32 {
			return Type{}, fmt.Errorf("%v: the cycle counter is read into a 32-bit integer, not %v", op, want)
		}
		return want, nil
	}
	return Type{}, fmt.Errorf("%v: no type rule", op)
}

// promote applies C's usual arithmetic conversions for 32-bit int: float wins, then
// unsigned int, otherwise int (int8/16 and uint8/16 promote to int).
func promote(a, b Type) Type { return ScalarOf(Promote(a.Elem, b.Elem)) }

func partType(op Op, args []Operand) (Type, error) {
	buf := args[0].Type()
	pb := partBits(op)
	if buf.Class != Vector {
		return Type{}, argErr(op, 0, "want a vector, have %v", buf)
	}
	if buf.Bits() <= pb {
		return Type{}, argErr(op, 0, "%v is not wider than the %d-bit part", buf, pb)
	}
	if !args[1].Type().IsIntScalar() {
		return Type{}, argErr(op, 1, "index must be an integer")
	}
	if args[1].IsIntImm() && (args[1].Imm < 0 || args[1].Imm >= int64(buf.Bits()/pb)) {
		return Type{}, argErr(op, 1, "index %d out of range 0..%d for %v", args[1].Imm, buf.Bits()/pb-1, buf)
	}
	part := buf.WithLanes(pb / buf.Elem.Bits())
	if op >= OpUpdV && op <= OpUpdX {
		if args[2].Type() != part {
			return Type{}, argErr(op, 2, "want %v, have %v", part, args[2].Type())
		}
		return buf, nil
	}
	return part, nil
}

// srsType: UG1079 "Shift-Round-Saturate" and the AIE intrinsics reference (srs, lsrs, bsrs,
// ubsrs, ups, lups) for AIE1.
func srsType(op Op, args []Operand) (Type, error) {
	a := args[0].Type()
	if !args[1].Type().IsIntScalar() {
		return Type{}, argErr(op, 1, "shift must be an integer")
	}
	if args[1].IsIntImm() && (args[1].Imm < 0 || args[1].Imm > 63) {
		return Type{}, argErr(op, 1, "shift %d out of range 0..63", args[1].Imm)
	}
	bad := func() (Type, error) { return Type{}, argErr(op, 0, "%v has no form for %v", op, a) }
	switch op {
	case OpSRS:
		switch a {
		case AccOf(Acc48, 16):
			return VecOf(Int16, 16), nil
		case AccOf(Acc48, 8):
			return VecOf(Int16, 8), nil
		case AccOf(Acc80, 8):
			return VecOf(Int32, 8), nil
		case AccOf(Acc80, 4):
			return VecOf(Int32, 4), nil
		}
	case OpLSRS:
		switch a {
		case AccOf(Acc48, 8):
			return VecOf(Int32, 8), nil
		case AccOf(Acc48, 16):
			return VecOf(Int32, 16), nil
		}
	case OpBSRS:
		if a == AccOf(Acc48, 16) {
			return VecOf(Int8, 16), nil
		}
	case OpUBSRS:
		if a == AccOf(Acc48, 16) {
			return VecOf(UInt8, 16), nil
		}
	case OpUPS:
		switch a {
		case VecOf(Int16, 16):
			return AccOf(Acc48, 16), nil
		case VecOf(Int16, 8):
			return AccOf(Acc48, 8), nil
		case VecOf(Int32, 8):
			return AccOf(Acc80, 8), nil
		case VecOf(Int32, 4):
			return AccOf(Acc80, 4), nil
		}
	case OpLUPS:
		switch a {
		case VecOf(Int32, 8):
			return AccOf(Acc48, 8), nil
		case VecOf(Int32, 16):
			return AccOf(Acc48, 16), nil
		}
	}
	return bad()
}

func macType(op Op, args []Operand) (Type, error) {
	f, err := FormOf(op, args)
	if err != nil {
		return Type{}, err
	}
	l := Layout(f, op.Info().Acc)
	if len(args) != l.NumArgs {
		return Type{}, fmt.Errorf("%v (%v): %d arguments, want %d", op, f, len(args), l.NumArgs)
	}
	acc := macAccType(f)
	if l.Acc >= 0 && args[l.Acc].Type() != acc {
		return Type{}, argErr(op, l.Acc, "accumulator %v, want %v", args[l.Acc].Type(), acc)
	}
	if z := args[l.Z].Type(); !macZOK(f, z) {
		return Type{}, argErr(op, l.Z, "Z buffer %v, want %s", z, macZNames[f])
	}
	for _, i := range []int{l.XStart, l.XOffs, l.XOffsHi, l.XStep, l.XSquare, l.ZStart, l.ZOffs, l.ZOffsHi, l.ZStep, l.ZSquare} {
		if i >= 0 && !args[i].Type().IsIntScalar() {
			return Type{}, argErr(op, i, "want an integer parameter, have %v", args[i].Type())
		}
	}
	return acc, nil
}

// CheckInstr checks one instruction: operand types, argument count, and that Dst has the
// result type (scalar results may be converted to any scalar Dst, as C assignment does).
func CheckInstr(in *Instr) error {
	info := in.Op.Info()
	var want Type
	if in.Dst != nil {
		want = in.Dst.Type
	}
	rt, err := ResultType(in.Op, in.Args, want)
	if err != nil {
		return err
	}
	switch {
	case info.HasDst && in.Dst == nil:
		return fmt.Errorf("%v: result not assigned", in.Op)
	case !info.HasDst && in.Dst != nil:
		return fmt.Errorf("%v has no result, but is assigned to %s", in.Op, in.Dst.Name)
	case in.Dst == nil:
		return nil
	case in.Dst.Type == rt:
		return nil
	case in.Dst.Type.IsScalar() && rt.IsScalar():
		return nil // C conversion on assignment
	case in.Op == OpMov && in.Dst.Type.IsPointer() && rt.IsPointer():
		return nil // pointer cast, e.g. v16int16 *p = (v16int16 *)Br
	}
	return fmt.Errorf("cannot assign %v (%v) to %s (%v)", in.Op, rt, in.Dst.Name, in.Dst.Type)
}
