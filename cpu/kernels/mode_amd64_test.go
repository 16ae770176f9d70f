//go:build amd64 && !noasm

package kernels

// implementations lists the kernel implementations this build can run: the assembly (when
// the CPU supports it) and the Go fallback, selected through useAsm.
func implementations() []string {
	if Accelerated() {
		return []string{"asm", "go"}
	}
	return []string{"go"}
}

func use(impl string) (restore func()) {
	old, old512 := useAsm, useAVX512
	useAsm = impl == "asm"
	useAVX512 = useAsm && old512
	return func() { useAsm, useAVX512 = old, old512 }
}

// saturates reports whether impl's uint8 x int8 kernels saturate pair sums to int16 as
// VPMADDUBSW does: both the AVX2 kernels and their Go model.
func saturates(string) bool { return true }
