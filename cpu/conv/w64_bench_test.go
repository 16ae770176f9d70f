package conv

import (
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/sumacdev/sumac/op/suite"
)

// threadCPU is the calling thread's CPU time (Linux RUSAGE_THREAD).
func threadCPU() time.Duration { return rusage(1) } // RUSAGE_THREAD

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkW64 times the fp32 ResNet-50 layers with the 6 x 64 kernels (w64) and the 6 x 32
// ones (w32), in thread CPU time: go test -run '^$' -bench 'W64/C16/' -count 7.
func BenchmarkW64(b *testing.B) {
	s, err := suite.Get("resnet50")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, wl := range s.Workloads {
		c := wl.Spec.Conv
		flop := 2 * float64(c.MACs())
		in, w := make([]float32, c.InLen()), make([]float32, c.WLen())
		for i := range in {
			in[i] = rng.Float32()
		}
		for i := range w {
			w[i] = rng.Float32() - 0.5
		}
		out := make([]float32, c.OutLen())
		for _, on := range []bool{false, true} {
			name := "w32"
			if on {
				name = "w64"
			}
			b.Run(wl.Name+"/"+name, func(b *testing.B) {
				defer func(v bool) { useW64 = v }(useW64)
				useW64 = on
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				p, err := NewF32(c, w, Options{Threads: 1})
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Run(in, out)
				t0, p0 := threadCPU(), rusage(syscall.RUSAGE_SELF)
				n := 0
				for b.Loop() {
					_ = p.Run(in, out)
					n++
				}
				b.ReportMetric(flop*float64(n)/(threadCPU()-t0).Seconds()/1e9, "cpu-gflops")
				b.ReportMetric(flop*float64(n)/(rusage(syscall.RUSAGE_SELF)-p0).Seconds()/1e9, "proc-gflops")
			})
		}
	}
}
