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

// cpuHas reports whether the CPU has the instructions of a kernel set. x/sys/cpu reports
// AVX2 and AVX-512 features only when the OS saves the ymm (and zmm and mask) state
// (XGETBV), so a true value means the instructions are usable.
func cpuHas(s ISA) bool {
	avx2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA
	avx512 := avx2 && cpu.X86.HasAVX512F
	switch s {
	case ISAGo:
		return true
	case ISAAVX2:
		return avx2
	case ISAAVX2VNNI:
		return avx2 && cpu.X86.HasAVXVNNI
	case ISAAVX512:
		return avx512
	case ISAAVX512VNNI:
		return avx512 && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512VL
	}
	return false
}

// envCap is the cap MaxISAEnv sets (everything when unset or unreadable).
func envCap() ISA {
	if v := os.Getenv(MaxISAEnv); v != "" {
		if c, err := ParseISA(v); err == nil {
			return c
		}
	}
	return ISAAVX512VNNI
}

// The kernel sets in use: what the CPU has, up to the cap. The generated dispatchers test
// them on every call; tests and LimitISA change them.
var (
	useAsm, useAVXVNNI, useAVX512, useAVX512VNNI bool
	isaCap                                       ISA
)

func init() { setCap(envCap()) }

func setCap(c ISA) {
	isaCap = c
	runs := func(s ISA) bool { return cpuHas(s) && c.allows(s) }
	useAsm = runs(ISAAVX2)
	useAVXVNNI = runs(ISAAVX2VNNI)
	useAVX512 = runs(ISAAVX512)
	useAVX512VNNI = runs(ISAAVX512VNNI)
}

// Accelerated reports whether the assembly kernels are in use.
func Accelerated() bool { return useAsm }

// AVX512 reports whether the AVX-512 float kernels are in use: the CPU has AVX-512F and
// MaxISAEnv does not cap the kernels below it. Callers (cpu/gemm) then prefer F32ZTiles and
// F64ZTiles.
func AVX512() bool { return useAVX512 }

// Runs reports whether the kernels of set s are in use on this machine (the CPU has them and
// the cap allows them).
func Runs(s ISA) bool { return cpuHas(s) && isaCap.allows(s) }

// CPUHas reports whether the CPU has the instructions of set s, whatever the cap.
func CPUHas(s ISA) bool { return cpuHas(s) }

// ForDType is the kernel set dtype's kernels ("float32", "float64", "int16", "u8s8",
// "s8u8") run on this machine: AVX-512 for the floats where it runs, AVX-512 VNNI, AVX-VNNI
// or AVX2 for the integers, ISAGo without assembly.
func ForDType(dtype string) ISA { return forDType(dtype, Runs) }

// LimitISA caps the kernel sets at c, as MaxISAEnv does at start, and returns a function
// that restores the previous cap. It serves tests and benchmarks that run each set in turn;
// it must not run while kernels or plans built before it are in use (conv plans and gemm
// calls pick their kernels when they are built or start).
func LimitISA(c ISA) (restore func()) {
	old := isaCap
	setCap(c)
	return func() { setCap(old) }
}

// PeakLoop returns the register-only loop of dtype's kernel ("float32", "float64",
// "int16", "u8s8", "s8u8") and the multiply-adds of one iteration: the loop of the set
// ForDType picks, or of the set named after a slash ("float32/avx2", "u8s8/avx512-vnni").
// n must be positive; keep it near 1<<16 (about 0.4 ms) so the goroutine stays preemptible.
func PeakLoop(dtype string) (loop func(n int), macsPerIter int, err error) {
	set := ISAGo
	if d, s, ok := strings.Cut(dtype, "/"); ok {
		if set, err = ParseISA(s); err != nil {
			return nil, 0, err
		}
		dtype = d
	} else {
		set = ForDType(dtype)
	}
	if set == ISAGo {
		return nil, 0, errors.New("kernels: the CPU lacks AVX2/FMA; no assembly peak")
	}
	if !Runs(set) {
		return nil, 0, fmt.Errorf("kernels: the %s kernels do not run on this machine", set)
	}
	p, ok := peaks[set][dtype]
	if !ok {
		return nil, 0, fmt.Errorf("kernels: no %s peak loop for %q", set, dtype)
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
