//go:build linux

package gemm

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sumacdev/sumac/cpu/kernels"
)

// ratio runs f and the register peak loop of dtype alternately on one locked thread, reps
// times, and returns the median of f's rate (flops per call) divided by the peak's, both in
// thread CPU time. Alternating cancels the slow drifts of a shared machine (clock, siblings).
func ratio(t *testing.T, dtype string, reps int, flops float64, f func()) (r, gflops float64) {
	loop, macs, err := kernels.PeakLoop(dtype)
	if err != nil {
		t.Skip(err)
	}
	var rs, gs []float64
	for range reps {
		var tp, tf time.Duration
		cpuRate(1, func() {}) // lock/unlock churn-free warm start
		pb, _ := cpuRate(3, func() { loop(1 << 14) })
		fb, _ := cpuRate(1, f)
		tp, tf = pb, fb
		peak := 2 * float64(macs) * (1 << 14) / tp.Seconds()
		rate := flops / tf.Seconds()
		rs = append(rs, rate/peak)
		gs = append(gs, rate/1e9)
	}
	sort.Float64s(rs)
	sort.Float64s(gs)
	return rs[len(rs)/2], gs[len(gs)/2]
}

// TestTune prints single-thread efficiencies (fraction of the register peak, measured
// alternately in thread CPU time): the kernels with operands in L1, packing speed, and
// SGEMM/DGEMM on the suite shapes. Opt-in: SUMAC_TUNE=1 go test -run Tune -v ./cpu/gemm
// (SUMAC_TUNE=all adds the two largest shapes).
func TestTune(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	const kg = 384
	a, b, c := randF32(kg*6), randF32(kg*16), make([]float32, 96)
	r, g := ratio(t, "float32", 15, 200*2*96*kg, func() {
		for range 200 {
			kernels.F32(kg, a, b, c, 16, 1, 1)
		}
	})
	fmt.Printf("kernel f32 6x16 kc=%d: %.1f%% of peak (%.1f GFLOPS)\n", kg, 100*r, g)
	a64, b64, c64 := randF64(kg*6), randF64(kg*8), make([]float64, 48)
	r, g = ratio(t, "float64", 15, 200*2*48*kg, func() {
		for range 200 {
			kernels.F64(kg, a64, b64, c64, 8, 1, 1)
		}
	})
	fmt.Printf("kernel f64 6x8 kc=%d: %.1f%% of peak (%.1f GFLOPS)\n", kg, 100*r, g)

	const mr, nr, kc, mn, ld = 6, 16, 256, 252, 1024
	src := randF32(ld * ld)
	dst := make([]float32, kc*(mn+16))
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"packA notrans", func() { packA(dst, view[float32]{src, ld, 1}, 0, mn, 0, kc, mr, 1) }},
		{"packA trans", func() { packA(dst, view[float32]{src, 1, ld}, 0, mn, 0, kc, mr, 1) }},
		{"packB notrans", func() { packB(dst, view[float32]{src, ld, 1}, 0, kc, 0, mn, nr, 1) }},
		{"packB trans", func() { packB(dst, view[float32]{src, 1, ld}, 0, kc, 0, mn, nr, 1) }},
	} {
		pb, pm := cpuRate(50, tc.f)
		fmt.Printf("%s: best %.3f median %.3f ns/elem\n", tc.name, float64(pb.Nanoseconds())/(kc*mn), float64(pm.Nanoseconds())/(kc*mn))
	}

	o := Options{Threads: 1}
	for _, s := range suiteShapes {
		m, n, k := s[0], s[1], s[2]
		if m*n*k > 1<<31 && os.Getenv("SUMAC_TUNE") != "all" {
			continue
		}
		A, B, C := randF32(m*k), randF32(k*n), make([]float32, m*n)
		reps := max(5, min(21, 1<<30/(m*n*k)))
		fl := 2 * float64(m) * float64(n) * float64(k)
		rs, gs := ratio(t, "float32", reps, fl, func() { o.Sgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n) })
		A64, B64, C64 := randF64(m*k), randF64(k*n), make([]float64, m*n)
		rd, gd := ratio(t, "float64", reps, fl, func() { o.Dgemm(NoTrans, NoTrans, m, n, k, 1, A64, k, B64, n, 0, C64, n) })
		fmt.Printf("%dx%dx%d: sgemm %.1f%% (%.1f GFLOPS), dgemm %.1f%% (%.1f GFLOPS)\n", m, n, k, 100*rs, gs, 100*rd, gd)
		if m*n*k > 1<<30 {
			continue
		}
		A16, B16, C32 := make([]int16, m*k), make([]int16, k*n), make([]int32, m*n)
		for i := range A16 {
			A16[i] = int16(i * 7)
		}
		for i := range B16 {
			B16[i] = int16(i * 3)
		}
		ri, gi := ratio(t, "int16", reps, fl, func() { o.GemmI16(NoTrans, NoTrans, m, n, k, 1, A16, k, B16, n, 0, C32, n) })
		A8, B8 := make([]uint8, m*k), make([]int8, k*n)
		for i := range A8 {
			A8[i] = uint8(i*7) & 127
		}
		for i := range B8 {
			B8[i] = int8(i * 3)
		}
		of, oe := Options{Threads: 1, U8Path: kernels.U8Fast}, Options{Threads: 1, U8Path: kernels.U8Exact}
		rf, gf := ratio(t, "u8s8", reps, fl, func() { of.GemmU8S8(NoTrans, NoTrans, m, n, k, 1, A8, k, B8, n, 0, C32, n) })
		re, ge := ratio(t, "int16", reps, fl, func() { oe.GemmU8S8(NoTrans, NoTrans, m, n, k, 1, A8, k, B8, n, 0, C32, n) })
		fmt.Printf("%dx%dx%d: int16 %.1f%% (%.1f GOPS), u8s8 fast %.1f%% (%.1f GOPS), u8s8 exact %.1f%% of int16 peak (%.1f GOPS)\n", m, n, k, 100*ri, gi, 100*rf, gf, 100*re, ge)
	}
}

// TestTuneBlocking compares block sizes for one GEMM, interleaved round-robin so that every
// candidate sees the same machine conditions. SUMAC_TUNE=1 go test -run TuneBlocking -v
// (float32 1024^3 and a fixed candidate list); SUMAC_TUNE_DTYPE=float64,
// SUMAC_TUNE_SHAPE=m,n,k and SUMAC_TUNE_BLOCKINGS="mc,kc,nc mc,kc,nc ..." change them. The
// derived blocking always runs first.
func TestTuneBlocking(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	m, n, k := 1024, 1024, 1024
	if env := os.Getenv("SUMAC_TUNE_SHAPE"); env != "" {
		if _, err := fmt.Sscanf(env, "%d,%d,%d", &m, &n, &k); err != nil {
			t.Fatalf("SUMAC_TUNE_SHAPE=%q: want m,n,k", env)
		}
	}
	dtype, s := "float32", floats().f32 // the kernel set in use (SUMAC_MAX_ISA=avx2 for AVX2)
	if os.Getenv("SUMAC_TUNE_DTYPE") == "float64" {
		dtype, s = "float64", floats().f64
	}
	cands := []Blocking{derive(Caches(), s)}
	if env := os.Getenv("SUMAC_TUNE_BLOCKINGS"); env != "" {
		for _, f := range strings.Fields(env) {
			b, err := ParseBlocking(f)
			if err == nil {
				b, err = b.validate(s)
			}
			if err != nil {
				t.Fatalf("SUMAC_TUNE_BLOCKINGS: %q: %v", f, err)
			}
			cands = append(cands, b)
		}
	} else {
		cands = append(cands, Blocking{MC: 144, KC: 256, NC: 4080}, Blocking{MC: 240, KC: 256, NC: 4096}, Blocking{MC: 360, KC: 384, NC: 4096}, Blocking{MC: 120, KC: 384, NC: 4096}, Blocking{MC: 480, KC: 192, NC: 4096}, Blocking{MC: 96, KC: 512, NC: 4096})
	}
	var run func(o Options)
	if dtype == "float64" {
		A, B, C := randF64(m*k), randF64(k*n), make([]float64, m*n)
		run = func(o Options) { o.Dgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n) }
	} else {
		A, B, C := randF32(m*k), randF32(k*n), make([]float32, m*n)
		run = func(o Options) { o.Sgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n) }
	}
	res := make([][]float64, len(cands))
	fl := 2 * float64(m) * float64(n) * float64(k)
	for round := 0; round < 7; round++ {
		for i, bl := range cands {
			o := Options{Threads: 1, Blocking: &bl}
			r, _ := ratio(t, dtype, 1, fl, func() { run(o) })
			res[i] = append(res[i], r)
		}
	}
	for i, bl := range cands {
		sort.Float64s(res[i])
		fmt.Printf("%s %dx%dx%d %v: median %.1f%% of peak (min %.1f max %.1f)\n", dtype, m, n, k, bl, 100*res[i][len(res[i])/2], 100*res[i][0], 100*res[i][len(res[i])-1])
	}
}

// TestTuneThreads compares 2 threads with 1 on SGEMMs in wall-clock time, alternating the
// two so both see the same machine; small shapes run back to back, as a network's layers
// do. SUMAC_TUNE=1 go test -run TuneThreads -v ./cpu/gemm
func TestTuneThreads(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	for _, s := range [][3]int{{128, 128, 128}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 290}} {
		m, n, k := s[0], s[1], s[2]
		A, B, C := randF32(m*k), randF32(k*n), make([]float32, m*n)
		reps := max(1, 1<<27/(m*n*k))
		var speedups []float64
		for range 7 {
			var d [2]time.Duration
			for i, th := range []int{1, 2} {
				o := Options{Threads: th}
				t0 := time.Now()
				for range reps {
					o.Sgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n)
				}
				d[i] = time.Since(t0)
			}
			speedups = append(speedups, d[0].Seconds()/d[1].Seconds())
		}
		sort.Float64s(speedups)
		fmt.Printf("%dx%dx%d: 2 threads / 1 thread = %.2fx (min %.2f max %.2f)\n", m, n, k, speedups[3], speedups[0], speedups[6])
	}
}

// TestTunePeakThreads: the register peak on 1 and 2 goroutines, to tell whether a second
// core is available at all right now.
func TestTunePeakThreads(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	loop, macs, err := kernels.PeakLoop("float32")
	if err != nil {
		t.Skip(err)
	}
	run := func(th int) float64 {
		t0 := time.Now()
		done := make(chan bool)
		for range th {
			go func() {
				for range 200 {
					loop(1 << 14)
				}
				done <- true
			}()
		}
		for range th {
			<-done
		}
		return float64(th) * 200 * (1 << 14) * 2 * float64(macs) / time.Since(t0).Seconds() / 1e9
	}
	for range 3 {
		fmt.Printf("peak 1 thread %.1f, 2 threads %.1f GFLOPS\n", run(1), run(2))
	}
}

// TestTuneKernelSets compares the AVX2 and the AVX-512 float kernels (each with its own
// derived blocking) on the suite shapes, interleaved in one process, each against its own
// peak loop. SUMAC_TUNE=1 go test -run TuneKernelSets -v ./cpu/gemm (needs AVX-512).
func TestTuneKernelSets(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	if !kernels.AVX512() {
		t.Skip("the CPU has no AVX-512 (or SUMAC_MAX_ISA caps it)")
	}
	for _, shp := range suiteShapes {
		m, n, k := shp[0], shp[1], shp[2]
		A, B, C := randF64(m*k), randF64(k*n), make([]float64, m*n)
		A32, B32, C32 := randF32(m*k), randF32(k*n), make([]float32, m*n)
		fl := 2 * float64(m) * float64(n) * float64(k)
		for _, dt := range []string{"float32", "float64"} {
			var res [2][]float64
			for range 5 {
				for i, avx512 := range []bool{false, true} {
					peak := dt + "/avx2"
					if avx512 {
						peak = dt
					}
					withFloatKernels(avx512, func() {
						o := Options{Threads: 1}
						r, _ := ratio(t, peak, 1, fl, func() {
							if dt == "float64" {
								o.Dgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n)
							} else {
								o.Sgemm(NoTrans, NoTrans, m, n, k, 1, A32, k, B32, n, 0, C32, n)
							}
						})
						res[i] = append(res[i], r)
					})
				}
			}
			for i := range res {
				sort.Float64s(res[i])
			}
			fmt.Printf("%s %dx%dx%d: avx2 %.1f%%, avx512 %.1f%% of peak (medians of 5)\n", dt, m, n, k, 100*res[0][2], 100*res[1][2])
		}
	}
}

// TestTuneMacro separates SGEMM's cost: the macro-kernel alone on already packed blocks
// (loops L4/L5 around the kernel) against the register peak, for the default blocking,
// with the AVX2 kernels and, where the CPU has them, the AVX-512 ones (each against its
// own peak loop).
func TestTuneMacro(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	sets := []bool{false}
	if kernels.AVX512() {
		sets = append(sets, true)
	}
	for _, avx512 := range sets {
		fk := floatKernelSet(avx512)
		s, peak := fk.f32, "float32/avx2"
		if avx512 {
			peak = "float32"
		}
		blk := derive(Caches(), s)
		for _, mnk := range [][3]int{{256, 256, 256}, {1024, 1024, 1024}, {blk.MC, 2048, blk.KC}, {144, 2048, 256}, {240, 2048, 256}, {120, 2048, 384}, {360, 2048, 192}, {480, 2048, 256}} {
			m, n, k := mnk[0], mnk[1], mnk[2]
			b2 := blk.fit(s, m, n, k)
			mb, kb, nb := min(b2.MC, m), min(b2.KC, k), min(b2.NC, n)
			A, B := randF32(m*k), randF32(k*n)
			C := make([]float32, m*n)
			pl := plan[float32, float32, float32, float32, float32]{s: s, kern: fk.f32Tiles, blk: blk, threads: 1, ws: &wsF32}
			w := worker[float32, float32]{a: make([]float32, kb*(mb+s.mr)), tile: make([]float32, s.mr*s.nr)}
			bufB := make([]float32, kb*(nb+s.nr))
			packA(w.a, view[float32]{A, k, 1}, 0, mb, 0, kb, s.mr, 1)
			packB(bufB, view[float32]{B, n, 1}, 0, kb, 0, nb, s.nr, 1)
			nPanels := (nb + s.nr - 1) / s.nr
			fl := 2 * float64(mb) * float64(nb) * float64(kb)
			r, g := ratio(t, peak, 15, fl, func() {
				pl.macro(&w, kb, mb, 0, 0, nb, 0, nPanels, bufB, kb*s.nr, 1, 1, C, n)
			})
			fmt.Printf("avx512=%v macro-kernel mb=%d kb=%d nb=%d: %.1f%% of peak (%.1f GFLOPS)\n", avx512, mb, kb, nb, 100*r, g)
		}
	}
}

// TestTuneThreadCPU compares the process CPU time of 1- and 2-thread SGEMMs: equal CPU time
// means the second thread adds no work (no spinning, no duplicated packing), so on a free
// second core the speed-up is limited only by load balance. Useful when the machine is
// too busy for wall-clock speed-ups. SUMAC_TUNE=1 go test -run TuneThreadCPU -v
func TestTuneThreadCPU(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	cpu := func() time.Duration {
		var ru unix.Rusage
		unix.Getrusage(unix.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, s := range [][3]int{{1024, 1024, 1024}, {4096, 4096, 290}} {
		m, n, k := s[0], s[1], s[2]
		A, B, C := randF32(m*k), randF32(k*n), make([]float32, m*n)
		var d [2][]float64
		for range 5 {
			for i, th := range []int{1, 2} {
				o := Options{Threads: th}
				c0 := cpu()
				o.Sgemm(NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n)
				d[i] = append(d[i], (cpu() - c0).Seconds())
			}
		}
		sort.Float64s(d[0])
		sort.Float64s(d[1])
		fmt.Printf("%dx%dx%d: CPU time 2 threads / 1 thread = %.2f\n", m, n, k, d[1][2]/d[0][2])
	}
}
