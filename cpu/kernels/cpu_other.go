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

// ISA names the instruction set of the kernels in use: "go", the fallbacks.
func ISA() string { return "go" }

// U8FastExact reports whether the uint8 x int8 kernels are exact for every input: the Go
// fallbacks model VPMADDUBSW's saturation, so no.
func U8FastExact() bool { return false }
