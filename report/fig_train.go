package report

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func init() {
	Register(Figure{
		Name: "nn-train", Title: "NN: training loss (seed 003's network on MNIST)", Order: 45,
		Reads:   []string{"train"},
		Missing: "no training document given; 'sumac train mnist --json > train.json' makes one (a few minutes; --epochs 1 --train 1000 for a quick one)",
		Build:   buildTrain,
	})
}

// trainDoc is the JSON of 'sumac train mnist --json'.
type trainDoc struct {
	Algorithm    string    `json:"algorithm"`
	Threads      int       `json:"threads"`
	Train        int       `json:"train"`
	Batch        int       `json:"batch"`
	Epochs       int       `json:"epochs"`
	Losses       []float64 `json:"losses"`
	Accuracy     *float64  `json:"accuracy"`
	EpochSeconds []float64 `json:"epoch_seconds"`
}

func buildTrain(c *Context) (*Section, error) {
	p := newPlot("Mean training loss per epoch", "epoch", "loss (negative log-likelihood)")
	sec := &Section{Caption: "The mean training loss of each epoch 'sumac train mnist' reports (the base and simd " +
		"algorithms give the same losses, seed 003 section 3)."}
	var series []string
	for i, d := range c.Docs("train") {
		var t trainDoc
		if err := d.Decode(&t); err != nil {
			return nil, err
		}
		if len(t.Losses) == 0 {
			sec.Notes = append(sec.Notes, fmt.Sprintf("%s: no loss recorded.", d.Name))
			continue
		}
		pts := make(plotter.XYs, len(t.Losses))
		for k, l := range t.Losses {
			pts[k] = plotter.XY{X: float64(k + 1), Y: l}
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, sc.Color = colorOf(i), colorOf(i)
		l.Width = vg.Points(1.2)
		label := fmt.Sprintf("%s (%s, %d threads)", filepath.Base(d.Name), t.Algorithm, t.Threads)
		p.Add(l, sc)
		p.Legend.Add(label, l, sc)
		series = append(series, label)
		acc := "not tested"
		if t.Accuracy != nil {
			acc = fmt.Sprintf("test accuracy %.2f%%", 100**t.Accuracy)
		}
		total := 0.0
		for _, s := range t.EpochSeconds {
			total += s
		}
		sec.Notes = append(sec.Notes, fmt.Sprintf("%s: %d epoch(s) of %d items in batches of %d, %.1f s; %s.",
			label, t.Epochs, t.Train, t.Batch, total, acc))
	}
	if len(series) == 0 {
		return nil, nil
	}
	p.Legend.Left = false
	p.Y.Min = 0
	pl, err := render(p, "loss", vg.Points(720), vg.Points(320), series...)
	if err != nil {
		return nil, err
	}
	sec.Plots = []*Plot{pl}
	return sec, nil
}
