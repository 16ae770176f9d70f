package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sumacdev/sumac/cpu/bench"
	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op/suite"
)

func init() {
	c := &command{
		name:    "bench",
		summary: "measure sumac's CPU GEMM and direct convolution on a workload suite",
		usage: `Usage: sumac bench cpu --suite gemm|resnet50|mnist-cnn [--threads N] [--dtype LIST] [--json]

Runs every GEMM and convolution of the suite on this CPU with sumac's kernels (cpu/gemm,
cpu/conv) and prints, per workload and type, the rate in GFLOPS (GOPS for integers: 2 ops per
multiply-add, padding taps included) and two fractions of peak:
  ref_peak  the reference machine's measured peak (HOST-ZEN3 in docs/references.md: fp32 98.6, int16 147,
            u8s8 192 per core) times the threads;
  run_peak  the kernels' register-only loop measured in this run (kernels.MeasurePeak) times
            the threads: the ceiling on this machine right now, which is what to compare with
            when the host is not the reference machine or is shared.
Each figure is the median of --rounds samples of at least --min-time seconds. The ISA column
(JSON isa) names the kernel set that ran: avx512-vnni (int16, u8s8 with AVX-512 VNNI),
avx512-bf16 (bf16 on VDPBF16PS), avx512 (float32, float64 with AVX-512F; bf16 widened),
avx2-vnni, avx2, neon (arm64; neon-dotprod: the int8 kernels on SDOT/UDOT), or go (pure-Go
fallbacks); SUMAC_MAX_ISA=avx2 (or avx2-vnni, avx512, avx512-vnni, avx512-bf16, neon, go)
caps the sets.

Types (--dtype, comma-separated; default all the operation has): float32, float64 (GEMM only),
int16 (-> int32), u8s8 (uint8 x int8 -> int32, fast path, activations in 0..127),
u8s8-exact (exact for all uint8 activations), s8s8 (int8 x int8 -> int32, exact), bf16
(bf16 x bf16 -> float32). Pooling layers have no multiplies and are skipped.

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
		cfg := bench.Config{Threads: *threads, Rounds: *rounds, MinTime: *minTime, Match: *match,
			Log: func(format string, a ...any) { fmt.Fprintf(env.stderr, "sumac bench: "+format+"\n", a...) }}
		if cfg.Threads == 0 {
			cfg.Threads = runtime.GOMAXPROCS(0)
		}
		if cfg.Threads < 1 || cfg.Threads > 1024 {
			return usageErr("--threads %d out of range 1..1024", *threads)
		}
		if cfg.Rounds < 1 || cfg.Rounds > 1000 {
			return usageErr("--rounds %d out of range 1..1000", cfg.Rounds)
		}
		if !(cfg.MinTime >= 0 && cfg.MinTime <= 60) {
			return usageErr("--min-time %v out of range 0..60", cfg.MinTime)
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
			if !slices.Contains(bench.DTypes, d) {
				return usageErr("unknown --dtype %q (want %s)", d, strings.Join(bench.DTypes, ", "))
			}
			cfg.DTypes = append(cfg.DTypes, d)
		}
		rows, err := bench.Run(s, cfg)
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

func writeBenchTable(env *cmdEnv, rows []bench.Row) error {
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
	fmt.Fprintln(env.stdout, "\nGFLOPS: GOPS for integer types (2 ops per multiply-add). ref peak: HOST-ZEN3 (docs/references.md) per core x threads;")
	fmt.Fprintln(env.stdout, "run peak: the kernels' register-only loop measured now on this machine, x threads.")
	fmt.Fprintln(env.stdout, "ISA: the micro-kernels' instruction set (avx512 float GEMM kernels where the CPU has AVX-512F;")
	fmt.Fprintf(env.stdout, "%s=avx2 keeps them on AVX2).\n", kernels.MaxISAEnv)
	return nil
}
