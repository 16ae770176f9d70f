package op

import "fmt"

// Conv2D is a 2D convolution in seed 000's notation (section II-A):
//
//	O(x, y, k, n) = sum_{c, s, r} W(r, s, c, k) * I(x*stride + r*dilation - pad, y*stride + s*dilation - pad, c, n)
//
// with groups: output channel k reads input channels [g*C/G, (g+1)*C/G) of its group g = k / (K/G).
// Input positions outside [0, XIn) x [0, YIn) are zero padding.
type Conv2D struct {
	X, Y     int // output width and height
	K, C     int // output and input channels
	R, S     int // filter width and height
	N        int // batch
	Stride   int
	Pad      int // zero padding on every side
	Dilation int
	Groups   int
	XIn, YIn int // input width and height (default: the smallest that yields X, Y)
}

// Canonical tensor layouts of the reference implementations (row-major, last index fastest):
//
//	input   [N][YIn][XIn][C]        (NHWC)
//	weights [K][S][R][C/Groups]     (output channel, then filter row, column, input channel)
//	output  [N][Y][X][K]            (NHWC)
//
// Targets with other layouts (seed 000's Table IV layouts, NCHW, blocked) pack from these.

// InIndex is the offset of I(x, y, c, n) in the canonical input.
func (c *Conv2D) InIndex(x, y, ch, n int) int { return ((n*c.YIn+y)*c.XIn+x)*c.C + ch }

// WIndex is the offset of W(r, s, cg, k) (cg: channel within the group) in the canonical weights.
func (c *Conv2D) WIndex(r, s, cg, k int) int { return ((k*c.S+s)*c.R+r)*(c.C/c.Groups) + cg }

// OutIndex is the offset of O(x, y, k, n) in the canonical output.
func (c *Conv2D) OutIndex(x, y, k, n int) int { return ((n*c.Y+y)*c.X+x)*c.K + k }

// InLen, WLen and OutLen are the element counts of the canonical tensors.
func (c *Conv2D) InLen() int  { return c.N * c.YIn * c.XIn * c.C }
func (c *Conv2D) WLen() int   { return c.K * c.S * c.R * (c.C / c.Groups) }
func (c *Conv2D) OutLen() int { return c.N * c.Y * c.X * c.K }

// effR and effS are the dilated filter extents.
func (c *Conv2D) effR() int { return (c.R-1)*c.Dilation + 1 }
func (c *Conv2D) effS() int { return (c.S-1)*c.Dilation + 1 }

// MACs counts the multiply-accumulates, padding included (every output reads R*S*C/G inputs).
func (c *Conv2D) MACs() int64 {
	return int64(c.N) * int64(c.K) * int64(c.Y) * int64(c.X) * int64(c.C/c.Groups) * int64(c.R) * int64(c.S)
}

// Kind classifies the convolution as seed 000 does; the first match wins:
// c = k = 1 -> 2D; groups = c = k > 1 -> DS; filter covers the whole padded input -> FC;
// r = s = 1 -> PW; r = 1 or s = 1 -> SS; otherwise REG.
func (c *Conv2D) Kind() Kind {
	switch {
	case c.C == 1 && c.K == 1:
		return Kind2D
	case c.Groups == c.C && c.Groups == c.K:
		return KindDS
	case c.effR() >= c.XIn+2*c.Pad && c.effS() >= c.YIn+2*c.Pad:
		return KindFC
	case c.R == 1 && c.S == 1:
		return KindPW
	case c.R == 1 || c.S == 1:
		return KindSS
	}
	return KindREG
}

func (c *Conv2D) String() string {
	return fmt.Sprintf("conv2d x=%d y=%d k=%d c=%d r=%d s=%d n=%d stride=%d pad=%d dilation=%d groups=%d xin=%d yin=%d",
		c.X, c.Y, c.K, c.C, c.R, c.S, c.N, c.Stride, c.Pad, c.Dilation, c.Groups, c.XIn, c.YIn)
}

// minIn is the smallest input extent that yields out outputs with a filter extent eff.
func minIn(out, eff, stride, pad int) int {
	v := (out-1)*stride + eff - 2*pad
	if v < 1 {
		v = 1
	}
	return v
}

func (p *kvParser) conv() (*Conv2D, error) {
	c := &Conv2D{}
	var err error
	get := func(dst *int, k string, def int) {
		if err == nil {
			*dst, err = p.size(k, def, 1)
		}
	}
	get(&c.X, "x", 0)
	get(&c.Y, "y", 0)
	get(&c.R, "r", 0)
	get(&c.S, "s", 0)
	get(&c.K, "k", 1)
	get(&c.C, "c", 1)
	get(&c.N, "n", 1)
	get(&c.Stride, "stride", 1)
	get(&c.Dilation, "dilation", 1)
	get(&c.Groups, "groups", 1)
	if err == nil {
		c.Pad, err = p.size("pad", 0, 0)
	}
	if err != nil {
		return nil, err
	}
	if c.C%c.Groups != 0 || c.K%c.Groups != 0 {
		return nil, fmt.Errorf("groups=%d must divide c=%d and k=%d", c.Groups, c.C, c.K)
	}
	_, hasX := p.kv["xin"]
	_, hasY := p.kv["yin"]
	get(&c.XIn, "xin", minIn(c.X, c.effR(), c.Stride, c.Pad))
	get(&c.YIn, "yin", minIn(c.Y, c.effS(), c.Stride, c.Pad))
	if err != nil {
		return nil, err
	}
	for _, d := range []struct {
		name, in         string
		out, eff, inSize int
		given            bool
	}{{"x", "xin", c.X, c.effR(), c.XIn, hasX}, {"y", "yin", c.Y, c.effS(), c.YIn, hasY}} {
		padded := d.inSize + 2*c.Pad
		if d.eff > padded {
			return nil, fmt.Errorf("filter extent %d is larger than the input %s=%d (padded %d)", d.eff, d.in, d.inSize, padded)
		}
		if maxOut := (padded-d.eff)/c.Stride + 1; d.out > maxOut {
			return nil, fmt.Errorf("%s=%d outputs need %s>=%d, but %s=%d yields at most %d", d.name, d.out, d.in,
				minIn(d.out, d.eff, c.Stride, c.Pad), d.in, d.inSize, maxOut)
		}
	}
	if err := checkSizes(
		[]int{c.N, c.YIn, c.XIn, c.C}, []int{c.K, c.S, c.R, c.C / c.Groups}, []int{c.N, c.Y, c.X, c.K},
		[]int{c.N, c.K, c.Y, c.X, c.C / c.Groups, c.R, c.S}); err != nil {
		return nil, err
	}
	return c, nil
}
