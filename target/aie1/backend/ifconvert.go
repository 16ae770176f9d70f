package backend

import "github.com/sumacdev/sumac/target/aie1/kernel"

// If-conversion: a run-time if whose branches only compute scalars (moves, integer
// arithmetic, comparisons, selects) and assign them to scalar variables becomes straight-line
// code: each assignment d = x in the then branch computes x unconditionally and keeps it with
// d = cond ? x : d, an ALU select (ite). This is the policy of LLVM's SimplifyCFG
// (FoldTwoEntryPHINode: a diamond or triangle whose blocks are cheap and free of side effects
// is folded into selects, within a budget of speculated instructions,
// two-entry-phi-node-folding-threshold = 4); it is a choice of the compiler's, not a timing
// parameter, and the result is the same as the branch's (the interpreter runs the if as
// written, the g++ check compares).

// maxIfConvertInstrs is SimplifyCFG's two-entry-phi-node-folding-threshold (4), the
// instructions one if may speculate.
const maxIfConvertInstrs = 4

// ifConvertKernel returns k with its convertible ifs turned into selects, or nil if it has
// none. k is not modified.
func ifConvertKernel(k *kernel.Kernel) *kernel.Kernel {
	k2 := *k
	k2.Vars = append([]*kernel.Var(nil), k.Vars...)
	c := &ifConverter{k: &k2}
	k2.Body = c.body(k.Body)
	if !c.changed || k2.Validate() != nil {
		return nil
	}
	return &k2
}

type ifConverter struct {
	k       *kernel.Kernel
	changed bool
}

func (c *ifConverter) body(ss []kernel.Stmt) []kernel.Stmt {
	var out []kernel.Stmt
	for _, s := range ss {
		switch s := s.(type) {
		case *kernel.Loop:
			l := *s
			l.Body = c.body(s.Body)
			out = append(out, &l)
		case *kernel.If:
			x := *s
			x.Then, x.Else = c.body(s.Then), c.body(s.Else)
			if conv := c.convert(&x); conv != nil {
				out = append(out, conv...)
				c.changed = true
				continue
			}
			out = append(out, &x)
		default:
			out = append(out, s)
		}
	}
	return out
}

// speculable reports whether in may run whatever the condition: it computes a scalar from
// scalars with no effect but its destination, and cannot fail (no division).
func speculable(in *kernel.Instr) bool {
	if in.Dst == nil || in.Dst.Storage != nil || !(in.Dst.Type.IsScalar() || in.Dst.Type.IsPointer()) {
		return false
	}
	if in.Dst.Type.IsScalar() && in.Dst.Type.Elem == kernel.Float32 && in.Op != kernel.OpMov && in.Op != kernel.OpSelect {
		return false // scalar float arithmetic: a library routine (adf.go)
	}
	switch {
	case in.Op == kernel.OpDiv || in.Op == kernel.OpRem:
		return false
	case in.Op == kernel.OpMov || in.Op == kernel.OpSelect || in.Op.IsScalarArith() || in.Op.IsUnary():
	default:
		return false
	}
	for _, a := range in.Args {
		if a.Var != nil && !(a.Var.Type.IsScalar() || a.Var.Type.IsPointer()) {
			return false
		}
	}
	return true
}

// convert returns the straight-line code of x, or nil if x is not convertible.
func (c *ifConverter) convert(x *kernel.If) []kernel.Stmt {
	n := 0
	assigned := map[*kernel.Var]bool{}
	for _, br := range [][]kernel.Stmt{x.Then, x.Else} {
		for _, s := range br {
			in, ok := s.(*kernel.Instr)
			if !ok || !speculable(in) {
				return nil
			}
			assigned[in.Dst] = true
			n++
		}
	}
	if n == 0 || n > maxIfConvertInstrs {
		return nil
	}
	var out []kernel.Stmt
	cond := x.Cond
	if cond.Var != nil && assigned[cond.Var] {
		// a branch assigns the condition's variable: the selects read a copy
		t := c.k.NewTemp(cond.Var.Type)
		out = append(out, &kernel.Instr{Op: kernel.OpMov, Dst: t, Args: []kernel.Operand{cond}, Pos: x.Pos})
		cond = kernel.V(t)
	}
	for i, br := range [][]kernel.Stmt{x.Then, x.Else} {
		for _, s := range br {
			in := s.(*kernel.Instr)
			d := in.Dst
			var val kernel.Operand
			if in.Op == kernel.OpMov && in.Args[0].Var != nil && in.Args[0].Var.Type == d.Type {
				val = in.Args[0]
			} else {
				t := c.k.NewTemp(d.Type)
				out = append(out, &kernel.Instr{Op: in.Op, Dst: t, Args: in.Args, Pos: in.Pos})
				val = kernel.V(t)
			}
			args := []kernel.Operand{cond, val, kernel.V(d)}
			if i == 1 { // else: keep d when the condition holds
				args = []kernel.Operand{cond, kernel.V(d), val}
			}
			out = append(out, &kernel.Instr{Op: kernel.OpSelect, Dst: d, Args: args, Pos: in.Pos})
		}
	}
	return out
}
