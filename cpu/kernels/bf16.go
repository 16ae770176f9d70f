package kernels

import (
	"math"
	"unsafe"
)

// The bf16 micro-kernel's shape: a 6x32 float32 tile of C from bf16 operands taken in k
// pairs (BF16KGroup), the packed layouts of the int16 kernels: packed A [kg][BF16ZMR][2],
// packed B [kg][BF16ZNR][2] (docs/cpu-amx.md).
const (
	BF16ZMR, BF16ZNR = 6, 32
	BF16KGroup       = 2
)

// BF16ZTiles updates tiles 6x32 float32 tiles stacked down C (tile t is rows t*BF16ZMR.. of
// C): C = alpha*A*B + beta*C from tiles consecutive packed A micro-panels (BF16ZMR*kg*2 bf16
// values each) and one packed B micro-panel (BF16ZNR*kg*2), bf16 stored as uint16 (the top
// half of a float32). It runs VDPBF16PS where the CPU has AVX512_BF16 (Runs(ISAAVX512BF16)),
// else BF16Dot's Go model of it: the results are the same bits.
func BF16ZTiles(tiles, kg int, a []uint16, b []uint16, c []float32, ldc int, alpha, beta float32) {
	packedTiles(BF16ZMR, BF16ZNR, BF16KGroup, kBF16P6x32ZB, tiles, kg, a, b, c, ldc, alpha, beta, 1)
}

// bf16In is a bf16 operand as VDPBF16PS and TDPBF16PS read it: denormals are zero (DAZ, Intel
// SDM vol. 2C "VDPBF16PS", vol. 2 "TDPBF16PS": make_fp32 with denormals treated as zero).
func bf16In(h uint16) float32 {
	if h&0x7f80 == 0 {
		h &= 0x8000
	}
	return math.Float32frombits(uint32(h) << 16)
}

// ftz flushes a denormal float32 result to zero of the same sign (the SDM's "FTZ out").
func ftz(v float32) float32 {
	if b := math.Float32bits(v); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return v
}

// BF16Dot is one fp32 lane of VDPBF16PS: acc plus the products of the pair (a0, a1) and
// (b0, b1), as the SDM's pseudo-code orders them: the odd element's product first, then the
// even one's, each a fused multiply-add in fp32 with round to nearest even, denormal inputs
// read as zero and denormal results flushed to zero. The products of two bf16 values are
// exact in fp32 (8-bit significands) whenever they are in its normal range, so each step is
// one rounding of the sum, which float32 arithmetic in Go computes (fused or not).
func BF16Dot(acc float32, a0, a1, b0, b1 uint16) float32 {
	acc = ftz(acc + bf16In(a1)*bf16In(b1))
	return ftz(acc + bf16In(a0)*bf16In(b0))
}

// epilogueF32 is the generated float kernels' C update: alpha*acc rounded, then beta*C added
// in one fused multiply-add (VMULPS, VFMADD231PS); C is not read when beta is zero.
func epilogueF32(acc, alpha, beta float32, c *float32) {
	t := alpha * acc
	switch beta {
	case 0:
		*c = t
	case 1:
		*c = t + *c
	default:
		*c = float32(math.FMA(float64(beta), float64(*c), float64(t)))
	}
}

// goBF16P is the Go model of the packed bf16 kernels (BF16Dot per lane and k pair).
func goBF16P(mr, nr, kg int, a, b *uint16, c *float32, ldc int, alpha, beta float32, tiles int) {
	as := unsafe.Slice(a, tiles*kg*mr*2)
	bs := unsafe.Slice(b, kg*nr*2)
	cs := unsafe.Slice(c, (tiles*mr-1)*ldc+nr)
	acc := make([]float32, mr*nr)
	for t := 0; t < tiles; t++ {
		clear(acc)
		pa := as[t*kg*mr*2:]
		for p := 0; p < kg; p++ {
			for i := 0; i < mr; i++ {
				a0, a1 := pa[(p*mr+i)*2], pa[(p*mr+i)*2+1]
				row := acc[i*nr : (i+1)*nr]
				for j := range row {
					row[j] = BF16Dot(row[j], a0, a1, bs[(p*nr+j)*2], bs[(p*nr+j)*2+1])
				}
			}
		}
		for i := 0; i < mr; i++ {
			for j := 0; j < nr; j++ {
				epilogueF32(acc[i*nr+j], alpha, beta, &cs[(t*mr+i)*ldc+j])
			}
		}
	}
}
