package cfront

import "github.com/sumacdev/sumac/target/aie1/kernel"

// foldTempMoves removes the copies `T x = f(...)` leaves: an instruction that defines a
// temporary used only by the copy right after it into a variable of the same type writes the
// variable itself, and the temporary goes. The kernel computes the same; the backend, which
// does not coalesce copies, then schedules what the source says (chess's code has no such
// copy either). A conversion (a Mov between types, a pointer cast) keeps its temporary: the
// emitter writes the cast there.
func foldTempMoves(k *kernel.Kernel) {
	uses := map[*kernel.Var]int{}
	count := func(o kernel.Operand) {
		if o.Var != nil {
			uses[o.Var]++
		}
	}
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.Instr:
			for _, a := range s.Args {
				count(a)
			}
		case *kernel.Loop:
			count(s.Start)
			count(s.Limit)
			count(s.Step)
		case *kernel.If:
			count(s.Cond)
		}
	})
	removed := map[*kernel.Var]bool{}
	var fold func(body []kernel.Stmt) []kernel.Stmt
	fold = func(body []kernel.Stmt) []kernel.Stmt {
		out := body[:0]
		for i := 0; i < len(body); i++ {
			switch s := body[i].(type) {
			case *kernel.Loop:
				s.Body = fold(s.Body)
			case *kernel.If:
				s.Then = fold(s.Then)
				s.Else = fold(s.Else)
			case *kernel.Instr:
				if i+1 < len(body) && s.Op != kernel.OpMov && s.Dst != nil && s.Dst.Temp && uses[s.Dst] == 1 {
					if mv, ok := body[i+1].(*kernel.Instr); ok && mv.Op == kernel.OpMov && len(mv.Args) == 1 &&
						mv.Args[0].Var == s.Dst && mv.Dst != nil && mv.Dst.Type == s.Dst.Type && mv.Dst.Storage == nil {
						removed[s.Dst] = true
						s.Dst = mv.Dst
						out = append(out, s)
						i++
						continue
					}
				}
			}
			out = append(out, body[i])
		}
		return out
	}
	k.Body = fold(k.Body)
	if len(removed) == 0 {
		return
	}
	vars := k.Vars[:0]
	for _, v := range k.Vars {
		if !removed[v] {
			v.ID = len(vars)
			vars = append(vars, v)
		}
	}
	k.Vars = vars
}
