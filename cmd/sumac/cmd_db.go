package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/sumacdev/sumac/store"
)

func init() {
	c := &command{
		name:    "db",
		summary: "list, query, export and import the tuning store's records",
		usage: `Usage: sumac db stats [--store LOC] [--json]
       sumac db list   [--store LOC] [FILTERS] [--json]
       sumac db query  [--store LOC] [FILTERS] [--limit N] [--json]
       sumac db export [--store LOC] [FILTERS] [--out FILE]
       sumac db import [--store LOC] FILE

The tuning store holds one record per candidate 'sumac tune' evaluated: target, spec, schedule,
generator and model versions, cycles, spills, stalls, verified, refusal reason, wall time, host
and time. LOC is sqlite:PATH or postgres://... (default: $SUMAC_STORE, else SQLite under the
user cache directory).

  stats    backend, path or DSN, records (refused, verified), hosts, records and specs per target
  list     one line per target, spec and versions: records, refused, the fastest schedule
  query    the records themselves, in key order
  export   the records as JSON Lines (one record per line) to stdout or FILE
  import   JSON Lines as export writes them into the store (a record with the same key is
           replaced): e.g. copy a shared PostgreSQL store into a local SQLite one

FILTERS: --target T --spec S --schedule K --generator G --model M --host H
         --status any|ok|refused|verified

Examples:
  sumac db stats --json
  sumac db query --spec 'conv2d x=32 y=2 r=3 s=3 dtype=int16' --status ok --limit 5
  sumac db export --store postgres://tuner@db/sumac --out all.jsonl && sumac db import all.jsonl
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		fs := newFlags(env, c)
		loc := fs.String("store", "", "tuning store")
		asJSON := fs.Bool("json", false, "write one JSON document")
		var f store.Filter
		fs.StringVar(&f.Target, "target", "", "target")
		fs.StringVar(&f.Spec, "spec", "", "spec")
		fs.StringVar(&f.Schedule, "schedule", "", "schedule")
		fs.StringVar(&f.Generator, "generator", "", "generator version")
		fs.StringVar(&f.Model, "model", "", "model version")
		fs.StringVar(&f.Host, "host", "", "host")
		status := fs.String("status", "any", "any, ok, refused or verified")
		fs.IntVar(&f.Limit, "limit", 0, "at most N records")
		out := fs.String("out", "", "export to FILE")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		if len(pos) == 0 {
			return usageErr("missing stats, list, query, export or import (see 'sumac db -h')")
		}
		sub, pos := pos[0], pos[1:]
		if f.Status, err = store.ParseStatus(*status); err != nil {
			return usageErr("--status: %v", err)
		}
		if f.Limit < 0 {
			return usageErr("--limit %d: want N >= 0", f.Limit)
		}
		switch {
		case sub == "import" && len(pos) != 1:
			return usageErr("sumac db import FILE: want one file")
		case sub != "import" && len(pos) > 0:
			return usageErr("unexpected arguments %q", pos)
		}
		switch sub {
		case "stats", "list", "query", "export", "import":
		default:
			return usageErr("unknown 'sumac db %s' (want stats, list, query, export or import)", sub)
		}
		ctx := context.Background()
		l, err := store.Resolve(*loc)
		if err != nil {
			return err
		}
		st, err := store.Open(ctx, l)
		if err != nil {
			return err
		}
		defer st.Close()
		switch sub {
		case "stats":
			s, err := st.Stats(ctx)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(env.stdout, s)
			}
			printStats(env.stdout, s)
		case "list":
			ls, err := store.Summarize(ctx, st, f)
			if err != nil {
				return err
			}
			if *asJSON {
				if ls == nil {
					ls = []store.SpecSummary{}
				}
				return writeJSON(env.stdout, ls)
			}
			tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TARGET\tSPEC\tGENERATOR\tMODEL\tRECORDS\tREFUSED\tBEST_CYCLES\tVERIFIED\tBEST_SCHEDULE")
			for _, l := range ls {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%v\t%s\n", l.Target, l.Spec, l.Generator, l.Model, l.Records, l.Refused, l.Cycles, l.Verified, l.Best)
			}
			return tw.Flush()
		case "query":
			rs, err := store.Query(ctx, st, f)
			if err != nil {
				return err
			}
			if *asJSON {
				if rs == nil {
					rs = []store.Record{}
				}
				return writeJSON(env.stdout, rs)
			}
			tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TARGET\tSPEC\tSCHEDULE\tCYCLES\tSPILLS\tVERIFIED\tWALL\tHOST\tTIME\tREFUSAL")
			for _, r := range rs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%v\t%v\t%s\t%s\t%s\n", r.Target, r.Spec, r.Schedule, r.Cycles, r.Spills, r.Verified,
					r.Wall.Round(time.Microsecond), r.Host, r.Time.Format(time.RFC3339), r.Refusal)
			}
			return tw.Flush()
		case "export":
			w := env.stdout
			if *out != "" {
				fh, err := os.Create(*out)
				if err != nil {
					return err
				}
				defer fh.Close()
				w = fh
			}
			n, err := store.Export(ctx, st, f, w)
			if err != nil {
				return err
			}
			if *out != "" {
				fmt.Fprintf(env.stderr, "db: %d records to %s\n", n, *out)
			}
		case "import":
			fh, err := os.Open(pos[0])
			if err != nil {
				return err
			}
			defer fh.Close()
			n, err := store.Import(ctx, st, fh)
			if err != nil {
				return fmt.Errorf("%s: %v (%d records stored before)", pos[0], err, n)
			}
			fmt.Fprintf(env.stdout, "%d records imported into %s\n", n, st.Location())
		}
		return nil
	}
	register(c)
}

func printStats(w io.Writer, s store.Stats) {
	fmt.Fprintf(w, "backend: %s\n", s.Backend)
	if s.Path != "" {
		fmt.Fprintf(w, "path: %s\n", s.Path)
	}
	if s.DSN != "" {
		fmt.Fprintf(w, "dsn: %s\n", s.DSN)
	}
	fmt.Fprintf(w, "records: %d (%d refused or pruned, %d verified) from %d hosts\n", s.Records, s.Refused, s.Verified, s.Hosts)
	if s.First != nil {
		fmt.Fprintf(w, "written: %s to %s\n", s.First.Format(time.RFC3339), s.Last.Format(time.RFC3339))
	}
	for _, t := range s.Targets {
		fmt.Fprintf(w, "target %s: %d records, %d specs\n", t.Target, t.Records, t.Specs)
	}
}
