//go:build amd64 && !noasm

package kernels

// implementations lists the kernel implementations this build can run: the assembly (every
// set the CPU has, up to the start's cap) when the CPU supports it, and the Go fallbacks.
func implementations() []string {
	if Accelerated() {
		return []string{"asm", "go"}
	}
	return []string{"go"}
}

// startCap is the cap at start (the CPU and MaxISAEnv).
var startCap = isaCap

func use(impl string) (restore func()) {
	if impl == "asm" {
		return LimitISA(startCap)
	}
	return LimitISA(ISAGo)
}

// saturates reports whether impl's uint8 x int8 kernels saturate pair sums to int16 as
// VPMADDUBSW does: both the AVX2 kernels and their Go model.
func saturates(string) bool { return true }
