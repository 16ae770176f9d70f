package op

import "fmt"

// MaxPool is a 2D max pooling over NHWC data: out(x, y, c, n) = max over a size x size window
// at (x*stride, y*stride). It has no padding; it multiplies nothing (MACs() = 0) and appears in
// the suites so that whole networks (seed 003's) can be listed.
type MaxPool struct {
	X, Y, C, N   int // output width, height, channels, batch
	Size, Stride int
	XIn, YIn     int
}

func (m *MaxPool) String() string {
	return fmt.Sprintf("maxpool x=%d y=%d c=%d n=%d size=%d stride=%d xin=%d yin=%d", m.X, m.Y, m.C, m.N, m.Size, m.Stride, m.XIn, m.YIn)
}

func (p *kvParser) pool() (*MaxPool, error) {
	m := &MaxPool{}
	var err error
	get := func(dst *int, k string, def int) {
		if err == nil {
			*dst, err = p.size(k, def, 1)
		}
	}
	get(&m.X, "x", 0)
	get(&m.Y, "y", 0)
	get(&m.C, "c", 1)
	get(&m.N, "n", 1)
	get(&m.Size, "size", 2)
	get(&m.Stride, "stride", m.Size)
	get(&m.XIn, "xin", (m.X-1)*m.Stride+m.Size)
	get(&m.YIn, "yin", (m.Y-1)*m.Stride+m.Size)
	if err != nil {
		return nil, err
	}
	if m.Size > m.XIn || m.Size > m.YIn {
		return nil, fmt.Errorf("pool window %d is larger than the input %dx%d", m.Size, m.XIn, m.YIn)
	}
	if (m.XIn-m.Size)/m.Stride+1 < m.X || (m.YIn-m.Size)/m.Stride+1 < m.Y {
		return nil, fmt.Errorf("input %dx%d is too small for %dx%d outputs", m.XIn, m.YIn, m.X, m.Y)
	}
	if err := checkSizes([]int{m.N, m.YIn, m.XIn, m.C}, []int{m.N, m.Y, m.X, m.C}, []int{1}); err != nil {
		return nil, err
	}
	return m, nil
}
