package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
)

func init() {
	c := &command{
		name:    "tune",
		summary: "auto-tune conv2d (Vyasa), gemm and einsum schedules for the AI Engine on the cycle model",
		usage: `Usage: sumac tune --target aie1 (--suite NAME | 'SPEC') [--dtype T] [--peel] [--only NAMES] [--workers N] [--store LOC | --no-cache]
       [--shard I/N] [--out DIR] [--json]

Enumerates and prunes the schedule space of every workload (vectorized loop, loop order,
unroll-and-jam factors, data layouts, column fusion), generates each candidate, evaluates it on
the AIE1 cycle model in parallel, keeps the fastest and verifies it bit for bit against the
exact reference. Prints per workload the chosen schedule (the columns of seed 000 Tables III
and IV, with the paper's choice), cycles, MACs/cycle, % of peak and the roofline bound, then
the geometric mean per precision. Every evaluated candidate is a record in the tuning store
(keyed by target, spec, schedule, generator and model version): a run evaluates only what the
store does not have. Each result says how many candidates it evaluated and how many it took
from the store ('evaluated', 'stored'). --no-cache tunes from scratch and keeps nothing.

A workload whose data do not fit the tile's memory is computed in blocks: over output
channels (each call reading the whole input) when that fits, else blocks of output columns,
rows and channels with their input window; the tuner compares up to 3 blocks and prints the
one it chose (block), the bytes its buffers take and those that duplicate input data.

A gemm or einsum spec is tuned over register blocks (docs/aie-gemm.md): the operand in the X
register, lanes, block, k step, register orders and layouts; the JSON names the refused
candidates by rule ("refused"), and every result carries pct_peak.

  --suite NAME   a workload suite (see 'sumac suite list'), e.g. vyasa36
  --peel         also tune each padded workload's peeled form (border outputs computed by
                 code of their own, without the padding's taps) and print both forms
  --dtype T      give every workload operand type T (int8, uint8, int16, int32, fp32) with
                 its default accumulator and output, e.g. --suite resnet50 --dtype uint8
  --only NAMES   comma-separated workload names of the suite
  --workers N    parallel evaluations (default: all cores)
  --store LOC    sqlite:PATH or postgres://... (default: $SUMAC_STORE, else SQLite under the
                 user cache directory); see 'sumac db'
  --shard I/N    evaluate only share I of N of the candidates into the store and choose nothing;
                 a run without --shard then chooses from the store. Inside a Kubernetes Indexed
                 Job, JOB_COMPLETION_INDEX of $SUMAC_SHARDS is the shard (docs/tuning-store.md)
  --json         an array with one object per workload
  --out DIR      write each chosen kernel (one call) as DIR/NAME.cc, and DIR/NAME.txt with the
                 sumac sim command that runs it

Examples:
  sumac tune --target aie1 --suite vyasa36 --json
  sumac tune --target aie1 --suite resnet50 --dtype uint8
  sumac tune --target aie1 'gemm m=16 n=4 k=256 beta=1 dtype=int16' --json --out DIR
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
		storeLoc := fs.String("store", "", "tuning store")
		shard := fs.String("shard", "", "evaluate share I of N")
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
			if s.Conv == nil && !compiler.IsContraction(s) {
				return fmt.Errorf("sumac tune handles conv2d, gemm and einsum specs, not %s", s.Op())
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
		if *shard != "" {
			if opt.Shard, opt.Shards, err = tune.ParseShard(*shard); err != nil {
				return usageErr("--shard: %v", err)
			}
		} else if i, n, ok, err := tune.ShardFromEnv(os.Getenv); err != nil {
			return usageErr("%v", err)
		} else if ok {
			opt.Shard, opt.Shards = i, n
		}
		if opt.Shards > 1 && *noCache {
			return usageErr("--shard evaluates into the store: it cannot be combined with --no-cache")
		}
		if !*noCache {
			st, note, err := tune.OpenStore(context.Background(), *storeLoc, tg, nil)
			if err != nil {
				return err
			}
			defer st.Close()
			if note != "" {
				fmt.Fprintf(env.stderr, "tune: %s\n", note)
			}
			opt.Store = st
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
		if err != nil {
			return err
		}
		if opt.Shards > 1 {
			if *asJSON {
				return writeJSON(env.stdout, rs)
			}
			return tune.WriteShardText(env.stdout, rs, opt.Store.Location())
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
			tune.WriteText(env.stdout, rs)
		}
		if failed > 0 {
			return fmt.Errorf("%w: %d workloads not verified", errCheckFailed, failed)
		}
		return nil
	}
	register(c)
}
