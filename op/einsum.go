package op

import (
	"fmt"
	"strings"
)

// Einsum is a tensor contraction of two operands, e.g. seed 002's
// [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0]. Each tensor is stored row-major in the
// order its indices are listed (the last index fastest), so the same notation describes a tiled
// data layout. Every index appears in the output or in both inputs (a contraction); an index
// that appears on one side only is rejected.
type Einsum struct {
	In    [2][]string
	Out   []string
	Sizes map[string]int
	order []string // indices in order of first appearance, for printing
}

// Indices returns every index in order of first appearance.
func (e *Einsum) Indices() []string { return append([]string(nil), e.order...) }

// Contracted returns the indices summed over (in both inputs, not in the output).
func (e *Einsum) Contracted() []string {
	var r []string
	for _, ix := range e.order {
		if !contains(e.Out, ix) {
			r = append(r, ix)
		}
	}
	return r
}

// MACs is the product of all index sizes.
func (e *Einsum) MACs() int64 {
	v := make([]int, 0, len(e.order))
	for _, ix := range e.order {
		v = append(v, e.Sizes[ix])
	}
	return prod(v...)
}

// Len returns the element count of a tensor given by its index list.
func (e *Einsum) Len(idx []string) int {
	n := 1
	for _, ix := range idx {
		n *= e.Sizes[ix]
	}
	return n
}

// Strides returns, for a tensor with index list idx, the row-major stride of every index
// (0 for indices the tensor does not have).
func (e *Einsum) Strides(idx []string) map[string]int {
	st := make(map[string]int, len(e.order))
	for _, ix := range e.order {
		st[ix] = 0
	}
	s := 1
	for i := len(idx) - 1; i >= 0; i-- {
		st[idx[i]] = s
		s *= e.Sizes[idx[i]]
	}
	return st
}

func (e *Einsum) String() string {
	var b strings.Builder
	b.WriteString("einsum ")
	b.WriteString(fmtIdx(e.In[0]) + "," + fmtIdx(e.In[1]) + "->" + fmtIdx(e.Out))
	for _, ix := range e.order {
		fmt.Fprintf(&b, " %s=%d", ix, e.Sizes[ix])
	}
	return b.String()
}

func fmtIdx(idx []string) string { return "[" + strings.Join(idx, ",") + "]" }

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// parseIdx parses "[a,b,c]".
func parseIdx(s, what string) ([]string, error) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("einsum %s %q: want an index list like [m,k]", what, s)
	}
	inner := s[1 : len(s)-1]
	if inner == "" {
		return nil, fmt.Errorf("einsum %s has no indices", what)
	}
	var idx []string
	for _, ix := range strings.Split(inner, ",") {
		if !isIdent(ix) {
			return nil, fmt.Errorf("einsum %s: %q is not an index name (letters, digits, _; starting with a letter)", what, ix)
		}
		if contains(idx, ix) {
			return nil, fmt.Errorf("einsum %s: index %s appears twice", what, ix)
		}
		idx = append(idx, ix)
	}
	return idx, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// reservedKeys are spec parameters that cannot be index names.
var reservedKeys = map[string]bool{"dtype": true, "atype": true, "btype": true, "acc": true, "out": true, "shift": true, "round": true, "sat": true}

func (p *kvParser) einsum(expr string) (*Einsum, error) {
	lhs, rhs, ok := strings.Cut(expr, "->")
	if !ok {
		return nil, fmt.Errorf("einsum %q: missing '->'", expr)
	}
	ins := strings.Split(lhs, "],")
	if len(ins) != 2 {
		return nil, fmt.Errorf("einsum %q: want exactly two inputs, like [m,k],[k,n]->[m,n]", expr)
	}
	ins[0] += "]"
	e := &Einsum{Sizes: map[string]int{}}
	var err error
	for i, s := range ins {
		if e.In[i], err = parseIdx(s, fmt.Sprintf("input %d", i)); err != nil {
			return nil, err
		}
	}
	if e.Out, err = parseIdx(rhs, "output"); err != nil {
		return nil, err
	}
	for _, list := range [][]string{e.In[0], e.In[1], e.Out} {
		for _, ix := range list {
			if !contains(e.order, ix) {
				e.order = append(e.order, ix)
			}
		}
	}
	for _, ix := range e.order {
		in0, in1, out := contains(e.In[0], ix), contains(e.In[1], ix), contains(e.Out, ix)
		switch {
		case !in0 && !in1:
			return nil, fmt.Errorf("einsum index %s appears only in the output", ix)
		case out:
		case in0 != in1:
			side := 0
			if in1 {
				side = 1
			}
			return nil, fmt.Errorf("einsum index %s appears on one side only (input %d): it is neither contracted nor kept", ix, side)
		}
		if reservedKeys[strings.ToLower(ix)] {
			return nil, fmt.Errorf("einsum index name %s is reserved", ix)
		}
		n, err := p.size(strings.ToLower(ix), 0, 1)
		if err != nil {
			return nil, fmt.Errorf("einsum index %s: %v", ix, err)
		}
		e.Sizes[ix] = n
	}
	var sizes []int
	for _, ix := range e.order {
		sizes = append(sizes, e.Sizes[ix])
	}
	lens := func(idx []string) []int {
		var v []int
		for _, ix := range idx {
			v = append(v, e.Sizes[ix])
		}
		return v
	}
	if err := checkSizes(lens(e.In[0]), lens(e.In[1]), lens(e.Out), sizes); err != nil {
		return nil, err
	}
	return e, nil
}
