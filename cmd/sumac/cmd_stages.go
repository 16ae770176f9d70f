package main

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target"
)

// stageHelp lists the --emit names for sumac compile -h, from the stage table.
func stageHelp() string {
	var sb strings.Builder
	for _, s := range compiler.Stages {
		fmt.Fprintf(&sb, "      %-10s  %s\n", s.Name, s.Explain)
	}
	return sb.String()
}

// printStages is `sumac compile --explain` without a spec: the stage table.
func printStages(env *cmdEnv, asJSON bool) error {
	if !asJSON {
		fmt.Fprint(env.stdout, compiler.Table())
		return nil
	}
	type row struct {
		Name    string `json:"name"`
		Explain string `json:"explain"`
		Target  bool   `json:"target"`
	}
	var rows []row
	for _, s := range compiler.Stages {
		rows = append(rows, row{s.Name, s.Explain, s.Target})
	}
	return writeJSON(env.stdout, rows)
}

// explainSpace lists the schedule space with the reason each pruned candidate is illegal.
func explainSpace(env *cmdEnv, tg compiler.Target, spec *op.Spec, asJSON bool) error {
	type row struct {
		Schedule string `json:"schedule"`
		Legal    bool   `json:"legal"`
		Reason   string `json:"reason,omitempty"`
	}
	var rows []row
	add := func(key string, err error) {
		r := row{Schedule: key, Legal: err == nil}
		if err != nil {
			r.Reason = err.Error()
		}
		rows = append(rows, r)
	}
	var pruned []string
	if compiler.IsContraction(spec) {
		ct, ok := tg.(compiler.Contractions)
		if !ok {
			return fmt.Errorf("target %s compiles conv2d only, not %s", tg.Name(), spec.Op())
		}
		d, _, err := ct.ContractionDatapath(spec.Types)
		if err != nil {
			return err
		}
		c, err := compiler.ContractionOf(spec)
		if err != nil {
			return err
		}
		_, maxBody := tg.Bounds()
		var cands []sched.GEMM
		cands, pruned = sched.GEMMSpace(c, d.Shape, d.XBits, d.ZBits, ct.MaxAccs(), maxBody)
		for _, pr := range pruned {
			k, reason, _ := strings.Cut(pr, ": ")
			rows = append(rows, row{Schedule: k, Reason: reason})
		}
		for _, s := range cands {
			_, err := ct.GenerateGEMM(spec, s)
			add(s.Key(), err)
		}
	} else {
		d, _, err := tg.Datapath(spec.Types)
		if err != nil {
			return err
		}
		maxVectors, maxBody := tg.Bounds()
		var cands []sched.Schedule
		cands, pruned = sched.Space(spec.Conv, d.Shape, maxVectors, maxBody)
		for _, pr := range pruned {
			k, reason, _ := strings.Cut(pr, ": ")
			rows = append(rows, row{Schedule: k, Reason: reason})
		}
		for _, s := range cands {
			_, err := tg.Generate(spec, s)
			add(s.Key(), err)
		}
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

// resolveTarget is how compile and tune resolve --target: through the registry; an unknown
// name, or a target without a compiler, is a usage error naming the targets that have one.
func resolveTarget(name string) (compiler.Target, error) {
	t, err := target.Lookup(name)
	if err != nil {
		return nil, usageErr("--target: %v", err)
	}
	if t.Compiler == nil {
		var with []string
		for _, o := range target.All() {
			if o.Compiler != nil {
				with = append(with, o.Name)
			}
		}
		return nil, usageErr("--target %s: no conv2d compiler for it (targets with one: %s)", t.Name, strings.Join(with, ", "))
	}
	return t.Compiler, nil
}
