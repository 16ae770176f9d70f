package layout

import (
	"fmt"
	"strings"
)

// Tensor names the dimensions of a tensor and their extents, in any fixed order (the order
// of index vectors passed to Map.Offset).
type Tensor struct {
	Dims   []string
	Extent []int
}

// Map is a layout bound to a tensor: it computes the address of every element.
type Map struct {
	Layout Layout
	Tensor Tensor
	// per factor: the tensor dimension index, the factor's extent and its stride (elements)
	dimOf  []int
	extent []int
	stride []int
	mult   []int // stride padding per factor (AlignStride)
	size   int
}

// Bind binds a layout to a tensor. Dimensions of the tensor with extent 1 may be left out of
// the layout (e.g. the batch N); every dimension of the layout must belong to the tensor.
func Bind(l Layout, t Tensor) (*Map, error) {
	if len(t.Dims) != len(t.Extent) {
		return nil, fmt.Errorf("tensor has %d dimensions and %d extents", len(t.Dims), len(t.Extent))
	}
	idx := map[string]int{}
	for i, d := range t.Dims {
		idx[d] = i
		if t.Extent[i] < 1 {
			return nil, fmt.Errorf("dimension %s has extent %d", d, t.Extent[i])
		}
	}
	present := map[string]bool{}
	m := &Map{Layout: l, Tensor: t}
	for _, f := range l.Factors {
		i, ok := idx[f.Dim]
		if !ok {
			return nil, fmt.Errorf("layout %v names %s, which tensor (%s) does not have", l, f.Dim, strings.Join(t.Dims, ","))
		}
		present[f.Dim] = true
		e := t.Extent[i]
		switch {
		case f.Outer > 0:
			e = (e + f.Outer - 1) / f.Outer
		case f.Inner > 0:
			e = f.Inner
		}
		m.dimOf = append(m.dimOf, i)
		m.extent = append(m.extent, e)
	}
	for i, d := range t.Dims {
		if !present[d] && t.Extent[i] != 1 {
			return nil, fmt.Errorf("layout %v leaves out dimension %s of extent %d", l, d, t.Extent[i])
		}
	}
	m.mult = make([]int, len(m.extent))
	if err := m.restride(); err != nil {
		return nil, err
	}
	return m, nil
}

// restride computes the strides, each rounded up to its factor's multiple (padding).
func (m *Map) restride() error {
	m.stride = make([]int, len(m.extent))
	s := 1
	for i := len(m.extent) - 1; i >= 0; i-- {
		if k := m.mult[i]; k > 1 {
			s = (s + k - 1) / k * k
		}
		m.stride[i] = s
		if s > (1<<40)/m.extent[i] {
			return fmt.Errorf("layout %v: tensor too large", m.Layout)
		}
		s *= m.extent[i]
	}
	m.size = s
	return nil
}

// AlignStride pads the layout so that moving dimension dim by step elements moves the address
// by a multiple of align elements (e.g. to keep every vector load 128-bit aligned when a loop
// advances a pointer). Only the factor holding dim (its outer part, when split) is padded.
func (m *Map) AlignStride(dim string, step, align int) error {
	for i, f := range m.Layout.Factors {
		if f.Dim != dim || f.Inner > 0 {
			continue
		}
		fstep := step
		if f.Outer > 0 {
			if step%f.Outer != 0 {
				return fmt.Errorf("step %d of %s is not a multiple of its block %d", step, dim, f.Outer)
			}
			fstep = step / f.Outer
		}
		need := align / gcd(fstep, align)
		if m.stride[i]%need == 0 {
			return nil
		}
		m.mult[i] = need
		return m.restride()
	}
	return nil
}

// AlignPhase pads a phase-major split of dim - its inner factor (D%n) placed before its outer
// factor (D/n), as a strided convolution's input is split into stride phases - so that each
// phase starts on a multiple of align elements.
func (m *Map) AlignPhase(dim string, align int) error {
	inner, outer := -1, -1
	for i, f := range m.Layout.Factors {
		if f.Dim != dim {
			continue
		}
		if f.Inner > 0 {
			inner = i
		} else if f.Outer > 0 {
			outer = i
		}
	}
	if inner < 0 || outer < 0 || inner > outer || m.stride[inner]%align == 0 {
		return nil
	}
	m.mult[inner] = align
	return m.restride()
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Size is the number of elements the layout occupies, padding included.
func (m *Map) Size() int { return m.size }

// Offset is the address (in elements) of the element with the given index (in the tensor's
// dimension order). Indexes must be in range.
func (m *Map) Offset(index []int) int {
	off := 0
	for i, f := range m.Layout.Factors {
		v := index[m.dimOf[i]]
		switch {
		case f.Outer > 0:
			v /= f.Outer
		case f.Inner > 0:
			v %= f.Inner
		}
		off += v * m.stride[i]
	}
	return off
}

// Stride returns the address difference between elements that differ by one in dimension
// dim, when that is the same everywhere (the dimension is whole), and false otherwise.
func (m *Map) Stride(dim string) (int, bool) {
	for i, f := range m.Layout.Factors {
		if f.Dim == dim {
			if !f.Whole() {
				return 0, false
			}
			return m.stride[i], true
		}
	}
	return 0, true // absent dimension of extent 1: any stride
}

// ForEach calls f with every in-range index of the tensor (last dimension fastest).
func (t Tensor) ForEach(f func(index []int)) {
	idx := make([]int, len(t.Dims))
	n := 1
	for _, e := range t.Extent {
		n *= e
	}
	for k := 0; k < n; k++ {
		f(idx)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < t.Extent[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// Pack copies data laid out by src into a new slice laid out by dst. Both are bound to tensors
// with the same dimensions (in any order); dst's extents may be larger (the extra elements,
// like any padding of dst's layout, are zero). Unpacking is Pack with the roles swapped, which
// needs dst's extents to be no larger than src's.
func Pack[T any](dst, src *Map, data []T) ([]T, error) {
	if len(data) != src.Size() {
		return nil, fmt.Errorf("source has %d elements, its layout %v needs %d", len(data), src.Layout, src.Size())
	}
	perm, err := permutation(dst.Tensor, src.Tensor)
	if err != nil {
		return nil, err
	}
	// Iterate over the smaller extent of each dimension.
	t := Tensor{Dims: dst.Tensor.Dims, Extent: make([]int, len(perm))}
	for i, p := range perm {
		t.Extent[i] = min(dst.Tensor.Extent[i], src.Tensor.Extent[p])
	}
	out := make([]T, dst.Size())
	sidx := make([]int, len(src.Tensor.Dims))
	t.ForEach(func(idx []int) {
		for i, p := range perm {
			sidx[p] = idx[i]
		}
		out[dst.Offset(idx)] = data[src.Offset(sidx)]
	})
	return out, nil
}

// permutation maps dimension i of a to its position in b.
func permutation(a, b Tensor) ([]int, error) {
	if len(a.Dims) != len(b.Dims) {
		return nil, fmt.Errorf("tensors (%s) and (%s) differ", strings.Join(a.Dims, ","), strings.Join(b.Dims, ","))
	}
	perm := make([]int, len(a.Dims))
	for i, d := range a.Dims {
		found := false
		for j, e := range b.Dims {
			if d == e {
				perm[i], found = j, true
			}
		}
		if !found {
			return nil, fmt.Errorf("dimension %s missing", d)
		}
	}
	return perm, nil
}
