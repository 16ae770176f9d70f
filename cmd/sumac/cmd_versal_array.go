package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/system/versal"
)

// sumac versal gemm|conv --tiles N and sumac versal reproduce: the whole array
// (system/versal array*.go, reproduce.go; docs/versal-array.md). Flags and printing only.

type arrayFlags struct {
	tiles               int
	scope, sweep, suite string
	dtype               string
	json                bool
}

func runVersalArray(env *cmdEnv, pos []string, f arrayFlags, m *versal.Machine) error {
	if len(pos) == 0 {
		return usageErr("want 'sumac versal gemm SPEC --tiles N', 'sumac versal conv --suite resnet50 --tiles N' or 'sumac versal reproduce charm|maxeva'")
	}
	if pos[0] == "reproduce" {
		if len(pos) != 2 {
			return usageErr("want 'sumac versal reproduce charm' or 'sumac versal reproduce maxeva'")
		}
		r, err := versal.Reproduce(m, pos[1], false)
		if err != nil {
			return err
		}
		ok := true
		for _, d := range r.Designs {
			ok = ok && d.Result.Verified && (d.Beaten == nil || d.Beaten.Result.Verified)
		}
		if f.json {
			if err := writeJSON(env.stdout, reproduceDoc(r)); err != nil {
				return err
			}
		} else {
			printReproduction(env.stdout, r)
		}
		return checked(ok)
	}
	if f.scope != "" && f.scope != versal.ScopeArray && f.scope != versal.ScopeSystem {
		return usageErr("--scope %q: want array or system", f.scope)
	}
	n := f.tiles
	if n == 0 {
		n = versal.NewArray(m).NumCores()
	}
	o := versal.SearchOptions{Tiles: n, Scope: f.scope}
	what, pos := pos[0], pos[1:]
	switch {
	case what == "conv" && f.suite != "":
		if len(pos) != 0 {
			return usageErr("--suite and a SPEC exclude each other")
		}
		if f.dtype != "uint8" && f.dtype != "int8" {
			return usageErr("--dtype %q: the 8-bit kernels take uint8 or int8", f.dtype)
		}
		sr, err := versal.RunSuiteArray(m, f.suite, f.dtype, o)
		if err != nil {
			return err
		}
		if f.json {
			if err := writeJSON(env.stdout, sr); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(env.stdout, "%s %s on %d tiles (%s scope, %.2f GHz)\n%-5s %8s %-12s %6s %-8s %s\n", sr.Suite, sr.DType, sr.Tiles, sr.Scope, sr.ClockGHz, "layer", "TOPS", "limit", "tiles", "verified", "design")
			for _, l := range sr.Layers {
				fmt.Fprintf(env.stdout, "%-5s %8.2f %-12s %6d %-8v %s\n", l.Layer, l.TOPS, l.Limit, l.Tiles, l.Verified, l.Design)
			}
			fmt.Fprintf(env.stdout, "network: %.2f TOPS (layers one after the other), geomean %.2f, most layers limited by %s; verified %v\n", sr.TOPS, sr.GeomeanTOPS, sr.Limit, sr.Verified)
		}
		return checked(sr.Verified)
	case len(pos) != 1:
		return usageErr("want one SPEC in quotes (see 'sumac versal -h')")
	}
	spec, err := op.Parse(pos[0])
	if err != nil {
		return err
	}
	if what == "conv" {
		r, err := versal.RunConvArray(m, spec, o)
		if err != nil {
			return err
		}
		if f.json {
			if err := writeJSON(env.stdout, r); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(env.stdout, "%s as %s\n", r.Conv, r.GEMM)
			printArray(env.stdout, &r.ArrayResult)
		}
		return checked(r.Verified)
	}
	if f.sweep == "tiles" {
		var ns []int
		for i := 1; i <= n; i++ {
			ns = append(ns, i)
		}
		pts, err := versal.SweepTiles(m, spec, o, ns)
		if err != nil {
			return err
		}
		if f.json {
			return writeJSON(env.stdout, map[string]any{"spec": spec.String(), "scope": o.Scope, "clock_ghz": m.AIEClockGHz, "points": pts})
		}
		printSweepTiles(env.stdout, pts)
		return nil
	} else if f.sweep != "" {
		return usageErr("--sweep %q with --tiles: want tiles", f.sweep)
	}
	r, err := versal.SearchGEMM(m, spec, o)
	if err != nil {
		return err
	}
	if f.json {
		if err := writeJSON(env.stdout, r); err != nil {
			return err
		}
	} else {
		printArray(env.stdout, r)
	}
	return checked(r.Verified)
}

func checked(ok bool) error {
	if !ok {
		return fmt.Errorf("%w: a result differs from op/ref on its scaled-down shape (see verify_error)", errCheckFailed)
	}
	return nil
}

func printArray(w io.Writer, r *versal.ArrayResult) {
	fmt.Fprintf(w, "%s\n%s\n", r.Spec, r.Design)
	fmt.Fprintf(w, "%.3f TOPS (%.1f%% of the array's peak at %.2f GHz, %s scope), limit: %s; %d cycles, %d iterations of %.0f cycles (steady %.3f TOPS)\n",
		r.TOPS, r.PctPeak, r.ClockGHz, r.Scope, r.Limit, r.Cycles, r.Iterations, r.PeriodCycles, r.SteadyTOPS)
	fmt.Fprintf(w, "  %-24s %7s %9s %12s %s\n", "resource", "count", "available", "utilization", "note")
	for _, u := range r.Utilization {
		avail := ""
		if u.Available > 0 {
			avail = fmt.Sprint(u.Available)
		}
		fmt.Fprintf(w, "  %-24s %7d %9s %12.3f %s\n", u.Resource, u.Count, avail, u.Utilization, u.Note)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintf(w, "verified %v on %s (%s) %s\n", r.Verified, r.VerifiedOn, r.VerifyInputs, r.VerifyError)
}

func printSweepTiles(w io.Writer, pts []versal.TilePoint) {
	res := map[string]bool{}
	for _, p := range pts {
		for k := range p.Utilization {
			res[k] = true
		}
	}
	var cols []string
	for k := range res {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	fmt.Fprintf(w, "%5s %5s %9s %-12s", "tiles", "used", "TOPS", "limit")
	for _, c := range cols {
		fmt.Fprintf(w, " %9.9s", strings.ReplaceAll(c, " ", "_"))
	}
	fmt.Fprintln(w)
	for _, p := range pts {
		if p.Error != "" {
			fmt.Fprintf(w, "%5d error: %s\n", p.Tiles, p.Error)
			continue
		}
		fmt.Fprintf(w, "%5d %5d %9.3f %-12s", p.Tiles, p.Used, p.TOPS, p.Limit)
		for _, c := range cols {
			if v, ok := p.Utilization[c]; ok {
				fmt.Fprintf(w, " %9.3f", v)
			} else {
				fmt.Fprintf(w, " %9s", "-")
			}
		}
		fmt.Fprintln(w)
	}
}

// reproduceDoc puts the first design's fields at the top level (designs lists every one).
func reproduceDoc(r *versal.PaperReproduction) map[string]any {
	d := r.Designs[0]
	return map[string]any{"paper": r.Paper, "dtype": d.DType, "published_tops": d.Published, "model_tops": d.ModelTOPS,
		"error_pct": d.ErrorPct, "within_15pct": d.Within15, "clock_ghz": d.ClockGHz, "sensitivity": d.Sensitivity, "designs": r.Designs}
}

func printReproduction(w io.Writer, r *versal.PaperReproduction) {
	for _, d := range r.Designs {
		fmt.Fprintf(w, "%s (%s, %.2f GHz, %s scope): published %.3f, model %.3f TOPS (%+.1f%%), limit %s\n", d.Name, d.DType, d.ClockGHz, d.Scope, d.Published, d.ModelTOPS, d.ErrorPct, d.Limit)
		for _, p := range d.PatternTOPS {
			fmt.Fprintf(w, "  %-28s %4d tiles %9.3f TOPS  limit %s\n", p.Name, p.Tiles, p.TOPS, p.Limit)
		}
		for _, x := range d.Extra {
			fmt.Fprintf(w, "  %-40s published %.3f, model %.3f (%+.1f%%)\n", x.Spec, x.Published, x.Model, x.ErrorPct)
		}
		fmt.Fprintf(w, "  sensitivity (TOPS at -20%% / +20%%):\n")
		for _, s := range d.Sensitivity {
			fmt.Fprintf(w, "    %-14s %8.3g -> %g / %g: %.3f / %.3f\n", s.Parameter, s.Value, s.Low, s.High, s.Minus20, s.Plus20)
		}
		fmt.Fprintf(w, "  verified %v on %s\n", d.Result.Verified, d.Result.VerifiedOn)
		if b := d.Beaten; b != nil {
			fmt.Fprintf(w, "  sumac on %s: %.3f TOPS, limit %s (verified %v)\n    %s\n", b.Spec, b.TOPS, b.Limit, b.Result.Verified, b.Design)
			for _, m := range b.Mechanism {
				fmt.Fprintf(w, "    wins by: %s\n", m)
			}
		}
	}
}
