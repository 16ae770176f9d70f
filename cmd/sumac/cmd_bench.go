package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sumacdev/sumac/cpu/conv"
	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
)

// refPeakPerCore is the measured per-core peak of the reference machine, in GFLOPS or GOPS
// (2 operations per multiply-add), from ../shared/reference/cpu.md, "Measured peaks (per
// core)": a 2-vCPU AMD EPYC Zen3 guest at about 3.0-3.2 GHz. float64 is not in that table:
// it is half the float32 rate (4 lanes instead of 8 at the same 2 FMA/cycle, same section).
// The exact uint8 path is measured against the uint8 peak: it is the same operation.
var refPeakPerCore = map[string]float64{
	"float32":    98.6,
	"float64":    98.6 / 2,
	"int16":      147,
	"u8s8":       192,
	"u8s8-exact": 192,
}

// runPeakKernel names the kernels.MeasurePeak loop whose rate is the same-run ceiling of
// each benchmark type (the exact uint8 path runs the int16 kernels).
var runPeakKernel = map[string]string{
	"float32": "float32", "float64": "float64", "int16": "int16", "u8s8": "u8s8", "u8s8-exact": "int16",
}

var benchDTypes = []string{"float32", "float64", "int16", "u8s8", "u8s8-exact"}

func init() {
	c := &command{
		name:    "bench",
		summary: "measure sumac's CPU GEMM and direct convolution on a workload suite",
		usage: `Usage: sumac bench cpu --suite gemm|resnet50|mnist-cnn [--threads N] [--dtype LIST] [--json]

Runs every GEMM and convolution of the suite on this CPU with sumac's kernels (cpu/gemm,
cpu/conv) and prints, per workload and type, the rate in GFLOPS (GOPS for integers: 2 ops per
multiply-add, padding taps included) and two fractions of peak:
  ref_peak  the reference machine's measured peak (reference/cpu.md, Zen3: fp32 98.6, int16 147,
            u8s8 192 per core) times the threads;
  run_peak  the kernels' register-only loop measured in this run (kernels.MeasurePeak) times
            the threads: the ceiling on this machine right now, which is what to compare with
            when the host is not the reference machine or is shared.
Each figure is the median of --rounds samples of at least --min-time seconds. The ISA column
(JSON isa) names the kernels' instruction set: avx512 (the float GEMMs where the CPU has
AVX-512F), avx2, or go (pure-Go fallbacks); SUMAC_MAX_ISA=avx2 keeps the AVX2 kernels.

Types (--dtype, comma-separated; default all the operation has): float32, float64 (GEMM only),
int16 (-> int32), u8s8 (uint8 x int8 -> int32, fast path, activations in 0..127),
u8s8-exact (exact for all uint8 activations). Pooling layers have no multiplies and are skipped.

Flags:
  --suite NAME      workload suite (op/suite): gemm, resnet50, mnist-cnn
  --threads N       goroutines (default: all cores)
  --dtype LIST      types to run
  --match S         only workloads whose name contains S
  --rounds N        samples per figure (default 3)
  --min-time SEC    seconds per sample (default 0.2)
  --json            write one JSON array to stdout
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		fs := newFlags(env, c)
		suiteName := fs.String("suite", "", "")
		threads := fs.Int("threads", 0, "")
		dtypes := fs.String("dtype", "", "")
		match := fs.String("match", "", "")
		rounds := fs.Int("rounds", 3, "")
		minTime := fs.Float64("min-time", 0.2, "")
		asJSON := fs.Bool("json", false, "")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 || pos[0] != "cpu" {
			return usageErr("want 'sumac bench cpu --suite NAME' (see 'sumac bench -h')")
		}
		cfg := benchConfig{threads: *threads, rounds: *rounds, minTime: *minTime, match: *match}
		if cfg.threads == 0 {
			cfg.threads = runtime.GOMAXPROCS(0)
		}
		if cfg.threads < 1 || cfg.threads > 1024 {
			return usageErr("--threads %d out of range 1..1024", *threads)
		}
		if cfg.rounds < 1 || cfg.rounds > 1000 {
			return usageErr("--rounds %d out of range 1..1000", cfg.rounds)
		}
		if !(cfg.minTime >= 0 && cfg.minTime <= 60) {
			return usageErr("--min-time %v out of range 0..60", cfg.minTime)
		}
		if *suiteName == "" {
			return usageErr("--suite is required (gemm, resnet50, mnist-cnn)")
		}
		s, err := suite.Get(*suiteName)
		if err != nil {
			return err
		}
		for _, d := range strings.Split(*dtypes, ",") {
			if d = strings.TrimSpace(d); d == "" {
				continue
			}
			if !slices.Contains(benchDTypes, d) {
				return usageErr("unknown --dtype %q (want %s)", d, strings.Join(benchDTypes, ", "))
			}
			cfg.dtypes = append(cfg.dtypes, d)
		}
		rows, err := runBenchSuite(env, s, &cfg)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.stdout, rows)
		}
		return writeBenchTable(env, rows)
	}
	register(c)
}

type benchConfig struct {
	threads, rounds int
	minTime         float64
	dtypes          []string
	match           string
}

// benchRow is one line of the report (and one object of --json).
type benchRow struct {
	Name      string  `json:"name"`
	Op        string  `json:"op"`
	DType     string  `json:"dtype"`
	Spec      string  `json:"spec"`
	Threads   int     `json:"threads"`
	ISA       string  `json:"isa"`     // the kernels' instruction set: avx512, avx2 or go
	GFLOP     float64 `json:"gflop"`   // work of one call
	Seconds   float64 `json:"seconds"` // median time of one call
	GFLOPS    float64 `json:"gflops"`
	RefPeak   float64 `json:"ref_peak_gflops"`
	PctRef    float64 `json:"pct_ref_peak"`
	RunPeak   float64 `json:"run_peak_gflops,omitempty"`
	PctRun    float64 `json:"pct_run_peak,omitempty"`
	PeakError string  `json:"run_peak_error,omitempty"`
}

func runBenchSuite(env *cmdEnv, s *suite.Suite, cfg *benchConfig) ([]benchRow, error) {
	rows := []benchRow{}
	for _, w := range s.Workloads {
		if cfg.match != "" && !strings.Contains(w.Name, cfg.match) {
			continue
		}
		if w.Spec.Conv == nil && w.Spec.GEMM == nil {
			fmt.Fprintf(env.stderr, "sumac bench: %s: %s has no multiplies, skipped\n", w.Name, w.Spec.Op())
			continue
		}
		for _, dt := range benchTypesFor(w.Spec, cfg.dtypes) {
			call, err := benchCall(w.Spec, dt, cfg.threads)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", w.Name, dt, err)
			}
			sec, err := medianTime(call, cfg.rounds, cfg.minTime)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", w.Name, dt, err)
			}
			flop := 2 * float64(w.Spec.MACs())
			r := benchRow{Name: w.Name, Op: w.Spec.Op(), DType: dt, Spec: w.Spec.Body(), Threads: cfg.threads,
				ISA: kernelISA(w.Spec, dt), GFLOP: flop / 1e9, Seconds: sec, GFLOPS: flop / sec / 1e9}
			r.RefPeak = refPeakPerCore[dt] * float64(cfg.threads)
			r.PctRef = 100 * r.GFLOPS / r.RefPeak
			// The register-only peak loop runs on one goroutine: per core, then scaled. It is
			// measured right after each row, since a shared machine's speed drifts.
			peakLoop := runPeakKernel[dt]
			if r.ISA == "avx2" {
				peakLoop += "/avx2" // the row ran AVX2 kernels even if the GEMMs' are AVX-512
			}
			p, err := kernels.MeasurePeak(peakLoop, 30*time.Millisecond)
			if err != nil {
				r.PeakError = err.Error()
			}
			if p > 0 {
				r.RunPeak = p * float64(cfg.threads)
				r.PctRun = 100 * r.GFLOPS / r.RunPeak
			}
			rows = append(rows, r)
			fmt.Fprintf(env.stderr, "sumac bench: %s %s: %.1f G/s (%.0f%% of ref peak, %.0f%% of run peak)\n",
				r.Name, r.DType, r.GFLOPS, r.PctRef, r.PctRun)
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("no workload matched")
	}
	return rows, nil
}

// kernelISA names the instruction set of the kernels that run spec in dtype.
func kernelISA(spec *op.Spec, dtype string) string {
	if spec.GEMM != nil {
		return gemm.KernelISA(strings.TrimSuffix(dtype, "-exact"))
	}
	if kernels.Accelerated() {
		return "avx2"
	}
	return "go"
}

// benchTypesFor lists the requested types the operation has in sumac.
func benchTypesFor(s *op.Spec, want []string) []string {
	have := benchDTypes
	if s.Conv != nil {
		have = []string{"float32", "int16", "u8s8", "u8s8-exact"}
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

// benchCall prepares one workload and type and returns the call to time: operands are
// random (activations of u8s8 in 0..127, the fast path's range), weights are packed here.
func benchCall(s *op.Spec, dt string, threads int) (func() error, error) {
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

// medianTime calls f once to warm up, then takes rounds samples, each the mean time of
// calls repeated for at least minTime, and returns their median.
func medianTime(f func() error, rounds int, minTime float64) (float64, error) {
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

func writeBenchTable(env *cmdEnv, rows []benchRow) error {
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tOP\tDTYPE\tISA\tTHREADS\tMS\tGFLOPS\t%REF_PEAK\t%RUN_PEAK")
	for _, r := range rows {
		run := "-"
		if r.RunPeak > 0 {
			run = fmt.Sprintf("%.0f%%", r.PctRun)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.3f\t%.1f\t%.0f%%\t%s\n", r.Name, r.Op, r.DType, r.ISA, r.Threads,
			1e3*r.Seconds, r.GFLOPS, r.PctRef, run)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, "\nGFLOPS: GOPS for integer types (2 ops per multiply-add). ref peak: reference/cpu.md (Zen3) per core x threads;")
	fmt.Fprintln(env.stdout, "run peak: the kernels' register-only loop measured now on this machine, x threads.")
	fmt.Fprintln(env.stdout, "ISA: the micro-kernels' instruction set (avx512 float GEMM kernels where the CPU has AVX-512F;")
	fmt.Fprintf(env.stdout, "%s=avx2 keeps them on AVX2).\n", kernels.MaxISAEnv)
	return nil
}
