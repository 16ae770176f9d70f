package backend

import (
	"fmt"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Modulo variable expansion by unrolling (Lam, "Software pipelining", PLDI 1988): when every
// iteration of a pipelined loop reuses one register for a value that lives only inside the
// iteration (one accumulator per output vector, a loaded operand), overlapping iterations
// would need that register twice, and the initiation interval cannot drop below the value's
// lifetime. Unrolling the body U times and giving each copy its own variables for such
// iteration-local values lets U iterations overlap. Loop-carried values (read before they are
// written in the body) stay shared. Compile tries U = 1, 2, 4 and keeps the fastest.

// maxUnrolledOps bounds an unrolled loop body (compile time and program memory).
const maxUnrolledOps = 96

// unrollInner returns a copy of k whose innermost loops are unrolled u times where the trip
// count and the pipelining minimum allow it, or nil if no loop could be unrolled. The input
// kernel is not modified (the copy shares unchanged statements and variables).
func unrollInner(k *kernel.Kernel, u int) *kernel.Kernel { return unrollInnerMax(k, u, maxUnrolledOps) }

// maxGroupedOps bounds an unrolled loop body whose accumulators are grouped (group.go): such
// bodies trade a longer body for fewer spills.
const maxGroupedOps = 320

// unrollInnerMax is unrollInner with a bound on the unrolled body's statements.
func unrollInnerMax(k *kernel.Kernel, u, maxOps int) *kernel.Kernel {
	k2 := &kernel.Kernel{Name: k.Name, Params: k.Params, Vars: append([]*kernel.Var(nil), k.Vars...), Defines: k.Defines}
	changed := false
	var walk func(body []kernel.Stmt) []kernel.Stmt
	walk = func(body []kernel.Stmt) []kernel.Stmt {
		out := make([]kernel.Stmt, 0, len(body))
		for _, s := range body {
			l, ok := s.(*kernel.Loop)
			if !ok {
				out = append(out, s)
				continue
			}
			innermost := true
			for _, b := range l.Body {
				if _, isLoop := b.(*kernel.Loop); isLoop {
					innermost = false
				}
			}
			if !innermost {
				l2 := *l
				l2.Body = walk(l.Body)
				out = append(out, &l2)
				continue
			}
			outside := map[*kernel.Var]bool{}
			kernel.Walk(k.Body, func(st kernel.Stmt, _ int) {
				if st == kernel.Stmt(l) {
					return
				}
				in, ok := st.(*kernel.Instr)
				if !ok {
					return
				}
				for _, b := range l.Body {
					if b == st {
						return
					}
				}
				// Only reads outside the loop matter: a value read there is live into or out
				// of the loop; writes there (an undef_* initialization) do not pin a name.
				for _, a := range in.Args {
					if a.Var != nil {
						outside[a.Var] = true
					}
				}
			})
			if l2 := unrollLoop(k2, l, u, outside, maxOps); l2 != nil {
				out = append(out, l2)
				changed = true
			} else {
				out = append(out, l)
			}
		}
		return out
	}
	k2.Body = walk(k.Body)
	if !changed {
		return nil
	}
	return k2
}

func unrollLoop(k2 *kernel.Kernel, l *kernel.Loop, u int, outside map[*kernel.Var]bool, maxOps int) *kernel.Loop {
	trip, ok := l.TripCount()
	if !ok || trip < int64(2*u) || len(l.Body)*u > maxOps || trip%int64(u) != 0 || !l.Step.IsIntImm() || l.Cmp != kernel.Lt && l.Cmp != kernel.Ne && l.Cmp != kernel.Gt {
		return nil
	}
	if l.HasRange && (l.RangeMin < int64(u) || l.RangeMin%int64(u) != 0) {
		return nil
	}
	step := l.Step.Imm
	// Iteration-local variables: completely written before any read in the body (a vector
	// counts as written once upd_* calls have covered all of it), and not read outside the
	// loop (after the loop only the first copy's name would be read).
	local := map[*kernel.Var]bool{}
	read := map[*kernel.Var]bool{}
	covered := map[*kernel.Var]int{}
	for _, s := range l.Body {
		in := s.(*kernel.Instr)
		if isPartialUpd(in) && !read[in.Dst] && in.Op != kernel.OpUpdElem {
			for _, a := range in.Args[1:] {
				if a.Var != nil {
					read[a.Var] = true
				}
			}
			covered[in.Dst] += in.Op.PartBits() / 8
			if covered[in.Dst] >= in.Dst.Type.Bytes() && !in.Dst.Param && !outside[in.Dst] {
				local[in.Dst] = true
			}
			continue
		}
		for _, a := range in.Args {
			if a.Var != nil {
				read[a.Var] = true
			}
		}
		if in.Dst != nil && !read[in.Dst] && !in.Dst.Param && !outside[in.Dst] && !isPartialUpd(in) {
			local[in.Dst] = true
		}
	}
	l2 := *l
	l2.Step = kernel.Imm(step * int64(u))
	if l.HasRange {
		l2.RangeMin = l.RangeMin / int64(u)
		if l.RangeMax > 0 {
			l2.RangeMax = l.RangeMax / int64(u)
		}
	}
	var body []kernel.Stmt
	for c := 0; c < u; c++ {
		ren := map[*kernel.Var]*kernel.Var{}
		if c > 0 {
			for v := range local {
				nv := k2.NewVar(fmt.Sprintf("%s_u%d", v.Name, c), v.Type)
				nv.Temp = true
				ren[v] = nv
			}
			if l.Var != nil {
				// The copy's counter value: i + c*step.
				iv := k2.NewVar(fmt.Sprintf("%s_u%d", l.Var.Name, c), l.Var.Type)
				iv.Temp = true
				ren[l.Var] = iv
				body = append(body, &kernel.Instr{Op: kernel.OpAdd, Dst: iv, Args: []kernel.Operand{kernel.V(l.Var), kernel.Imm(int64(c) * step)}, Pos: l.Pos})
			}
		}
		for _, s := range l.Body {
			in := s.(*kernel.Instr)
			if c == 0 {
				body = append(body, in)
				continue
			}
			in2 := &kernel.Instr{Op: in.Op, Dst: in.Dst, Args: append([]kernel.Operand(nil), in.Args...), Pos: in.Pos}
			if nv := ren[in.Dst]; nv != nil {
				in2.Dst = nv
			}
			for i, a := range in2.Args {
				if nv := ren[a.Var]; a.Var != nil && nv != nil {
					in2.Args[i] = kernel.V(nv)
				}
			}
			body = append(body, in2)
		}
	}
	l2.Body = body
	return &l2
}

// isPartialUpd: dst = upd_*(dst, ...) writes only part of dst (the rest is carried).
func isPartialUpd(in *kernel.Instr) bool {
	switch in.Op {
	case kernel.OpUpdV, kernel.OpUpdW, kernel.OpUpdX, kernel.OpUpdElem:
		return len(in.Args) > 0 && in.Args[0].Var == in.Dst
	}
	return false
}
