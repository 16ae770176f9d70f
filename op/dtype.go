package op

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/num"
)

// DType is an element type of an operand or result.
type DType uint8

const (
	Invalid DType = iota
	Int8
	UInt8
	Int16
	Int32
	FP32
	FP64
	BF16
	BFP16 // block floating point, 8 values per shared exponent (num.BFP16)
	numDTypes
)

var dtypeNames = [...]string{"invalid", "int8", "uint8", "int16", "int32", "fp32", "fp64", "bf16", "bfp16"}

// dtypeAliases are accepted on input; String always prints the canonical name.
var dtypeAliases = map[string]DType{
	"i8": Int8, "u8": UInt8, "i16": Int16, "i32": Int32,
	"float32": FP32, "float64": FP64, "f32": FP32, "f64": FP64, "bfloat16": BF16,
}

func (d DType) String() string {
	if d < numDTypes {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// ParseDType parses a type name: int8, uint8, int16, int32, fp32, fp64, bf16, bfp16.
func ParseDType(s string) (DType, error) {
	for i := 1; i < int(numDTypes); i++ {
		if dtypeNames[i] == s {
			return DType(i), nil
		}
	}
	if d, ok := dtypeAliases[s]; ok {
		return d, nil
	}
	return Invalid, fmt.Errorf("unknown type %q (want one of %s)", s, strings.Join(dtypeNames[1:], ", "))
}

// IsInt reports whether d is an integer type.
func (d DType) IsInt() bool { return d == Int8 || d == UInt8 || d == Int16 || d == Int32 }

// Signed reports whether an integer type is signed.
func (d DType) Signed() bool { return d != UInt8 }

// Bits is the storage width of one element (bfp16: 8-bit mantissa, the shared exponent aside).
func (d DType) Bits() int {
	switch d {
	case Int8, UInt8, BFP16:
		return 8
	case Int16, BF16:
		return 16
	case Int32, FP32:
		return 32
	case FP64:
		return 64
	}
	return 0
}

// Range returns the smallest and largest value of an integer type.
func (d DType) Range() (lo, hi int64) {
	switch d {
	case Int8:
		return -128, 127
	case UInt8:
		return 0, 255
	case Int16:
		return -1 << 15, 1<<15 - 1
	case Int32:
		return -1 << 31, 1<<31 - 1
	}
	return 0, 0
}

// AccType is the type results are accumulated in.
type AccType uint8

const (
	AccInvalid AccType = iota
	Acc48              // AIE1 48-bit lanes, 8- and 16-bit operands (UG1079 "Accumulator Registers")
	Acc80              // AIE1 80-bit lanes, 32x32-bit products (UG1079)
	AccI32             // 32-bit integer (e.g. x86 VPMADDWD/VPADDD): wraps mod 2^32
	AccI64             // 64-bit integer
	AccF32             // IEEE binary32 (AIE1 fpmac, XDNA BF16/BFP16 VMAC.F)
	AccF64             // IEEE binary64
	numAccTypes
)

var accNames = [...]string{"invalid", "acc48", "acc80", "int32", "int64", "fp32", "fp64"}

func (a AccType) String() string {
	if a < numAccTypes {
		return accNames[a]
	}
	return fmt.Sprintf("AccType(%d)", uint8(a))
}

// ParseAccType parses an accumulator name: acc48, acc80, int32, int64, fp32, fp64.
func ParseAccType(s string) (AccType, error) {
	for i := 1; i < int(numAccTypes); i++ {
		if accNames[i] == s {
			return AccType(i), nil
		}
	}
	switch s {
	case "float32", "f32":
		return AccF32, nil
	case "float64", "f64":
		return AccF64, nil
	}
	return AccInvalid, fmt.Errorf("unknown accumulator %q (want one of %s)", s, strings.Join(accNames[1:], ", "))
}

// IsInt reports whether the accumulator is an integer.
func (a AccType) IsInt() bool { return a >= Acc48 && a <= AccI64 }

// Bits is the lane width of an integer accumulator (wrapping happens modulo 2^Bits).
func (a AccType) Bits() int {
	switch a {
	case Acc48:
		return num.Acc48
	case Acc80:
		return num.Acc80
	case AccI32:
		return 32
	case AccI64:
		return 64
	case AccF32:
		return 32
	case AccF64:
		return 64
	}
	return 0
}

// Types gives the operand, accumulator and output types of an operation and how the
// accumulator is narrowed to the output.
type Types struct {
	A, B  DType     // the two operands (conv2d: A = input, B = weights)
	Acc   AccType   // accumulator
	Out   DType     // output
	Shift uint      // right shift applied when narrowing an integer accumulator
	Round num.Round // rounding of the shifted-out bits
	Sat   num.Sat   // saturation to the output type
}

// defaultAcc is the accumulator sumac uses for an operand pair when the spec names none:
// the AI Engine's (UG1079: acc48 for 8/16-bit operands, acc80 when an operand is 32-bit;
// fp32 accumulation for fp32, bf16 and bfp16 - seed 002, XDNA VMAC.F), fp64 for fp64.
func defaultAcc(a, b DType) AccType {
	switch {
	case a == FP64 || b == FP64:
		return AccF64
	case !a.IsInt() || !b.IsInt():
		return AccF32
	case a == Int32 || b == Int32:
		return Acc80
	}
	return Acc48
}

// defaultOut is the output type when the spec names none: integer results are narrowed back to
// the wider operand type (seed 000 keeps outputs in the operand precision, srs to int16/int32);
// floating-point results keep the accumulator's type (seed 002: BFP16 x BFP16 -> FP32).
func defaultOut(a, b DType, acc AccType) DType {
	if acc.IsInt() {
		if a.Bits() >= b.Bits() {
			return a
		}
		return b
	}
	if acc == AccF64 {
		return FP64
	}
	return FP32
}

// Narrow returns the narrowing of an integer accumulator to the output type.
func (t Types) Narrow() num.Narrow {
	return num.Narrow{Bits: t.Out.Bits(), Unsigned: !t.Out.Signed(), Shift: t.Shift, Round: t.Round, Sat: t.Sat}
}

func (t Types) validate() error {
	if t.A == Invalid || t.B == Invalid {
		return fmt.Errorf("operand types missing: give dtype= (or atype= and btype=)")
	}
	if t.A.IsInt() != t.B.IsInt() {
		return fmt.Errorf("mixed integer and floating-point operands (atype=%v btype=%v)", t.A, t.B)
	}
	if (t.A == BFP16) != (t.B == BFP16) {
		return fmt.Errorf("bfp16 multiplies only bfp16 (atype=%v btype=%v)", t.A, t.B)
	}
	if t.A.IsInt() {
		if !t.Acc.IsInt() {
			return fmt.Errorf("integer operands need an integer accumulator, not %v", t.Acc)
		}
		if !t.Out.IsInt() {
			return fmt.Errorf("integer accumulator %v cannot narrow to %v", t.Acc, t.Out)
		}
		if t.Out.Bits() > t.Acc.Bits() {
			return fmt.Errorf("output %v is wider than the accumulator %v", t.Out, t.Acc)
		}
	} else {
		if t.Acc.IsInt() {
			return fmt.Errorf("floating-point operands need a floating-point accumulator, not %v", t.Acc)
		}
		if t.Out != FP32 && t.Out != FP64 && t.Out != BF16 {
			return fmt.Errorf("floating-point results go to fp32, fp64 or bf16, not %v", t.Out)
		}
		if t.Shift != 0 {
			return fmt.Errorf("shift applies only to integer accumulators")
		}
	}
	if t.Shift > num.MaxShift {
		return fmt.Errorf("shift %d out of range 0..%d", t.Shift, num.MaxShift)
	}
	return nil
}

func (t Types) String() string {
	var b strings.Builder
	if t.A == t.B {
		fmt.Fprintf(&b, "dtype=%v", t.A)
	} else {
		fmt.Fprintf(&b, "atype=%v btype=%v", t.A, t.B)
	}
	fmt.Fprintf(&b, " acc=%v out=%v", t.Acc, t.Out)
	if t.Acc.IsInt() {
		fmt.Fprintf(&b, " shift=%d round=%v sat=%v", t.Shift, t.Round, t.Sat)
	}
	return b.String()
}
