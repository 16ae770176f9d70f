package cfront

import "github.com/sumacdev/sumac/target/aie1/kernel"

// notConst marks the errors of constEvalU that only say an expression is not a compile-time
// constant (as opposed to a constant expression that is invalid, like 1/0).
type notConst struct{ e *Error }

func (n notConst) Error() string { return n.e.Error() }

func isNotConst(err error) bool { _, ok := err.(notConst); return ok }

// constEval evaluates an integer constant expression with 32-bit C semantics for int and
// unsigned int. env gives the values of named constants (nil: none); an unknown name is an
// error.
func constEval(e Expr, env func(name string) (int64, bool, bool)) (int64, error) {
	v, _, err := constEvalU(e, env)
	return v, err
}

// constEvalU also reports whether the result has type unsigned int.
func constEvalU(e Expr, env func(name string) (v int64, unsigned, ok bool)) (int64, bool, error) {
	switch e := e.(type) {
	case *IntLit:
		if e.Unsigned {
			return int64(uint32(e.Value)), true, nil
		}
		return int64(int32(e.Value)), false, nil
	case *Paren:
		return constEvalU(e.X, env)
	case *Ident:
		switch e.Name {
		case "true":
			return 1, false, nil
		case "false":
			return 0, false, nil
		}
		if env != nil {
			if v, u, ok := env(e.Name); ok {
				return v, u, nil
			}
		}
		return 0, false, notConst{errorf(e.Pos, "%s is not a compile-time constant", e.Name)}
	case *Unary:
		x, u, err := constEvalU(e.X, env)
		if err != nil {
			return 0, false, err
		}
		switch e.Op {
		case "-":
			return norm(-x, u), u, nil
		case "+":
			return x, u, nil
		case "~":
			return norm(^x, u), u, nil
		case "!":
			return b2i(x == 0), false, nil
		}
		return 0, false, notConst{errorf(e.Pos, "operator %s is not allowed in a constant expression", e.Op)}
	case *Cast:
		x, _, err := constEvalU(e.X, env)
		if err != nil {
			return 0, false, err
		}
		if e.Type.Ptr == 0 {
			switch e.Type.Base {
			case "int", "int32", "int32_t":
				return int64(int32(x)), false, nil
			case "unsigned int", "uint32", "uint32_t":
				return int64(uint32(x)), true, nil
			}
		}
		return 0, false, notConst{errorf(e.Pos, "cast to %s is not allowed in a constant expression", e.Type)}
	case *SizeOf:
		if n, ok := sizeOfType(e.Type, env); ok {
			return n, true, nil // size_t: unsigned
		}
		return 0, false, notConst{errorf(e.Pos, "sizeof is supported for scalar and vector types, not this")}
	case *Cond:
		c, _, err := constEvalU(e.C, env)
		if err != nil {
			return 0, false, err
		}
		if c != 0 {
			return constEvalU(e.X, env)
		}
		return constEvalU(e.Y, env)
	case *Binary:
		x, ux, err := constEvalU(e.X, env)
		if err != nil {
			return 0, false, err
		}
		y, uy, err := constEvalU(e.Y, env)
		if err != nil {
			return 0, false, err
		}
		return binop32(e.Pos, e.Op, x, ux, y, uy)
	}
	return 0, false, notConst{errorf(ExprPos(e), "not a compile-time constant expression")}
}

// sizeOfType is sizeof(t) for the scalar and vector types (the AIE's sizes, which the g++
// emulation header's types share): no pointers (8 bytes under g++, 4 on the AIE), no
// accumulators (their emulation is wider).
func sizeOfType(t *TypeName, env func(string) (int64, bool, bool)) (int64, bool) {
	if t == nil || t.Ptr != 0 || t.Ref {
		return 0, false
	}
	if (t.Base == "aie::vector" || t.Base == "vector") && len(t.Args) == 2 && t.Args[0].Type != nil && t.Args[1].Expr != nil {
		e, ok := sizeOfType(t.Args[0].Type, env)
		n, _, err := constEvalU(t.Args[1].Expr, env)
		return e * n, ok && err == nil && n > 0
	}
	if len(t.Args) > 0 {
		return 0, false
	}
	kt, err := kernel.ParseType(t.Base)
	if err != nil || !(kt.IsScalar() || kt.IsVector()) {
		return 0, false
	}
	return int64(kt.Bytes()), true
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// norm wraps v to 32 bits, signed or unsigned.
func norm(v int64, unsigned bool) int64 {
	if unsigned {
		return int64(uint32(v))
	}
	return int64(int32(v))
}

// binop32 applies a C binary operator to 32-bit operands with the usual arithmetic
// conversions (either operand unsigned -> unsigned arithmetic).
func binop32(pos Pos, op string, x int64, ux bool, y int64, uy bool) (int64, bool, error) {
	u := ux || uy
	switch op {
	case "<<", ">>":
		u = ux // the type of a shift is that of its promoted left operand
		if y < 0 || y > 31 {
			return 0, false, errorf(pos, "shift count %d out of range 0..31", y)
		}
		if op == "<<" {
			return norm(x<<uint(y), u), u, nil
		}
		if u {
			return int64(uint32(x) >> uint(y)), u, nil
		}
		return int64(int32(x) >> uint(y)), u, nil
	case "&&":
		return b2i(x != 0 && y != 0), false, nil
	case "||":
		return b2i(x != 0 || y != 0), false, nil
	}
	if u {
		x, y = int64(uint32(x)), int64(uint32(y))
	}
	switch op {
	case "+":
		return norm(x+y, u), u, nil
	case "-":
		return norm(x-y, u), u, nil
	case "*":
		return norm(x*y, u), u, nil
	case "/", "%":
		if y == 0 {
			return 0, false, errorf(pos, "division by zero in a constant expression")
		}
		if !u && x == -1<<31 && y == -1 {
			return 0, false, errorf(pos, "signed overflow in a constant expression")
		}
		if op == "/" {
			return norm(x/y, u), u, nil // Go and C both truncate towards zero
		}
		return norm(x%y, u), u, nil
	case "&":
		return norm(x&y, u), u, nil
	case "|":
		return norm(x|y, u), u, nil
	case "^":
		return norm(x^y, u), u, nil
	case "==":
		return b2i(x == y), false, nil
	case "!=":
		return b2i(x != y), false, nil
	case "<":
		return b2i(x < y), false, nil
	case "<=":
		return b2i(x <= y), false, nil
	case ">":
		return b2i(x > y), false, nil
	case ">=":
		return b2i(x >= y), false, nil
	}
	return 0, false, errorf(pos, "operator %s is not allowed in a constant expression", op)
}
