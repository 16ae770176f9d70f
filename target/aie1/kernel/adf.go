package kernel

import "fmt"

// StorageKind says where an array variable lives.
type StorageKind uint8

const (
	LocalArray  StorageKind = iota // a local array: T a[N] in the kernel body
	StaticArray                    // a static local array (its contents persist between calls)
	GlobalArray                    // a file-scope array
	MemberArray                    // a kernel class's array member (state kept in the object)
)

var storageNames = [...]string{"local", "static", "global", "member"}

func (k StorageKind) String() string {
	if int(k) < len(storageNames) {
		return storageNames[k]
	}
	return fmt.Sprintf("StorageKind(%d)", uint8(k))
}

// Storage is the memory of an array variable: Bytes long, holding Init (zero-filled to
// Bytes; nil: zeros) when the kernel starts. Const arrays are never written.
type Storage struct {
	Kind  StorageKind
	Bytes int
	Init  []byte
	Const bool
}

// Port is the C++ spelling of a pointer parameter.
type Port uint8

const (
	PortPointer   Port = iota // T *p
	PortArrayRef              // T (&a)[Array]: a run-time parameter array (UG1079 "Runtime Parameter Specification")
	PortInBuffer              // adf::input_buffer<T> &b (UG1079 "Buffer Ports")
	PortOutBuffer             // adf::output_buffer<T> &b
)

// Entry is how the emulation harness calls a kernel that is not a plain function: a function
// template instance (Name = "fir<16, 4>") or a member function of a kernel class instance
// (Name = "MacFloat<float, 28, 128, 1>", Method = "filter"), constructed with Ctor.
type Entry struct {
	Name   string
	Method string
	Ctor   []CtorArg
}

// CtorArg is one constructor argument: the member array parameter Param (an index in
// Kernel.Params) or a value written as C++.
type CtorArg struct {
	Param int
	Value string
}

// IsStorage reports whether v is an array with memory of its own.
func (v *Var) IsStorage() bool { return v.Storage != nil }
