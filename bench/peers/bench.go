package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
)

// Row is one JSON object of the output: one shape and type. Rates are GFLOPS for floating
// point and GOPS (2 ops per multiply-accumulate) for integers, over nominal MACs (padding taps
// included), medians of the interleaved rounds. A peer field is absent when the peer lacks
// the operation.
type Row struct {
	Name  string  `json:"name"`
	Op    string  `json:"op"` // gemm or conv
	DType string  `json:"dtype"`
	Shape string  `json:"shape"`
	GFLOP float64 `json:"gflop"` // work of one call

	SumacGFLOPS float64 `json:"sumac_gflops"`
	// SumacExactGFLOPS is sumac's exact full-range u8 x s8 path (u8s8 rows); sumac_gflops is
	// then its fast path for activations in 0..127.
	SumacExactGFLOPS *float64 `json:"sumac_exact_gflops,omitempty"`
	OpenBLASGFLOPS   *float64 `json:"openblas_gflops,omitempty"`
	BLISGFLOPS       *float64 `json:"blis_gflops,omitempty"`
	OneDNNGFLOPS     *float64 `json:"onednn_gflops,omitempty"`
	OneDNNNHWCGFLOPS *float64 `json:"onednn_nhwc_gflops,omitempty"`
	OneDNNAnyGFLOPS  *float64 `json:"onednn_any_gflops,omitempty"`

	// The instruction set each column ran: sumac's kernel set ("avx512-vnni", "avx512",
	// "avx2-vnni", "avx2", "go") for sumac's columns, OpenBLAS's core, BLIS's architecture,
	// oneDNN's effective ISA (onednn_impl names the implementation of each primitive).
	SumacISA      string `json:"sumac_isa"`
	SumacExactISA string `json:"sumac_exact_isa,omitempty"`
	OpenBLASISA   string `json:"openblas_isa,omitempty"`
	BLISISA       string `json:"blis_isa,omitempty"`
	OneDNNISA     string `json:"onednn_isa,omitempty"`

	Threads int `json:"threads"`
	Rounds  int `json:"rounds"`
	// OneDNNImpl names the implementations oneDNN chose, per column.
	OneDNNImpl map[string]string `json:"onednn_impl,omitempty"`
}

func (r *Row) set(field string, v float64) {
	p := &v
	switch field {
	case "sumac":
		r.SumacGFLOPS = v
	case "sumac_exact":
		r.SumacExactGFLOPS = p
	case "openblas":
		r.OpenBLASGFLOPS = p
	case "blis":
		r.BLISGFLOPS = p
	case "onednn":
		r.OneDNNGFLOPS = p
	case "onednn_nhwc":
		r.OneDNNNHWCGFLOPS = p
	case "onednn_any":
		r.OneDNNAnyGFLOPS = p
	}
}

func (r *Row) get(field string) (float64, bool) {
	var p *float64
	switch field {
	case "sumac":
		return r.SumacGFLOPS, true
	case "sumac_exact":
		p = r.SumacExactGFLOPS
	case "openblas":
		p = r.OpenBLASGFLOPS
	case "blis":
		p = r.BLISGFLOPS
	case "onednn":
		p = r.OneDNNGFLOPS
	case "onednn_nhwc":
		p = r.OneDNNNHWCGFLOPS
	case "onednn_any":
		p = r.OneDNNAnyGFLOPS
	}
	if p == nil {
		return 0, false
	}
	return *p, true
}

// startWorkers starts one worker per requested peer.
func startWorkers(c *config, stderr io.Writer) (map[string]*worker, func(), error) {
	ws := map[string]*worker{}
	closeAll := func() {
		for _, w := range ws {
			w.close()
		}
	}
	for _, p := range c.peers {
		w, err := startWorker(p, c.threads, c.onednnISA)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		fmt.Fprintf(stderr, "peers: %s: %s\n", p, w.info)
		ws[p] = w
	}
	return ws, closeAll, nil
}

// prepared is a column ready to time.
type prepared struct {
	col    column
	local  *peerOp // sumac
	worker *worker // a peer
	id     int
	impl   string
}

// prepareColumns builds every column of a task; peers lacking the operation are left out.
func prepareColumns(c *config, t *Task, ws map[string]*worker, nextID *int) ([]*prepared, func(), error) {
	var ps []*prepared
	release := func() {
		for _, p := range ps {
			if p.local != nil {
				p.local.free()
			} else {
				_, _ = p.worker.call(&request{Cmd: "free", ID: p.id})
			}
		}
	}
	for _, col := range columnsFor(t, c.peers) {
		p := &prepared{col: col}
		if col.peer == "" {
			op, err := prepareSumac(t, c.threads, col.exact)
			if err != nil {
				release()
				return nil, nil, fmt.Errorf("sumac %s: %v", t, err)
			}
			p.local = op
		} else {
			*nextID++
			p.worker, p.id = ws[col.peer], *nextID
			tv := *t
			tv.Variant = col.variant
			rep, err := p.worker.call(&request{Cmd: "prepare", ID: p.id, Task: &tv})
			if errors.Is(err, errNoOp) {
				continue
			}
			if err != nil {
				release()
				return nil, nil, fmt.Errorf("%s %s: %v", col.peer, &tv, err)
			}
			p.impl = rep.Impl
		}
		ps = append(ps, p)
	}
	return ps, release, nil
}

// sample times one column once (a batch of calls lasting at least minTime).
func (p *prepared) sample(minTime float64) (float64, error) {
	if p.local != nil {
		s, _, err := timeOp(p.local.run, minTime)
		return s, err
	}
	rep, err := p.worker.call(&request{Cmd: "run", ID: p.id, MinSeconds: minTime})
	return rep.Seconds, err
}

func runBench(c *config, stdout, stderr io.Writer) error {
	wls, err := workloads(c)
	if err != nil {
		return err
	}
	ws, closeAll, err := startWorkers(c, stderr)
	if err != nil {
		return err
	}
	defer closeAll()
	fmt.Fprintf(stderr, "peers: sumac: GEMM kernels float32 %s, float64 %s, int16 %s, u8s8 %s (%s caps them)\n",
		gemm.KernelISA("float32"), gemm.KernelISA("float64"), gemm.KernelISA("int16"), gemm.KernelISA("u8s8"), kernels.MaxISAEnv)
	var rows []*Row
	nextID := 0
	for wi, w := range wls {
		for _, dt := range dtypesFor(w, c.dtypes) {
			t := taskFor(w, dt, uint64(wi+1))
			row, err := measure(c, t, w, ws, &nextID)
			if err != nil {
				return err
			}
			rows = append(rows, row)
			fmt.Fprintf(stderr, "peers: %s\n", progressLine(row))
		}
	}
	if c.json {
		if rows == nil {
			rows = []*Row{}
		}
		return writeJSON(stdout, rows)
	}
	writeTable(stdout, rows)
	return nil
}

// measure runs the interleaved rounds of one task: in every round each column is sampled
// once, sumac first, so slow drifts of the shared machine hit every library alike.
func measure(c *config, t *Task, w workload, ws map[string]*worker, nextID *int) (*Row, error) {
	ps, release, err := prepareColumns(c, t, ws, nextID)
	if err != nil {
		return nil, err
	}
	defer release()
	times := make([][]float64, len(ps))
	for r := 0; r < c.rounds; r++ {
		for i, p := range ps {
			s, err := p.sample(c.minTime)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", p.col.field, t, err)
			}
			times[i] = append(times[i], s)
		}
	}
	flop := 2 * float64(t.MACs())
	row := &Row{Name: t.Name, Op: t.Kind, DType: t.DType, Shape: w.spec.String(), GFLOP: flop / 1e9,
		Threads: c.threads, Rounds: c.rounds}
	for i, p := range ps {
		row.set(p.col.field, round3(flop/median(times[i])/1e9))
		switch {
		case p.col.field == "sumac":
			row.SumacISA = p.local.impl
		case p.col.field == "sumac_exact":
			row.SumacExactISA = p.local.impl
		case p.col.peer == "openblas":
			row.OpenBLASISA = p.worker.isa
		case p.col.peer == "blis":
			row.BLISISA = p.worker.isa
		case p.col.peer == "onednn":
			row.OneDNNISA = p.worker.isa
		}
		if p.impl != "" && strings.HasPrefix(p.col.field, "onednn") {
			if row.OneDNNImpl == nil {
				row.OneDNNImpl = map[string]string{}
			}
			row.OneDNNImpl[p.col.field] = p.impl
		}
	}
	return row, nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

var fieldOrder = []string{"sumac", "sumac_exact", "openblas", "blis", "onednn", "onednn_nhwc", "onednn_any"}

func progressLine(r *Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s:", r.Name, r.DType)
	for _, f := range fieldOrder {
		if v, ok := r.get(f); ok {
			fmt.Fprintf(&b, " %s %.1f", f, v)
		}
	}
	return b.String()
}

// writeTable prints the rates with sumac/peer ratios, then the geometric mean of each ratio
// per type; int16 rows also show sumac's int16 over its own float32 on the same shape.
func writeTable(out io.Writer, rows []*Row) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "name\tdtype\tsumac\tsumac_exact\topenblas\tblis\tonednn\tonednn_nhwc\tonednn_any\tint16/fp32\t")
	fp32 := map[string]float64{}
	for _, r := range rows {
		if r.DType == "float32" {
			fp32[r.Name] = r.SumacGFLOPS
		}
	}
	type key struct{ dtype, field string }
	logs := map[key][]float64{}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t", r.Name, r.DType, r.SumacGFLOPS)
		for _, f := range fieldOrder[1:] {
			v, ok := r.get(f)
			switch {
			case !ok:
				fmt.Fprint(tw, "-\t")
			case f == "sumac_exact":
				fmt.Fprintf(tw, "%.1f\t", v)
			default:
				fmt.Fprintf(tw, "%.1f (%.2fx)\t", v, r.SumacGFLOPS/v)
				logs[key{r.DType, f}] = append(logs[key{r.DType, f}], math.Log(r.SumacGFLOPS/v))
			}
			if f == "sumac_exact" && ok {
				// The exact path against each peer is summarized below as well.
				for _, pf := range fieldOrder[2:] {
					if pv, ok := r.get(pf); ok {
						logs[key{"u8s8 exact", pf}] = append(logs[key{"u8s8 exact", pf}], math.Log(v/pv))
					}
				}
			}
		}
		if f, ok := fp32[r.Name]; ok && r.DType == "int16" && f > 0 {
			fmt.Fprintf(tw, "%.2fx\t", r.SumacGFLOPS/f)
			logs[key{"int16", "sumac float32"}] = append(logs[key{"int16", "sumac float32"}], math.Log(r.SumacGFLOPS/f))
		} else {
			fmt.Fprint(tw, "-\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	var keys []key
	for k := range logs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dtype != keys[j].dtype {
			return keys[i].dtype < keys[j].dtype
		}
		return keys[i].field < keys[j].field
	})
	fmt.Fprintln(out, "\ngeometric mean of sumac / peer:")
	for _, k := range keys {
		s, lo := 0.0, math.Inf(1)
		for _, l := range logs[k] {
			s += l
			lo = math.Min(lo, l)
		}
		fmt.Fprintf(out, "  %-11s vs %-13s %.3fx (lowest %.3fx, %d shapes)\n", k.dtype, k.field,
			math.Exp(s/float64(len(logs[k]))), math.Exp(lo), len(logs[k]))
	}
}
