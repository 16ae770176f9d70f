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
