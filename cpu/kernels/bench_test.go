package kernels

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// Kernel-only throughput with A and B resident in L1 (kg = 256): the ceiling for GEMM.
func benchKernel(b *testing.B, dtype string, opsPerCall float64, f func()) {
	for b.Loop() {
		f()
	}
	g := opsPerCall * float64(b.N) / b.Elapsed().Seconds() / 1e9
	b.ReportMetric(g, "GFLOPS")
	if p, err := MeasurePeak(dtype, 20*time.Millisecond); err == nil {
		b.ReportMetric(100*g/p, "%peak")
	}
}

const benchKG = 256

func BenchmarkF32(b *testing.B) {
	a, bb, c := make([]float32, benchKG*F32MR), make([]float32, benchKG*F32NR), make([]float32, F32MR*F32NR)
	benchKernel(b, "float32", 2*F32MR*F32NR*benchKG, func() { F32(benchKG, a, bb, c, F32NR, 1, 1) })
}

func BenchmarkF64(b *testing.B) {
	a, bb, c := make([]float64, benchKG*F64MR), make([]float64, benchKG*F64NR), make([]float64, F64MR*F64NR)
	benchKernel(b, "float64", 2*F64MR*F64NR*benchKG, func() { F64(benchKG, a, bb, c, F64NR, 1, 1) })
}

// The AVX-512 kernels (their Go fallbacks without AVX-512), same k.
func BenchmarkF32Z(b *testing.B) {
	a, bb, c := make([]float32, benchKG*F32MR), make([]float32, benchKG*F32ZNR), make([]float32, F32MR*F32ZNR)
	benchKernel(b, "float32", 2*F32MR*F32ZNR*benchKG, func() { F32ZTiles(1, benchKG, a, bb, c, F32ZNR, 1, 1) })
}

func BenchmarkF64Z(b *testing.B) {
	a, bb, c := make([]float64, benchKG*F64MR), make([]float64, benchKG*F64ZNR), make([]float64, F64MR*F64ZNR)
	benchKernel(b, "float64", 2*F64MR*F64ZNR*benchKG, func() { F64ZTiles(1, benchKG, a, bb, c, F64ZNR, 1, 1) })
}

func BenchmarkI16(b *testing.B) {
	const kg = benchKG / 2
	a, bb, c := make([]int16, kg*I16MR*2), make([]int16, kg*I16NR*2), make([]int32, I16MR*I16NR)
	benchKernel(b, "int16", 2*I16MR*I16NR*2*kg, func() { I16(kg, a, bb, c, I16NR, 1, 1) })
}

func BenchmarkU8S8(b *testing.B) {
	const kg = benchKG / 4
	a, bb, c := make([]uint8, kg*U8MR*4), make([]int8, kg*U8NR*4), make([]int32, U8MR*U8NR)
	benchKernel(b, "u8s8", 2*U8MR*U8NR*4*kg, func() { U8S8(kg, a, bb, c, U8NR, 1, 1) })
}

func BenchmarkF32Strided(b *testing.B) {
	const lda = 300
	a, bb, c := make([]float32, 5*lda+benchKG), make([]float32, benchKG*F32NR), make([]float32, F32MR*F32NR)
	benchKernel(b, "float32", 2*F32MR*F32NR*benchKG, func() { F32Strided(benchKG, a, lda, bb, c, F32NR, 1, 1) })
}

// TestPeakAndKernel prints, with -v, the kernel rate next to the register-only peak
// measured in the same run, so noisy machines still give a meaningful ratio.
func TestPeakAndKernel(t *testing.T) {
	if !Accelerated() {
		t.Skip("no assembly kernels")
	}
	dts := []string{"float32", "float64", "int16", "u8s8", "s8u8", "float32/avx2", "float64/avx2"}
	for _, s := range []ISA{ISAAVX2VNNI, ISAAVX512VNNI} {
		if Runs(s) {
			dts = append(dts, "int16/"+s.String(), "u8s8/"+s.String(), "s8u8/"+s.String())
		}
	}
	for _, dt := range dts {
		p, err := MeasurePeak(dt, 20*time.Millisecond)
		if err != nil || p <= 0 {
			t.Fatalf("%s: peak %v, %v", dt, p, err)
		}
		t.Logf("%-8s peak %.1f Gop/s", dt, p)
	}
	for _, dt := range []string{"int4", "int4/avx2", "float32/avx9", "float64/avx512-vnni"} {
		if _, err := MeasurePeak(dt, time.Millisecond); err == nil {
			t.Errorf("unknown dtype %q accepted", dt)
		}
	}
}

// BenchmarkF32StridedRows times one strided fp32 tile of 1 to 6 rows at k = 256: a tile of few
// rows costs nearly as much as a full one (docs/cpu-conv.md, the tail split of cpu/conv).
func BenchmarkF32StridedRows(b *testing.B) {
	const lda = 300
	a, bb, c := make([]float32, 5*lda+benchKG), make([]float32, benchKG*F32NR), make([]float32, F32MR*F32NR)
	for rows := 1; rows <= F32MR; rows++ {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				F32StridedRows(rows, benchKG, a, lda, bb, c, F32NR, 1, 1)
			}
		})
	}
}

// BenchmarkF32Indirect runs 64 tiles of a convolution-like A (rows 64 elements apart, as a
// 64-channel layer's pixels) through the strided kernel and through the indirect kernel with
// an offset table of the same rows, side by side, at k = 64 and k = 192 (a 3x3 layer's filter
// row of 64 channels): the per-tile price of the table (docs/cpu-conv.md, indirect kernels).
// The strided k = 64 case is also the short-k tile of docs/cpu-conv.md's kernel details.
func BenchmarkF32Indirect(b *testing.B) {
	const lda, tiles = 64, 64
	for _, k := range []int{64, 192} {
		a, bb, c := make([]float32, (tiles*F32MR-1)*lda+k), make([]float32, k*F32NR), make([]float32, tiles*F32MR*64)
		offs := make([]int, tiles*F32MR)
		for i := range offs {
			offs[i] = i * lda
		}
		flops := float64(2 * tiles * F32MR * F32NR * k)
		b.Run(fmt.Sprintf("k=%d/strided", k), func(b *testing.B) {
			benchKernel(b, "float32", flops, func() { F32StridedTiles(tiles, k, a, lda, bb, c, 64, 1, 1) })
		})
		b.Run(fmt.Sprintf("k=%d/indirect", k), func(b *testing.B) {
			benchKernel(b, "float32", flops, func() { F32IndirectTiles(F32MR, tiles, k, a, nil, offs, bb, c, 64, 1, 1) })
		})
	}
}

// BenchmarkF32WindowRows times one window tile of 1 to 6 rows at ResNet-50's C1 shape (7
// filter rows of 21 values, 4 panels per call as the padded window path runs a row's short
// last tile): the rate per row of a short tile against a full one (docs/cpu-conv.md).
func BenchmarkF32WindowRows(b *testing.B) {
	const kg, segs, segStride, lda, panels = 21, 7, 672, 6, 4
	a, bb, c := make([]float32, 6*lda+segs*segStride+kg), make([]float32, panels*segs*kg*F32NR), make([]float32, 6*64)
	for rows := 1; rows <= F32MR; rows++ {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			benchKernel(b, "float32", float64(2*rows*F32NR*kg*segs*panels), func() {
				for p := 0; p < panels; p++ {
					F32WindowRowsTiles(rows, 1, kg, segs, segStride, a, lda, bb[p*segs*kg*F32NR:], c[p*F32NR:], 64, 1, 0)
				}
			})
		})
	}
}

// TestDetectedISA reports the kernels the CPU's features selected (x/sys/cpu), and checks
// them against SUMAC_EXPECT_DOTPROD ("1" or "0") when it is set: .ci/run sets it for its
// arm64 runs under emulation, where qemu's default CPU has the dot-product extension and
// QEMU_CPU=cortex-a72 does not.
func TestDetectedISA(t *testing.T) {
	t.Logf("u8s8 kernels: %s, dot product %v, U8Fast exact %v", ForDType("u8s8"), DotProd(), U8FastExact())
	if DotProd() != (ForDType("u8s8") == ISANEONDot) {
		t.Errorf("DotProd() = %v, ForDType(u8s8) = %s", DotProd(), ForDType("u8s8"))
	}
	if DotProd() && !Accelerated() {
		t.Error("dot-product kernels without the assembly kernels")
	}
	switch want := os.Getenv("SUMAC_EXPECT_DOTPROD"); want {
	case "":
	case "0", "1":
		if DotProd() != (want == "1") {
			t.Errorf("DotProd() = %v, SUMAC_EXPECT_DOTPROD=%s", DotProd(), want)
		}
	default:
		t.Fatalf("SUMAC_EXPECT_DOTPROD=%q: want 0 or 1", want)
	}
}
