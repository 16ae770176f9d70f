package main

import (
	"context"
	"fmt"

	"github.com/sumacdev/sumac/store"
	"github.com/sumacdev/sumac/target/xdna"
)

// sumac tune --target aie2p|aieml: the XDNA generator's choices for one einsum, each run on the
// cycle engine and checked against op/ref (xdna.TuneStored).

const xdnaTuneUsage = `Usage: sumac tune --target aie2p|aieml 'EINSUM SPEC' [--accumulate] [--store LOC | --no-cache] [--emit asm] [--json]

Generates the einsum's kernel for every choice of the generator (chains: prio = output-tile
prioritization or rr = round robin; stores packed or spread (aieml); slack: bundles added to
the loop body's bound, 0-4; lead: cycles operand tiles are loaded ahead of need, 0, 4 or 8),
runs each on the cycle-level model, checks it against op/ref and prints each candidate's
instructions, VMAC.F, utilization, cycles, verified (or why the generator refused it) and the
winner (verified, fewest cycles, then fewest instructions). The register block (2x2 tiles on
aie2p, 2x4 on aieml) and the block order are the generator's fixed choices. Every candidate is
a record in the tuning store (see 'sumac db'); a run evaluates only what the store lacks.
  --accumulate  kernels that add to the output (out += A.B), checked from a random output
  --store LOC   sqlite:PATH, postgres://... or memory: (default: $SUMAC_STORE, else SQLite
                under the user cache directory); --no-cache: evaluate all, keep nothing
  --emit asm    print the winner's listing instead of the report
  --json        one JSON document: target, spec, candidates, winner, evaluated, stored
Reproduce a candidate: sumac compile --target T SPEC --schedule 'chains=rr stores=packed slack=1 lead=4'
Exit status: 0 a verified winner, 1 none verified, 2 bad input.
`

type xdnaCandJSON struct {
	Schedule     string  `json:"schedule"`
	Instructions int64   `json:"instructions"`
	VMACs        int64   `json:"vmacs"`
	Utilization  float64 `json:"utilization"`
	Cycles       int64   `json:"cycles"`
	Stalls       int64   `json:"stalls"`
	GFLOPS       float64 `json:"gflops"`
	Verified     bool    `json:"verified"`
	Refusal      string  `json:"refusal,omitempty"`
	Stored       bool    `json:"stored"`
}

type xdnaTuneJSON struct {
	Target     string         `json:"target"`
	Spec       string         `json:"spec"`
	Accumulate bool           `json:"accumulate"`
	ClockGHz   float64        `json:"clock_ghz"`
	Winner     xdnaCandJSON   `json:"winner"`
	Candidates []xdnaCandJSON `json:"candidates"`
	Evaluated  int            `json:"evaluated"`
	Stored     int            `json:"stored"`
	Store      string         `json:"store,omitempty"`
}

func runXDNATune(env *cmdEnv, args []string) error {
	c := &command{name: "tune", usage: xdnaTuneUsage}
	fs := newFlags(env, c)
	target := fs.String("target", "", "aie2p or aieml")
	asJSON := fs.Bool("json", false, "one JSON document")
	emit := fs.String("emit", "", "asm: print the winner's listing")
	accum := fs.Bool("accumulate", false, "the kernel adds to the output buffer")
	noCache := fs.Bool("no-cache", false, "ignore and do not update the store")
	storeLoc := fs.String("store", "", "tuning store")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	a, err := xdnaArch(*target)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("sumac tune --target %s takes one einsum spec", *target)
	}
	if *emit != "" && *emit != "asm" {
		return usageErr("--emit %q: the %s target prints its kernel as asm", *emit, *target)
	}
	ctx := context.Background()
	var st store.Store
	if !*noCache {
		loc, err := store.Resolve(*storeLoc)
		if err != nil {
			return err
		}
		if st, err = store.Open(ctx, loc); err != nil {
			return err
		}
		defer st.Close()
	}
	opt := xdna.Options{Accumulate: *accum}
	cands, evaluated, stored, err := xdna.TuneStored(ctx, st, a, pos[0], opt)
	if err != nil {
		return err
	}
	gflops := func(x xdna.Candidate) float64 {
		if x.Cycles == 0 {
			return 0
		}
		return 2 * float64(x.VMACs) * float64(a.MACsPerInstr()) * a.M.ClockGHz / float64(x.Cycles)
	}
	win := cands[0]
	if *emit == "asm" {
		r, err := xdna.CompileChoice(a, pos[0], win.Choice, opt)
		if err != nil {
			return err
		}
		fmt.Fprint(env.stdout, r.Listing)
	} else if *asJSON {
		j := xdnaTuneJSON{Target: a.Name, Spec: pos[0], Accumulate: *accum, ClockGHz: a.M.ClockGHz, Evaluated: evaluated, Stored: stored}
		if st != nil {
			j.Store = st.Location()
		}
		for _, x := range cands {
			j.Candidates = append(j.Candidates, xdnaCandJSON{Schedule: x.Choice.String(), Instructions: x.Instructions, VMACs: x.VMACs,
				Utilization: x.Utilization, Cycles: x.Cycles, Stalls: x.Stalls, GFLOPS: gflops(x), Verified: x.Verified, Refusal: x.Refusal, Stored: x.Stored})
		}
		j.Winner = j.Candidates[0]
		if err := writeJSON(env.stdout, j); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.stdout, "%s %s\n%-42s %6s %6s %7s %7s %6s %8s\n", a.Name, pos[0], "schedule", "instr", "vmacs", "util", "cycles", "stalls", "verified")
		for _, x := range cands {
			if x.Refusal != "" {
				fmt.Fprintf(env.stdout, "%-42s refused: %s\n", x.Choice, x.Refusal)
				continue
			}
			fmt.Fprintf(env.stdout, "%-42s %6d %6d %7.4f %7d %6d %8v\n", x.Choice, x.Instructions, x.VMACs, x.Utilization, x.Cycles, x.Stalls, x.Verified)
		}
		fmt.Fprintf(env.stdout, "winner: %s: %d instructions, %d VMAC.F (utilization %.4f), %d cycles, %.0f GFLOPS at %.1f GHz, verified %v\n",
			win.Choice, win.Instructions, win.VMACs, win.Utilization, win.Cycles, gflops(win), a.M.ClockGHz, win.Verified)
		fmt.Fprintf(env.stdout, "%d candidates: %d evaluated, %d from the store\n", len(cands), evaluated, stored)
	}
	if !win.Verified {
		return fmt.Errorf("%w: no candidate verified", errCheckFailed)
	}
	return nil
}
