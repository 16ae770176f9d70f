package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

func init() {
	c := &command{
		name:    "compile",
		summary: "compile a conv2d for the AI Engine (Vyasa): triplets, reuse graphs, fused ops, kernel IR, C++",
		usage: `Usage: sumac compile --target aie1 'SPEC' [--schedule 'KEY=VALUE ...'] [--emit WHAT] [--explain] [--out DIR] [--json]

Compiles a CONV2D spec into an AIE1 kernel with seed 000's approach (Triplet IR, reuse graphs,
2D fusion under the shuffle-network rules) and checks the fused program against the exact
reference (outputs and accumulators, seeded inputs that saturate fewer than 1% of outputs).

  --emit triplets   the Triplet IR of the unrolled loop body (seed 000 Table I)
  --emit graphs     the reuse graphs and the aligned register loads they become
  --emit fused      the 2D operations with their shuffle parameters
  --emit kernel     the kernel IR
  --emit cpp        the kernel as AIE C++ with intrinsics (default)
  --schedule S      a schedule as 'sumac tune' prints it, e.g. 'vec=x order=kyx u=1,2,1 fuse=taps';
                    fields left out take the default schedule's values
  --explain         list the schedule space: every candidate, pruned ones with the rule that prunes them
  --out DIR         write DIR/NAME.cc and DIR/NAME.txt (how to run it with sumac sim)

Example:
  sumac compile --target aie1 'conv2d x=16 y=1 r=4 s=3 dtype=int16' --emit triplets
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		fs := newFlags(env, c)
		target := fs.String("target", "aie1", "target (see sumac help targets)")
		emit := fs.String("emit", "cpp", "triplets, graphs, fused, kernel or cpp")
		schedText := fs.String("schedule", "", "schedule fields")
		explain := fs.Bool("explain", false, "list candidates and why pruned ones are illegal")
		outDir := fs.String("out", "", "directory for the C++ kernel")
		asJSON := fs.Bool("json", false, "write one JSON object to stdout")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		if _, err := resolveTarget(*target); err != nil {
			return err
		}
		if len(pos) == 0 {
			return usageErr("missing SPEC (see 'sumac compile -h')")
		}
		spec, err := op.Parse(strings.Join(pos, " "))
		if err != nil {
			return err
		}
		if spec.Conv == nil {
			return fmt.Errorf("sumac compile handles conv2d specs, not %s", spec.Op())
		}
		if *explain {
			return explainSpace(env, spec, *asJSON)
		}
		def, err := vyasa.DefaultSchedule(spec)
		if err != nil {
			return err
		}
		s, err := sched.Parse(*schedText, def)
		if err != nil {
			return err
		}
		if *schedText != "" && !strings.Contains(*schedText, "O=") {
			// Layouts follow the vector loop and fusion unless given.
			d, _ := vyasa.DatapathFor(spec.Types)
			s.Out, s.W, s.In, s.PadR = sched.Layouts(spec.Conv, s.Vec, s.Fusion, d.Shape)
		}
		d, err := vyasa.DatapathFor(spec.Types)
		if err != nil {
			return err
		}
		if *emit == "triplets" {
			b, err := triplet.Build(spec.Conv, s, d.Shape)
			if err != nil {
				return err
			}
			if *asJSON {
				var rows [][3]string
				for _, t := range b.Triplets {
					rows = append(rows, [3]string{t.Update.String(), t.Op1.String(), t.Op2.String()})
				}
				return writeJSON(env.stdout, map[string]any{"spec": spec.String(), "schedule": s.Key(), "triplets": rows})
			}
			fmt.Fprint(env.stdout, b.String())
			return nil
		}
		p, err := vyasa.Generate(spec, s)
		if err != nil {
			return fmt.Errorf("schedule %s: %v", s.Key(), err)
		}
		ck, err := vyasa.Verify(p, 1)
		if err != nil {
			return err
		}
		// Cycles of one call on the model (target/aie1/backend + target/aie1/cyclesim), as sumac tune and
		// sumac sim count them.
		ev, evErr := tune.Model{}.Evaluate(p)
		cyc := any(nil)
		if evErr == nil {
			cyc = ev.Cycles
		}
		var text string
		switch *emit {
		case "graphs":
			text = graphsText(p)
		case "fused":
			text = fusedText(p)
		case "kernel":
			text = p.Kernel.String()
		case "cpp":
			if text, err = cemit.Emit(p.Kernel); err != nil {
				return err
			}
		default:
			return usageErr("--emit %q: want triplets, graphs, fused, kernel or cpp", *emit)
		}
		if *outDir != "" {
			if err := writeKernel(*outDir, p); err != nil {
				return err
			}
		}
		if *asJSON {
			if err := writeJSON(env.stdout, map[string]any{"spec": spec.String(), "schedule": s.Key(), "emit": *emit, "text": text,
				"vector_macs": p.VectorMACs, "issued_macs": p.IssuedMACs, "macs": spec.MACs(), "cycles": cyc,
				"verified": ck.OK(), "outputs_checked": ck.Outputs, "saturated_fraction": ck.Saturated}); err != nil {
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
				s.Key(), p.VectorMACs, p.IssuedMACs, spec.MACs(), map[bool]string{true: "matches", false: "DIFFERS"}[ck.OK()], ck.Outputs, ck.Saturated)
		}
		if !ck.OK() {
			return fmt.Errorf("%w: %s", errCheckFailed, ck.First)
		}
		return nil
	}
	register(c)
}

func graphsText(p *vyasa.Program) string {
	var sb strings.Builder
	r := p.Fused
	for _, g := range []*triplet.Graph{r.XGraph, r.ZGraph} {
		kind := "vector loads"
		if g.Scalar {
			kind = "scalar operands"
		}
		fmt.Fprintf(&sb, "reuse graph of %s (%s): %d nodes, %d edges, %d components\n", g.Tensor, kind, len(g.Nodes), len(g.Edges), len(g.Components()))
		for i, comp := range g.Components() {
			var names []string
			for _, n := range comp {
				names = append(names, g.Nodes[n].Access.String())
			}
			fmt.Fprintf(&sb, "  component %d: %s\n", i, strings.Join(names, " "))
		}
	}
	for _, set := range []struct {
		name string
		bufs []*triplet.Buffer
	}{{"X registers", r.XBufs}, {"Z registers", r.ZBufs}} {
		fmt.Fprintf(&sb, "%s:\n", set.name)
		for _, b := range set.bufs {
			fmt.Fprintf(&sb, "  %d: %v, %d bits\n", b.ID, b, len(b.Starts)*256)
		}
	}
	return sb.String()
}

func fusedText(p *vyasa.Program) string {
	var sb strings.Builder
	for _, o := range p.Fused.Ops {
		var ms []string
		for _, m := range o.Members {
			s := m.Op1.String() + "*" + m.Op2.String()
			if m.Pad {
				s += " (pad)"
			}
			ms = append(ms, s)
		}
		fmt.Fprintf(&sb, "%s += %s   [X%d Z%d] %v\n", p.Fused.Plan.Body.Updates[o.U], strings.Join(ms, " + "), o.X.ID, o.Z.ID, o.Params)
	}
	for _, e := range p.Fused.Explain {
		fmt.Fprintln(&sb, "# "+e)
	}
	return sb.String()
}

// writeKernel writes the C++ kernel and a note on how to run it.
func writeKernel(dir string, p *vyasa.Program) error { return writeKernelAs(dir, p.Kernel.Name, p) }

// writeKernelAs writes the kernel as DIR/NAME.cc and the sim command line as DIR/NAME.txt.
func writeKernelAs(dir, name string, p *vyasa.Program) error {
	src, err := cemit.Emit(p.Kernel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	head := fmt.Sprintf("// Code generated by sumac compile (Vyasa, seed 000). DO NOT EDIT.\n// spec: %s\n// schedule: %s\n// buffers (elements of %v): in %d, w %d, out %d\n\n",
		p.Spec, p.Sched.Key(), p.Datapath.DType, p.Elems[triplet.In], p.Elems[triplet.W], p.Elems[triplet.Out])
	if err := os.WriteFile(filepath.Join(dir, name+".cc"), []byte(head+src), 0o644); err != nil {
		return err
	}
	eb := p.Datapath.DType.Bits() / 8
	note := fmt.Sprintf("sumac sim %s.cc --window in=%d --window w=%d --window out=%d\n", name, p.Elems[triplet.In]*eb, p.Elems[triplet.W]*eb, p.Elems[triplet.Out]*eb)
	return os.WriteFile(filepath.Join(dir, name+".txt"), []byte(note), 0o644)
}

// explainSpace lists the schedule space with the reason each pruned candidate is illegal.
func explainSpace(env *cmdEnv, spec *op.Spec, asJSON bool) error {
	d, err := vyasa.DatapathFor(spec.Types)
	if err != nil {
		return err
	}
	cands, pruned := sched.Space(spec.Conv, d.Shape, vyasa.MaxVectors, vyasa.MaxBodyMACs)
	type row struct {
		Schedule string `json:"schedule"`
		Legal    bool   `json:"legal"`
		Reason   string `json:"reason,omitempty"`
	}
	var rows []row
	for _, pr := range pruned {
		k, reason, _ := strings.Cut(pr, ": ")
		rows = append(rows, row{Schedule: k, Reason: reason})
	}
	for _, s := range cands {
		_, err := vyasa.Generate(spec, s)
		r := row{Schedule: s.Key(), Legal: err == nil}
		if err != nil {
			r.Reason = err.Error()
		}
		rows = append(rows, r)
	}
	if asJSON {
		return writeJSON(env.stdout, rows)
	}
	legal := 0
	for _, r := range rows {
		if r.Legal {
			legal++
			fmt.Fprintf(env.stdout, "legal   %s\n", r.Schedule)
		} else {
			fmt.Fprintf(env.stdout, "pruned  %s\n        %s\n", r.Schedule, r.Reason)
		}
	}
	fmt.Fprintf(env.stdout, "%d candidates, %d legal\n", len(rows), legal)
	if legal == 0 {
		return fmt.Errorf("no legal schedule fits %s", spec)
	}
	return nil
}
