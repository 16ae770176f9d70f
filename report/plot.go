package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// plotFont is the face of every plot's text (Liberation Sans, shipped with gonum/plot and
// embedded in the page).
var plotFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot makes a plot with the report's font and a grid.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	plot.DefaultFont = plotFont // gonum/plot reads its default face from this variable
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// render draws a plot as SVG (w x h) and names the series the legend shows.
func render(p *plot.Plot, name string, w, h vg.Length, series ...string) (*Plot, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return &Plot{Name: name, Series: series, SVG: b.Bytes()}, nil
}

// color i of the palette (plotutil's, which is colour-blind aware).
func colorOf(i int) color.Color { return plotutil.Color(i) }

// bars is a bar chart of values at the nominal positions 0..n-1, the i-th of nGroups bars of
// each position, with a legend entry.
func bars(p *plot.Plot, label string, values []float64, i, nGroups int, width vg.Length) (*plotter.BarChart, error) {
	b, err := plotter.NewBarChart(plotter.Values(values), width)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", label, err)
	}
	b.Color = colorOf(i)
	b.LineStyle.Width = 0
	b.Offset = width * vg.Length(2*i-nGroups+1) / 2
	p.Add(b)
	p.Legend.Add(label, b)
	return b, nil
}

// dots marks values at the nominal positions 0..n-1 with glyph i of the palette, the i-th of
// nGroups side by side; NaN values are left out. For ratios on a log axis, where bars (which
// start at zero) cannot be drawn.
func dots(p *plot.Plot, label string, values []float64, i, nGroups int) error {
	var pts plotter.XYs
	for j, v := range values {
		if !math.IsNaN(v) && v > 0 {
			pts = append(pts, plotter.XY{X: float64(j) + 0.22*float64(2*i-nGroups+1)/2, Y: v})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("%s: %v", label, err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: colorOf(i), Shape: filledGlyphs[i%len(filledGlyphs)], Radius: vg.Points(4)}
	p.Add(s)
	p.Legend.Add(label, s)
	return nil
}

var filledGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.SquareGlyph{}}

// logY puts the y axis on a log scale marked at the powers of two.
func logY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = pow2Ticks{}
}

// hline is a horizontal line at y from x0 to x1, dashed, with a legend entry.
func hline(p *plot.Plot, label string, y, x0, x1 float64, c color.Color) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	if err != nil {
		return err
	}
	l.Color = c
	l.Width = vg.Points(1.2)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

// scatter adds points with a legend entry.
func scatter(p *plot.Plot, label string, xys plotter.XYs, i int, radius vg.Length) error {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("%s: %v", label, err)
	}
	s.GlyphStyle.Color = colorOf(i)
	s.GlyphStyle.Shape = plotutil.Shape(i)
	s.GlyphStyle.Radius = radius
	p.Add(s)
	p.Legend.Add(label, s)
	return nil
}

// marks adds points drawn with one glyph and colour, with a legend entry.
func marks(p *plot.Plot, label string, xys plotter.XYs, g draw.GlyphDrawer, c color.Color, radius vg.Length) error {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("%s: %v", label, err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Shape: g, Radius: radius}
	p.Add(s)
	p.Legend.Add(label, s)
	return nil
}

// pow2Ticks marks a log axis at the powers of two (MACs per cycle: the peaks are 8 and 32).
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for v := math.Pow(2, math.Floor(math.Log2(lo))); v <= hi; v *= 2 {
		if v >= lo {
			t = append(t, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return t
}

// rotateX turns the nominal x labels so that long names fit.
func rotateX(p *plot.Plot) {
	p.X.Tick.Label.Rotation = math.Pi / 3
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
}

// geomean of positive values (0 if none).
func geomean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}
