//go:build !amd64 || noasm

package kernels

// Accelerated reports whether the assembly kernels are in use: never in this build.
func Accelerated() bool { return false }
