//go:build amd64 && !noasm

package kernels

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/cpu"
)

// useAsm selects the generated AVX2/FMA kernels. x/sys/cpu reports AVX2 only when the OS
// saves the ymm state (XGETBV), so a true value means the instructions are usable. Tests
// clear it to run the Go fallbacks on the same machine.
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useAVX512 selects the AVX-512 GEMM kernels (F32ZTiles, F64ZTiles). x/sys/cpu reports
// AVX512F only when the OS saves the zmm and mask state. MaxISAEnv set to "avx2" turns
// them off, to compare the two kernel sets on one machine.
var useAVX512 = useAsm && cpu.X86.HasAVX512F && !strings.EqualFold(os.Getenv(MaxISAEnv), "avx2")

// Accelerated reports whether the assembly kernels are in use.
func Accelerated() bool { return useAsm }

// AVX512 reports whether the AVX-512 kernels are in use: the CPU has AVX-512F and
// MaxISAEnv does not cap the kernels at AVX2. Callers (cpu/gemm) then prefer F32ZTiles and
// F64ZTiles, and the float peak loops measure the zmm kernels' arithmetic.
func AVX512() bool { return useAVX512 }

// PeakLoop returns the register-only loop of dtype's kernel ("float32", "float64",
// "int16", "u8s8", "s8u8") and the multiply-adds of one iteration: for the float types the
// AVX-512 GEMM kernel's when AVX512 reports it, unless dtype carries the suffix "/avx2"
// ("float32/avx2": the AVX2 kernels', which the convolution runs). n must be positive; keep
// it near 1<<16 (about 0.4 ms) so the goroutine stays preemptible.
func PeakLoop(dtype string) (loop func(n int), macsPerIter int, err error) {
	dtype, avx2 := strings.CutSuffix(dtype, "/avx2")
	p, ok := peaks[dtype]
	if z, zok := peaksAVX512[dtype]; zok && useAVX512 && !avx2 {
		p = z
	}
	if !ok {
		return nil, 0, fmt.Errorf("kernels: no peak loop for %q", dtype)
	}
	if !useAsm {
		return nil, 0, errors.New("kernels: the CPU lacks AVX2/FMA; no assembly peak")
	}
	return func(n int) {
		if n > 0 {
			p.loop(n)
		}
	}, p.macs, nil
}

// MeasurePeak returns the rate, in giga-operations per second (2 per multiply-add), of the
// micro-kernel's arithmetic for dtype on registers only (PeakLoop), run on the calling
// goroutine for about d. It is the ceiling the kernel can reach on this machine at this
// moment (clock and noisy neighbours included), the denominator of "fraction of peak" figures.
func MeasurePeak(dtype string, d time.Duration) (float64, error) {
	loop, macs, err := PeakLoop(dtype)
	if err != nil {
		return 0, err
	}
	const chunk = 1 << 16
	loop(chunk) // warm up: clocks ramp and the code is paged in
	n := 0
	start := time.Now()
	for time.Since(start) < d || n == 0 {
		loop(chunk)
		n += chunk
	}
	return 2 * float64(macs) * float64(n) / time.Since(start).Seconds() / 1e9, nil
}
