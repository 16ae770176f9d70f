package kernel

import (
	"errors"
	"fmt"
)

// Validate checks the whole kernel: unique variable names, every instruction well typed,
// loops well formed (integer counter, nonzero immediate step, sane chess_loop_range) and
// variables belonging to this kernel. It returns all problems joined, each prefixed with
// its source position when known.
func (k *Kernel) Validate() error {
	var errs []error
	add := func(p Pos, err error) {
		if p.IsValid() {
			err = fmt.Errorf("%v: %w", p, err)
		}
		errs = append(errs, err)
	}
	if k.Name == "" {
		errs = append(errs, errors.New("kernel has no name"))
	}
	names := map[string]bool{}
	for i, v := range k.Vars {
		if v.ID != i {
			add(v.Pos, fmt.Errorf("variable %s: ID %d, want %d", v.Name, v.ID, i))
		}
		if !validIdent(v.Name) {
			add(v.Pos, fmt.Errorf("variable name %q is not an identifier", v.Name))
		}
		if names[v.Name] {
			add(v.Pos, fmt.Errorf("variable %s declared twice", v.Name))
		}
		names[v.Name] = true
		if err := v.Type.check(); err != nil {
			add(v.Pos, fmt.Errorf("variable %s: %v", v.Name, err))
		}
		if (v.Type.IsWindow() || v.Type.IsStream()) && !v.Param {
			add(v.Pos, fmt.Errorf("%v %s must be a parameter", v.Type.Class, v.Name))
		}
		if v.Storage != nil {
			switch {
			case v.Param:
				add(v.Pos, fmt.Errorf("array %s has storage and is a parameter", v.Name))
			case !v.Type.IsPointer():
				add(v.Pos, fmt.Errorf("array %s: type %v is not a pointer to its elements", v.Name, v.Type))
			case v.Storage.Bytes <= 0 || v.Storage.Bytes%v.Type.Pointee().Bytes() != 0:
				add(v.Pos, fmt.Errorf("array %s: %d bytes is not a whole number of %v", v.Name, v.Storage.Bytes, v.Type.Pointee()))
			case len(v.Storage.Init) > v.Storage.Bytes:
				add(v.Pos, fmt.Errorf("array %s: %d bytes of initial contents for %d bytes", v.Name, len(v.Storage.Init), v.Storage.Bytes))
			}
		}
	}
	own := func(v *Var) bool { return v != nil && v.ID >= 0 && v.ID < len(k.Vars) && k.Vars[v.ID] == v }
	for _, p := range k.Params {
		if !own(p) || !p.Param {
			add(p.Pos, fmt.Errorf("parameter %s is not a parameter variable of this kernel", p.Name))
		}
	}
	Walk(k.Body, func(s Stmt, _ int) {
		switch s := s.(type) {
		case *Instr:
			for i, a := range s.Args {
				if a.Var != nil && !own(a.Var) {
					add(s.Pos, fmt.Errorf("%v: argument %d: variable %s is not in this kernel", s.Op, i+1, a.Var.Name))
					return
				}
			}
			if s.Dst != nil && !own(s.Dst) {
				add(s.Pos, fmt.Errorf("%v: result variable %s is not in this kernel", s.Op, s.Dst.Name))
				return
			}
			if s.Dst != nil && (s.Dst.Type.IsWindow() || s.Dst.Type.IsStream()) {
				add(s.Pos, fmt.Errorf("cannot assign to %v %s", s.Dst.Type.Class, s.Dst.Name))
			}
			if s.Dst != nil && s.Dst.Storage != nil {
				add(s.Pos, fmt.Errorf("cannot assign to array %s", s.Dst.Name))
			}
			if err := CheckInstr(s); err != nil {
				add(s.Pos, err)
			}
		case *Loop:
			if s.Var != nil && (!own(s.Var) || !s.Var.Type.IsIntScalar()) {
				add(s.Pos, fmt.Errorf("loop counter %s must be an integer variable of this kernel", s.Var.Name))
			}
			for _, o := range []Operand{s.Start, s.Limit} {
				if o.Var != nil && !own(o.Var) {
					add(s.Pos, fmt.Errorf("loop bound %s is not in this kernel", o.Var.Name))
				} else if !o.Type().IsIntScalar() {
					add(s.Pos, fmt.Errorf("loop bound %v is not an integer", o))
				}
			}
			if !s.Step.IsIntImm() || s.Step.Imm == 0 {
				add(s.Pos, fmt.Errorf("loop step must be a nonzero integer constant, have %v", s.Step))
			}
			if s.HasRange && (s.RangeMin < 0 || (s.RangeMax != 0 && s.RangeMax < s.RangeMin)) {
				add(s.Pos, fmt.Errorf("chess_loop_range(%d, %d) is empty or negative", s.RangeMin, s.RangeMax))
			}
			if n, ok := s.TripCount(); ok && s.HasRange && (n < s.RangeMin || (s.RangeMax != 0 && n > s.RangeMax)) {
				add(s.Pos, fmt.Errorf("loop runs %d times, outside its chess_loop_range(%d, %d)", n, s.RangeMin, s.RangeMax))
			}
		case *If:
			if s.Cond.Var != nil && !own(s.Cond.Var) {
				add(s.Pos, fmt.Errorf("if condition %s is not in this kernel", s.Cond.Var.Name))
			} else if t := s.Cond.Type(); !t.IsIntScalar() && !t.IsPointer() {
				add(s.Pos, fmt.Errorf("if condition %v is not an integer", s.Cond))
			}
		case nil:
			errs = append(errs, errors.New("nil statement"))
		}
	})
	return errors.Join(errs...)
}

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
