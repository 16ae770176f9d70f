package report

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
	"github.com/sumacdev/sumac/target/aie1"
)

func init() {
	Register(Figure{
		Name: "roofline", Title: "AIE1: tuned convolutions against the roofline (seed 000 Fig. 8-10)", Order: 10,
		Reads:   []string{"tune"},
		Missing: "no tune document given; make one with 'sumac tune --target aie1 --suite vyasa36 --json > v.json' (about a minute) and pass v.json",
		Build:   buildRoofline,
	})
}

// loadBytesPerCycle is the memory roof's bandwidth: the two 256-bit load units (target/aie1
// LoadUnits, LoadBits; seed 000 Table II). tune.MemoryCycles counts a stored byte as two load
// bytes' time (one 256-bit store unit), so MACs / (64 B x MemoryCycles) is the intensity in
// MACs per byte at which the roof y = 64 x holds exactly.
const loadBytesPerCycle = aie1.LoadUnits * aie1.LoadBits / 8

// tuneRows reads every tune document's results.
func tuneRows(c *Context) ([]tune.Result, error) {
	var rs []tune.Result
	for _, d := range c.Docs("tune") {
		var part []tune.Result
		if err := d.Decode(&part); err != nil {
			return nil, err
		}
		rs = append(rs, part...)
	}
	return rs, nil
}

// intensity is a conv2d's MACs per byte of minimum memory traffic (see loadBytesPerCycle).
func intensity(spec string) (float64, error) {
	s, err := op.Parse(spec)
	if err != nil {
		return 0, err
	}
	if s.Conv == nil {
		return 0, fmt.Errorf("%s is not a conv2d", spec)
	}
	return float64(s.MACs()) / (loadBytesPerCycle * tune.MemoryCycles(s, loadBytesPerCycle, aie1.StoreUnits*aie1.StoreBits/8)), nil
}

// inVyasa36 reports whether a result is one of seed 000's workloads (same name, same spec),
// and the table its row comes from.
func inVyasa36(r tune.Result) (table string, ok bool) {
	s, _ := suite.Get("vyasa36")
	w, found := s.Find(r.Name)
	if !found || w.Spec.String() != r.Spec {
		return "", false
	}
	return w.Source, true
}

func buildRoofline(c *Context) (*Section, error) {
	rs, err := tuneRows(c)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, nil
	}
	sec := &Section{Caption: "Each point is one tuned workload: its MACs per cycle on the AIE1 cycle model " +
		"(target/aie1/backend and cyclesim) against its arithmetic intensity. The roof is the peak " +
		"(8 MACs/cycle int32, 32 int16: seed 000 Table II) or the memory bound: inputs and weights read once through " +
		"the two 256-bit load units (64 B/cycle), outputs written once through the 256-bit store unit (32 B/cycle, " +
		"so a stored byte counts as two on the x axis)."}
	// Group by operand type, in order of appearance.
	var dtypes []string
	by := map[string][]tune.Result{}
	for _, r := range rs {
		if _, ok := by[r.DType]; !ok {
			dtypes = append(dtypes, r.DType)
		}
		by[r.DType] = append(by[r.DType], r)
	}
	p := newPlot("Roofline (AIE1, one tile)", "arithmetic intensity (MACs per byte of minimum traffic)", "MACs per cycle")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, pow2Ticks{}
	xlo, xhi := 1e9, 0.0
	xs := map[string]float64{}
	for _, r := range rs {
		x, err := intensity(r.Spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Name, err)
		}
		xs[r.Name] = x
		xlo, xhi = min(xlo, x), max(xhi, x)
	}
	xlo, xhi = xlo/2, xhi*2
	var series []string
	for i, d := range dtypes {
		var pts plotter.XYs
		for _, r := range by[d] {
			pts = append(pts, plotter.XY{X: xs[r.Name], Y: r.MACsPerCycle})
		}
		label := "sumac " + d
		if err := scatter(p, label, pts, i, vg.Points(3)); err != nil {
			return nil, err
		}
		series = append(series, label)
	}
	peaks := map[int]string{}
	for _, r := range rs {
		if _, ok := peaks[r.Peak]; !ok {
			peaks[r.Peak] = r.DType
		}
	}
	var pk []int
	for k := range peaks {
		pk = append(pk, k)
	}
	sort.Ints(pk)
	for i, peak := range pk {
		knee := float64(peak) / loadBytesPerCycle
		pts := plotter.XYs{{X: xlo, Y: min(float64(peak), loadBytesPerCycle*xlo)}}
		if knee > xlo && knee < xhi {
			pts = append(pts, plotter.XY{X: knee, Y: float64(peak)})
		}
		pts = append(pts, plotter.XY{X: xhi, Y: float64(peak)})
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = colorOf(len(dtypes) + i)
		l.Width = vg.Points(1.5)
		label := fmt.Sprintf("roof %s (%d MACs/cycle, %d B/cycle)", peaks[peak], peak, loadBytesPerCycle)
		p.Add(l)
		p.Legend.Add(label, l)
		series = append(series, label)
	}
	// The one per-workload value seed 000 prints (section IV-B), at the workload's intensity.
	for _, pr := range suite.PaperResults("vyasa36") {
		for _, r := range rs {
			if _, ok := inVyasa36(r); ok && r.Name == pr.Group {
				label := fmt.Sprintf("seed 000 %s (%.0f%% of its %.2f roof)", r.Name, 100*pr.MACsPerCycle/pr.Roofline, pr.Roofline)
				if err := scatter(p, label, plotter.XYs{{X: xs[r.Name], Y: pr.MACsPerCycle}}, len(dtypes)+len(pk), vg.Points(4)); err != nil {
					return nil, err
				}
				series = append(series, label)
			}
		}
	}
	p.Legend.Top, p.Legend.Left = true, false
	p.Y.Max = 2 * float64(pk[len(pk)-1]) // room above the highest roof for the legend
	pl, err := render(p, "roofline", vg.Points(720), vg.Points(420), series...)
	if err != nil {
		return nil, err
	}
	sec.Plots = append(sec.Plots, pl)

	// Per workload: achieved against the bound, one plot per operand type.
	for _, d := range dtypes {
		pl, err := perWorkload(d, by[d])
		if err != nil {
			return nil, err
		}
		sec.Plots = append(sec.Plots, pl)
	}
	if pl, note, err := vyasaGeomeans(rs); err != nil {
		return nil, err
	} else if pl != nil {
		sec.Plots = append(sec.Plots, pl)
		sec.Notes = append(sec.Notes, note)
	}
	sec.Table = &Table{Header: []string{"workload", "dtype", "cycles", "MACs/cycle", "% of peak", "roof", "verified", "schedule"}}
	unverified := 0
	for _, r := range rs {
		sec.Table.Rows = append(sec.Table.Rows, []string{r.Name, r.DType, fmt.Sprint(r.Cycles),
			fmt.Sprintf("%.2f", r.MACsPerCycle), fmt.Sprintf("%.1f", r.PctPeak), fmt.Sprintf("%.2f", r.Roofline),
			fmt.Sprint(r.Verified), r.Schedule})
		if !r.Verified {
			unverified++
		}
	}
	if unverified > 0 {
		sec.Notes = append(sec.Notes, fmt.Sprintf("%d workload(s) NOT verified against the exact reference (see the table).", unverified))
	}
	return sec, nil
}

// perWorkload is a bar chart of one operand type's workloads: MACs/cycle and the roofline bound,
// with the peak.
func perWorkload(dtype string, rs []tune.Result) (*Plot, error) {
	p := newPlot("Per workload, "+dtype, "", "MACs per cycle")
	names := make([]string, len(rs))
	got, roof := make([]float64, len(rs)), make([]float64, len(rs))
	for i, r := range rs {
		names[i], got[i], roof[i] = r.Name, r.MACsPerCycle, r.Roofline
	}
	w := vg.Points(min(14, 560/float64(2*len(rs))))
	if _, err := bars(p, "sumac (cycle model)", got, 0, 2, w); err != nil {
		return nil, err
	}
	if _, err := bars(p, "roofline bound", roof, 1, 2, w); err != nil {
		return nil, err
	}
	series := []string{"sumac (cycle model)", "roofline bound"}
	if len(rs) > 0 {
		label := fmt.Sprintf("peak (%d)", rs[0].Peak)
		if err := hline(p, label, float64(rs[0].Peak), -0.5, float64(len(rs))-0.5, colorOf(2)); err != nil {
			return nil, err
		}
		series = append(series, label)
	}
	p.NominalX(names...)
	rotateX(p)
	p.Y.Min = 0
	p.Legend.Top, p.Legend.Left = true, false
	p.Y.Max *= 1.35 // room for the legend above the bars
	return render(p, "workloads-"+dtype, vg.Points(720), vg.Points(360), series...)
}

// vyasaGeomeans compares the geometric means of seed 000's workloads with the paper's (its
// per-workload figures 9 and 10 are printed as charts without values; the text gives the means).
func vyasaGeomeans(rs []tune.Result) (*Plot, string, error) {
	var labels []string
	var ours, paper []float64
	missing := 0
	for _, pr := range suite.PaperResults("vyasa36") {
		if pr.Roofline != 0 {
			continue // a single workload's value: on the roofline plot
		}
		s, _ := suite.Get("vyasa36")
		var vals []float64
		want := 0
		for _, w := range s.Workloads {
			if !strings.HasSuffix(w.Name, pr.DType) || !(pr.Group == "all" || strings.HasSuffix(w.Source, pr.Group)) {
				continue
			}
			want++
			for _, r := range rs {
				if r.Name == w.Name && r.Spec == w.Spec.String() {
					vals = append(vals, r.MACsPerCycle)
					break
				}
			}
		}
		if len(vals) != want {
			missing++
			continue // a partial group's mean is not the paper's mean
		}
		labels = append(labels, pr.Group+" "+pr.DType)
		ours = append(ours, geomean(vals))
		paper = append(paper, pr.MACsPerCycle)
	}
	if len(labels) == 0 {
		return nil, "", nil
	}
	p := newPlot("Geometric means: sumac against seed 000", "", "MACs per cycle (geometric mean)")
	w := vg.Points(22)
	if _, err := bars(p, "sumac", ours, 0, 2, w); err != nil {
		return nil, "", err
	}
	if _, err := bars(p, "seed 000", paper, 1, 2, w); err != nil {
		return nil, "", err
	}
	p.NominalX(labels...)
	p.Y.Min = 0
	p.Y.Max *= 1.2
	pl, err := render(p, "geomeans", vg.Points(560), vg.Points(300), "sumac", "seed 000")
	if err != nil {
		return nil, "", err
	}
	var parts []string
	for i := range labels {
		parts = append(parts, fmt.Sprintf("%s %.2f (seed 000: %.2f)", labels[i], ours[i], paper[i]))
	}
	note := "Geometric means, MACs/cycle: " + strings.Join(parts, "; ") + ". Seed 000: abstract and sections IV-A, IV-B."
	if missing > 0 {
		note += fmt.Sprintf(" %d group(s) of the paper left out: the documents hold only part of their workloads.", missing)
	}
	return pl, note, nil
}
