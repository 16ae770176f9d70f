// Package bench measures sumac's CPU kernels (cpu/gemm, cpu/conv) on a workload suite
// (op/suite): per workload and type, the median time of one call, the rate in GFLOPS (GOPS for
// integers: 2 operations per multiply-add, padding taps included), and two fractions of peak:
// the reference machine's measured peak and the kernels' register-only loop measured in the
// same run (kernels.MeasurePeak), the ceiling on this machine right now.
package bench

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sumacdev/sumac/cpu/conv"
	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
)

// RefPeakPerCore is the measured per-core peak of the reference machine, in GFLOPS or GOPS
// (2 operations per multiply-add): a 2-vCPU AMD EPYC Zen 3 guest at about 3.0-3.2 GHz running
// register-only loops (fp32 VFMADD231PS on ymm with 12 independent chains 98.6; int16 VPMADDWD
// + VPADDD 147; uint8 x int8 VPMADDUBSW + VPMADDWD + VPADDD 192), the loops kernels.MeasurePeak
// runs. float64 is not in that measurement: it is half the float32 rate (4 lanes instead of 8
// at the same 2 FMA/cycle). The exact uint8 path is measured against the uint8 peak: it is the
// same operation.
var RefPeakPerCore = map[string]float64{
	"float32":    98.6,
	"float64":    98.6 / 2,
	"int16":      147,
	"u8s8":       192,
	"u8s8-exact": 192,
	// s8s8 runs the uint8 byte kernels on shifted activations where they are exact for
	// full-range weights (VNNI), else the int16 kernels: its ceiling is the byte rate.
	"s8s8": 192,
	// bf16 runs on the reference machine (no AVX512_BF16) as fp32 FMA on widened operands.
	"bf16": 98.6,
}

// runPeakKernel names the kernels.MeasurePeak loop whose rate is the same-run ceiling of
// each benchmark type (the exact uint8 path runs the int16 kernels).
var runPeakKernel = map[string]string{
	"float32": "float32", "float64": "float64", "int16": "int16", "u8s8": "u8s8", "u8s8-exact": "int16",
	"s8s8": "u8s8", // "int16" where the row ran the widened operands (Run)
	"bf16": "bf16", // "float32" where the row ran the widened fallback (Run)
}

// DTypes are the types a benchmark can run: float32, float64 (GEMM only), int16 (-> int32),
// u8s8 (uint8 x int8 -> int32, fast path, activations in 0..127) and u8s8-exact (exact for all
// uint8 activations), s8s8 (int8 x int8 -> int32, exact) and bf16 (bf16 x bf16 -> float32).
var DTypes = []string{"float32", "float64", "int16", "u8s8", "u8s8-exact", "s8s8", "bf16"}

// Config says what to run and how long.
type Config struct {
	Threads int      // goroutines of every call
	Rounds  int      // samples per figure (the median is reported)
	MinTime float64  // seconds per sample
	DTypes  []string // types to run (empty: all the operation has)
	Match   string   // only workloads whose name contains Match
	// Log, if not nil, receives progress: skipped workloads and each row as it is measured.
	Log func(format string, a ...any)
}

// Row is one measurement: one workload in one type (and one object of `sumac bench --json`).
type Row struct {
	Name      string  `json:"name"`
	Op        string  `json:"op"`
	DType     string  `json:"dtype"`
	Spec      string  `json:"spec"`
	Threads   int     `json:"threads"`
	ISA       string  `json:"isa"`     // the kernels' instruction set: avx512-vnni, avx512, avx2-vnni, avx2 or go
	GFLOP     float64 `json:"gflop"`   // work of one call
	Seconds   float64 `json:"seconds"` // median time of one call
	GFLOPS    float64 `json:"gflops"`
	RefPeak   float64 `json:"ref_peak_gflops"`
	PctRef    float64 `json:"pct_ref_peak"`
	RunPeak   float64 `json:"run_peak_gflops,omitempty"`
	PctRun    float64 `json:"pct_run_peak,omitempty"`
	PeakError string  `json:"run_peak_error,omitempty"`
}

// Run measures every workload of the suite that has multiplies in every requested type.
func Run(s *suite.Suite, cfg Config) ([]Row, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	rows := []Row{}
	for _, w := range s.Workloads {
		if cfg.Match != "" && !strings.Contains(w.Name, cfg.Match) {
			continue
		}
		if w.Spec.Conv == nil && w.Spec.GEMM == nil {
			logf("%s: %s has no multiplies, skipped", w.Name, w.Spec.Op())
			continue
		}
		for _, dt := range TypesFor(w.Spec, cfg.DTypes) {
			call, err := Call(w.Spec, dt, cfg.Threads)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", w.Name, dt, err)
			}
			sec, err := MedianTime(call, cfg.Rounds, cfg.MinTime)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", w.Name, dt, err)
			}
			flop := 2 * float64(w.Spec.MACs())
			r := Row{Name: w.Name, Op: w.Spec.Op(), DType: dt, Spec: w.Spec.Body(), Threads: cfg.Threads,
				ISA: KernelISA(w.Spec, dt), GFLOP: flop / 1e9, Seconds: sec, GFLOPS: flop / sec / 1e9}
			r.RefPeak = RefPeakPerCore[dt] * float64(cfg.Threads)
			r.PctRef = 100 * r.GFLOPS / r.RefPeak
			// The register-only peak loop runs on one goroutine: per core, then scaled. It is
			// measured right after each row, since a shared machine's speed drifts.
			peakLoop := runPeakKernel[dt]
			if dt == "bf16" && r.ISA != "avx512-bf16" && r.ISA != "amx" {
				peakLoop = "float32" // the widened fallback runs the fp32 kernels
			}
			if dt == "s8s8" {
				switch isa, err := kernels.ParseISA(r.ISA); {
				case r.ISA == "amx":
					peakLoop = "s8s8" // TDPBSSD
				case w.Spec.GEMM != nil || err != nil || !kernels.ExactBytes(isa):
					peakLoop = "int16" // the operands widened to int16
				}
			}
			if r.ISA != "go" {
				peakLoop += "/" + r.ISA // the set the row ran (a convolution's may be narrower)
			}
			p, err := kernels.MeasurePeak(peakLoop, 30*time.Millisecond)
			if err != nil {
				r.PeakError = err.Error()
			}
			if p > 0 {
				r.RunPeak = p * float64(cfg.Threads)
				r.PctRun = 100 * r.GFLOPS / r.RunPeak
			}
			rows = append(rows, r)
			logf("%s %s: %.1f G/s (%.0f%% of ref peak, %.0f%% of run peak)",
				r.Name, r.DType, r.GFLOPS, r.PctRef, r.PctRun)
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("no workload matched")
	}
	return rows, nil
}

// KernelISA names the instruction set of the kernels that run spec in dtype.
func KernelISA(spec *op.Spec, dtype string) string {
	if spec.GEMM != nil {
		return gemm.KernelISA(strings.TrimSuffix(dtype, "-exact"))
	}
	return conv.KernelISA(spec.Conv, strings.TrimSuffix(dtype, "-exact"), strings.HasSuffix(dtype, "-exact"))
}

// TypesFor lists the requested types the operation has in sumac.
func TypesFor(s *op.Spec, want []string) []string {
	have := DTypes
	if s.Conv != nil {
		have = []string{"float32", "int16", "u8s8", "u8s8-exact", "s8s8", "bf16"}
	}
	if len(want) == 0 {
		return have
	}
	var out []string
	for _, d := range have {
		if slices.Contains(want, d) {
			out = append(out, d)
		}
	}
	return out
}

// Call prepares one workload and type and returns the call to time: operands are
// random (activations of u8s8 in 0..127, the fast path's range), weights are packed here.
func Call(s *op.Spec, dt string, threads int) (func() error, error) {
	rng := rand.New(rand.NewPCG(uint64(s.MACs()), 7))
	if g := s.GEMM; g != nil {
		if g.TA || g.TB {
			return nil, errors.New("transposed operands are not benchmarked")
		}
		m, n, k := g.M, g.N, g.K
		o := gemm.Options{Threads: threads}
		switch dt {
		case "float32":
			a, b, c := randSlice[float32](rng, m*k), randSlice[float32](rng, k*n), make([]float32, m*n)
			return func() error { return o.Sgemm(gemm.NoTrans, gemm.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n) }, nil
		case "float64":
			a, b, c := randSlice[float64](rng, m*k), randSlice[float64](rng, k*n), make([]float64, m*n)
			return func() error { return o.Dgemm(gemm.NoTrans, gemm.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n) }, nil
		case "int16":
			a, b, c := randSlice[int16](rng, m*k), randSlice[int16](rng, k*n), make([]int32, m*n)
			return func() error { return o.GemmI16(gemm.NoTrans, gemm.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n) }, nil
		case "u8s8", "u8s8-exact":
			o.U8Path = kernels.U8Fast
			if dt == "u8s8-exact" {
				o.U8Path = kernels.U8Exact
			}
			a, b, c := randSlice[uint8](rng, m*k), randSlice[int8](rng, k*n), make([]int32, m*n)
			return func() error { return o.GemmU8S8(gemm.NoTrans, gemm.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n) }, nil
		case "s8s8":
			a, b, c := randSlice[int8](rng, m*k), randSlice[int8](rng, k*n), make([]int32, m*n)
			return func() error { return o.GemmS8S8(gemm.NoTrans, gemm.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n) }, nil
		case "bf16":
			a, b, c := randBF16(rng, m*k), randBF16(rng, k*n), make([]float32, m*n)
			return func() error { return o.GemmBF16(gemm.NoTrans, gemm.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n) }, nil
		}
		return nil, fmt.Errorf("no %s GEMM", dt)
	}
	c := s.Conv
	o := conv.Options{Threads: threads}
	switch dt {
	case "float32":
		p, err := conv.NewF32(c, randSlice[float32](rng, c.WLen()), o)
		if err != nil {
			return nil, err
		}
		in, out := randSlice[float32](rng, c.InLen()), make([]float32, c.OutLen())
		return func() error { return p.Run(in, out) }, nil
	case "int16":
		p, err := conv.NewI16(c, randSlice[int16](rng, c.WLen()), o)
		if err != nil {
			return nil, err
		}
		in, out := randSlice[int16](rng, c.InLen()), make([]int32, c.OutLen())
		return func() error { return p.Run(in, out) }, nil
	case "u8s8", "u8s8-exact":
		o.U8Path = kernels.U8Fast
		if dt == "u8s8-exact" {
			o.U8Path = kernels.U8Exact
		}
		p, err := conv.NewU8S8(c, randSlice[int8](rng, c.WLen()), o)
		if err != nil {
			return nil, err
		}
		in, out := randSlice[uint8](rng, c.InLen()), make([]int32, c.OutLen())
		return func() error { return p.Run(in, out) }, nil
	case "s8s8":
		p, err := conv.NewS8S8(c, randSlice[int8](rng, c.WLen()), o)
		if err != nil {
			return nil, err
		}
		in, out := randSlice[int8](rng, c.InLen()), make([]int32, c.OutLen())
		return func() error { return p.Run(in, out) }, nil
	case "bf16":
		p, err := conv.NewBF16(c, randBF16(rng, c.WLen()), o)
		if err != nil {
			return nil, err
		}
		in, out := randBF16(rng, c.InLen()), make([]float32, c.OutLen())
		return func() error { return p.Run(in, out) }, nil
	}
	return nil, fmt.Errorf("no %s convolution", dt)
}

// randSlice fills n values: floats in [-1, 1), int16 and int8 over their range, uint8 in
// 0..127.
func randSlice[T float32 | float64 | int16 | int8 | uint8](rng *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		var x T
		switch p := any(&x).(type) {
		case *float32:
			*p = rng.Float32()*2 - 1
		case *float64:
			*p = rng.Float64()*2 - 1
		case *int16:
			*p = int16(rng.Uint32())
		case *int8:
			*p = int8(rng.Uint32())
		case *uint8:
			*p = uint8(rng.Uint32N(128))
		}
		v[i] = x
	}
	return v
}

// randBF16 is randSlice's floats rounded to bf16 (uint16 storage).
func randBF16(rng *rand.Rand, n int) []uint16 {
	v := make([]uint16, n)
	for i, f := range randSlice[float32](rng, n) {
		v[i] = uint16(num.ToBF16(f))
	}
	return v
}

// MedianTime calls f once to warm up, then takes rounds samples, each the mean time of
// calls repeated for at least minTime, and returns their median.
func MedianTime(f func() error, rounds int, minTime float64) (float64, error) {
	if err := f(); err != nil {
		return 0, err
	}
	samples := make([]float64, rounds)
	for r := range samples {
		start := time.Now()
		n := 0
		for {
			if err := f(); err != nil {
				return 0, err
			}
			n++
			if el := time.Since(start).Seconds(); el >= minTime {
				samples[r] = el / float64(n)
				break
			}
		}
	}
	sort.Float64s(samples)
	if rounds%2 == 1 {
		return samples[rounds/2], nil
	}
	return (samples[rounds/2-1] + samples[rounds/2]) / 2, nil
}
