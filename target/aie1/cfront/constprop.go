package cfront

import "github.com/sumacdev/sumac/target/aie1/kernel"

// foldKnownConditions propagates the integer scalars whose values are known at compile time
// through straight-line code (a variable set from constants and changed by constants:
// `int outi = 0; ... outi += INP_W;` in a macro expanded once per input) and folds what they
// decide, as the chess compiler does: an if whose condition is known becomes its branch, and
// a loop bound that is known becomes a constant. A variable modified in a loop is unknown in
// and after it; after an if that stays, so is every variable either branch modifies. The
// computations stay (they are what the source says); temporaries that fed only a folded
// condition go.
func foldKnownConditions(k *kernel.Kernel) {
	cp := &constProp{}
	k.Body = cp.block(k.Body, map[*kernel.Var]int64{})
	if cp.folded {
		dropDeadTemps(k)
	}
}

type constProp struct{ folded bool }

func isIntScalar(v *kernel.Var) bool {
	return v != nil && v.Type.IsScalar() && v.Type.Elem != kernel.Float32 && v.Storage == nil
}

// value is an operand's known value and type.
func (cp *constProp) value(o kernel.Operand, env map[*kernel.Var]int64) (int64, kernel.Elem, bool) {
	switch {
	case o.Var != nil:
		v, ok := env[o.Var]
		return v, o.Var.Type.Elem, ok
	case o.IsFloat:
		return 0, 0, false
	}
	return o.Imm, o.Type().Elem, true
}

func (cp *constProp) block(body []kernel.Stmt, env map[*kernel.Var]int64) []kernel.Stmt {
	var out []kernel.Stmt
	for _, st := range body {
		switch s := st.(type) {
		case *kernel.Instr:
			cp.instr(s, env)
			out = append(out, s)
		case *kernel.Loop:
			mod := modifiedIn(s.Body)
			mod[s.Var] = true
			if v, _, ok := cp.value(s.Start, env); ok && s.Start.Var != nil {
				s.Start, cp.folded = kernel.Imm(v), true
			}
			if v, _, ok := cp.value(s.Limit, env); ok && s.Limit.Var != nil && !mod[s.Limit.Var] {
				s.Limit, cp.folded = kernel.Imm(v), true
			}
			for v := range mod {
				delete(env, v)
			}
			inner := copyEnv(env)
			// with a known trip count and no wrap of the counter's type, the counter is its
			// start throughout a loop of one iteration, and after the loop the first value
			// that fails the test (`int k; for (k = 0; k < K-7; k += 8) ...; if (k+4 <= K)`);
			// the body does not assign the counter (the subset's rule)
			n, final := knownTrips(s)
			if n == 1 {
				inner[s.Var] = s.Start.Imm
			}
			s.Body = cp.block(s.Body, inner)
			out = append(out, s)
			if n >= 0 {
				env[s.Var] = final
			}
		case *kernel.If:
			if c, _, ok := cp.value(s.Cond, env); ok {
				cp.folded = true
				taken := s.Else
				if c != 0 {
					taken = s.Then
				}
				out = append(out, cp.block(taken, env)...)
				continue
			}
			s.Then = cp.block(s.Then, copyEnv(env))
			s.Else = cp.block(s.Else, copyEnv(env))
			for v := range modifiedIn(s.Then) {
				delete(env, v)
			}
			for v := range modifiedIn(s.Else) {
				delete(env, v)
			}
			out = append(out, s)
		default:
			out = append(out, st)
		}
	}
	return out
}

// instr records what an instruction makes known (or unknown).
func (cp *constProp) instr(s *kernel.Instr, env map[*kernel.Var]int64) {
	if s.Dst == nil {
		return
	}
	v, ok := cp.eval(s, env) // before the destination changes: x = x + 32
	delete(env, s.Dst)
	if ok {
		env[s.Dst] = v
	}
}

// eval computes an integer scalar instruction whose operands are known.
func (cp *constProp) eval(s *kernel.Instr, env map[*kernel.Var]int64) (int64, bool) {
	if !isIntScalar(s.Dst) {
		return 0, false
	}
	switch {
	case s.Op == kernel.OpMov && len(s.Args) == 1:
		if v, e, ok := cp.value(s.Args[0], env); ok && e != kernel.Float32 {
			return kernel.Convert(v, e, s.Dst.Type.Elem), true
		}
	case s.Op.IsScalarArith() && len(s.Args) <= 2:
		var vals [2]int64
		var elems [2]kernel.Elem
		for i, a := range s.Args {
			v, e, ok := cp.value(a, env)
			if !ok || e == kernel.Float32 {
				return 0, false
			}
			vals[i], elems[i] = v, e
		}
		if len(s.Args) == 1 {
			elems[1] = elems[0]
		}
		ct, yt := kernel.ArithTypes(s.Op, elems[0], elems[1])
		x := kernel.Convert(vals[0], elems[0], ct)
		y := kernel.Convert(vals[1], elems[1], yt)
		r, rt, err := kernel.Arith(s.Op, ct, x, y)
		if err != nil {
			return 0, false
		}
		return kernel.Convert(r, rt, s.Dst.Type.Elem), true
	}
	return 0, false
}

func copyEnv(env map[*kernel.Var]int64) map[*kernel.Var]int64 {
	out := make(map[*kernel.Var]int64, len(env))
	for k, v := range env {
		out[k] = v
	}
	return out
}

// modifiedIn lists the variables statements assign (loop counters included).
func modifiedIn(body []kernel.Stmt) map[*kernel.Var]bool {
	mod := map[*kernel.Var]bool{}
	kernel.Walk(body, func(st kernel.Stmt, _ int) {
		switch s := st.(type) {
		case *kernel.Instr:
			if s.Dst != nil {
				mod[s.Dst] = true
			}
		case *kernel.Loop:
			mod[s.Var] = true
		}
	})
	return mod
}

// dropDeadTemps removes the scalar computations into temporaries nothing reads.
func dropDeadTemps(k *kernel.Kernel) {
	for {
		uses := map[*kernel.Var]int{}
		count := func(o kernel.Operand) {
			if o.Var != nil {
				uses[o.Var]++
			}
		}
		kernel.Walk(k.Body, func(st kernel.Stmt, _ int) {
			switch s := st.(type) {
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
		removed := false
		var sweep func(body []kernel.Stmt) []kernel.Stmt
		sweep = func(body []kernel.Stmt) []kernel.Stmt {
			out := body[:0]
			for _, st := range body {
				switch s := st.(type) {
				case *kernel.Instr:
					if s.Dst != nil && s.Dst.Temp && s.Dst.Type.IsScalar() && uses[s.Dst] == 0 && (s.Op.IsScalarArith() || s.Op == kernel.OpMov) {
						removed = true
						continue
					}
				case *kernel.Loop:
					s.Body = sweep(s.Body)
				case *kernel.If:
					s.Then, s.Else = sweep(s.Then), sweep(s.Else)
				}
				out = append(out, st)
			}
			return out
		}
		k.Body = sweep(k.Body)
		if !removed {
			return
		}
	}
}

// knownTrips returns a loop's trip count and its counter's value after it when both are
// known at compile time (-1 otherwise): constant start, limit and step that the counter's
// type holds without wrapping, at the start, the limit and the final value, and a body that
// does not assign the counter.
func knownTrips(l *kernel.Loop) (int64, int64) {
	n, ok := l.TripCount()
	if !ok || !isIntScalar(l.Var) || modifiedIn(l.Body)[l.Var] {
		return -1, 0
	}
	e := l.Var.Type.Elem
	f := l.Start.Imm + n*l.Step.Imm
	if e.Wrap(l.Start.Imm) != l.Start.Imm || e.Wrap(l.Limit.Imm) != l.Limit.Imm || e.Wrap(f) != f {
		return -1, 0
	}
	return n, f
}
