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
	old := useAsm
	useAsm = impl == "asm"
	return func() { useAsm = old }
}
