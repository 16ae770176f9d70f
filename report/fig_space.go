package report

import (
	"fmt"
	"image/color"
	"regexp"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target"
	"github.com/sumacdev/sumac/target/aie1"
)

func init() {
	Register(Figure{
		Name: "space", Title: "AIE1: the schedule space of a workload (seed 000 Fig. 8)", Order: 20,
		Reads:   []string{"tune"},
		Missing: "no tune document given; 'sumac tune --target aie1 --suite vyasa36 --json > v.json' makes one (the figure re-explores one of its workloads, from the tuning store when it is warm)",
		Build:   buildSpace,
	})
}

// DefaultSpace is the workload whose space is drawn when Options.Space is empty and a tune
// document holds it: seed 000's Fig. 8 shows the explored schedules of its 3x3 and 5x5
// workloads. Otherwise the first workload of the first tune document is drawn.
const DefaultSpace = "2d-3x3-int16"

// The candidates are not in the tune document (its shape is fixed); the figure asks the
// library for them: tune.Explore enumerates, prunes, generates and evaluates the workload's
// space as tune.Run did, answering from Options.Tune.Store where a run filled it.
func buildSpace(c *Context) (*Section, error) {
	rs, err := tuneRows(c)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, nil
	}
	names := c.Opt.Space
	if len(names) == 0 {
		names = []string{rs[0].Name}
		for _, r := range rs {
			if r.Name == DefaultSpace {
				names = []string{DefaultSpace}
			}
		}
	}
	sec := &Section{Caption: "Every candidate schedule of the workload as the tuner sees it: the space " +
		"(compiler/sched: vectorized loop, loop order, unroll-and-jam, layouts, column fusion) is pruned by seed 000's " +
		"rules (bounded unroll-and-jam, program memory), the rest is generated (target/aie1/vyasa) and run on the cycle " +
		"model; some are refused on the way (shuffle-network rules, the back end, program memory). Evaluated " +
		"candidates are ranked by cycles; the bars count the others by reason (numbers in a reason read N)."}
	opt := c.Opt.Tune
	if opt.Target == nil {
		t, err := target.Lookup(aie1.Name)
		if err != nil {
			return nil, err
		}
		opt.Target = t.Compiler
	}
	for _, name := range names {
		var r *tune.Result
		for i := range rs {
			if rs[i].Name == name {
				r = &rs[i]
				break
			}
		}
		if r == nil {
			return nil, fmt.Errorf("--space %s: no such workload in the tune documents", name)
		}
		spec, err := op.Parse(r.Spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		c.Opt.logf("exploring the schedule space of %s", name)
		sp, err := tune.Explore(tune.Workload{Name: r.Name, Spec: spec, Paper: r.Paper}, opt)
		if err != nil {
			return nil, err
		}
		pls, notes, err := spacePlots(r, sp)
		if err != nil {
			return nil, err
		}
		sec.Plots = append(sec.Plots, pls...)
		sec.Notes = append(sec.Notes, notes...)
	}
	return sec, nil
}

func spacePlots(r *tune.Result, sp *tune.Space) ([]*Plot, []string, error) {
	var notes []string
	// Evaluated candidates by rank, one series per (vectorized loop, fusion) family.
	fams := map[string]plotter.XYs{}
	var famOrder []string
	count := map[string]int{}
	var best, paper plotter.XYs
	rank := 0
	for _, c := range sp.Candidates {
		count[c.Stage]++
		if c.Stage != tune.StageEvaluated {
			continue
		}
		rank++
		y := float64(sp.MACs) / float64(c.Cycles)
		f := fmt.Sprintf("vec=%s fuse=%s", c.Sched.Vec, c.Sched.Fusion)
		if _, ok := fams[f]; !ok {
			famOrder = append(famOrder, f)
		}
		fams[f] = append(fams[f], plotter.XY{X: float64(rank), Y: y})
		if c.Schedule == r.Schedule {
			best = append(best, plotter.XY{X: float64(rank), Y: y})
		}
		if paperMatch(r, c) {
			paper = append(paper, plotter.XY{X: float64(rank), Y: y})
		}
	}
	if rank == 0 {
		return nil, []string{fmt.Sprintf("%s: no candidate was evaluated.", r.Name)}, nil
	}
	sort.Strings(famOrder)
	p := newPlot(fmt.Sprintf("Schedule space of %s: %d evaluated candidates", r.Name, rank),
		"candidate, fastest first", "MACs per cycle")
	var series []string
	for i, f := range famOrder {
		if err := scatter(p, f, fams[f], i, vg.Points(2.5)); err != nil {
			return nil, nil, err
		}
		series = append(series, f)
	}
	x1 := float64(rank) + 1
	roof := fmt.Sprintf("roofline bound (%.2f)", sp.Roofline)
	if err := hline(p, roof, sp.Roofline, 0, x1, colorOf(len(famOrder))); err != nil {
		return nil, nil, err
	}
	series = append(series, roof)
	if float64(sp.Peak) > sp.Roofline {
		pk := fmt.Sprintf("peak (%d)", sp.Peak)
		if err := hline(p, pk, float64(sp.Peak), 0, x1, colorOf(len(famOrder)+1)); err != nil {
			return nil, nil, err
		}
		series = append(series, pk)
	}
	if len(paper) > 0 {
		label := "agrees with seed 000's published schedule"
		if err := marks(p, label, paper, draw.TriangleGlyph{}, colorOf(len(famOrder)+3), vg.Points(4.5)); err != nil {
			return nil, nil, err
		}
		series = append(series, label)
	}
	if len(best) > 0 {
		if err := marks(p, "tune's choice", best, draw.RingGlyph{}, color.Black, vg.Points(7)); err != nil {
			return nil, nil, err
		}
		series = append(series, "tune's choice")
	} else {
		notes = append(notes, fmt.Sprintf("%s: the document's choice (%s, %d cycles) is not among the candidates evaluated now: the generator or the model changed since it was written.", r.Name, r.Schedule, r.Cycles))
	}
	p.Y.Min = 0
	p.Y.Max = max(p.Y.Max, float64(sp.Peak)) * 1.35
	p.Legend.Left = false
	space, err := render(p, "space-"+r.Name, vg.Points(720), vg.Points(400), series...)
	if err != nil {
		return nil, nil, err
	}
	if sp.Best >= 0 && sp.Candidates[sp.Best].Cycles != r.Cycles {
		b := sp.Candidates[sp.Best]
		notes = append(notes, fmt.Sprintf("%s: the best candidate now takes %d cycles; the document says %d.", r.Name, b.Cycles, r.Cycles))
	}

	// The candidates not evaluated, by stage and reason.
	reasons := map[string]int{}
	for _, c := range sp.Candidates {
		if c.Stage != tune.StageEvaluated {
			reasons[c.Stage+": "+ReasonClass(c.Reason)]++
		}
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if reasons[keys[i]] != reasons[keys[j]] {
			return reasons[keys[i]] < reasons[keys[j]] // the largest on top
		}
		return keys[i] > keys[j]
	})
	plots := []*Plot{space}
	if len(keys) > 0 {
		vals := make([]float64, len(keys))
		for i, k := range keys {
			vals[i] = float64(reasons[k])
		}
		q := newPlot(fmt.Sprintf("%s: %d pruned, %d refused", r.Name, count[tune.StagePruned], count[tune.StageRefused]), "candidates", "")
		b, err := plotter.NewBarChart(plotter.Values(vals), vg.Points(12))
		if err != nil {
			return nil, nil, err
		}
		b.Horizontal = true
		b.Color = colorOf(1)
		b.LineStyle.Width = 0
		q.Add(b)
		label := "candidates not evaluated"
		q.Legend.Add(label, b)
		q.Legend.Left, q.Legend.Top = false, false // the shortest bar is the lowest
		q.NominalY(keys...)
		q.X.Min = 0
		q.X.Max *= 1.4 // room right of the bars for the legend
		h := vg.Points(float64(80 + 22*len(keys)))
		pl, err := render(q, "reasons-"+r.Name, vg.Points(720), h, label)
		if err != nil {
			return nil, nil, err
		}
		plots = append(plots, pl)
	}
	notes = append(notes, fmt.Sprintf("%s (%s): %d candidates: %d evaluated, %d refused, %d pruned; %d call(s) of the kernel per workload.",
		r.Name, sp.Spec, len(sp.Candidates), count[tune.StageEvaluated], count[tune.StageRefused], count[tune.StagePruned], sp.Calls))
	return plots, notes, nil
}

var (
	digits    = regexp.MustCompile(`[0-9]+`)
	operation = regexp.MustCompile(`O\([^)]*\) \+= W\([^)]*\) \* I\([^)]*\)`)
	atCycle   = regexp.MustCompile(`^cycle N: [^:]*: `)
	trailer   = regexp.MustCompile(`\s*\([^()]*\)$`)
)

// ReasonClass is the class of a refusal reason: the rule without the particulars of the one
// candidate. Numbers read N; an operation's text ("O(...) += W(...) * I(...)"), the instruction
// the cycle model stopped at ("cycle N: INSTR: RULE") and a trailing parenthesis are dropped, as
// is the text before a shuffle-network rule ("fusing ...: RULE").
func ReasonClass(reason string) string {
	if i := strings.Index(reason, "fusing "); i >= 0 {
		if k := strings.Index(reason[i:], ": "); k >= 0 {
			reason = "fusing: " + reason[i+k+2:]
		}
	}
	reason = digits.ReplaceAllString(reason, "N")
	reason = operation.ReplaceAllString(reason, "an operation")
	reason = atCycle.ReplaceAllString(reason, "cycle model: ")
	reason = trailer.ReplaceAllString(reason, "")
	if len(reason) > 100 {
		reason = reason[:97] + "..."
	}
	return reason
}

// paperMatch reports whether a candidate agrees with every column seed 000 prints for the
// workload's chosen schedule (Tables III and IV; empty columns match anything).
func paperMatch(r *tune.Result, c tune.Candidate) bool {
	p := r.Paper
	if p == nil {
		return false
	}
	s := c.Sched
	eq := func(a, b string) bool { return a == "" || a == b }
	eqi := func(a, b int) bool { return a == 0 || a == b }
	order := p.LoopOrder
	if len(order) != 3 {
		order = "" // Table III prints two loops (xy); the third is not placed
	}
	return eq(p.VectorLoop, s.Vec) && eq(order, s.Order) && eqi(p.UnrollX, s.UX) && eqi(p.UnrollY, s.UY) &&
		eqi(p.UnrollK, s.UK) && eq(p.OutLayout, s.Out) && eq(p.WLayout, s.W) && eq(p.InLayout, s.In) &&
		eq(p.SWLoop, s.SW())
}
