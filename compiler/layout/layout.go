// Package layout parses, prints and applies the data-layout notation of seed 000 (Vyasa,
// Table IV and section IV-B): a tensor layout is a list of factors written outermost first,
// the last one varying fastest in memory (row-major).
//
//	XYK                  dimensions X, Y, K; K fastest
//	(C/2)Y'X'(2)         "first laying out a block of two channels followed by width, height,
//	                     and remaining channels" (seed 000, Fig. 11): C is split into C/2
//	                     blocks (outermost) and the channel within the block (innermost)
//	(K/16)SR(C/2)(16)(2) K and C split; the bare inner factors (16)(2) belong to the split
//	                     dimensions in the order their outer parts appear (K, then C)
//	(K/8)(C/8)SR(C%8)(K%8) an inner factor can name its dimension explicitly with D%n
//
// A dimension is a letter optionally followed by primes (X', Y'). Every dimension of the
// tensor appears exactly once, either whole or split into one outer and one inner factor
// with the same block size. Extents that the block size does not divide are padded up;
// padding elements are zero when packing.
package layout

import (
	"fmt"
	"strconv"
	"strings"
)

// Factor is one term of a layout.
type Factor struct {
	Dim   string // dimension name, e.g. "K" or "X'"
	Outer int    // > 0: the factor is D/Outer (index / Outer)
	Inner int    // > 0: the factor is the inner part D%Inner (index % Inner)
	// Named records that an inner factor was written D%n (printing keeps it explicit).
	Named bool
}

// Whole reports whether the factor is an unsplit dimension.
func (f Factor) Whole() bool { return f.Outer == 0 && f.Inner == 0 }

// Layout is a parsed layout, outermost factor first.
type Layout struct {
	Factors []Factor
}

// MaxFactors bounds the length of a layout (no tensor here has more than 8 dimensions,
// each split at most once).
const MaxFactors = 16

// MaxBlock bounds a split's block size.
const MaxBlock = 1 << 16

// Parse parses a layout string.
func Parse(s string) (Layout, error) {
	var l Layout
	var pendingInner []int // indices of bare "(n)" factors awaiting their dimension
	i := 0
	for i < len(s) {
		if len(l.Factors) >= MaxFactors {
			return Layout{}, fmt.Errorf("layout %q: more than %d factors", s, MaxFactors)
		}
		c := s[i]
		switch {
		case c == ' ':
			i++
		case isDimStart(c):
			name, n := dimName(s[i:])
			l.Factors = append(l.Factors, Factor{Dim: name})
			i += n
		case c == '(':
			j := strings.IndexByte(s[i:], ')')
			if j < 0 {
				return Layout{}, fmt.Errorf("layout %q: unclosed '(' at column %d", s, i+1)
			}
			body := s[i+1 : i+j]
			f, err := parseParen(body)
			if err != nil {
				return Layout{}, fmt.Errorf("layout %q: (%s) at column %d: %v", s, body, i+1, err)
			}
			if f.Dim == "" {
				pendingInner = append(pendingInner, len(l.Factors))
			}
			l.Factors = append(l.Factors, f)
			i += j + 1
		default:
			return Layout{}, fmt.Errorf("layout %q: unexpected %q at column %d", s, c, i+1)
		}
	}
	if len(l.Factors) == 0 {
		return Layout{}, fmt.Errorf("empty layout")
	}
	// Bind bare inner factors to the split dimensions in the order of their outer parts.
	var unbound []int // outer factor indices whose dimension has no explicit inner factor
	for idx, f := range l.Factors {
		if f.Outer > 0 && !hasNamedInner(l.Factors, f.Dim) {
			unbound = append(unbound, idx)
		}
	}
	if len(pendingInner) != len(unbound) {
		return Layout{}, fmt.Errorf("layout %q: %d bare inner factors for %d split dimensions", s, len(pendingInner), len(unbound))
	}
	for n, idx := range pendingInner {
		l.Factors[idx].Dim = l.Factors[unbound[n]].Dim
	}
	if err := l.check(); err != nil {
		return Layout{}, fmt.Errorf("layout %q: %v", s, err)
	}
	return l, nil
}

// MustParse is Parse for layouts written in program text; it panics on error.
func MustParse(s string) Layout {
	l, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return l
}

func hasNamedInner(fs []Factor, dim string) bool {
	for _, f := range fs {
		if f.Inner > 0 && f.Dim == dim {
			return true
		}
	}
	return false
}

func isDimStart(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

func dimName(s string) (string, int) {
	n := 1
	for n < len(s) && s[n] == '\'' {
		n++
	}
	return strings.ToUpper(s[:1]) + s[1:n], n
}

// parseParen parses the inside of "(D/n)", "(D%n)" or "(n)" (the last with Dim "").
func parseParen(body string) (Factor, error) {
	body = strings.TrimSpace(body)
	if body == "" {
		return Factor{}, fmt.Errorf("empty factor")
	}
	if !isDimStart(body[0]) {
		n, err := block(body)
		return Factor{Inner: n}, err
	}
	name, k := dimName(body)
	rest := strings.TrimSpace(body[k:])
	if rest == "" {
		return Factor{}, fmt.Errorf("a parenthesized dimension needs /n or %%n")
	}
	n, err := block(strings.TrimSpace(rest[1:]))
	if err != nil {
		return Factor{}, err
	}
	switch rest[0] {
	case '/':
		return Factor{Dim: name, Outer: n}, nil
	case '%':
		return Factor{Dim: name, Inner: n, Named: true}, nil
	}
	return Factor{}, fmt.Errorf("want / or %% after %s", name)
}

func block(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a block size", s)
	}
	if n < 2 || n > MaxBlock {
		return 0, fmt.Errorf("block size %d outside 2..%d", n, MaxBlock)
	}
	return n, nil
}

// check verifies that every dimension appears once whole, or once split into an outer and an
// inner factor with the same block size.
func (l Layout) check() error {
	type seen struct{ whole, outer, inner int }
	m := map[string]*seen{}
	var order []string
	for _, f := range l.Factors {
		s := m[f.Dim]
		if s == nil {
			s = &seen{}
			m[f.Dim] = s
			order = append(order, f.Dim)
		}
		switch {
		case f.Whole():
			s.whole++
		case f.Outer > 0:
			if s.outer > 0 {
				return fmt.Errorf("%s is split twice", f.Dim)
			}
			s.outer = f.Outer
		default:
			if s.inner > 0 {
				return fmt.Errorf("%s has two inner factors", f.Dim)
			}
			s.inner = f.Inner
		}
	}
	for _, d := range order {
		s := m[d]
		switch {
		case s.whole > 1:
			return fmt.Errorf("%s appears %d times", d, s.whole)
		case s.whole == 1 && (s.outer > 0 || s.inner > 0):
			return fmt.Errorf("%s appears both whole and split", d)
		case s.whole == 0 && (s.outer == 0 || s.inner == 0):
			return fmt.Errorf("%s is split without both (%s/n) and its inner (n)", d, d)
		case s.outer != s.inner:
			return fmt.Errorf("%s is split as %s/%d with inner block %d", d, d, s.outer, s.inner)
		}
	}
	return nil
}

// Dims lists the dimensions of the layout in order of first appearance.
func (l Layout) Dims() []string {
	var out []string
	for _, f := range l.Factors {
		found := false
		for _, d := range out {
			if d == f.Dim {
				found = true
			}
		}
		if !found {
			out = append(out, f.Dim)
		}
	}
	return out
}

// Block returns the block size of a split dimension (1 if whole or absent).
func (l Layout) Block(dim string) int {
	for _, f := range l.Factors {
		if f.Dim == dim && f.Outer > 0 {
			return f.Outer
		}
	}
	return 1
}

// String prints the layout. Inner factors are printed bare when the binding rule of Parse
// gives them back, otherwise as (D%n).
func (l Layout) String() string {
	var b strings.Builder
	// Which bare inner factors would bind correctly: the k-th bare inner factor binds to the
	// k-th split dimension (by outer position) that has no named inner factor.
	var splitOrder []string
	for _, f := range l.Factors {
		if f.Outer > 0 {
			splitOrder = append(splitOrder, f.Dim)
		}
	}
	var inners []string
	for _, f := range l.Factors {
		if f.Inner > 0 {
			inners = append(inners, f.Dim)
		}
	}
	bare := len(inners) == len(splitOrder)
	for i := range inners {
		if bare && inners[i] != splitOrder[i] {
			bare = false
		}
	}
	for _, f := range l.Factors {
		switch {
		case f.Whole():
			b.WriteString(f.Dim)
		case f.Outer > 0:
			fmt.Fprintf(&b, "(%s/%d)", f.Dim, f.Outer)
		case bare:
			fmt.Fprintf(&b, "(%d)", f.Inner)
		default:
			fmt.Fprintf(&b, "(%s%%%d)", f.Dim, f.Inner)
		}
	}
	return b.String()
}
