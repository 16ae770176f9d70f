//go:build amd64 && !noasm

package kernels

// DotProd reports whether the int8 kernels use the Arm dot-product instructions: never on
// amd64.
func DotProd() bool { return false }

// ISA names the instruction set of the kernels in use: "avx2" (the float GEMMs may run
// AVX-512 kernels besides, see AVX512), or "go" for the fallbacks.
func ISA() string {
	if useAsm {
		return "avx2"
	}
	return "go"
}

// U8FastExact reports whether the uint8 x int8 kernels (kernels.U8Fast) are exact for every
// input: not on amd64, where VPMADDUBSW saturates pair sums to int16.
func U8FastExact() bool { return false }
