package vyasa

import (
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

func refInt(p *Program, in, w []int64) (ref.IntResult, error) {
	return ref.Conv2DInt(p.Spec.Conv, p.Spec.Types, in, w)
}

func refFloat(p *Program, in, w []float64) ([]float64, error) {
	return ref.Conv2DFloat(p.Spec.Conv, p.Spec.Types, in, w)
}

func refAbs(c *op.Conv2D, in, w []float64) []float64 { return ref.Conv2DAbs(c, in, w) }

func refBound(n int, abs float64, acc op.AccType) float64 { return ref.FloatBound(n, abs, acc) }
