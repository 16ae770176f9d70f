package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/system/versal"
)

const versalUsage = `Usage: sumac versal gemm 'SPEC' [--sweep kc|mc] [--placement seed|best] [--rates real|seed]
                          [--kc N] [--mc N] [--trace FILE] [--machine FILE] [--set KEY=VALUE ...] [--json]
       sumac versal conv --suite resnet50 [--dtype uint8|int8] [--placement seed|best] [--rates real|seed] [--json]
       sumac versal conv 'SPEC' [--placement ...] [--rates ...] [--cib N] [--trace FILE] [--json]
       sumac versal gemm 'SPEC' --tiles N [--scope array|system] [--sweep tiles] [--json]
       sumac versal conv --suite resnet50 --tiles N [--dtype uint8|int8] [--json]
       sumac versal reproduce charm|maxeva [--json]

Models one Versal VC1902 AI Engine tile with the memory around it (DDR through the NoC, PL RAM,
the tile's and its neighbours' memory; PLIO and GMIO streams, tile DMA with locks, the ARM's
copy) and runs seed 001's GEMM or seed 004's direct convolution on it: transfers and the cycle
simulator's kernel calls on one timeline (package system/versal, docs/versal.md). Every result
is checked bit for bit against op/ref on a scaled-down shape running the same code
(verified_shape).

  --placement seed  the seeds' placement (A_r / F_r streamed from PL RAM every call, B_r / I_r
                    copied by the ARM, C_r / O_r through DDR every call)
  --placement best  sumac's (default): operands resident in tile and neighbour memory, tile DMA
                    double buffering, several micro-tiles per call, whole reduction per call
  --rates real      every transfer costs what its mechanism costs (default)
  --rates seed      the seeds' simulator: window contents present when a call starts (the ARM
                    copy is still timed)
  --sweep kc        seed 001 Fig. 5: the Fig. 4 kernel alone per kc, and the whole GEMM
  --sweep mc        seed 001 Fig. 6: the whole GEMM per mc (sweeps default to --placement seed)
  --machine FILE    JSON object of machine parameters to change; --set KEY=VALUE changes one
                    (keys: see docs/versal.md)
  --trace FILE      the timeline in the Chrome trace-event format (open in Perfetto)
  --json            one JSON document: cycles, macs, macs_per_cycle, pct_peak, clock_ghz, limit,
                    breakdown (cycles per mechanism), verified, verified_shape, ...

  --tiles N         the whole array (docs/versal-array.md): the fastest design on at most N
                    tiles (kernel, grid, cascade or adder reduction, broadcast, packet switching),
                    its throughput (tops), binding resource (limit) and per-resource utilization
  --scope array     the array and its PLIOs, fed by the PL at PLIO rate (default); system adds
                    the PL buffers refilled from DDR
  --sweep tiles     the best design for every budget 1..N
  reproduce         CHARM's and MaxEVA's designs from their published parameters: published
                    against predicted throughput, a +-20% sensitivity table, sumac's design

Exit status: 0 ok, 1 a result failed its check against op/ref, 2 bad input.

Examples:
  sumac versal gemm 'gemm m=4096 n=4096 k=290 dtype=int16' --json
  sumac versal gemm 'gemm m=4096 n=4096 k=290 dtype=int16' --placement seed --rates seed
  sumac versal gemm 'gemm m=4096 n=4096 k=290 dtype=int16' --sweep kc --rates seed
  sumac versal conv --suite resnet50 --dtype uint8
`

func init() {
	c := &command{name: "versal", summary: "model a Versal tile with DDR, PL RAM, streams, DMA and locks: seed 001's GEMM, seed 004's convolution", usage: versalUsage}
	c.run = func(env *cmdEnv, args []string) error { return runVersal(env, c, args) }
	register(c)
}

func runVersal(env *cmdEnv, c *command, args []string) error {
	fs := newFlags(env, c)
	var sets listFlag
	fs.Var(&sets, "set", "KEY=VALUE")
	sweep := fs.String("sweep", "", "kc or mc")
	placement := fs.String("placement", "", "seed or best")
	rates := fs.String("rates", versal.RatesReal, "real or seed")
	kc := fs.Int("kc", 0, "kc")
	mc := fs.Int("mc", 0, "mc")
	cib := fs.Int("cib", 0, "cib")
	suiteName := fs.String("suite", "", "suite")
	dtype := fs.String("dtype", "uint8", "dtype")
	traceFile := fs.String("trace", "", "FILE")
	machineFile := fs.String("machine", "", "FILE")
	asJSON := fs.Bool("json", false, "JSON output")
	tiles := fs.Int("tiles", 0, "N")
	scope := fs.String("scope", "", "array or system")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 && pos[0] == "reproduce" || *tiles != 0 || *sweep == "tiles" {
		m, err := versal.MachineFrom(*machineFile, sets)
		if err != nil {
			return err
		}
		return runVersalArray(env, pos, arrayFlags{tiles: *tiles, scope: *scope, sweep: *sweep, suite: *suiteName, dtype: *dtype, json: *asJSON}, m)
	}
	if len(pos) == 0 || pos[0] != "gemm" && pos[0] != "conv" {
		return usageErr("want 'sumac versal gemm SPEC' or 'sumac versal conv ...' (see 'sumac versal -h')")
	}
	what, pos := pos[0], pos[1:]
	if *placement != "" && *placement != versal.PlacementSeed && *placement != versal.PlacementBest {
		return usageErr("--placement %q: want seed or best", *placement)
	}
	if *rates != versal.RatesReal && *rates != versal.RatesSeed {
		return usageErr("--rates %q: want real or seed", *rates)
	}
	m, err := versal.MachineFrom(*machineFile, sets)
	if err != nil {
		return err
	}
	var tr *versal.Trace
	if *traceFile != "" {
		if *sweep != "" || *suiteName != "" {
			return usageErr("--trace needs a single run (no --sweep, no --suite)")
		}
		tr = versal.NewTrace(m.AIEClockGHz * 1e9)
	}
	var doc any
	ok := true
	switch {
	case what == "conv" && *suiteName != "":
		if len(pos) != 0 {
			return usageErr("--suite and a SPEC exclude each other")
		}
		if *dtype != "uint8" && *dtype != "int8" {
			return usageErr("--dtype %q: the 8-bit kernels take uint8 (seed 004) or int8", *dtype)
		}
		sr, err := versal.RunSuite(m, *suiteName, *dtype, versal.ConvOptions{Placement: *placement, Rates: *rates, CIB: *cib})
		if err != nil {
			return err
		}
		doc, ok = sr, sr.Verified
		if !*asJSON {
			printSuite(env.stdout, sr)
		}
	default:
		if len(pos) != 1 {
			return usageErr("want one SPEC in quotes (see 'sumac versal -h')")
		}
		spec, err := op.Parse(pos[0])
		if err != nil {
			return err
		}
		if what == "conv" {
			r, err := versal.RunConv(m, spec, versal.ConvOptions{Placement: *placement, Rates: *rates, CIB: *cib, Trace: tr})
			if err != nil {
				return err
			}
			doc, ok = r, r.Verified
			if !*asJSON {
				printResult(env.stdout, &r.Result)
				fmt.Fprintf(env.stdout, "without data movement: %.2f MACs/cycle (%.1f%% of peak)\n", r.MACsPerCycleCompute, r.PctPeakCompute)
			}
			break
		}
		o := versal.GEMMOptions{Placement: *placement, Rates: *rates, KC: *kc, MC: *mc, Trace: tr}
		switch *sweep {
		case "":
			r, err := versal.RunGEMM(m, spec, o)
			if err != nil {
				return err
			}
			doc, ok = r, r.Verified
			if !*asJSON {
				printResult(env.stdout, r)
			}
		default:
			sr, err := versal.SweepGEMM(m, spec, *sweep, o)
			if err != nil {
				return err
			}
			doc, ok = sr, sr.Verified
			if !*asJSON {
				printSweep(env.stdout, sr.Points)
			}
		}
	}
	if tr != nil {
		f, err := os.Create(*traceFile)
		if err != nil {
			return err
		}
		werr := tr.Write(f, map[string]any{"spec": pos[0], "placement": *placement, "rates": *rates})
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			return werr
		}
	}
	if *asJSON {
		if err := writeJSON(env.stdout, doc); err != nil {
			return err
		}
	}
	if !ok {
		return fmt.Errorf("%w: a result differs from op/ref on its scaled-down shape (see verify_error)", errCheckFailed)
	}
	return nil
}

func printResult(w io.Writer, r *versal.Result) {
	fmt.Fprintf(w, "%s\nplacement %s, rates %s, blocking %v\n", r.Spec, r.Placement, r.Rates, r.Blocking)
	fmt.Fprintf(w, "%d cycles (%.3f ms at %.2f GHz), %d calls, %.2f MACs/cycle = %.1f%% of peak (%d), limit: %s\n",
		r.Cycles, float64(r.Cycles)/r.ClockGHz/1e6, r.ClockGHz, r.Calls, r.MACsPerCycle, r.PctPeak, r.Peak, r.Limit)
	keys := make([]string, 0, len(r.Breakdown))
	for k := range r.Breakdown {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return r.Breakdown[keys[i]] > r.Breakdown[keys[j]] })
	for _, k := range keys {
		fmt.Fprintf(w, "  %-28s %12d cycles %5.1f%%\n", k, r.Breakdown[k], 100*float64(r.Breakdown[k])/float64(r.Cycles))
	}
	for _, k := range r.Kernels {
		fmt.Fprintf(w, "  kernel %s: %d cycles, %d MACs per call, %d calls\n", k.Kernel, k.Cycles, k.MACs, k.Calls)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintf(w, "verified %v on %s (%s) %s\n", r.Verified, r.VerifiedOn, r.VerifyInputs, r.VerifyError)
}

func printSweep(w io.Writer, pts any) {
	switch p := pts.(type) {
	case []versal.KCPoint:
		fmt.Fprintf(w, "%6s %14s %16s %12s %9s %s\n", "kc", "kernel cycles", "kernel % peak", "GEMM cycles", "% peak", "verified")
		for _, x := range p {
			fmt.Fprintf(w, "%6d %14d %16.1f %12d %9.1f %v\n", x.KC, x.KernelCycles, x.KernelPctPeak, x.Cycles, x.PctPeak, x.Verified)
		}
	case []versal.MCPoint:
		fmt.Fprintf(w, "%6s %12s %9s %-12s %s\n", "mc", "cycles", "% peak", "limit", "verified")
		for _, x := range p {
			fmt.Fprintf(w, "%6d %12d %9.1f %-12s %v %s\n", x.MC, x.Cycles, x.PctPeak, x.Limit, x.Verified, x.Error)
		}
	}
}

func printSuite(w io.Writer, s *versal.SuiteResult) {
	fmt.Fprintf(w, "%s %s, placement %s, rates %s\n%-5s %10s %10s %8s %-12s %s\n", s.Suite, s.DType, s.Placement, s.Rates, "layer", "MACs/cyc", "compute", "% peak", "limit", "verified")
	for _, l := range s.Layers {
		fmt.Fprintf(w, "%-5s %10.1f %10.1f %8.1f %-12s %v\n", l.Layer, l.MACsPerCycle, l.MACsPerCycleCompute, l.PctPeak, l.Limit, l.Verified)
	}
	fmt.Fprintf(w, "geomean %.1f%% of peak with data movement, %.1f%% without (data movement %.1f%%); lowest %.1f MACs/cycle (%s); verified %v\n",
		s.GeomeanPctPeak, s.GeomeanPctPeakCompute, s.DataMovementPct, s.MinMACsPerCycle, s.MinLayer, s.Verified)
}
