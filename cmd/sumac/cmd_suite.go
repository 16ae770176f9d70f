package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/sumacdev/sumac/op/suite"
)

func init() {
	c := &command{
		name:    "suite",
		summary: "list the workload suites of the seed papers",
		usage: `Usage: sumac suite list [SUITE] [--json]

Without SUITE, lists the suites. With SUITE, lists its workloads: name, kind, dtype, MACs and spec.
--json prints an array of objects {name, spec, op, kind, dtype, atype, btype, acc, out, macs, source}
(without SUITE: an array of {name, description, workloads}).
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		fs := newFlags(env, c)
		asJSON := fs.Bool("json", false, "write one JSON document to stdout")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		if len(pos) == 0 || pos[0] != "list" {
			return usageErr("want 'sumac suite list [SUITE]' (see 'sumac suite -h')")
		}
		if len(pos) > 2 {
			return usageErr("too many arguments: %v", pos[2:])
		}
		if len(pos) == 1 {
			type entry struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Workloads   int    `json:"workloads"`
			}
			var list []entry
			for _, n := range suite.Names() {
				s, _ := suite.Get(n)
				list = append(list, entry{n, s.Description, len(s.Workloads)})
			}
			if *asJSON {
				return writeJSON(env.stdout, list)
			}
			tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SUITE\tWORKLOADS\tDESCRIPTION")
			for _, e := range list {
				fmt.Fprintf(tw, "%s\t%d\t%s\n", e.Name, e.Workloads, e.Description)
			}
			return tw.Flush()
		}
		s, err := suite.Get(pos[1])
		if err != nil {
			return err
		}
		rows := make([]specJSON, 0, len(s.Workloads))
		for _, w := range s.Workloads {
			j := specToJSON(w.Name, w.Spec)
			j.Source = w.Source
			rows = append(rows, j)
		}
		if *asJSON {
			return writeJSON(env.stdout, rows)
		}
		tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tKIND\tDTYPE\tMACS\tSPEC")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.Name, r.Kind, r.DType, r.MACs, r.Spec)
		}
		return tw.Flush()
	}
	register(c)
}
