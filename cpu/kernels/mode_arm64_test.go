//go:build arm64 && !noasm

package kernels

// implementations lists the kernel implementations this build can run, each forced in turn
// by use: the dot-product int8 kernels (where the CPU has them), the NEON kernels without
// them, and the Go fallbacks.
func implementations() []string {
	switch {
	case useDotCPU:
		return []string{"dot", "neon", "go"}
	case useAsmCPU:
		return []string{"neon", "go"}
	}
	return []string{"go"}
}

// What the CPU offers (before MaxISAEnv), captured before any test changes the switches.
var useAsmCPU, useDotCPU = useAsm, useAsm && cpuHasDot()

func use(impl string) (restore func()) {
	old, oldDot := useAsm, useDot
	useAsm = impl != "go" && useAsmCPU
	useDot = impl == "dot" && useDotCPU
	return func() { useAsm, useDot = old, oldDot }
}

// saturates reports whether impl's uint8 x int8 kernels model VPMADDUBSW's int16
// saturation (the Go fallbacks) rather than computing the exact product (NEON).
func saturates(impl string) bool { return impl == "go" }
