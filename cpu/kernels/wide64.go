package kernels

// The 6 x 64 float32 AVX-512 kernels (internal/x86gen, tagged W64): the F32Z forms for
// output-channel panels 64 wide, four zmm columns of 24 accumulators, so that each loaded B
// vector and each A broadcast serves twice the FMAs of the 6 x 32 tile. Each runs its Go
// fallback where the CPU lacks AVX-512F.
const (
	F32Z64MR, F32Z64NR = 6, 64
)

// F32Z64StridedTiles is F32ZStridedTiles for 64-column panels.
func F32Z64StridedTiles(tiles, k int, a []float32, lda int, b []float32, c []float32, ldc int, alpha, beta float32) {
	stridedTiles(F32Z64MR, F32Z64NR, 1, kF32S6x64ZW64, tiles, k, a, lda, b, c, ldc, alpha, beta, 1)
}

var f32z64Rows = [F32Z64MR]func(int, *float32, int, *float32, *float32, int, float32, float32, int){kF32S1x64ZW64, kF32S2x64ZW64, kF32S3x64ZW64, kF32S4x64ZW64, kF32S5x64ZW64, kF32S6x64ZW64}

// F32Z64StridedRowsTiles is F32ZStridedRowsTiles for 64-column panels.
func F32Z64StridedRowsTiles(rows, tiles, k int, a []float32, lda int, b []float32, c []float32, ldc int, alpha, beta float32) {
	stridedRows(F32Z64MR, F32Z64NR, 1, f32z64Rows[:], rows, tiles, k, a, lda, b, c, ldc, alpha, beta, 1)
}

// F32Z64WindowTiles is F32ZWindowTiles for 64-column panels.
func F32Z64WindowTiles(tiles, k, segs, segStride int, a []float32, lda int, b []float32, c []float32, ldc int, alpha, beta float32) {
	windowTiles(F32Z64MR, F32Z64NR, 1, kF32W6x64ZW64, F32Z64StridedTiles, tiles, k, segs, segStride, a, lda, b, c, ldc, alpha, beta, 1)
}

var f32z64WindowRows = [F32Z64MR]func(int, *float32, int, int, int, *float32, *float32, int, float32, float32, int){kF32W1x64ZW64, kF32W2x64ZW64, kF32W3x64ZW64, kF32W4x64ZW64, kF32W5x64ZW64, kF32W6x64ZW64}

// F32Z64WindowRowsTiles is F32ZWindowRowsTiles for 64-column panels.
func F32Z64WindowRowsTiles(rows, tiles, k, segs, segStride int, a []float32, lda int, b []float32, c []float32, ldc int, alpha, beta float32) {
	checkRows(rows, F32Z64MR)
	windowTiles(rows, F32Z64NR, 1, f32z64WindowRows[rows-1], func(tiles, k int, a []float32, lda int, b []float32, c []float32, ldc int, alpha, beta float32) {
		F32Z64StridedRowsTiles(rows, tiles, k, a, lda, b, c, ldc, alpha, beta)
	}, tiles, k, segs, segStride, a, lda, b, c, ldc, alpha, beta, 1)
}

var f32z64Indirect = [F32Z64MR]func(int, *float32, *float32, *int, *float32, *float32, int, float32, float32, int){kF32I1x64ZW64, kF32I2x64ZW64, kF32I3x64ZW64, kF32I4x64ZW64, kF32I5x64ZW64, kF32I6x64ZW64}

// F32Z64IndirectTiles is F32ZIndirectTiles for 64-column panels.
func F32Z64IndirectTiles(rows, tiles, k int, a, alt []float32, offs []int, b []float32, c []float32, ldc int, alpha, beta float32) {
	indirectTiles(F32Z64MR, F32Z64NR, 1, f32z64Indirect[:], rows, tiles, k, a, alt, offs, b, c, ldc, alpha, beta, 1)
}
