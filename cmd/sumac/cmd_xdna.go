package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/sumacdev/sumac/target"
	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/xdna"
)

// The AIE-ML (XDNA1) and XDNA2 tiles under sumac compile and sumac sim: --target aieml|aie2p
// hands the whole command line to runXDNA, which parses its own flags (the AIE1 flags of compile
// and sim do not apply to these tiles).

const xdnaUsage = `Usage: sumac compile --target aie2p|aieml 'EINSUM SPEC' [--emit asm] [--json]
       sumac sim --target aie2p|aieml [--spec 'EINSUM SPEC'] [--c-in zero|random] FILE.s [--json]

compile generates the VLIW kernel of an einsum (aie2p: seed 002's bfp16 layout
[m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0], m1=n1=2, m0=k0=n0=8; aieml: the
bf16 layout [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0], m0=4 k0=8 n0=4), runs it on the
cycle-level model with random operands and checks the output against op/ref.
  --emit asm   print the assembly listing instead of the report
  --accumulate the kernel adds to the output buffer (out += A.B, as the published kernels do;
               aieml only), checked from a random initial output
  --json       one JSON document: instructions, vmacs, utilization (= vmacs / instructions),
               cycles, stalls, gflops (at clock_ghz), clock_ghz, verified, and the schedule

sim reads a listing in the syntax of the published xdna kernels, places the einsum's three
buffers bank by bank (p0 = in0, p1 = in1, p2 = out, p3 = second half of out), runs it,
rejects hazards and checks the output against op/ref.
  --spec       the einsum the listing computes (default: the published kernel's)
  --in0, --in1, --out   buffer addresses (default: bank-aware placement)
  --c-in       initial output buffer: zero (default) or random (kernels that accumulate)
  --json       instructions, vmacs, cycles, stalls, ok, verified, hazard
Exit status: 0 verified, 1 a hazard or a wrong output, 2 bad input.
`

// einsumTarget returns the XDNA description when args name such a target with --target.
func einsumTarget(args []string) (*xdna.Arch, bool) {
	for i, a := range args {
		name, ok := "", false
		switch {
		case (a == "--target" || a == "-target") && i+1 < len(args):
			name, ok = args[i+1], true
		case strings.HasPrefix(a, "--target="), strings.HasPrefix(a, "-target="):
			name, ok = a[strings.Index(a, "=")+1:], true
		}
		if ok {
			if t, err := target.Lookup(name); err == nil && t.Einsum != nil {
				return t.Einsum, true
			}
			return nil, false
		}
	}
	return nil, false
}

func xdnaArch(name string) (*xdna.Arch, error) {
	switch name {
	case aie2p.Name:
		return aie2p.Arch, nil
	case aieml.Name:
		return aieml.Arch, nil
	}
	return nil, usageErr("--target %q: want aie2p or aieml", name)
}

type xdnaCompileJSON struct {
	Target       string  `json:"target"`
	Spec         string  `json:"spec"`
	Instructions int64   `json:"instructions"`
	VMACs        int64   `json:"vmacs"`
	Utilization  float64 `json:"utilization"`
	Cycles       int64   `json:"cycles"`
	Stalls       int64   `json:"stalls"`
	GFLOPS       float64 `json:"gflops"`
	ClockGHz     float64 `json:"clock_ghz"`
	Verified     bool    `json:"verified"`
	MaxErr       float64 `json:"max_err_over_bound"`
	II           int     `json:"ii"`
	Blocks       int     `json:"blocks"`
	LoopTrips    int     `json:"loop_trips"`
	Prologue     int     `json:"prologue"`
	Epilogue     int     `json:"epilogue"`
}

type xdnaSimJSON struct {
	Target       string  `json:"target"`
	File         string  `json:"file"`
	Spec         string  `json:"spec"`
	Instructions int64   `json:"instructions"`
	VMACs        int64   `json:"vmacs"`
	Cycles       int64   `json:"cycles"`
	Stalls       int64   `json:"stalls"`
	OK           bool    `json:"ok"`
	Verified     bool    `json:"verified"`
	Hazard       string  `json:"hazard,omitempty"`
	Mismatch     string  `json:"mismatch,omitempty"`
	MaxErr       float64 `json:"max_err_over_bound"`
	In0          int     `json:"in0"`
	In1          int     `json:"in1"`
	Out          int     `json:"out"`
}

// runXDNA runs sumac compile (sub "compile") or sumac sim (sub "sim") for an XDNA tile.
func runXDNA(env *cmdEnv, sub string, args []string) error {
	c := &command{name: sub, usage: xdnaUsage}
	fs := newFlags(env, c)
	target := fs.String("target", "", "aie2p or aieml")
	asJSON := fs.Bool("json", false, "one JSON document")
	emit := fs.String("emit", "", "asm: print the listing")
	accum := fs.Bool("accumulate", false, "the kernel adds to the output buffer (compile)")
	spec := fs.String("spec", "", "einsum spec of the buffers (sim)")
	cIn := fs.String("c-in", "zero", "initial output buffer (sim)")
	in0 := fs.Int("in0", -1, "in0 address (sim)")
	in1 := fs.Int("in1", -1, "in1 address (sim)")
	out := fs.Int("out", -1, "out address (sim)")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	a, err := xdnaArch(*target)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("sumac %s --target %s takes one %s", sub, *target, map[string]string{"compile": "einsum spec", "sim": "listing file"}[sub])
	}
	if sub == "compile" {
		if *emit != "" && *emit != "asm" {
			return usageErr("--emit %q: the %s target prints its kernel as asm", *emit, *target)
		}
		r, err := xdna.CompileOpts(a, pos[0], xdna.Options{Accumulate: *accum})
		if err != nil {
			return err
		}
		switch {
		case *emit == "asm":
			fmt.Fprint(env.stdout, r.Listing)
		case *asJSON:
			if err := writeJSON(env.stdout, xdnaCompileJSON{Target: r.Target, Spec: r.Spec, Instructions: r.Instructions, VMACs: r.VMACs,
				Utilization: r.Utilization, Cycles: r.Cycles, Stalls: r.Stalls, GFLOPS: r.GFLOPS, ClockGHz: r.ClockGHz, Verified: r.Verified,
				MaxErr: r.MaxErr, II: r.II, Blocks: r.Blocks, LoopTrips: r.Loop, Prologue: r.Prologue, Epilogue: r.Epilogue}); err != nil {
				return err
			}
		default:
			fmt.Fprintf(env.stdout, "%s %s\n%d instructions, %d VMAC.F (utilization %.4f), %d cycles, %d stalls, %.0f GFLOPS at %.1f GHz, verified %v\n",
				r.Target, r.Spec, r.Instructions, r.VMACs, r.Utilization, r.Cycles, r.Stalls, r.GFLOPS, r.ClockGHz, r.Verified)
			fmt.Fprintf(env.stdout, "schedule: %d blocks, %d bundles each; prologue %d, loop body x %d, epilogue %d\n", r.Blocks, r.II, r.Prologue, r.Loop, r.Epilogue)
		}
		if !r.Verified {
			return fmt.Errorf("%w: output differs from op/ref: %s", errCheckFailed, r.Mismatch)
		}
		return nil
	}
	src, err := os.ReadFile(pos[0])
	if err != nil {
		return err
	}
	if *spec == "" {
		*spec = xdna.SeedSpec(a.Gen)
	}
	name := strings.TrimSuffix(pos[0], ".s")
	r, err := xdna.SimListing(a, name, string(src), xdna.SimOptions{Spec: *spec, In0: *in0, In1: *in1, Out: *out, CIn: *cIn, Seed: 1})
	if err != nil {
		return err
	}
	j := xdnaSimJSON{Target: a.Name, File: pos[0], Spec: *spec, Instructions: r.Instructions, VMACs: r.VMACs, Cycles: r.Cycles,
		Stalls: r.Stalls, OK: r.OK(), Verified: r.Verified, Mismatch: r.Mismatch, MaxErr: r.MaxErr, In0: r.Layout.In0, In1: r.Layout.In1, Out: r.Layout.Out}
	if r.Hazard != nil {
		j.Hazard = r.Hazard.Error()
	}
	if *asJSON {
		if err := writeJSON(env.stdout, j); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.stdout, "%s on %s: %d instructions, %d VMAC.F, %d cycles, %d stalls, verified %v\n", pos[0], a.Name, r.Instructions, r.VMACs, r.Cycles, r.Stalls, r.Verified)
		if r.Hazard != nil {
			fmt.Fprintln(env.stdout, r.Hazard.Error())
		}
	}
	switch {
	case r.Hazard != nil:
		return fmt.Errorf("%w: %v", errCheckFailed, r.Hazard)
	case !r.Verified:
		return fmt.Errorf("%w: output differs from op/ref: %s", errCheckFailed, r.Mismatch)
	}
	return nil
}
