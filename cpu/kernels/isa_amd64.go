//go:build amd64 && !noasm

package kernels

// DotProd reports whether the int8 kernels use the Arm dot-product instructions: never on
// amd64.
func DotProd() bool { return false }
