package conv

import (
	"sync/atomic"

	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/op"
)

// The plain loops serve groups too narrow for a 16-channel panel (depth-wise convolution):
// straightforward code over canonical layouts, parallel over output rows.

func plainF32(c *op.Conv2D, in, w, out []float32, threads int) {
	plainRows(c, threads, func(n, y int) {
		plainRow(c, n, y, func(o, i, wi, cnt int) {
			s := out[o]
			for j := 0; j < cnt; j++ {
				s += in[i+j] * w[wi+j]
			}
			out[o] = s
		}, func(o int) { out[o] = 0 })
	})
}

// plainInt accumulates exact products in int32, wrapping modulo 2^32 like the kernels.
func plainInt[A int16 | uint8, B int16 | int8](c *op.Conv2D, in []A, w []B, out []int32, threads int) {
	plainRows(c, threads, func(n, y int) {
		plainRow(c, n, y, func(o, i, wi, cnt int) {
			s := out[o]
			for j := 0; j < cnt; j++ {
				s += int32(in[i+j]) * int32(w[wi+j])
			}
			out[o] = s
		}, func(o int) { out[o] = 0 })
	})
}

// plainRow visits output row (n, y): zero(o) clears each output, then dot(o, i, wi, cnt)
// adds cnt products of input in[i:] and weights w[wi:] for each in-bounds tap.
func plainRow(c *op.Conv2D, n, y int, dot func(o, i, wi, cnt int), zero func(o int)) {
	cg, kg := c.C/c.Groups, c.K/c.Groups
	for x := 0; x < c.X; x++ {
		for k := 0; k < c.K; k++ {
			o := c.OutIndex(x, y, k, n)
			zero(o)
			g := k / kg
			for s := 0; s < c.S; s++ {
				iy := y*c.Stride + s*c.Dilation - c.Pad
				if iy < 0 || iy >= c.YIn {
					continue
				}
				for r := 0; r < c.R; r++ {
					ix := x*c.Stride + r*c.Dilation - c.Pad
					if ix < 0 || ix >= c.XIn {
						continue
					}
					dot(o, c.InIndex(ix, iy, g*cg, n), c.WIndex(r, s, 0, k), cg)
				}
			}
		}
	}
}

func plainRows(c *op.Conv2D, threads int, row func(n, y int)) {
	rows := c.N * c.Y
	if threads <= 1 || rows == 1 {
		for r := 0; r < rows; r++ {
			row(r/c.Y, r%c.Y)
		}
		return
	}
	var next atomic.Int64
	team.Run(min(threads, rows), func(int) {
		for {
			r := int(next.Add(1)) - 1
			if r >= rows {
				return
			}
			row(r/c.Y, r%c.Y)
		}
	})
}
