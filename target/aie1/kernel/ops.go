package kernel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/num"
)

// Op is an operation of the kernel IR.
type Op uint8

const (
	OpInvalid Op = iota

	// Copies and scalar arithmetic. Scalar ops follow C: operands are converted to int,
	// unsigned or float by the usual arithmetic conversions, the result to Dst's type.
	OpMov // Dst = a (same class; scalars convert to Dst's type)
	OpAdd // a + b (scalars)
	OpSub
	OpMul
	OpDiv // C division, truncating; division by zero is a run-time error
	OpRem
	OpShl
	OpShr // arithmetic for signed, logical for unsigned
	OpAnd
	OpOr
	OpXor
	OpNeg  // -a
	OpNot  // ~a
	OpLNot // !a
	OpEq   // comparisons give int 0/1
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpPtrAdd // Dst = p + n (n in elements of p's pointee, C pointer arithmetic)

	// Vector and accumulator element-wise.
	OpVAdd // operator+(a, b)
	OpVSub // operator-(a, b)

	// Building and splitting vectors (UG1079 "Update, Extract, and Shift").
	OpUpdV    // upd_v(buf, idx, v128): replace 128-bit part idx of buf
	OpUpdW    // upd_w(buf, idx, v256)
	OpUpdX    // upd_x(buf, idx, v512)
	OpExtV    // ext_v(buf, idx): 128-bit part idx of buf
	OpExtW    // ext_w(buf, idx)
	OpExtX    // ext_x(buf, idx)
	OpConcat  // concat(a, b) or concat(a, b, c, d): a in the low part
	OpExtElem // ext_elem(v, idx): scalar lane idx
	OpUpdElem // upd_elem(v, idx, s): v with lane idx replaced by s
	OpUndef   // undef_T(): a value with no defined contents (Dst's type)
	OpNull    // null_T(): all lanes zero (Dst's type)

	// Moving between accumulators and vectors (UG1079 "Shift-Round-Saturate").
	OpSRS   // srs(acc, shift): v16acc48->v16int16, v8acc48->v8int16, v8acc80->v8int32, v4acc80->v4int32
	OpLSRS  // lsrs(acc, shift): v8acc48->v8int32, v16acc48->v16int32
	OpBSRS  // bsrs(acc, shift): v16acc48->v16int8
	OpUBSRS // ubsrs(acc, shift): v16acc48->v16uint8
	OpUPS   // ups(v, shift): v16int16->v16acc48, v8int16->v8acc48, v8int32->v8acc80, v4int32->v4acc80
	OpLUPS  // lups(v, shift): v8int32->v8acc48, v16int32->v16acc48

	// MACs. Arguments are those of the C intrinsic in order (mul* have no acc argument):
	//   int16 mac16: acc, xbuff, xstart, xoffsets, xoffsets_hi, xsquare, zbuff, zstart, zoffsets, zoffsets_hi, zstep
	//   int8  mac16: acc, xbuff, xstart, xoffsets, xstep, xsquare, zbuff, zstart, zoffsets, zstep, zsquare
	//   int16 mac8:  acc, xbuff, xstart, xoffsets, xstep, xsquare, zbuff, zstart, zoffsets, zstep
	//   int32 lmac8: acc, xbuff, xstart, xoffsets, zbuff, zstart, zoffsets
	//   fp32 fpmac:  acc, xbuff, xstart, xoffsets, zbuff, zstart, zoffsets
	OpMul16
	OpMac16
	OpMsc16
	OpMul8
	OpMac8
	OpMsc8
	OpLMul8
	OpLMac8
	OpLMsc8
	OpFPMul
	OpFPMac
	OpFPMsc

	// Windows (UG1079 "Window and Streaming Data API"). The vector width of a read is the
	// lane count of Dst (window_readincr_v16 -> 16 lanes; window_readincr -> scalar).
	OpWinRead      // Dst = window_read_vN(w)
	OpWinReadIncr  // Dst = window_readincr_vN(w): read then advance by N elements
	OpWinWrite     // window_write(w, v)
	OpWinWriteIncr // window_writeincr(w, v): write then advance by the value's lanes
	OpWinIncr      // window_incr(w, n): advance by n elements (n may be negative)

	// Pointer memory access: Dst = *(T*)&p[i] and *(T*)&p[i] = v, the byte address being
	// p + i*sizeof(pointee of p) and T the type of Dst (or v).
	OpLoad  // args: p, i
	OpStore // args: p, i, v

	// Mode control (UG1079 "Rounding and Saturation Modes"): the rounding and saturation of
	// the srs family from here on. The argument is an immediate num.Round / num.Sat value;
	// C spellings: set_rnd(rnd_conv_even), set_sat(), clr_sat() (RoundConst, SatCall).
	OpSetRnd
	OpSetSat

	// Dst = c ? a : b on scalars or values of one type (C's conditional operator with operands
	// free of side effects: both are evaluated, as a select instruction does).
	OpSelect
	// chess_separator_scheduler(n): no reordering across it; n extra cycles (UG1079
	// "Scheduling Separator"). No effect on the result.
	OpBarrier
	// Dst = the tile's cycle counter (aie::tile::cycles(), get_cycles(); UG1079 "Profiling
	// Kernel Code"). The interpreter and the emulation return the values the cycle simulator
	// read (Config.CycleReads), else 0.
	OpCycles
	// Dst = a pointer to the window's current position (window->ptr, UG1079 "Window and
	// Streaming Data API"); Dst's pointee type is the view.
	OpWinPtr
	// Streams (UG1079 "Reading and Advancing an Input Stream"): Dst = readincr(s) (a scalar,
	// readincr_vN: a vector; on a cascade an accumulator), writeincr(s, v).
	OpStreamRead
	OpStreamWrite

	// Float vector lane operations (AI Engine intrinsics, group intr_gpvectorop_arit_adv_flt
	// and intr_gpvectorop_word_cmp_flt; wrappers of fpmac_conf on the floating-point vector
	// unit): Dst[i] = op(acc[i], xbuf[xstart + xoffs(i)]) for the 8 lanes, args (acc v8float,
	// xbuf v8/v16/v32float, xstart, xoffs).
	OpFPAdd
	OpFPSub
	OpFPMax
	OpFPMin
	// Element-wise maximum and minimum of two vectors of one type (aie::max, aie::min; API
	// "max_min.hpp": max16/32, min16/32, fpmax).
	OpVMax
	OpVMin
	// Dst = every lane the scalar argument (aie::broadcast<T, N>; API "broadcast.hpp").
	OpBroadcast
	// Dst[i] = xbuf[(xstart + xoffs(i)) mod N] for the 8 lanes (AI Engine intrinsics, group
	// intr_gpvectorop_vec_sel_simple_flt, "Shuffle for single precision real floating point
	// vectors"): args (xbuf v8/v16/v32float, xstart, xoffs); fpshuffle(xbuf) is xstart 0,
	// xoffs 0x76543210.
	OpFPShuffle
	// Dst = unpack(v): 8-bit lanes widened to 16 bits, signed lanes sign-extended and unsigned
	// ones zero-extended (AI Engine intrinsics, group intr_gpvectorconv_pack, "Pack":
	// v16int16 unpack(v16int8), v32int16 unpack(v32int8) and the uint8 forms).
	OpUnpack

	numOps
)

// OpInfo describes an op.
type OpInfo struct {
	Name    string // C spelling: intrinsic name or operator
	MinArgs int
	MaxArgs int
	HasDst  bool
	// DstTyped: the result type cannot be inferred from the operands; it is Dst's type
	// (undef_*, null_*, window reads, loads).
	DstTyped bool
	// MAC: Lanes x Cols multiplications per call (for MAC counting); 0 for other ops.
	Lanes, Cols int
	// Acc: the op takes the accumulator as its first argument (mac*, msc*).
	Acc bool
}

var opInfo = [numOps]OpInfo{
	OpMov:    {Name: "=", MinArgs: 1, MaxArgs: 1, HasDst: true},
	OpAdd:    {Name: "+", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpSub:    {Name: "-", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpMul:    {Name: "*", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpDiv:    {Name: "/", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpRem:    {Name: "%", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpShl:    {Name: "<<", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpShr:    {Name: ">>", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpAnd:    {Name: "&", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpOr:     {Name: "|", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpXor:    {Name: "^", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpNeg:    {Name: "neg", MinArgs: 1, MaxArgs: 1, HasDst: true},
	OpNot:    {Name: "~", MinArgs: 1, MaxArgs: 1, HasDst: true},
	OpLNot:   {Name: "!", MinArgs: 1, MaxArgs: 1, HasDst: true},
	OpEq:     {Name: "==", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpNe:     {Name: "!=", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpLt:     {Name: "<", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpLe:     {Name: "<=", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpGt:     {Name: ">", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpGe:     {Name: ">=", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpPtrAdd: {Name: "ptradd", MinArgs: 2, MaxArgs: 2, HasDst: true},

	OpVAdd: {Name: "operator+", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpVSub: {Name: "operator-", MinArgs: 2, MaxArgs: 2, HasDst: true},

	OpUpdV:    {Name: "upd_v", MinArgs: 3, MaxArgs: 3, HasDst: true},
	OpUpdW:    {Name: "upd_w", MinArgs: 3, MaxArgs: 3, HasDst: true},
	OpUpdX:    {Name: "upd_x", MinArgs: 3, MaxArgs: 3, HasDst: true},
	OpExtV:    {Name: "ext_v", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpExtW:    {Name: "ext_w", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpExtX:    {Name: "ext_x", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpConcat:  {Name: "concat", MinArgs: 2, MaxArgs: 4, HasDst: true},
	OpExtElem: {Name: "ext_elem", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpUpdElem: {Name: "upd_elem", MinArgs: 3, MaxArgs: 3, HasDst: true},
	OpUndef:   {Name: "undef", HasDst: true, DstTyped: true},
	OpNull:    {Name: "null", HasDst: true, DstTyped: true},

	OpSRS:   {Name: "srs", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpLSRS:  {Name: "lsrs", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpBSRS:  {Name: "bsrs", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpUBSRS: {Name: "ubsrs", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpUPS:   {Name: "ups", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpLUPS:  {Name: "lups", MinArgs: 2, MaxArgs: 2, HasDst: true},

	// MinArgs/MaxArgs differ for the int16 and int8 forms of mul16/mac16 (same count: 10/11).
	OpMul16: {Name: "mul16", MinArgs: 8, MaxArgs: 10, HasDst: true, Lanes: 16},
	OpMac16: {Name: "mac16", MinArgs: 9, MaxArgs: 11, HasDst: true, Lanes: 16, Acc: true},
	OpMsc16: {Name: "msc16", MinArgs: 9, MaxArgs: 11, HasDst: true, Lanes: 16, Acc: true},
	OpMul8:  {Name: "mul8", MinArgs: 9, MaxArgs: 9, HasDst: true, Lanes: 8, Cols: 4},
	OpMac8:  {Name: "mac8", MinArgs: 10, MaxArgs: 10, HasDst: true, Lanes: 8, Cols: 4, Acc: true},
	OpMsc8:  {Name: "msc8", MinArgs: 10, MaxArgs: 10, HasDst: true, Lanes: 8, Cols: 4, Acc: true},
	OpLMul8: {Name: "lmul8", MinArgs: 6, MaxArgs: 6, HasDst: true, Lanes: 8, Cols: 1},
	OpLMac8: {Name: "lmac8", MinArgs: 7, MaxArgs: 7, HasDst: true, Lanes: 8, Cols: 1, Acc: true},
	OpLMsc8: {Name: "lmsc8", MinArgs: 7, MaxArgs: 7, HasDst: true, Lanes: 8, Cols: 1, Acc: true},
	OpFPMul: {Name: "fpmul", MinArgs: 6, MaxArgs: 6, HasDst: true, Lanes: 8, Cols: 1},
	OpFPMac: {Name: "fpmac", MinArgs: 7, MaxArgs: 7, HasDst: true, Lanes: 8, Cols: 1, Acc: true},
	OpFPMsc: {Name: "fpmsc", MinArgs: 7, MaxArgs: 7, HasDst: true, Lanes: 8, Cols: 1, Acc: true},

	OpWinRead:      {Name: "window_read", HasDst: true, MinArgs: 1, MaxArgs: 1, DstTyped: true},
	OpWinReadIncr:  {Name: "window_readincr", HasDst: true, MinArgs: 1, MaxArgs: 1, DstTyped: true},
	OpWinWrite:     {Name: "window_write", MinArgs: 2, MaxArgs: 2},
	OpWinWriteIncr: {Name: "window_writeincr", MinArgs: 2, MaxArgs: 2},
	OpWinIncr:      {Name: "window_incr", MinArgs: 2, MaxArgs: 2},

	OpLoad:  {Name: "load", MinArgs: 2, MaxArgs: 2, HasDst: true, DstTyped: true},
	OpStore: {Name: "store", MinArgs: 3, MaxArgs: 3},

	OpSetRnd: {Name: "set_rnd", MinArgs: 1, MaxArgs: 1},
	OpSetSat: {Name: "set_sat", MinArgs: 1, MaxArgs: 1},

	OpSelect:  {Name: "?:", MinArgs: 3, MaxArgs: 3, HasDst: true},
	OpBarrier: {Name: "chess_separator_scheduler", MinArgs: 1, MaxArgs: 1},
	OpCycles:  {Name: "get_cycles", HasDst: true, DstTyped: true},
	OpWinPtr:  {Name: "window_ptr", MinArgs: 1, MaxArgs: 1, HasDst: true, DstTyped: true},

	OpStreamRead:  {Name: "readincr", MinArgs: 1, MaxArgs: 1, HasDst: true, DstTyped: true},
	OpStreamWrite: {Name: "writeincr", MinArgs: 2, MaxArgs: 2},

	OpFPAdd: {Name: "fpadd", MinArgs: 4, MaxArgs: 4, HasDst: true},
	OpFPSub: {Name: "fpsub", MinArgs: 4, MaxArgs: 4, HasDst: true},
	OpFPMax: {Name: "fpmax", MinArgs: 4, MaxArgs: 4, HasDst: true},
	OpFPMin: {Name: "fpmin", MinArgs: 4, MaxArgs: 4, HasDst: true},

	OpVMax:      {Name: "aie::max", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpVMin:      {Name: "aie::min", MinArgs: 2, MaxArgs: 2, HasDst: true},
	OpBroadcast: {Name: "aie::broadcast", MinArgs: 1, MaxArgs: 1, HasDst: true, DstTyped: true},
	OpFPShuffle: {Name: "fpshuffle", MinArgs: 3, MaxArgs: 3, HasDst: true},
	OpUnpack:    {Name: "unpack", MinArgs: 1, MaxArgs: 1, HasDst: true},
}

// Info returns the description of op.
func (op Op) Info() OpInfo {
	if op < numOps {
		return opInfo[op]
	}
	return OpInfo{}
}

func (op Op) String() string {
	if op > OpInvalid && op < numOps {
		return op.Info().Name
	}
	return "Op(" + strconv.Itoa(int(op)) + ")"
}

// IsMAC reports whether op is a mul/mac/msc intrinsic.
func (op Op) IsMAC() bool { return op >= OpMul16 && op <= OpFPMsc }

// IsScalarArith reports whether op is scalar arithmetic or a comparison.
func (op Op) IsScalarArith() bool { return op >= OpAdd && op <= OpGe }

// IsCompare reports whether op is a comparison.
func (op Op) IsCompare() bool { return op >= OpEq && op <= OpGe }

// IsUnary reports whether op is a scalar unary op.
func (op Op) IsUnary() bool { return op == OpNeg || op == OpNot || op == OpLNot }

// IsMemory reports whether op reads or writes data memory (windows or pointers).
func (op Op) IsMemory() bool { return op >= OpWinRead && op <= OpStore && op != OpWinIncr }

// IsFPLane reports whether op is one of fpadd, fpsub, fpmax, fpmin.
func (op Op) IsFPLane() bool { return op >= OpFPAdd && op <= OpFPMin }

// IsStream reports whether op reads or writes a stream.
func (op Op) IsStream() bool { return op == OpStreamRead || op == OpStreamWrite }

// MACFamily gives, for a MAC op, the mul/mac/msc variant: 0 mul, 1 mac, 2 msc.
func (op Op) MACFamily() int {
	if !op.IsMAC() {
		return -1
	}
	return int(op-OpMul16) % 3
}

// CallName returns the C++ function name of a call with result type dst: window_readincr_v16,
// undef_v32int16, mac16, srs, ... Operators and loads/stores have no call name ("").
func CallName(op Op, dst Type) string {
	switch op {
	case OpUndef, OpNull:
		return op.Info().Name + "_" + dst.String()
	case OpWinRead, OpWinReadIncr:
		if dst.Class == Vector {
			return op.Info().Name + "_v" + strconv.Itoa(dst.Lanes)
		}
		return op.Info().Name
	case OpMov, OpPtrAdd, OpLoad, OpStore, OpSelect, OpWinPtr:
		return ""
	case OpStreamRead:
		if dst.Class == Vector || dst.Class == Accum {
			return "readincr_v" + strconv.Itoa(dst.Lanes)
		}
		return "readincr"
	case OpBroadcast:
		return "aie::broadcast<" + ScalarOf(dst.Elem).String() + ", " + strconv.Itoa(dst.Lanes) + ">"
	}
	if op.IsScalarArith() {
		return ""
	}
	return op.Info().Name
}

var callOps map[string]Op

func init() {
	callOps = map[string]Op{}
	for op := OpVAdd; op < numOps; op++ {
		switch op {
		case OpUndef, OpNull, OpWinRead, OpWinReadIncr, OpLoad, OpStore, OpSetSat, OpSelect, OpStreamRead, OpWinPtr, OpBroadcast:
			continue
		}
		callOps[opInfo[op].Name] = op
	}
}

// LookupCall maps a C++ call name to an op. For names that carry a type (undef_v32int16,
// null_v16acc48) it returns that type; for window_read(incr)_vN it returns lanes = N
// (1 for the scalar window_read/window_readincr). The caller supplies the window element.
func LookupCall(name string) (op Op, t Type, lanes int, ok bool) {
	if op, ok := callOps[name]; ok {
		return op, Type{}, 0, true
	}
	for _, p := range []struct {
		prefix string
		op     Op
	}{{"undef_", OpUndef}, {"null_", OpNull}} {
		if rest, ok := strings.CutPrefix(name, p.prefix); ok {
			t, err := ParseType(rest)
			if err != nil || (t.Class != Vector && t.Class != Accum) {
				return 0, Type{}, 0, false
			}
			return p.op, t, 0, true
		}
	}
	for _, p := range []struct {
		prefix string
		op     Op
	}{{"window_readincr", OpWinReadIncr}, {"window_read", OpWinRead}} {
		if rest, ok := strings.CutPrefix(name, p.prefix); ok {
			if rest == "" {
				return p.op, Type{}, 1, true
			}
			if n, ok := strings.CutPrefix(rest, "_v"); ok {
				if l, err := strconv.Atoi(n); err == nil && l > 1 && l <= 128 {
					return p.op, Type{}, l, true
				}
			}
			return 0, Type{}, 0, false
		}
	}
	return 0, Type{}, 0, false
}

// partBits is the width of the part that upd_v/w/x and ext_v/w/x replace or extract.
func partBits(op Op) int {
	switch op {
	case OpUpdV, OpExtV:
		return 128
	case OpUpdW, OpExtW:
		return 256
	case OpUpdX, OpExtX:
		return 512
	}
	return 0
}

// PartBits is the width in bits of the part an upd_*/ext_* op handles (0 for other ops).
func (op Op) PartBits() int { return partBits(op) }

func argErr(op Op, i int, format string, a ...any) error {
	return fmt.Errorf("%v: argument %d: %s", op, i+1, fmt.Sprintf(format, a...))
}

// AIE1 rounding-mode constants of set_rnd (AI Engine intrinsics reference, "Rounding modes";
// UG1079 "Rounding and Saturation Modes") and the num.Round each means.
var roundConsts = map[string]num.Round{
	"rnd_floor": num.Floor, "rnd_ceil": num.Ceil, "rnd_pos_inf": num.PosInf, "rnd_neg_inf": num.NegInf,
	"rnd_sym_inf": num.SymInf, "rnd_sym_zero": num.SymZero, "rnd_conv_even": num.ConvEven, "rnd_conv_odd": num.ConvOdd,
}

// RoundConst maps a set_rnd constant (rnd_conv_even, ...) to its rounding mode.
func RoundConst(name string) (num.Round, bool) {
	r, ok := roundConsts[name]
	return r, ok
}

// RoundConstName is the set_rnd constant of a rounding mode ("" for modes AIE1 lacks).
func RoundConstName(r num.Round) string {
	for n, m := range roundConsts {
		if m == r {
			return n
		}
	}
	return ""
}

// SatCall maps set_sat / clr_sat to the saturation mode they select (an OpSetSat argument):
// set_sat() turns saturation on, clr_sat() off (wrap).
func SatCall(name string) (num.Sat, bool) {
	switch name {
	case "set_sat":
		return num.Saturate, true
	case "clr_sat":
		return num.None, true
	}
	return 0, false
}
