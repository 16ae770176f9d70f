package cfront

import (
	"math"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// A kernel class's constructor body runs once, when the graph constructs the kernel object
// before its first call (UG1079 "C++ Kernel Class Support": the constructor's arguments come
// from the graph's kernel::create_object). sumac runs the statements of that body that
// compute a scalar member from the constructor's arguments and the class's constants
// (onnx2versal's `scalebits = 15 - log(x_scale*w_scale/y_scale) / log(2);`) at compile time,
// as C++ would on the host: the member becomes a constant of the kernel. The mode calls
// (set_sat, set_rnd, clr_sat) run at the kernel's start, before its first statement, as they
// would before the first call. Any other statement is an error naming it.

// cKind is the C++ type of a compile-time number: int, float or double.
type cKind uint8

const (
	cInt cKind = iota
	cFloat
	cDouble
)

// cNum is a compile-time number: v holds an int's exact value, or a float's or double's.
type cNum struct {
	v float64
	k cKind
}

func cnInt(v int64) cNum { return cNum{float64(int32(v)), cInt} }

func cnOf(v float64, k cKind) cNum {
	switch k {
	case cInt:
		return cnInt(int64(v))
	case cFloat:
		return cNum{float64(float32(v)), cFloat}
	}
	return cNum{v, cDouble}
}

// ctorEval evaluates e with C++'s usual arithmetic conversions (int op float is float, any
// double makes a double), the float and double functions of <cmath> the constructors use
// (log, ceil, floor, abs, max, min) and float2fix. It reports false when e is not a
// compile-time number.
func (l *lowerer) ctorEval(e Expr) (cNum, bool) {
	switch x := e.(type) {
	case *IntLit:
		return cnInt(int64(x.Value)), true
	case *FloatLit:
		t := strings.TrimRight(x.Text, "fFlL")
		v, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return cNum{}, false
		}
		if strings.HasSuffix(x.Text, "f") || strings.HasSuffix(x.Text, "F") {
			return cnOf(v, cFloat), true
		}
		return cNum{v, cDouble}, true
	case *Paren:
		return l.ctorEval(x.X)
	case *Ident:
		if s := l.lookup(x.Name); s != nil {
			switch s.kind {
			case symFConst:
				return cNum{float64(s.fval), cFloat}, true
			case symConst:
				if s.unsigned {
					return cNum{float64(uint32(s.val)), cInt}, true
				}
				return cnInt(s.val), true
			}
			return cNum{}, false
		}
		if v, err := constEval(x, l.constEnv); err == nil {
			return cnInt(v), true
		}
	case *Unary:
		a, ok := l.ctorEval(x.X)
		if !ok {
			return cNum{}, false
		}
		switch x.Op {
		case "-":
			return cnOf(-a.v, a.k), true
		case "+":
			return a, true
		}
	case *Binary:
		a, oka := l.ctorEval(x.X)
		b, okb := l.ctorEval(x.Y)
		if !oka || !okb {
			return cNum{}, false
		}
		k := max(a.k, b.k)
		if k == cFloat {
			a, b = cnOf(a.v, k), cnOf(b.v, k)
		}
		switch x.Op {
		case "==", "!=", "<", "<=", ">", ">=":
			r := map[string]bool{"==": a.v == b.v, "!=": a.v != b.v, "<": a.v < b.v, "<=": a.v <= b.v, ">": a.v > b.v, ">=": a.v >= b.v}[x.Op]
			return cnInt(b2i(r)), true
		case "&&":
			return cnInt(b2i(a.v != 0 && b.v != 0)), true
		case "||":
			return cnInt(b2i(a.v != 0 || b.v != 0)), true
		}
		if k == cFloat {
			p, q := float32(a.v), float32(b.v)
			switch x.Op {
			case "+":
				return cnOf(float64(p+q), k), true
			case "-":
				return cnOf(float64(p-q), k), true
			case "*":
				return cnOf(float64(p*q), k), true
			case "/":
				return cnOf(float64(p/q), k), true
			}
			return cNum{}, false
		}
		switch x.Op {
		case "+":
			return cnOf(a.v+b.v, k), true
		case "-":
			return cnOf(a.v-b.v, k), true
		case "*":
			return cnOf(a.v*b.v, k), true
		case "/":
			if k == cInt {
				if b.v == 0 {
					return cNum{}, false
				}
				return cnInt(int64(a.v) / int64(b.v)), true
			}
			return cnOf(a.v/b.v, k), true
		}
	case *Cast:
		a, ok := l.ctorEval(x.X)
		if !ok || x.Type.Ptr > 0 {
			return cNum{}, false
		}
		switch x.Type.Base {
		case "float":
			return cnOf(a.v, cFloat), true
		case "double":
			return cnOf(a.v, cDouble), true
		}
		t := l.typeOf(x.Type, ctxLocal).t
		if !t.IsScalar() || !t.Elem.IsInt() {
			return cNum{}, false
		}
		return cnInt(convertConst(int64(a.v), t)), true
	case *Cond:
		c, ok := l.ctorEval(x.C)
		if !ok {
			return cNum{}, false
		}
		a, oka := l.ctorEval(x.X)
		b, okb := l.ctorEval(x.Y)
		if !oka || !okb {
			return cNum{}, false
		}
		k := max(a.k, b.k) // the usual arithmetic conversions of the two branches
		if c.v != 0 {
			return cnOf(a.v, k), true
		}
		return cnOf(b.v, k), true
	case *Call:
		return l.ctorCall(x)
	}
	return cNum{}, false
}

// ctorCall evaluates the functions ctorEval knows. log, ceil and floor are <math.h>'s
// double functions (a float argument is promoted); abs, max and min keep their arguments'
// type (std::max needs one type). float2fix(x, s) is the AIE1 scalar conversion (UG1078
// "Datatype Conversions": x scaled by 2^s to an int), x * 2^s rounded to the nearest integer,
// ties to even, and saturated to int: llvm-aie's AIE1InstrInfo.td selects the same FLT2FX
// instruction for lrint (pat_lrint), which rounds so in the default mode.
func (l *lowerer) ctorCall(c *Call) (cNum, bool) {
	if c.Recv != nil {
		return cNum{}, false
	}
	var args []cNum
	for _, a := range c.Args {
		n, ok := l.ctorEval(a)
		if !ok {
			return cNum{}, false
		}
		args = append(args, n)
	}
	fun := strings.TrimPrefix(c.Fun, "std::")
	switch {
	case len(args) == 1 && (fun == "log" || fun == "ceil" || fun == "floor"):
		f := map[string]func(float64) float64{"log": math.Log, "ceil": math.Ceil, "floor": math.Floor}[fun]
		return cNum{f(args[0].v), cDouble}, true
	case len(args) == 1 && fun == "abs":
		return cnOf(math.Abs(args[0].v), args[0].k), true
	case len(args) == 2 && (fun == "max" || fun == "min") && args[0].k == args[1].k:
		if (fun == "max") == (args[0].v < args[1].v) {
			return args[1], true
		}
		return args[0], true
	case len(args) == 2 && fun == "float2fix" && args[1].k == cInt:
		v := math.RoundToEven(float64(float32(args[0].v)) * math.Exp2(args[1].v))
		if math.IsNaN(v) {
			v = 0
		}
		v = math.Max(math.MinInt32, math.Min(math.MaxInt32, v))
		return cnInt(int64(v)), true
	}
	return cNum{}, false
}

// ctorConst makes the constant a scalar member of type t holds after `member = n;`.
func ctorConst(n cNum, t kernel.Type) *sym {
	if t.Elem == kernel.Float32 {
		return &sym{kind: symFConst, fval: float32(n.v)}
	}
	v := n.v
	if n.k != cInt {
		v = math.Trunc(v) // a floating value converted to an integer type: toward zero
	}
	return &sym{kind: symConst, isConst: true, val: convertConst(int64(v), t), unsigned: !t.Elem.Signed()}
}

// ctorBody runs a constructor body's statements (the constructor's parameters and the members
// bound): an assignment of a compile-time number to a scalar member the kernel does not
// change makes the member that constant; set_sat, set_rnd and clr_sat go to the kernel's
// entry code; a local scalar with a compile-time initializer is a constant of the body;
// printf is ignored (a note) and assert of a constant checked.
func (l *lowerer) ctorBody(c *ClassDecl, body *Block, classScope map[string]*sym, memberType map[string]kernel.Type) {
	l.push() // the body's local constants
	defer l.pop()
	for _, st := range body.Stmts {
		if ds, ok := st.(*DeclStmt); ok {
			// a local scalar with a compile-time initializer: float tmp = a > b ? a : b;
			t := l.typeOf(ds.Type, ctxLocal).t
			for _, d := range ds.Names {
				n, ok := cNum{}, false
				if d.Init != nil && t.IsScalar() && d.Ptr == 0 && !d.Ref && len(d.Dims) == 0 {
					n, ok = l.ctorEval(d.Init)
				}
				if !ok {
					l.fail(d.Pos, "%s's constructor: local %s needs a compile-time initializer (sumac evaluates a constructor body from the constructor's arguments)", c.Name, d.Name)
				}
				l.bind(d.Name, ctorConst(n, t))
			}
			continue
		}
		es, ok := st.(*ExprStmt)
		if !ok {
			if _, empty := st.(*EmptyStmt); empty {
				continue
			}
			l.fail(st.stmtPos(), "%s's constructor: only assignments of constants to scalar members, local constants, set_sat, set_rnd, clr_sat, assert and printf are supported in a constructor body (it runs once, when the graph starts)", c.Name)
		}
		switch x := es.X.(type) {
		case *Assign:
			id, isID := stripParen(x.L).(*Ident)
			name := ""
			if isID {
				name = strings.TrimPrefix(id.Name, "this->")
			}
			t, member := memberType[name]
			if x.Op != "=" || !member {
				l.fail(x.Pos, "%s's constructor: only assignments (=) to scalar members are supported", c.Name)
			}
			if l.modified[name] {
				l.fail(x.Pos, "%s's constructor assigns member %s, which the kernel also changes: not supported", c.Name, name)
			}
			n, ok := l.ctorEval(x.R)
			if !ok {
				l.fail(ExprPos(x.R), "%s's constructor: the value assigned to %s is not a compile-time number (sumac evaluates a constructor body from the constructor's arguments)", c.Name, name)
			}
			classScope[name] = ctorConst(n, t)
			continue
		case *Call:
			switch strings.TrimPrefix(x.Fun, "std::") {
			case "set_sat", "set_rnd", "clr_sat":
				l.stmt(l.entry, st)
				continue
			case "printf":
				l.note(x.Pos, "printf", "printf(...) in %s's constructor ignored (output for debugging does not change the result)", c.Name)
				continue
			case "assert":
				if len(x.Args) == 1 {
					if n, ok := l.ctorEval(x.Args[0]); ok {
						if n.v == 0 {
							l.fail(x.Pos, "%s's constructor: assert(%s) fails for this instance", c.Name, exprText(x.Args[0]))
						}
						continue
					}
				}
				l.fail(x.Pos, "%s's constructor: assert of a value that is not a compile-time number", c.Name)
			}
		}
		l.fail(st.stmtPos(), "%s's constructor: only assignments of constants to scalar members, local constants, set_sat, set_rnd, clr_sat, assert and printf are supported in a constructor body (it runs once, when the graph starts)", c.Name)
	}
}

// foldTraits replaces the type traits a template instance's tokens spell with their values,
// once the template's arguments are substituted (C++ [meta.rel], [meta.trans.other]):
// std::is_same<A, B>::value becomes 1 or 0 (the types compared by their canonical spelling,
// int8_t and int8 alike), and [typename] std::conditional<C, A, B>::type becomes A or B when C
// is a constant. Anything else is left as written.
func foldTraits(toks []Token) []Token {
	if !hasTrait(toks) {
		return toks
	}
	var out []Token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		name, n := traitAt(toks, i, "is_same", "value")
		if name != nil && len(name) == 2 {
			v := "0"
			if canonType(name[0]) == canonType(name[1]) {
				v = "1"
			}
			out = append(out, Token{Kind: tNumber, Text: v, Pos: t.Pos})
			i += n - 1
			continue
		}
		out = append(out, t)
	}
	toks, out = out, nil
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		args, n := traitAt(toks, i, "conditional", "type")
		if args != nil && len(args) == 3 {
			p := newParser(append(append([]Token(nil), args[0]...), Token{Kind: tEOF}))
			var c int64
			var err error
			func() {
				defer func() {
					if recover() != nil {
						err = errorf(t.Pos, "not a constant")
					}
				}()
				c, err = constEval(p.parseExpr(), nil)
			}()
			if err == nil {
				if len(out) > 0 && out[len(out)-1].Text == "typename" {
					out = out[:len(out)-1]
				}
				pick := args[2]
				if c != 0 {
					pick = args[1]
				}
				for _, x := range pick {
					x.Pos = t.Pos
					out = append(out, x)
				}
				i += n - 1
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

func hasTrait(toks []Token) bool {
	for _, t := range toks {
		if t.Text == "is_same" || t.Text == "conditional" {
			return true
		}
	}
	return false
}

// traitAt matches [std::]trait<args>::member at toks[i] and returns the arguments' tokens
// and the number of tokens matched.
func traitAt(toks []Token, i int, trait, member string) ([][]Token, int) {
	j := i
	if j+1 < len(toks) && toks[j].Text == "std" && toks[j+1].Text == "::" {
		j += 2
	}
	if j >= len(toks) || toks[j].Text != trait || j+1 >= len(toks) || toks[j+1].Text != "<" {
		return nil, 0
	}
	var args [][]Token
	var cur []Token
	depth := 0
	for k := j + 2; k < len(toks); k++ {
		switch toks[k].Text {
		case "<", "(", "[":
			depth++
		case ")", "]":
			depth--
		case ">":
			if depth == 0 {
				args = append(args, cur)
				if k+2 < len(toks) && toks[k+1].Text == "::" && toks[k+2].Text == member {
					return args, k + 3 - i
				}
				return nil, 0
			}
			depth--
		case ",":
			if depth == 0 {
				args = append(args, cur)
				cur = nil
				continue
			}
		}
		cur = append(cur, toks[k])
	}
	return nil, 0
}

// canonType spells a type's tokens canonically: the scalar aliases of kernel.ParseType
// (int8_t, signed char and int8 are one type) and the rest as written.
func canonType(toks []Token) string {
	var parts []string
	for _, t := range toks {
		parts = append(parts, t.Text)
	}
	s := canonName(strings.TrimPrefix(strings.Join(parts, " "), "std :: "))
	if t, err := kernel.ParseType(s); err == nil {
		return t.String()
	}
	return s
}
