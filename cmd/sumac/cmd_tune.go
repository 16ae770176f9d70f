package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
)

func init() {
	c := &command{
		name:    "tune",
		summary: "auto-tune conv2d schedules for the AI Engine (Vyasa) on the cycle model",
		usage: `Usage: sumac tune --target aie1 (--suite NAME | 'SPEC') [--dtype T] [--peel] [--only NAMES] [--workers N] [--no-cache] [--out DIR] [--json]

Enumerates and prunes the schedule space of every workload (vectorized loop, loop order,
unroll-and-jam factors, data layouts, column fusion), generates each candidate, evaluates it on
the AIE1 cycle model in parallel, keeps the fastest and verifies it bit for bit against the
exact reference. Prints per workload the chosen schedule (the columns of seed 000 Tables III
and IV, with the paper's choice), cycles, MACs/cycle, % of peak and the roofline bound, then
the geometric mean per precision. Evaluations are kept in a store under the user cache
directory (keyed by spec, schedule and model version); --no-cache tunes from scratch.

A workload whose data do not fit the tile's memory is computed in blocks: over output
channels (each call reading the whole input) when that fits, else blocks of output columns,
rows and channels with their input window; the tuner compares up to 3 blocks and prints the
one it chose (block), the bytes its buffers take and those that duplicate input data.

  --suite NAME   a workload suite (see 'sumac suite list'), e.g. vyasa36
  --peel         also tune each padded workload's peeled form (border outputs computed by
                 code of their own, without the padding's taps) and print both forms
  --dtype T      give every workload operand type T (int8, uint8, int16, int32, fp32) with
                 its default accumulator and output, e.g. --suite resnet50 --dtype uint8
  --only NAMES   comma-separated workload names of the suite
  --workers N    parallel evaluations (default: all cores)
  --json         an array with one object per workload
  --out DIR      write each chosen kernel (one call) as DIR/NAME.cc, and DIR/NAME.txt with the
                 sumac sim command that runs it

Example:
  sumac tune --target aie1 --suite vyasa36 --json
  sumac tune --target aie1 --suite resnet50 --dtype uint8
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		fs := newFlags(env, c)
		target := fs.String("target", "aie1", "target (see sumac help targets)")
		suiteName := fs.String("suite", "", "workload suite")
		dtype := fs.String("dtype", "", "operand type of every workload")
		peel := fs.Bool("peel", false, "also tune the peeled form of padded workloads")
		only := fs.String("only", "", "workload names")
		workers := fs.Int("workers", 0, "parallel evaluations")
		noCache := fs.Bool("no-cache", false, "ignore and do not update the store")
		asJSON := fs.Bool("json", false, "write a JSON array")
		outDir := fs.String("out", "", "write each chosen kernel as DIR/NAME.cc")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		tg, err := resolveTarget(*target)
		if err != nil {
			return err
		}
		var ws []tune.Workload
		switch {
		case *suiteName != "" && len(pos) > 0:
			return usageErr("give --suite or a SPEC, not both")
		case *suiteName != "":
			s, err := suite.Get(*suiteName)
			if err != nil {
				return err
			}
			if ws, err = tune.FromSuite(s); err != nil {
				return err
			}
		case len(pos) > 0:
			s, err := op.Parse(strings.Join(pos, " "))
			if err != nil {
				return err
			}
			if s.Conv == nil {
				return fmt.Errorf("sumac tune handles conv2d specs, not %s", s.Op())
			}
			ws = []tune.Workload{{Name: "spec", Spec: s}}
		default:
			return usageErr("missing --suite or SPEC (see 'sumac tune -h')")
		}
		if *dtype != "" {
			if _, err := op.ParseDType(*dtype); err != nil {
				return usageErr("--dtype %s: %v", *dtype, err)
			}
			for i := range ws {
				s, err := op.Retype(ws[i].Spec, "dtype="+*dtype)
				if err != nil {
					return usageErr("--dtype %s: %s: %v", *dtype, ws[i].Name, err)
				}
				ws[i].Spec = s
			}
		}
		if *only != "" {
			keep := map[string]bool{}
			for _, n := range strings.Split(*only, ",") {
				keep[strings.TrimSpace(n)] = true
			}
			var sel []tune.Workload
			for _, w := range ws {
				if keep[w.Name] {
					sel = append(sel, w)
					delete(keep, w.Name)
				}
			}
			for n := range keep {
				return fmt.Errorf("--only: no workload %q", n)
			}
			ws = sel
		}
		opt := tune.Options{Target: tg, Workers: *workers, Verify: true}
		if !*noCache {
			path, err := tune.DefaultStorePath()
			if err == nil {
				if opt.Store, err = tune.OpenStore(path); err != nil {
					return err
				}
			}
		}
		if env.isTerminal {
			opt.Progress = func(done, total int, name string) {
				if done == total || done%10 == 0 {
					fmt.Fprintf(env.stderr, "\rtune: %d/%d candidates (%s)    ", done, total, name)
				}
				if done == total {
					fmt.Fprintln(env.stderr)
				}
			}
		}
		rs, err := tune.Run(ws, opt)
		if err == nil && *peel {
			opt.Progress = nil
			err = tune.ComparePeel(ws, rs, opt)
		}
		if serr := opt.Store.Save(); serr != nil {
			fmt.Fprintf(env.stderr, "tune: could not save the store: %v\n", serr)
		}
		if err != nil {
			return err
		}
		if *outDir != "" {
			for i, r := range rs {
				p, err := tune.Generate(tg, ws[i], r)
				if err != nil {
					return err
				}
				if err := tg.WriteKernel(*outDir, r.Name, p); err != nil {
					return err
				}
			}
		}
		failed := 0
		for _, r := range rs {
			if !r.Verified {
				failed++
			}
		}
		if *asJSON {
			if err := writeJSON(env.stdout, rs); err != nil {
				return err
			}
		} else {
			printTune(env, rs)
		}
		if failed > 0 {
			return fmt.Errorf("%w: %d workloads not verified", errCheckFailed, failed)
		}
		return nil
	}
	register(c)
}

func printTune(env *cmdEnv, rs []tune.Result) {
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tdtype\tblock\tO\tW\tI\tvec\tSW\tux\tuy\tuk\torder\tfuse\tcycles\tMACs/cyc\tpct_peak\troofline\tverified\tpaper: vec ux uy uk order")
	for _, r := range rs {
		s := r.Sched
		paper := "-"
		if p := r.Paper; p != nil {
			paper = fmt.Sprintf("%s %d %d %d %s", p.VectorLoop, p.UnrollX, p.UnrollY, p.UnrollK, p.LoopOrder)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%.2f\t%.1f\t%.2f\t%v\t%s\n",
			r.Name, r.DType, strings.ReplaceAll(r.Block, " ", ","), s.Out, s.W, s.In, s.Vec, r.SWLoop, s.UX, s.UY, s.UK, s.Order, s.Fusion,
			r.Cycles, r.MACsPerCycle, r.PctPeak, r.Roofline, r.Verified, paper)
	}
	tw.Flush()
	for _, r := range rs {
		if r.CallNote != "" {
			fmt.Fprintf(env.stdout, "note: %s: %s\n", r.Name, r.CallNote)
		}
		if r.PeelRegions > 0 {
			win := "packed"
			if r.PeelCycles < r.Cycles {
				win = "peeled"
			}
			fmt.Fprintf(env.stdout, "note: %s: padding packed %d cycles (zero border %d bytes), peeled %d cycles in %d regions (verified: %v): %s wins\n",
				r.Name, r.Cycles, r.PadBytes, r.PeelCycles, r.PeelRegions, r.PeelVerified, win)
		}
		if r.DupBytes > 0 {
			fmt.Fprintf(env.stdout, "note: %s: %d of the kernel's %d bytes duplicate the input (schedule dup=%d)\n", r.Name, r.DupBytes, r.Bytes, r.Sched.Dup)
		}
		if !r.Verified {
			fmt.Fprintf(env.stdout, "NOT VERIFIED: %s: %s\n", r.Name, r.VerifyNote)
		}
	}
	dts, g := tune.Geomean(rs)
	for _, d := range dts {
		fmt.Fprintf(env.stdout, "geomean %s: %.2f MACs/cycle\n", d, g[d])
	}
}
