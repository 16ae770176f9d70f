package kernels

import (
	"fmt"
	"strings"
)

// ISA is a kernel set: the instruction set a family of generated kernels needs. A CPU runs
// every set it has (CPUID, read once at start), up to the cap MaxISAEnv sets; each element
// type then uses the best set that has its kernels (ForDType).
type ISA uint8

const (
	// ISAGo is the pure-Go fallbacks: other architectures, -tags noasm, CPUs without AVX2.
	ISAGo ISA = iota
	// ISAAVX2 is AVX2 and FMA on the 16 ymm registers: every kernel form and type.
	ISAAVX2
	// ISAAVX2VNNI adds AVX-VNNI: VPDPWSSD and VPDPBUSD on ymm registers (int16 and
	// uint8 x int8 kernels), for CPUs that have VNNI without AVX-512.
	ISAAVX2VNNI
	// ISAAVX512 is AVX-512F on the 32 zmm registers: the float kernels.
	ISAAVX512
	// ISAAVX512VNNI adds AVX512_VNNI: the int16 and uint8 x int8 kernels on zmm registers.
	ISAAVX512VNNI
	// ISANEON is arm64's Advanced SIMD: every kernel form and type (the int8 kernels widen
	// to int16 and run SMLAL).
	ISANEON
	// ISANEONDot adds the dot-product instructions (SDOT/UDOT, FEAT_DotProd): the int8 kernels.
	ISANEONDot
)

var isaNames = [...]string{"go", "avx2", "avx2-vnni", "avx512", "avx512-vnni", "neon", "neon-dotprod"}

// ExactBytes reports whether set s's uint8 x int8 kernels (kernels.U8Fast) are exact for
// every input: the VNNI ones (VPDPBUSD accumulates in int32) and the NEON ones (SDOT/UDOT, or
// widening SMLAL) are; AVX2's VPMADDUBSW saturates pair sums to int16, and the Go fallbacks
// model it.
func ExactBytes(s ISA) bool {
	switch s {
	case ISAAVX512VNNI, ISAAVX2VNNI, ISANEON, ISANEONDot:
		return true
	}
	return false
}

// U8FastExact reports whether the uint8 x int8 kernels this machine runs are exact for every
// input (ExactBytes of ForDType("u8s8")).
func U8FastExact() bool { return ExactBytes(ForDType("u8s8")) }

func (i ISA) String() string {
	if int(i) < len(isaNames) {
		return isaNames[i]
	}
	return fmt.Sprintf("ISA(%d)", uint8(i))
}

// ParseISA reads an ISA name as String writes it ("avx512-vnni"; case and '-' or '_'
// do not matter).
func ParseISA(s string) (ISA, error) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	for i, name := range isaNames {
		if n == name {
			return ISA(i), nil
		}
	}
	return 0, fmt.Errorf("kernels: unknown instruction set %q (want one of %s)", s, strings.Join(isaNames[:], ", "))
}

// allows reports whether a cap of c lets the kernels of set s run: each cap allows itself
// and the sets it includes (avx512-vnni everything, avx512 and avx2-vnni avx2, avx2 itself).
func (c ISA) allows(s ISA) bool {
	switch {
	case s == ISAGo || c == s:
		return true
	case s == ISANEON || s == ISANEONDot:
		return c == ISANEONDot // the dot-product cap allows every arm64 set
	case c == ISAAVX512VNNI:
		return true
	case s == ISAAVX2:
		return c != ISAGo
	}
	return false
}

// peak is a register-only loop of a kernel's arithmetic and the multiply-adds of one
// iteration (generated per set and type: peaks).
type peak struct {
	loop func(int)
	macs int
}

// forDType picks the kernel set of dtype's kernels among the sets a CPU runs: the float
// types take AVX-512 where it runs, the integer types AVX-512 VNNI, else AVX-VNNI, else
// AVX2.
func forDType(dtype string, runs func(ISA) bool) ISA {
	var order []ISA
	switch dtype {
	case "float32", "float64":
		order = []ISA{ISAAVX512, ISAAVX2}
	case "int16", "u8s8", "s8u8":
		order = []ISA{ISAAVX512VNNI, ISAAVX2VNNI, ISAAVX2}
	default:
		order = []ISA{ISAAVX2}
	}
	for _, s := range order {
		if runs(s) {
			return s
		}
	}
	return ISAGo
}
