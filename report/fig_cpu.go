package report

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/sumacdev/sumac/cpu/bench"
)

func init() {
	Register(Figure{
		Name: "cpu", Title: "CPU: sumac's GEMM and convolution, and the peer libraries", Order: 30,
		Reads:   []string{"bench-cpu", "peers"},
		Missing: "no CPU document given; 'sumac bench cpu --suite gemm --json > g.json' measures sumac, and in bench/peers 'bash setup.sh && go run . --suite gemm --json > peers.json' measures OpenBLAS, BLIS and oneDNN beside it",
		Build:   buildCPU,
	})
}

// peerRow is one row of bench/peers' JSON (a separate module, so its type is not importable;
// the fields are its JSON names).
type peerRow struct {
	Name             string   `json:"name"`
	Op               string   `json:"op"`
	DType            string   `json:"dtype"`
	SumacGFLOPS      float64  `json:"sumac_gflops"`
	SumacExactGFLOPS *float64 `json:"sumac_exact_gflops"`
	OpenBLASGFLOPS   *float64 `json:"openblas_gflops"`
	BLISGFLOPS       *float64 `json:"blis_gflops"`
	OneDNNGFLOPS     *float64 `json:"onednn_gflops"`
	OneDNNNHWCGFLOPS *float64 `json:"onednn_nhwc_gflops"`
	OneDNNAnyGFLOPS  *float64 `json:"onednn_any_gflops"`
	Threads          int      `json:"threads"`
}

// ordered keeps keys in order of first appearance.
type ordered struct {
	keys []string
	seen map[string]bool
}

func (o *ordered) add(k string) {
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	if !o.seen[k] {
		o.seen[k] = true
		o.keys = append(o.keys, k)
	}
}

func buildCPU(c *Context) (*Section, error) {
	sec := &Section{Caption: "Rates in GFLOPS (GOPS for integer types: 2 operations per multiply-add, " +
		"padding taps included), medians of the measured rounds, on the machine that wrote the document."}
	var rows []bench.Row
	for _, d := range c.Docs("bench-cpu") {
		var part []bench.Row
		if err := d.Decode(&part); err != nil {
			return nil, err
		}
		rows = append(rows, part...)
	}
	if len(rows) > 0 {
		pls, err := benchPlots(rows)
		if err != nil {
			return nil, err
		}
		sec.Plots = append(sec.Plots, pls...)
		sec.Table = &Table{Header: []string{"workload", "dtype", "isa", "threads", "GFLOPS", "% ref peak", "% run peak"}}
		for _, r := range rows {
			run := "-"
			if r.RunPeak > 0 {
				run = fmt.Sprintf("%.0f", r.PctRun)
			}
			sec.Table.Rows = append(sec.Table.Rows, []string{r.Name, r.DType, r.ISA, fmt.Sprint(r.Threads),
				fmt.Sprintf("%.1f", r.GFLOPS), fmt.Sprintf("%.0f", r.PctRef), run})
		}
	} else {
		sec.Notes = append(sec.Notes, "No 'sumac bench cpu --json' document given: sumac's fractions of peak are not drawn.")
	}
	peers := c.Docs("peers")
	for i, d := range peers {
		var rows []peerRow
		if err := d.Decode(&rows); err != nil {
			return nil, err
		}
		pls, err := peerPlots(rows, i, filepath.Base(d.Name))
		if err != nil {
			return nil, err
		}
		sec.Plots = append(sec.Plots, pls...)
	}
	if len(peers) == 0 {
		sec.Notes = append(sec.Notes, "No bench/peers document given: OpenBLAS, BLIS and oneDNN are not drawn (bench/peers: 'bash setup.sh && go run . --suite gemm --json').")
	}
	return sec, nil
}

// benchPlots: GFLOPS per workload and type, and the fraction of peak.
func benchPlots(rows []bench.Row) ([]*Plot, error) {
	var names, dtypes ordered
	val := map[[2]string]bench.Row{}
	allRun := true
	for _, r := range rows {
		names.add(r.Name)
		dtypes.add(r.DType)
		val[[2]string{r.Name, r.DType}] = r
		allRun = allRun && r.RunPeak > 0
	}
	rate := newPlot("sumac bench cpu: rate per workload", "", "GFLOPS (GOPS for integers)")
	pct := newPlot("sumac bench cpu: fraction of peak", "", "% of peak")
	pctOf, pctLabel := func(r bench.Row) float64 { return r.PctRef }, "reference machine's peak (HOST-ZEN3) x threads"
	if allRun {
		pctOf, pctLabel = func(r bench.Row) float64 { return r.PctRun }, "peak of the kernels' register-only loop measured in the same run x threads"
	}
	pct.Title.Text += " (" + pctLabel + ")"
	n := len(dtypes.keys)
	w := vg.Points(min(16, 600/float64(n*len(names.keys))))
	for i, d := range dtypes.keys {
		g, f := make([]float64, len(names.keys)), make([]float64, len(names.keys))
		for j, name := range names.keys {
			if r, ok := val[[2]string{name, d}]; ok {
				g[j], f[j] = r.GFLOPS, pctOf(r)
			}
		}
		if _, err := bars(rate, d, g, i, n, w); err != nil {
			return nil, err
		}
		if _, err := bars(pct, d, f, i, n, w); err != nil {
			return nil, err
		}
	}
	for _, p := range []*plot.Plot{rate, pct} {
		p.NominalX(names.keys...)
		p.Y.Min = 0
		p.Y.Max *= 1.3
		p.Legend.Left = false
	}
	pct.Title.TextStyle.Font.Size = vg.Points(10)
	a, err := render(rate, "bench-rate", vg.Points(720), vg.Points(340), dtypes.keys...)
	if err != nil {
		return nil, err
	}
	b, err := render(pct, "bench-pct", vg.Points(720), vg.Points(340), dtypes.keys...)
	if err != nil {
		return nil, err
	}
	return []*Plot{a, b}, nil
}

// peerPlots: one plot per type of one document (the n-th), the workloads side by side, a bar
// per library.
func peerPlots(rows []peerRow, n int, name string) ([]*Plot, error) {
	var dtypes ordered
	for _, r := range rows {
		dtypes.add(r.DType)
	}
	cols := []struct {
		label string
		get   func(peerRow) *float64
	}{
		{"sumac", func(r peerRow) *float64 { v := r.SumacGFLOPS; return &v }},
		{"sumac exact u8", func(r peerRow) *float64 { return r.SumacExactGFLOPS }},
		{"OpenBLAS", func(r peerRow) *float64 { return r.OpenBLASGFLOPS }},
		{"BLIS", func(r peerRow) *float64 { return r.BLISGFLOPS }},
		{"oneDNN", func(r peerRow) *float64 { return r.OneDNNGFLOPS }},
		{"oneDNN nhwc", func(r peerRow) *float64 { return r.OneDNNNHWCGFLOPS }},
		{"oneDNN any", func(r peerRow) *float64 { return r.OneDNNAnyGFLOPS }},
	}
	var out []*Plot
	for _, d := range dtypes.keys {
		var names ordered
		var sel []peerRow
		threads := 0
		for _, r := range rows {
			if r.DType == d {
				names.add(r.Name)
				sel = append(sel, r)
				threads = max(threads, r.Threads)
			}
		}
		var present []int
		for ci, col := range cols {
			for _, r := range sel {
				if col.get(r) != nil {
					present = append(present, ci)
					break
				}
			}
		}
		p := newPlot(fmt.Sprintf("%s: %s against the peer libraries, %d thread(s)", name, d, threads), "", "GFLOPS (GOPS for integers)")
		w := vg.Points(min(16, 600/float64(len(present)*len(names.keys))))
		var series []string
		for i, ci := range present {
			v := make([]float64, len(names.keys))
			for _, r := range sel {
				if x := cols[ci].get(r); x != nil {
					for j, n := range names.keys {
						if n == r.Name {
							v[j] = *x
						}
					}
				}
			}
			if _, err := bars(p, cols[ci].label, v, i, len(present), w); err != nil {
				return nil, err
			}
			series = append(series, cols[ci].label)
		}
		p.NominalX(names.keys...)
		if len(names.keys) > 8 {
			rotateX(p)
		}
		p.Y.Min = 0
		p.Y.Max *= 1.3
		p.Legend.Left = false
		pl, err := render(p, fmt.Sprintf("peers%d-%s", n+1, d), vg.Points(720), vg.Points(340), series...)
		if err != nil {
			return nil, err
		}
		out = append(out, pl)
	}
	return out, nil
}
