//go:build !amd64 || noasm

package kernels

// kBF16P6x32ZB is the Go model of the AVX-512 BF16 kernel where there is no amd64 assembly.
func kBF16P6x32ZB(kg int, a *uint16, b *uint16, c *float32, ldc int, alpha, beta float32, tiles int) {
	goBF16P(6, 32, kg, a, b, c, ldc, alpha, beta, tiles)
}
