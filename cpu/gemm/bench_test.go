package gemm

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/sumacdev/sumac/cpu/kernels"
)

// The gemm suite's shapes (op/suite "gemm", HOST-ZEN3): row-major C = A*B.
var suiteShapes = [][3]int{{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 290}}

func randF32(n int) []float32 {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.Float64()*2 - 1)
	}
	return v
}

func randF64(n int) []float64 {
	r := rand.New(rand.NewPCG(2, uint64(n)))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64()*2 - 1
	}
	return v
}

// measure runs f under b.Loop and reports GFLOPS (GOPS for integers: 2 per multiply-add).
// On amd64 it also reports %peak: after every call it measures the kernel's register-only
// peak for about as long (kernels.MeasurePeak) and takes the median of the per-call ratios.
// The machines are shared and their speed moves by tens of percent within seconds
// (HOST-ZEN3), so only such interleaved ratios compare runs made at different times.
func measure(b *testing.B, dtype string, threads, m, n, k int, f func()) {
	ops := 2 * float64(m) * float64(n) * float64(k)
	var ratios []float64
	for b.Loop() {
		t0 := time.Now()
		f()
		d := time.Since(t0)
		b.StopTimer()
		if p, err := kernels.MeasurePeak(dtype, min(d, 20*time.Millisecond)); err == nil {
			ratios = append(ratios, ops/d.Seconds()/1e9/(p*float64(threads)))
		}
		b.StartTimer()
	}
	b.ReportMetric(ops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
	if len(ratios) > 0 {
		sort.Float64s(ratios)
		b.ReportMetric(100*ratios[len(ratios)/2], "%peak")
	}
}

// BenchmarkSgemm: go test -run x -bench Sgemm -count 5 ./cpu/gemm (threads: 1 and 2).
func BenchmarkSgemm(b *testing.B) {
	for _, threads := range []int{1, 2} {
		for _, s := range suiteShapes {
			m, n, k := s[0], s[1], s[2]
			b.Run(fmt.Sprintf("%dx%dx%d/t%d", m, n, k, threads), func(b *testing.B) {
				A, B, C := randF32(m*k), randF32(k*n), make([]float32, m*n)
				o := Options{Threads: threads}
				measure(b, "float32", threads, m, n, k, func() {
					if err := o.Sgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

func BenchmarkDgemm(b *testing.B) {
	for _, threads := range []int{1, 2} {
		for _, s := range suiteShapes {
			m, n, k := s[0], s[1], s[2]
			b.Run(fmt.Sprintf("%dx%dx%d/t%d", m, n, k, threads), func(b *testing.B) {
				A, B, C := randF64(m*k), randF64(k*n), make([]float64, m*n)
				o := Options{Threads: threads}
				measure(b, "float64", threads, m, n, k, func() {
					if err := o.Dgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkGonumSgemm is gonum's native Sgemm (v0.17.0) on the same shapes, for the ratio.
// It starts its own goroutines; run with -cpu 1 for the 1-thread figure.
func BenchmarkGonumSgemm(b *testing.B) {
	for _, s := range suiteShapes[:3] {
		m, n, k := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(b *testing.B) {
			A, B, C := randF32(m*k), randF32(k*n), make([]float32, m*n)
			measure(b, "float32", runtime.GOMAXPROCS(0), m, n, k, func() {
				gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, A, k, B, n, 0, C, n)
			})
		})
	}
}

func BenchmarkGemmI16(b *testing.B) {
	for _, s := range suiteShapes[:4] {
		m, n, k := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("%dx%dx%d/t1", m, n, k), func(b *testing.B) {
			A, B, C := make([]int16, m*k), make([]int16, k*n), make([]int32, m*n)
			for i := range A {
				A[i] = int16(i * 7)
			}
			for i := range B {
				B[i] = int16(i * 3)
			}
			o := Options{Threads: 1}
			measure(b, "int16", 1, m, n, k, func() {
				if err := o.GemmI16(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkGemmU8S8(b *testing.B) {
	for _, path := range []struct {
		name string
		p    kernels.U8Path
		peak string // the kernel that path runs
	}{{"fast", kernels.U8Fast, "u8s8"}, {"exact", kernels.U8Exact, "int16"}} {
		for _, s := range suiteShapes[:4] {
			m, n, k := s[0], s[1], s[2]
			b.Run(fmt.Sprintf("%s/%dx%dx%d/t1", path.name, m, n, k), func(b *testing.B) {
				A, B, C := make([]uint8, m*k), make([]int8, k*n), make([]int32, m*n)
				for i := range A {
					A[i] = uint8(i*7) & 127
				}
				for i := range B {
					B[i] = int8(i * 3)
				}
				o := Options{Threads: 1, U8Path: path.p}
				measure(b, path.peak, 1, m, n, k, func() {
					if err := o.GemmU8S8(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
