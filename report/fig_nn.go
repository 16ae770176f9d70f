package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"

	"github.com/sumacdev/sumac/nn"
	"github.com/sumacdev/sumac/op/suite"
)

func init() {
	Register(Figure{
		Name: "nn-layers", Title: "NN: per-layer speed-up of the SIMD layers over the plain loops (seed 003 Tables 3.1, 3.2)", Order: 40,
		Reads:   []string{"layer-times"},
		Missing: "no layer-times document given; make one with 'sumac train mnist --layer-times --json > t.json'",
		Build:   buildLayers,
	})
}

func buildLayers(c *Context) (*Section, error) {
	var rows []nn.LayerTiming
	for _, d := range c.Docs("layer-times") {
		var part []nn.LayerTiming
		if err := d.Decode(&part); err != nil {
			return nil, err
		}
		rows = append(rows, part...)
	}
	var layers ordered
	for _, r := range rows {
		layers.add(r.Layer)
	}
	passes := []string{"forward", "backward"}
	idx := map[string]int{}
	for i, l := range layers.keys {
		idx[l] = i
	}
	// Speed-up = base time / simd time, per layer and pass (the inverse of seed 003's ratio).
	speed := newPlot("Speed-up of the simd layers over base, one batch, one thread", "", "speed-up (base time / simd time)")
	logY(speed)
	var series []string
	for i, pass := range passes {
		v := make([]float64, len(layers.keys))
		for j := range v {
			v[j] = math.NaN()
		}
		for _, r := range rows {
			if r.Pass == pass && r.SimdNs > 0 {
				v[idx[r.Layer]] = float64(r.BaseNs) / float64(r.SimdNs)
			}
		}
		label := "sumac " + pass
		if err := dots(speed, label, v, i, 2); err != nil {
			return nil, err
		}
		series = append(series, label)
	}
	one := "no speed-up (1)"
	if err := hline(speed, one, 1, -0.5, float64(len(layers.keys))-0.5, colorOf(6)); err != nil {
		return nil, err
	}
	series = append(series, one)
	speed.NominalX(layers.keys...)
	speed.X.Min, speed.X.Max = -0.5, float64(len(layers.keys))-0.5
	speed.Legend.Left = false
	speed.Y.Max *= 5 // room above the points for the legend (log axis)
	speed.Y.Min *= 0.7
	a, err := render(speed, "speedup", vg.Points(720), vg.Points(360), series...)
	if err != nil {
		return nil, err
	}
	plots := []*Plot{a}
	if pl, err := againstSeed003(rows); err != nil {
		return nil, err
	} else if pl != nil {
		plots = append(plots, pl)
	}
	sec := &Section{Plots: plots,
		Caption: "Every layer of seed 003's network timed on one batch, forward and backward, with the plain loops (base) " +
			"and with the CPU kernels (simd), one thread, medians (nn.LayerTimes); the speed-up is base time / simd time, " +
			"on a log axis. The second plot sets sumac's beside seed 003's own for the two layers its tables time " +
			"(x86 with 16-lane vectors, and Arm).",
		Table: &Table{Header: []string{"layer", "pass", "base ms", "simd ms", "speed-up"}}}
	for _, r := range rows {
		su := "-"
		if r.SimdNs > 0 {
			su = fmt.Sprintf("%.2f", float64(r.BaseNs)/float64(r.SimdNs))
		}
		sec.Table.Rows = append(sec.Table.Rows, []string{r.Layer, r.Pass, fmt.Sprintf("%.3f", float64(r.BaseNs)/1e6),
			fmt.Sprintf("%.3f", float64(r.SimdNs)/1e6), su})
	}
	return sec, nil
}

// againstSeed003 puts sumac's speed-ups beside seed 003's for the layers and passes its tables
// time (nil if the documents time none of them).
func againstSeed003(rows []nn.LayerTiming) (*Plot, error) {
	var keys ordered
	paper := map[string]map[string]float64{} // machine -> "layer pass" -> speed-up
	for _, pt := range suite.PaperLayerTimes() {
		k := pt.Layer + " " + pt.Pass
		keys.add(k)
		if paper[pt.Machine] == nil {
			paper[pt.Machine] = map[string]float64{}
		}
		paper[pt.Machine][k] = float64(pt.BaseNs) / float64(pt.SimdNs)
	}
	ours := make([]float64, len(keys.keys))
	for i := range ours {
		ours[i] = math.NaN()
	}
	found := false
	for _, r := range rows {
		for i, k := range keys.keys {
			if r.Layer+" "+r.Pass == k && r.SimdNs > 0 {
				ours[i], found = float64(r.BaseNs)/float64(r.SimdNs), true
			}
		}
	}
	if !found {
		return nil, nil
	}
	p := newPlot("Against seed 003's tables", "", "speed-up (base time / simd time)")
	logY(p)
	series := []string{"sumac"}
	if err := dots(p, "sumac", ours, 0, 3); err != nil {
		return nil, err
	}
	for m, machine := range []string{"x86", "Arm"} {
		v := make([]float64, len(keys.keys))
		for i, k := range keys.keys {
			v[i] = paper[machine][k]
		}
		label := "seed 003 " + machine
		if err := dots(p, label, v, m+1, 3); err != nil {
			return nil, err
		}
		series = append(series, label)
	}
	if err := hline(p, "no speed-up (1)", 1, -0.5, float64(len(keys.keys))-0.5, colorOf(6)); err != nil {
		return nil, err
	}
	series = append(series, "no speed-up (1)")
	p.NominalX(keys.keys...)
	p.X.Min, p.X.Max = -0.5, float64(len(keys.keys))-0.5
	p.Y.Max *= 5
	p.Y.Min *= 0.7
	p.Legend.Left = false
	return render(p, "seed003", vg.Points(560), vg.Points(300), series...)
}
