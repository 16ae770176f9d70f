//go:build arm64 && !noasm

package kernels

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/cpu"
)

// useAsm selects the generated NEON (Advanced SIMD) kernels. Every arm64 processor Go runs
// on has Advanced SIMD; x/sys/cpu reports it from the kernel's hardware capabilities (Linux
// HWCAP, macOS sysctl). Tests clear it to run the Go fallbacks on the same machine.
var useAsm = cpu.ARM64.HasASIMD

// useDot selects the dot-product (SDOT/UDOT, FEAT_DotProd: Armv8.2 and later, e.g. Neoverse
// N1 and V1, Apple M1) versions of the int8 kernels; without it the int8 kernels widen to
// int16 and run SMLAL. MaxISAEnv set to "neon" keeps a machine on the latter (to compare
// them, or to test them where the CPU has the extension), "go" on the fallbacks.
var useDot = useAsm && cpuHasDot() && !strings.EqualFold(os.Getenv(MaxISAEnv), "neon")

func init() {
	if strings.EqualFold(strings.TrimSpace(os.Getenv(MaxISAEnv)), "go") {
		useAsm, useDot = false, false
	}
}

func cpuHasDot() bool { return cpu.ARM64.HasASIMDDP }

// Runs reports whether the kernels of set s are in use.
func Runs(s ISA) bool {
	switch s {
	case ISAGo:
		return true
	case ISANEON:
		return useAsm
	case ISANEONDot:
		return useDot
	}
	return false
}

// CPUHas reports whether the CPU has set s.
func CPUHas(s ISA) bool {
	switch s {
	case ISAGo:
		return true
	case ISANEON:
		return cpu.ARM64.HasASIMD
	case ISANEONDot:
		return cpu.ARM64.HasASIMD && cpuHasDot()
	}
	return false
}

// ForDType names the set dtype's kernels run on: the int8 ones on the dot-product
// instructions where they are used, every other type on NEON, or the Go fallbacks.
func ForDType(dtype string) ISA {
	switch {
	case !useAsm:
		return ISAGo
	case useDot && (dtype == "u8s8" || dtype == "s8u8"):
		return ISANEONDot
	}
	return ISANEON
}

// LimitISA caps the kernel sets at c (ISAGo: the fallbacks; ISANEON: no dot product) until
// restore is called; for tests that force each path in turn.
func LimitISA(c ISA) (restore func()) {
	asm, dot := useAsm, useDot
	useAsm = asm && c != ISAGo && c.allows(ISANEON)
	useDot = dot && useAsm && c.allows(ISANEONDot)
	return func() { useAsm, useDot = asm, dot }
}

// Accelerated reports whether the assembly kernels are in use.
func Accelerated() bool { return useAsm }

// AVX512 reports whether the AVX-512 kernels are in use: never on arm64.
func AVX512() bool { return false }

// DotProd reports whether the int8 kernels use the Arm dot-product instructions.
func DotProd() bool { return useDot }

// PeakLoop returns the register-only loop of dtype's packed kernel ("float32", "float64",
// "int16", "u8s8", "s8u8"; the int8 ones on the dot-product instructions where they are
// used) and the multiply-adds of one iteration. The "/avx2" suffix of the amd64 build is
// accepted and ignored. n must be positive; keep it near 1<<16 so the goroutine stays
// preemptible.
func PeakLoop(dtype string) (loop func(n int), macsPerIter int, err error) {
	dtype, _ = strings.CutSuffix(dtype, "/avx2")
	p, ok := peaks[dtype]
	if d, dok := peaksDot[dtype]; dok && useDot {
		p = d
	}
	if !ok {
		return nil, 0, fmt.Errorf("kernels: no peak loop for %q", dtype)
	}
	if !useAsm {
		return nil, 0, errors.New("kernels: the assembly kernels are off; no peak")
	}
	return func(n int) {
		if n > 0 {
			p.loop(n)
		}
	}, p.macs, nil
}

// MeasurePeak returns the rate, in giga-operations per second (2 per multiply-add), of the
// micro-kernel's arithmetic for dtype on registers only (PeakLoop), run on the calling
// goroutine for about d: the denominator of "fraction of peak" figures.
func MeasurePeak(dtype string, d time.Duration) (float64, error) {
	loop, macs, err := PeakLoop(dtype)
	if err != nil {
		return 0, err
	}
	const chunk = 1 << 16
	loop(chunk)
	n := 0
	start := time.Now()
	for time.Since(start) < d || n == 0 {
		loop(chunk)
		n += chunk
	}
	return 2 * float64(macs) * float64(n) / time.Since(start).Seconds() / 1e9, nil
}
