package gemm

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1"
)

// Problem is a contraction with the canonical layouts of its operands (op's: row-major A, B,
// C of a GEMM with ta/tb; an einsum's tensors in the order their indices are listed).
type Problem struct {
	Spec *op.Spec
	C    sched.Contraction
	Beta int
	// Canon gives the canonical element offset of operand t ("A": (b, i, k), "B": (b, j, k),
	// "C": (b, i, j)) and Len its element count.
	Canon map[string]func(b, f, g int) int
	Len   map[string]int
	// Groups names the einsum indices grouped into batch, m, n and k (empty for a GEMM).
	Groups [4][]string
}

// NewProblem returns the contraction of a gemm or einsum spec.
func NewProblem(s *op.Spec) (*Problem, error) {
	switch {
	case s.GEMM != nil:
		g := s.GEMM
		return &Problem{Spec: s, C: sched.Contraction{Batch: 1, M: g.M, N: g.N, K: g.K}, Beta: g.Beta,
			Canon: map[string]func(b, f, k int) int{
				"A": func(_, i, k int) int { return g.AIndex(i, k) },
				"B": func(_, j, k int) int { return g.BIndex(k, j) },
				"C": func(_, i, j int) int { return g.CIndex(i, j) },
			},
			Len: map[string]int{"A": g.M * g.K, "B": g.K * g.N, "C": g.M * g.N}}, nil
	case s.Einsum != nil:
		return einsumProblem(s)
	}
	return nil, fmt.Errorf("aie1 gemm compiles gemm and einsum specs, not %s", s.Op())
}

// einsumProblem groups an einsum's indices: batch (both inputs and the output), m (first
// input and output), n (second input and output), k (contracted); each group is flattened in
// the order its indices appear in the output (k: in the first input), the last fastest.
func einsumProblem(s *op.Spec) (*Problem, error) {
	e := s.Einsum
	in := func(list []string, ix string) bool {
		for _, v := range list {
			if v == ix {
				return true
			}
		}
		return false
	}
	var groups [4][]string // batch, m, n, k
	for _, ix := range e.Out {
		a, b := in(e.In[0], ix), in(e.In[1], ix)
		switch {
		case a && b:
			groups[0] = append(groups[0], ix)
		case a:
			groups[1] = append(groups[1], ix)
		default:
			groups[2] = append(groups[2], ix)
		}
	}
	for _, ix := range e.In[0] {
		if !in(e.Out, ix) {
			groups[3] = append(groups[3], ix)
		}
	}
	size := func(g []string) int {
		n := 1
		for _, ix := range g {
			n *= e.Sizes[ix]
		}
		return n
	}
	p := &Problem{Spec: s, C: sched.Contraction{Batch: size(groups[0]), M: size(groups[1]), N: size(groups[2]), K: size(groups[3])}, Groups: groups}
	// offset of a flattened group value in a tensor with the given strides
	off := func(g []string, st map[string]int, v int) int {
		o := 0
		for i := len(g) - 1; i >= 0; i-- {
			n := e.Sizes[g[i]]
			o += (v % n) * st[g[i]]
			v /= n
		}
		return o
	}
	sa, sb, so := e.Strides(e.In[0]), e.Strides(e.In[1]), e.Strides(e.Out)
	p.Canon = map[string]func(b, f, k int) int{
		"A": func(b, i, k int) int { return off(groups[0], sa, b) + off(groups[1], sa, i) + off(groups[3], sa, k) },
		"B": func(b, j, k int) int { return off(groups[0], sb, b) + off(groups[2], sb, j) + off(groups[3], sb, k) },
		"C": func(b, i, j int) int { return off(groups[0], so, b) + off(groups[1], so, i) + off(groups[2], so, j) },
	}
	p.Len = map[string]int{"A": e.Len(e.In[0]), "B": e.Len(e.In[1]), "C": e.Len(e.Out)}
	return p, nil
}

// Layout is where the kernel finds one operand: packed micro-panels or the canonical layout.
type Layout struct {
	Packed bool
	Size   int // elements of the kernel's buffer
	// Off maps an element (b, free index, k) of A or B, or (b, i, j) of C, to its place in
	// the buffer (-1: none, a padding element).
	Off func(b, f, g int) int
}

func (l *Layout) String() string {
	if l.Packed {
		return "packed"
	}
	return "canon"
}

// access is one 256-bit load (or a narrowed vector's store) as the kernel issues it: the
// offset of its first element at batch 0, tile (0, 0), iteration 0, and how the offset moves
// with the batch, the m and n tiles and the iteration.
type access struct {
	Base              int
	SB, SM, SN, SK    int
	reg, part, elems  int
	regs              string // "x", "z" or "c"
	contiguousChecked bool
}

// pointFn gives the offset of every element of an access at one point of the iteration
// space, -1 for padding.
type pointFn func(b, tm, tn, it int) []int

// checkAccess verifies that an access reads consecutive, aligned elements at every point and
// that its offset is affine in (b, tm, tn, it); it fills in the strides.
func checkAccess(a *access, fn pointFn, c sched.Contraction, tiles [3]int, elemBytes int, what string) error {
	at := func(b, tm, tn, it int) (int, error) {
		v := fn(b, tm, tn, it)
		first := -1
		for i, o := range v {
			if o < 0 {
				return 0, fmt.Errorf("%s reads padding at tile (%d,%d) iteration %d: the layout would need zero padding", what, tm, tn, it)
			}
			if i == 0 {
				first = o
			} else if o != first+i {
				return 0, fmt.Errorf("%s: elements are not consecutive in the layout (element %d at offset %d after %d)", what, i, o, first)
			}
		}
		if first*elemBytes%aie1.AccessAlignBytes != 0 {
			return 0, fmt.Errorf("%s: offset %d bytes is not %d-byte aligned", what, first*elemBytes, aie1.AccessAlignBytes)
		}
		return first, nil
	}
	base, err := at(0, 0, 0, 0)
	if err != nil {
		return err
	}
	a.Base = base
	step := func(b, tm, tn, it int, n int) (int, error) {
		if n <= 1 {
			return 0, nil
		}
		o, err := at(b, tm, tn, it)
		return o - base, err
	}
	if a.SB, err = step(1, 0, 0, 0, c.Batch); err != nil {
		return err
	}
	if a.SM, err = step(0, 1, 0, 0, tiles[0]); err != nil {
		return err
	}
	if a.SN, err = step(0, 0, 1, 0, tiles[1]); err != nil {
		return err
	}
	if a.SK, err = step(0, 0, 0, 1, tiles[2]); err != nil {
		return err
	}
	for b := 0; b < c.Batch; b++ {
		for tm := 0; tm < tiles[0]; tm++ {
			for tn := 0; tn < tiles[1]; tn++ {
				for it := 0; it < tiles[2]; it++ {
					o, err := at(b, tm, tn, it)
					if err != nil {
						return err
					}
					if o != base+b*a.SB+tm*a.SM+tn*a.SN+it*a.SK {
						return fmt.Errorf("%s: its offset is not affine in the tile and iteration (batch %d, tile (%d,%d), iteration %d)", what, b, tm, tn, it)
					}
				}
			}
		}
	}
	return nil
}

// describe prints a layout decision for reports.
func describe(name string, l *Layout, p *Plan, operand string) string {
	if !l.Packed {
		return name + ": canon (read in place)"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: packed", name)
	switch operand {
	case "X":
		fmt.Fprintf(&sb, " (panels of %d; per iteration %d X fills of %d k x %d in %s order)", p.MX, len(p.XRegs), p.S.XK, p.S.LX, p.S.XOrd)
	case "Z":
		fmt.Fprintf(&sb, " (panels of %d; per iteration %d Z registers of %d k x %d in %s order)", p.MZ, len(p.ZRegs), p.S.ZK, p.NZ, p.S.ZOrd)
	default:
		fmt.Fprintf(&sb, " (tiles of %dx%d; %d accumulators of %d lanes)", p.S.MR, p.S.NR, p.Accs(), p.D.Shape.Lanes)
	}
	return sb.String()
}
