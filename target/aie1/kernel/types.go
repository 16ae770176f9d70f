package kernel

import (
	"fmt"
	"strconv"
	"strings"
)

// Elem is the element type of a scalar, vector, accumulator, pointer or window.
type Elem uint8

const (
	NoElem  Elem = iota
	Int8         // int8
	UInt8        // uint8
	Int16        // int16
	UInt16       // uint16
	Int32        // int (int32)
	UInt32       // unsigned (uint32)
	Float32      // float
	Acc48        // 48-bit accumulator lane (v8acc48, v16acc48)
	Acc80        // 80-bit accumulator lane (v4acc80, v8acc80)
	numElems
)

var elemNames = [...]string{"none", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float", "acc48", "acc80"}

func (e Elem) String() string {
	if e < numElems {
		return elemNames[e]
	}
	return fmt.Sprintf("Elem(%d)", uint8(e))
}

// Bits is the storage width of one element in memory or in a vector register; accumulator
// lanes report their lane width (48 or 80).
func (e Elem) Bits() int {
	switch e {
	case Int8, UInt8:
		return 8
	case Int16, UInt16:
		return 16
	case Int32, UInt32, Float32:
		return 32
	case Acc48:
		return 48
	case Acc80:
		return 80
	}
	return 0
}

// Bytes is Bits/8 for memory element types.
func (e Elem) Bytes() int { return e.Bits() / 8 }

// IsInt reports whether e is an integer type (not an accumulator lane).
func (e Elem) IsInt() bool { return e >= Int8 && e <= UInt32 }

// Signed reports whether an integer element is signed.
func (e Elem) Signed() bool { return e == Int8 || e == Int16 || e == Int32 }

// IsAcc reports whether e is an accumulator lane type.
func (e Elem) IsAcc() bool { return e == Acc48 || e == Acc80 }

// Class is the kind of a type.
type Class uint8

const (
	NoClass Class = iota
	Scalar        // a C scalar in a scalar register (int, unsigned, int16, float, ...)
	Vector        // vNNtype in vector registers (v16int16, v64uint8, v8float, ...)
	Accum         // vNaccMM in accumulator registers (v16acc48, v8acc80)
	Pointer       // T* (scalar or vector pointee) in a pointer register
	Window        // input_window_T / output_window_T
	Stream        // input_stream_T / output_stream_T; Elem acc48/acc80: a cascade stream
)

var classNames = [...]string{"none", "scalar", "vector", "accum", "pointer", "window", "stream"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// Type is a kernel value type. The zero Type is invalid.
//
//	Scalar:  Elem, Lanes = 1
//	Vector:  Elem, Lanes (vector of Lanes x Elem; 128, 256, 512 or 1024 bits)
//	Accum:   Elem = Acc48 or Acc80, Lanes
//	Pointer: Elem and Lanes of the pointee (Lanes = 1: scalar pointee)
//	Window:  Elem of the window, Out = output window
type Type struct {
	Class Class
	Elem  Elem
	Lanes int
	Out   bool // Window only: output_window_T
}

// Constructors.
func ScalarOf(e Elem) Type             { return Type{Class: Scalar, Elem: e, Lanes: 1} }
func VecOf(e Elem, lanes int) Type     { return Type{Class: Vector, Elem: e, Lanes: lanes} }
func AccOf(e Elem, lanes int) Type     { return Type{Class: Accum, Elem: e, Lanes: lanes} }
func PtrTo(e Elem, lanes int) Type     { return Type{Class: Pointer, Elem: e, Lanes: lanes} }
func InWindow(e Elem) Type             { return Type{Class: Window, Elem: e, Lanes: 1} }
func OutWindow(e Elem) Type            { return Type{Class: Window, Elem: e, Lanes: 1, Out: true} }
func InStream(e Elem) Type             { return Type{Class: Stream, Elem: e, Lanes: 1} }
func OutStream(e Elem) Type            { return Type{Class: Stream, Elem: e, Lanes: 1, Out: true} }
func (t Type) IsStream() bool          { return t.Class == Stream }
func (t Type) IsCascade() bool         { return t.Class == Stream && t.Elem.IsAcc() }
func (t Type) IsScalar() bool          { return t.Class == Scalar }
func (t Type) IsVector() bool          { return t.Class == Vector }
func (t Type) IsAcc() bool             { return t.Class == Accum }
func (t Type) IsPointer() bool         { return t.Class == Pointer }
func (t Type) IsWindow() bool          { return t.Class == Window }
func (t Type) IsIntScalar() bool       { return t.Class == Scalar && t.Elem.IsInt() }
func (t Type) Pointee() Type           { return pointee(t) }
func (t Type) WithLanes(n int) Type    { t.Lanes = n; return t }
func (t Type) WithElem(e Elem) Type    { t.Elem = e; return t }
func (t Type) Valid() bool             { return t.check() == nil }
func (t Type) Bits() int               { return t.Elem.Bits() * t.Lanes } // vectors, accumulators, scalars
func (t Type) Bytes() int              { return t.Bits() / 8 }            // vectors and scalars
func (t Type) Equal(u Type) bool       { return t == u }
func (t Type) Is(c Class, e Elem) bool { return t.Class == c && t.Elem == e }

func pointee(t Type) Type {
	if t.Lanes <= 1 {
		return ScalarOf(t.Elem)
	}
	return VecOf(t.Elem, t.Lanes)
}

// check reports why t is not a type of the AIE1 kernel language.
// Vector sizes: 128/256/512/1024-bit vectors (UG1079 "Vector Registers": the 128-bit registers
// and their 256-, 512- and 1024-bit views). Accumulators: v8acc48 (384-bit aml/amh) and
// v16acc48 (768-bit bm), v4acc80 and v8acc80 (UG1079 "Accumulator Registers").
func (t Type) check() error {
	switch t.Class {
	case Scalar:
		if !(t.Elem.IsInt() || t.Elem == Float32) || t.Lanes != 1 {
			return fmt.Errorf("bad scalar type %v x %d", t.Elem, t.Lanes)
		}
	case Vector:
		if !(t.Elem.IsInt() || t.Elem == Float32) {
			return fmt.Errorf("bad vector element %v", t.Elem)
		}
		switch t.Bits() {
		case 128, 256, 512, 1024:
		default:
			return fmt.Errorf("bad vector size: %d x %v is %d bits (want 128, 256, 512 or 1024)", t.Lanes, t.Elem, t.Bits())
		}
	case Accum:
		ok := (t.Elem == Acc48 && (t.Lanes == 8 || t.Lanes == 16)) || (t.Elem == Acc80 && (t.Lanes == 4 || t.Lanes == 8))
		if !ok {
			return fmt.Errorf("bad accumulator type v%d%v", t.Lanes, t.Elem)
		}
	case Pointer:
		if t.Lanes <= 1 {
			return ScalarOf(t.Elem).check()
		}
		return VecOf(t.Elem, t.Lanes).check()
	case Window:
		if !(t.Elem.IsInt() || t.Elem == Float32) {
			return fmt.Errorf("bad window element %v", t.Elem)
		}
	case Stream:
		// 32-bit stream words carry int8..int32 and float samples; cascades carry accumulator
		// lanes (UG1079 "Streaming Data API", "Cascade Streams")
		if !(t.Elem.IsInt() || t.Elem == Float32 || t.Elem.IsAcc()) {
			return fmt.Errorf("bad stream element %v", t.Elem)
		}
	default:
		return fmt.Errorf("invalid type")
	}
	return nil
}

// scalar C names, canonical first.
var scalarNames = map[Elem]string{
	Int8: "int8", UInt8: "uint8", Int16: "int16", UInt16: "uint16",
	Int32: "int", UInt32: "unsigned", Float32: "float",
}

// scalarAliases are the other spellings ParseType accepts.
var scalarAliases = map[string]Elem{
	"int8": Int8, "int8_t": Int8, "signed char": Int8, "uint8": UInt8, "uint8_t": UInt8, "unsigned char": UInt8,
	"int16": Int16, "int16_t": Int16, "short": Int16, "uint16": UInt16, "uint16_t": UInt16, "unsigned short": UInt16,
	"int": Int32, "int32": Int32, "int32_t": Int32, "signed": Int32, "signed int": Int32,
	"unsigned": UInt32, "unsigned int": UInt32, "uint32": UInt32, "uint32_t": UInt32,
	"float": Float32,
}

// vector element spellings in vNNxxx names
var vecElemNames = map[Elem]string{Int8: "int8", UInt8: "uint8", Int16: "int16", UInt16: "uint16", Int32: "int32", UInt32: "uint32", Float32: "float"}

// String returns the C++ spelling: int, v32int16, v16acc48, int16*, v16int16*, input_window_int16.
func (t Type) String() string {
	switch t.Class {
	case Scalar:
		if n, ok := scalarNames[t.Elem]; ok {
			return n
		}
	case Vector:
		if n, ok := vecElemNames[t.Elem]; ok {
			return "v" + strconv.Itoa(t.Lanes) + n
		}
	case Accum:
		return "v" + strconv.Itoa(t.Lanes) + t.Elem.String()
	case Pointer:
		return pointee(t).String() + "*"
	case Window:
		dir := "input_window_"
		if t.Out {
			dir = "output_window_"
		}
		if t.Elem == Float32 {
			return dir + "float"
		}
		return dir + t.Elem.String()
	case Stream:
		dir := "input_stream_"
		if t.Out {
			dir = "output_stream_"
		}
		if t.Elem == Float32 {
			return dir + "float"
		}
		return dir + t.Elem.String()
	}
	return fmt.Sprintf("Type{%v %v %d}", t.Class, t.Elem, t.Lanes)
}

// ParseType parses a C++ type spelling: scalar names (int, unsigned int, int16, uint8, float,
// ...), vector types (v16int16, v64uint8, v8float), accumulators (v16acc48, v8acc80), a pointer
// to any of those (`int16 *`, `v16int16*`) and window types (input_window_int16,
// output_window_uint8). Spaces around `*` are ignored.
func ParseType(s string) (Type, error) {
	s = strings.Join(strings.Fields(s), " ")
	if strings.HasSuffix(s, "*") {
		inner, err := ParseType(strings.TrimSuffix(s, "*"))
		if err != nil {
			return Type{}, err
		}
		if inner.Class != Scalar && inner.Class != Vector {
			return Type{}, fmt.Errorf("type %q: pointer to %v is not supported", s, inner.Class)
		}
		return PtrTo(inner.Elem, inner.Lanes), nil
	}
	if e, ok := scalarAliases[s]; ok {
		return ScalarOf(e), nil
	}
	for _, dir := range []string{"input_window_", "output_window_"} {
		if rest, ok := strings.CutPrefix(s, dir); ok {
			e, ok := parseElemName(rest)
			if !ok {
				return Type{}, fmt.Errorf("unknown window type %q", s)
			}
			return Type{Class: Window, Elem: e, Lanes: 1, Out: dir == "output_window_"}, nil
		}
	}
	for _, dir := range []string{"input_stream_", "output_stream_"} {
		if rest, ok := strings.CutPrefix(s, dir); ok {
			e, ok := parseElemName(rest)
			switch rest {
			case "acc48":
				e, ok = Acc48, true
			case "acc80":
				e, ok = Acc80, true
			}
			if !ok {
				return Type{}, fmt.Errorf("unknown stream type %q", s)
			}
			return Type{Class: Stream, Elem: e, Lanes: 1, Out: dir == "output_stream_"}, nil
		}
	}
	if len(s) > 1 && s[0] == 'v' {
		i := 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i > 1 && i-1 <= 4 {
			n, _ := strconv.Atoi(s[1:i])
			rest := s[i:]
			var t Type
			switch rest {
			case "acc48":
				t = AccOf(Acc48, n)
			case "acc80":
				t = AccOf(Acc80, n)
			default:
				if e, ok := parseElemName(rest); ok {
					t = VecOf(e, n)
				}
			}
			if t.Class != NoClass {
				if err := t.check(); err != nil {
					return Type{}, fmt.Errorf("type %q: %v", s, err)
				}
				return t, nil
			}
		}
	}
	return Type{}, fmt.Errorf("unknown type %q", s)
}

func parseElemName(s string) (Elem, bool) {
	for e, n := range vecElemNames {
		if n == s {
			return e, true
		}
	}
	return NoElem, false
}
