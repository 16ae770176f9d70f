//go:build amd64 && !noasm

package kernels

import "golang.org/x/sys/cpu"

// useAsm selects the generated AVX2/FMA kernels. x/sys/cpu reports AVX2 only when the OS
// saves the ymm state (XGETBV), so a true value means the instructions are usable. Tests
// clear it to run the Go fallbacks on the same machine.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// Accelerated reports whether the assembly kernels are in use.
func Accelerated() bool { return useAsm }
