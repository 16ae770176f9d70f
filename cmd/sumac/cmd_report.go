package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/report"
	"github.com/sumacdev/sumac/target"
	"github.com/sumacdev/sumac/target/aie1"
)

func init() {
	c := &command{
		name:    "report",
		summary: "draw the JSON documents of the other commands as an offline HTML page of figures",
		usage: `Usage: sumac report --out DIR [--space NAMES] [--workers N] [--store LOC | --no-cache] [--json] [RESULT.json ...]

Reads the JSON documents the other commands write with --json, recognises what each is, and
writes DIR/index.html: one static page, SVG figures inline (also DIR/FIGURE-PLOT.svg), no
script and no network. Figures (package report; docs/report.md):
  roofline   sumac tune --json: MACs/cycle of every workload against the AIE1 roofline and
             the peak, per workload, and seed 000's published figures
  space      sumac tune --json: every candidate schedule of one workload (re-explored on the
             cycle model, answered from the tuning store when a tune run filled it), and the
             pruned and refused ones counted by reason
  cpu        sumac bench cpu --json, and bench/peers' --json: GFLOPS per workload and type,
             fraction of peak, against OpenBLAS, BLIS and oneDNN
  nn-layers  sumac train mnist --layer-times --json: per-layer speed-ups, against seed 003
  nn-train   sumac train mnist --json: the loss per epoch
Without a tune document, the roofline and space figures come from the tuning store when a
'sumac tune --suite vyasa36' run filled it (every candidate is in the store, so nothing is
evaluated again). The page lists the figures it could not draw and the command that writes what
they need. Nothing expensive runs without a tune document or a filled store.

  --out DIR      where to write index.html (created if missing)
  --space NAMES  comma-separated workloads of the tune documents whose schedule space to draw
                 (default: 2d-3x3-int16, seed 000 Fig. 8's, if given, else the first)
  --workers N    parallel evaluations for the schedule space (default: all cores)
  --store LOC    the tuning store (sqlite:PATH or postgres://...; default $SUMAC_STORE, else the
                 SQLite file under the user cache directory)
  --no-cache     do not read or update the tuning store
  --json         print {"document": "report", ...}: the page, its figures and what is missing

Example:
  sumac tune --target aie1 --suite vyasa36 --json > v.json
  sumac bench cpu --suite gemm --json > g.json
  sumac train mnist --layer-times --json > t.json
  sumac report --out rep v.json g.json t.json
  sumac report --out rep g.json t.json     # the tune results from the store
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		fs := newFlags(env, c)
		out := fs.String("out", "", "")
		space := fs.String("space", "", "")
		workers := fs.Int("workers", 0, "")
		noCache := fs.Bool("no-cache", false, "")
		storeLoc := fs.String("store", "", "")
		asJSON := fs.Bool("json", false, "")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		if *out == "" {
			return usageErr("--out DIR is required (see 'sumac report -h')")
		}
		if *workers < 0 || *workers > 1024 {
			return usageErr("--workers %d out of range 0..1024", *workers)
		}
		var docs []*report.Doc
		for _, p := range pos {
			d, err := report.ReadFile(p)
			if err != nil {
				return err
			}
			docs = append(docs, d)
		}
		opt := report.Options{Tune: tune.Options{Workers: *workers}} // the figures default to the aie1 target
		for _, n := range strings.Split(*space, ",") {
			if n = strings.TrimSpace(n); n != "" {
				opt.Space = append(opt.Space, n)
			}
		}
		if !*noCache {
			tg, err := target.Lookup(aie1.Name)
			if err != nil {
				return err
			}
			st, _, err := tune.OpenStore(context.Background(), *storeLoc, tg.Compiler, nil)
			if err != nil {
				return err
			}
			defer st.Close()
			opt.Tune.Store, opt.Tune.Target = st, tg.Compiler
			if !hasKind(docs, "tune") {
				d, found, err := report.TuneFromStore(context.Background(), st, tg.Compiler, "vyasa36", *workers)
				if err != nil {
					return err
				}
				if found {
					docs = append(docs, d)
				}
			}
		}
		if env.isTerminal {
			opt.Log = func(format string, a ...any) { fmt.Fprintf(env.stderr, "report: "+format+"\n", a...) }
		}
		page, err := report.Write(*out, docs, opt)
		if err != nil {
			return err
		}
		index := filepath.Join(*out, "index.html")
		if *asJSON {
			return writeJSON(env.stdout, reportJSON(index, page))
		}
		fmt.Fprintf(env.stdout, "wrote %s\n", index)
		for _, s := range page.Sections {
			fmt.Fprintf(env.stdout, "  %-10s %s (%d plots)\n", s.Figure.Name, s.Title, len(s.Plots))
		}
		for _, m := range page.Missing {
			fmt.Fprintf(env.stdout, "not drawn: %s\n", m)
		}
		for _, d := range page.Unused {
			fmt.Fprintf(env.stdout, "no figure reads %s (%s)\n", d.Name, d.Kind)
		}
		return nil
	}
	register(c)
}

func hasKind(docs []*report.Doc, kind string) bool {
	for _, d := range docs {
		if d.Kind == kind {
			return true
		}
	}
	return false
}

// reportSummary is the --json document: it names its kind (report.TagField).
type reportSummary struct {
	Document string         `json:"document"`
	Index    string         `json:"index"`
	Inputs   []reportInput  `json:"inputs"`
	Figures  []reportFigure `json:"figures"`
	Missing  []string       `json:"missing"`
	Unused   []reportInput  `json:"unused"`
}

type reportInput struct {
	File string `json:"file"`
	Kind string `json:"kind"`
}

type reportFigure struct {
	Name   string   `json:"name"`
	Title  string   `json:"title"`
	Plots  []string `json:"plots"` // the SVG files beside index.html
	Series []string `json:"series"`
	Notes  []string `json:"notes,omitempty"`
}

func reportJSON(index string, p *report.Page) reportSummary {
	s := reportSummary{Document: "report", Index: index, Inputs: []reportInput{}, Figures: []reportFigure{},
		Missing: append([]string{}, p.Missing...), Unused: []reportInput{}}
	for _, d := range p.Docs {
		s.Inputs = append(s.Inputs, reportInput{d.Name, d.Kind})
	}
	for _, d := range p.Unused {
		s.Unused = append(s.Unused, reportInput{d.Name, d.Kind})
	}
	for _, sec := range p.Sections {
		f := reportFigure{Name: sec.Figure.Name, Title: sec.Title, Notes: sec.Notes}
		for _, pl := range sec.Plots {
			f.Plots = append(f.Plots, sec.Figure.Name+"-"+pl.Name+".svg")
			f.Series = append(f.Series, pl.Series...)
		}
		s.Figures = append(s.Figures, f)
	}
	return s
}
