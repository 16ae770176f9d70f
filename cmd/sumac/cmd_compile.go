package main

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/op"
)

func init() {
	c := &command{
		name:    "compile",
		summary: "compile a conv2d (Vyasa), gemm or einsum for the AI Engine: triplets, fused ops, kernel IR, C++",
		usage: `Usage: sumac compile --target aie1 'SPEC' [--schedule 'KEY=VALUE ...'] [--emit STAGE] [--explain] [--out DIR] [--json]
       sumac compile --explain
       sumac compile --target aie2p|aieml 'EINSUM SPEC' [--emit asm] [--json]   (see --target aie2p -h)

Compiles a CONV2D spec into an AIE1 kernel with seed 000's approach (Triplet IR, reuse graphs,
2D fusion under the shuffle-network rules) and checks the fused program against the exact
reference (outputs and accumulators, seeded inputs that saturate fewer than 1% of outputs).
A gemm or einsum spec becomes a register-blocked micro-kernel (docs/aie-gemm.md); --schedule
then takes its fields, e.g. 'x=A lx=16 mr=16 nr=4 kb=4 xk=2 zk=4'.

  --emit STAGE      print the IR of one stage of the pipeline (default cpp):
` + stageHelp() + `  --schedule S      a schedule as 'sumac tune' prints it, e.g. 'vec=x order=kyx u=1,2,1 fuse=taps';
                    fields left out take the default schedule's values
  --explain         without SPEC: the pipeline's stages in order; with SPEC: the schedule space,
                    every candidate, pruned ones with the rule that prunes them
  --out DIR         write DIR/NAME.cc and DIR/NAME.txt (how to run it with sumac sim)
  --target NAME     see 'sumac help targets'

Example:
  sumac compile --target aie1 'conv2d x=16 y=1 r=4 s=3 dtype=int16' --emit triplets
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		if _, ok := einsumTarget(args); ok {
			return runXDNA(env, "compile", args)
		}
		fs := newFlags(env, c)
		targetName := fs.String("target", "aie1", "target (see sumac help targets)")
		emit := fs.String("emit", "cpp", strings.Join(compiler.Names(), ", "))
		schedText := fs.String("schedule", "", "schedule fields")
		explain := fs.Bool("explain", false, "list the stages, or candidates and why pruned ones are illegal")
		outDir := fs.String("out", "", "directory for the C++ kernel")
		asJSON := fs.Bool("json", false, "write one JSON object to stdout")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		tg, err := resolveTarget(*targetName)
		if err != nil {
			return err
		}
		if *explain && len(pos) == 0 {
			return printStages(env, *asJSON)
		}
		if len(pos) == 0 {
			return usageErr("missing SPEC (see 'sumac compile -h')")
		}
		stage, err := compiler.Lookup(*emit)
		if err != nil {
			return usageErr("--emit: %v", err)
		}
		spec, err := op.Parse(strings.Join(pos, " "))
		if err != nil {
			return err
		}
		if spec.Conv == nil && !compiler.IsContraction(spec) {
			return fmt.Errorf("sumac compile handles conv2d, gemm and einsum specs, not %s", spec.Op())
		}
		if *explain {
			return explainSpace(env, tg, spec, *asJSON)
		}
		u, err := compiler.New(tg, spec, *schedText)
		if err != nil {
			return err
		}
		if !stage.NeedsProgram {
			return emitEarly(env, u, stage, *asJSON)
		}
		p, err := u.Generate()
		if err != nil {
			return err
		}
		ck, err := tg.Verify(p, 1)
		if err != nil {
			return err
		}
		// Cycles of one call on the target's cycle model, as sumac tune and sumac sim count them.
		ev, evErr := tg.Evaluate(p)
		cyc := any(nil)
		if evErr == nil {
			cyc = ev.Cycles
		}
		text, err := u.Emit(stage.Name)
		if err != nil {
			return err
		}
		if *outDir != "" {
			if err := tg.WriteKernel(*outDir, p.Name(), p); err != nil {
				return err
			}
		}
		vector, issued := p.MACCounts()
		if *asJSON {
			if err := writeJSON(env.stdout, map[string]any{"spec": spec.String(), "schedule": u.ScheduleKey(), "emit": stage.Name, "text": text,
				"vector_macs": vector, "issued_macs": issued, "macs": spec.MACs(), "cycles": cyc,
				"verified": ck.OK, "outputs_checked": ck.Outputs, "saturated_fraction": ck.Saturated}); err != nil {
				return err
			}
		} else {
			fmt.Fprint(env.stdout, text)
			if evErr != nil {
				fmt.Fprintf(env.stderr, "cycle model: %v\n", evErr)
			} else {
				fmt.Fprintf(env.stderr, "cycle model: %d cycles, %.2f MACs/cycle\n", ev.Cycles, float64(spec.MACs())/float64(ev.Cycles))
			}
			fmt.Fprintf(env.stderr, "schedule %s: %d vector MACs (%d issued MACs for %d useful), fused program %s against op/ref (%d outputs, %.4f saturated)\n",
				u.ScheduleKey(), vector, issued, spec.MACs(), map[bool]string{true: "matches", false: "DIFFERS"}[ck.OK], ck.Outputs, ck.Saturated)
		}
		if !ck.OK {
			return fmt.Errorf("%w: %s", errCheckFailed, ck.First)
		}
		return nil
	}
	register(c)
}

// emitEarly prints a stage before the program is generated (no check, no cycles).
func emitEarly(env *cmdEnv, u *compiler.Unit, stage compiler.Stage, asJSON bool) error {
	if asJSON && stage.Name == "triplets" {
		b, err := u.Triplets()
		if err != nil {
			return err
		}
		var rows [][3]string
		for _, t := range b.Triplets {
			rows = append(rows, [3]string{t.Update.String(), t.Op1.String(), t.Op2.String()})
		}
		return writeJSON(env.stdout, map[string]any{"spec": u.Spec.String(), "schedule": u.ScheduleKey(), "triplets": rows})
	}
	text, err := u.Emit(stage.Name)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(env.stdout, map[string]any{"spec": u.Spec.String(), "schedule": u.ScheduleKey(), "emit": stage.Name, "text": text})
	}
	fmt.Fprint(env.stdout, text)
	return nil
}
