//go:build (!amd64 && !arm64) || noasm

package kernels

import (
	"errors"
	"time"
)

// Accelerated reports whether the assembly kernels are in use: never in this build.
func Accelerated() bool { return false }

// AVX512 reports whether the AVX-512 kernels are in use: never in this build.
func AVX512() bool { return false }

// Runs reports whether the kernels of set s are in use: only the Go fallbacks here.
func Runs(s ISA) bool { return s == ISAGo }

// CPUHas reports whether the CPU has set s: this build has no assembly kernels.
func CPUHas(s ISA) bool { return s == ISAGo }

// ForDType is ISAGo in this build.
func ForDType(dtype string) ISA { return ISAGo }

// LimitISA does nothing in this build (only the Go fallbacks exist).
func LimitISA(c ISA) (restore func()) { return func() {} }

// MeasurePeak needs the assembly kernels, which this build does not have.
func MeasurePeak(dtype string, d time.Duration) (float64, error) {
	return 0, errors.New("kernels: built without assembly kernels (no amd64 or arm64 kernels, or -tags noasm); no peak")
}

// PeakLoop needs the assembly kernels, which this build does not have.
func PeakLoop(dtype string) (loop func(n int), macsPerIter int, err error) {
	return nil, 0, errors.New("kernels: built without assembly kernels (no amd64 or arm64 kernels, or -tags noasm); no peak")
}

// DotProd reports whether the int8 kernels use the Arm dot-product instructions: never in
// this build.
func DotProd() bool { return false }
