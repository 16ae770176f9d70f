package cfront

import (
	"math"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// ignoredCalls are debug and check calls a kernel may make that do not change its result:
// the lowering drops them (with a note) without evaluating their arguments.
var ignoredCalls = map[string]bool{"printf": true, "sprintf": true, "fprintf": true, "puts": true,
	"assert": true, "aie::print": true, "aie::print_matrix": true, "fflush": true, "std::printf": true,
	"x86sim_printf": true, "chess_report": true, "__builtin_expect": false}

// exprStmt lowers an expression evaluated for its effect.
func (l *lowerer) exprStmt(b *kernel.Builder, e Expr) {
	e = stripParen(e)
	switch e := e.(type) {
	case *Assign:
		l.assign(b, e)
	case *Postfix:
		l.incr(b, e.X, e.Op, ExprPos(e))
	case *Unary:
		if e.Op == "++" || e.Op == "--" {
			l.incr(b, e.X, e.Op, e.Pos)
			return
		}
		l.fail(e.Pos, "expression statement has no effect")
	case *Call:
		if ignoredCalls[e.Fun] && e.Recv == nil {
			l.note(e.Pos, "call:"+e.Fun, "%s(...) ignored (output for debugging does not change the result)", e.Fun)
			return
		}
		if e.Recv != nil {
			l.methodCall(b, e, nil)
			return
		}
		if l.modeCall(b, e) || l.builtinStmt(b, e) || l.portWrite(b, e) {
			return
		}
		op, _, _, ok := kernel.LookupCall(e.Fun)
		if ok && !op.Info().HasDst {
			args := l.args(b, e)
			if (op == kernel.OpWinWriteIncr || op == kernel.OpWinWrite) && len(args) == 2 {
				args[1] = l.windowScalarConv(b, e.Pos, args[0], args[1])
			}
			l.checkOp(e.Pos, op, args, kernel.Type{})
			b.At(kpos(e.Pos)).Emit(op, nil, args...)
			return
		}
		if h := l.helper(e.Fun); h != nil {
			l.inline(b, e, h, nil)
			return
		}
		l.call(b, e, nil) // a value computed and dropped
	default:
		l.fail(ExprPos(e), "expression statement has no effect")
	}
}

// incr lowers x++ / x-- / ++x / --x on a variable.
func (l *lowerer) incr(b *kernel.Builder, x Expr, op string, p Pos) {
	v := l.lvalueVar(x)
	d := int64(1)
	if op == "--" {
		d = -1
	}
	if v.Type.IsPointer() {
		b.At(kpos(p)).Set(v, kernel.OpPtrAdd, kernel.V(v), kernel.Imm(d))
		return
	}
	if !v.Type.IsIntScalar() {
		l.fail(p, "%s%s: %s is %v, not an integer or pointer", op, v.Name, v.Name, v.Type)
	}
	b.At(kpos(p)).Set(v, kernel.OpAdd, kernel.V(v), kernel.Imm(d))
}

// lvalueVar resolves an assignment target that must be a plain variable.
func (l *lowerer) lvalueVar(x Expr) *kernel.Var {
	x = stripParen(x)
	var id *Ident
	switch y := x.(type) {
	case *Ident:
		id = y
	case *Member:
		if t, ok := y.X.(*Ident); ok && t.Name == "this" {
			id = &Ident{Pos: y.Pos, Name: y.Name}
		}
	}
	if id == nil {
		l.fail(ExprPos(x), "cannot assign to this expression")
	}
	s := l.lookup(id.Name)
	switch {
	case s == nil:
		l.fail(id.Pos, "%s is not declared", id.Name)
	case s.kind == symConst || s.kind == symFConst:
		l.fail(id.Pos, "%s is a constant", id.Name)
	case s.kind == symArray:
		l.fail(id.Pos, "cannot assign to array %s", id.Name)
	case s.kind != symVar:
		l.fail(id.Pos, "cannot assign to %s", id.Name)
	case s.v.Type.IsWindow() || s.v.Type.IsStream():
		l.fail(id.Pos, "cannot assign to %v %s", s.v.Type.Class, id.Name)
	}
	return s.v
}

var compoundOps = map[string]kernel.Op{
	"+=": kernel.OpAdd, "-=": kernel.OpSub, "*=": kernel.OpMul, "/=": kernel.OpDiv, "%=": kernel.OpRem,
	"<<=": kernel.OpShl, ">>=": kernel.OpShr, "&=": kernel.OpAnd, "|=": kernel.OpOr, "^=": kernel.OpXor,
}

// vectorElem reports whether x indexes a vector variable (v[i]: a lane).
func (l *lowerer) vectorElem(x *Index) *kernel.Var {
	id, ok := stripParen(x.X).(*Ident)
	if !ok {
		return nil
	}
	s := l.lookup(id.Name)
	if s == nil || (s.kind != symVar && s.kind != symView) || !s.v.Type.IsVector() {
		return nil
	}
	return s.v
}

func (l *lowerer) assign(b *kernel.Builder, e *Assign) {
	lhs := stripParen(e.L)
	if x, ok := lhs.(*Index); ok {
		if v := l.vectorElem(x); v != nil {
			// v[i] = s: upd_elem (the API's vector element reference)
			idx := l.expr(b, x.Index)
			var val kernel.Operand
			if e.Op == "=" {
				val = l.expr(b, e.R)
			} else {
				op, ok := compoundOps[e.Op]
				if !ok {
					l.fail(e.Pos, "operator %s on a vector element is not supported", e.Op)
				}
				cur := kernel.V(b.At(kpos(x.Pos)).Op(kernel.OpExtElem, kernel.V(v), idx))
				r := l.expr(b, e.R)
				val = l.emitBinary(b, e.Pos, op, cur, r)
			}
			l.checkOp(e.Pos, kernel.OpUpdElem, []kernel.Operand{kernel.V(v), idx, val}, kernel.Type{})
			b.At(kpos(e.Pos)).Set(v, kernel.OpUpdElem, kernel.V(v), idx, val)
			return
		}
	}
	isVarTarget := false
	switch y := lhs.(type) {
	case *Ident:
		isVarTarget = true
	case *Member:
		if t, ok := y.X.(*Ident); ok && t.Name == "this" {
			isVarTarget = true
		}
	}
	if !isVarTarget {
		// a store through a pointer: *(T*)&p[i] = v, p[i] = v, *p = v
		var base *kernel.Var
		var idx kernel.Operand
		var view kernel.Type
		var incr *[]*Postfix
		switch x := lhs.(type) {
		case *Unary:
			if x.Op != "*" {
				l.fail(x.Pos, "cannot assign to this expression")
			}
			incr = l.deferIncrs()
			base, idx, view = l.address(b, x.X, x.Pos)
		case *Index:
			var ok bool
			if base, idx, view, ok = l.indexAddress(b, x); !ok {
				l.fail(x.Pos, "only pointers, arrays and vectors can be indexed")
			}
		default:
			l.fail(ExprPos(lhs), "cannot assign to this expression")
		}
		if base.Storage != nil && base.Storage.Const {
			l.fail(e.Pos, "cannot store into const array %s", base.Name)
		}
		pt := view.Pointee()
		var val kernel.Operand
		if e.Op != "=" {
			op, ok := compoundOps[e.Op]
			if !ok || !pt.IsScalar() {
				l.fail(e.Pos, "compound assignment %s through a pointer is supported on scalars only", e.Op)
			}
			cur := kernel.V(l.load(b, e.Pos, base, idx, view))
			r := l.expr(b, e.R)
			val = l.emitBinary(b, e.Pos, op, cur, r)
		} else {
			val = l.expr(b, e.R)
		}
		if val.Type() != pt && !(pt.IsScalar() && val.Type().IsScalar()) {
			l.fail(e.Pos, "cannot store %v through %v", val.Type(), view)
		}
		if pt.IsScalar() && val.Type() != pt {
			t := l.k.NewTemp(pt)
			b.At(kpos(e.Pos)).Mov(t, val)
			val = kernel.V(t)
		}
		l.checkOp(e.Pos, kernel.OpStore, []kernel.Operand{kernel.V(base), idx, val}, kernel.Type{})
		b.At(kpos(e.Pos)).Emit(kernel.OpStore, nil, kernel.V(base), idx, val)
		l.flushIncrs(b, incr)
		return
	}
	v := l.lvalueVar(lhs)
	if e.Op == "=" {
		if il, ok := e.R.(*InitList); ok {
			if len(il.Elems) == 0 && (v.Type.IsVector() || v.Type.IsAcc()) {
				b.At(kpos(e.Pos)).Set(v, kernel.OpNull)
				return
			}
			l.fail(il.Pos, "a braced list cannot be assigned to %s (%v)", v.Name, v.Type)
		}
		l.into(b, v, e.R)
		return
	}
	op := compoundOps[e.Op]
	if v.Type.IsVector() || v.Type.IsAcc() {
		if e.Op != "+=" && e.Op != "-=" {
			l.fail(e.Pos, "operator %s on %v is not supported", e.Op, v.Type)
		}
		r := l.expr(b, e.R)
		vop := kernel.OpVAdd
		if e.Op == "-=" {
			vop = kernel.OpVSub
		}
		args := []kernel.Operand{kernel.V(v), r}
		l.checkOp(e.Pos, vop, args, kernel.Type{})
		b.At(kpos(e.Pos)).Set(v, vop, args...)
		return
	}
	r := l.expr(b, e.R)
	if v.Type.IsPointer() && (e.Op == "+=" || e.Op == "-=") {
		if e.Op == "-=" {
			r = l.neg(b, r, e.Pos)
		}
		b.At(kpos(e.Pos)).Set(v, kernel.OpPtrAdd, kernel.V(v), r)
		return
	}
	args := []kernel.Operand{kernel.V(v), r}
	l.checkOp(e.Pos, op, args, kernel.Type{})
	b.At(kpos(e.Pos)).Set(v, op, args...)
}

func (l *lowerer) neg(b *kernel.Builder, o kernel.Operand, p Pos) kernel.Operand {
	if o.IsIntImm() {
		return kernel.Imm(-o.Imm)
	}
	return kernel.V(b.At(kpos(p)).Op(kernel.OpNeg, o))
}

// checkOp type-checks an instruction before it is emitted, so the error names the source.
func (l *lowerer) checkOp(p Pos, op kernel.Op, args []kernel.Operand, want kernel.Type) kernel.Type {
	t, err := kernel.ResultType(op, args, want)
	if err != nil {
		l.fail(p, "%v", err)
	}
	return t
}

// into lowers dst = e, writing the result of the last instruction straight into dst.
func (l *lowerer) into(b *kernel.Builder, dst *kernel.Var, e Expr) {
	e = stripParen(e)
	switch x := e.(type) {
	case *Call:
		if x.Recv == nil {
			l.call(b, x, dst)
			return
		}
	case *Binary:
		if _, _, err := constEvalU(x, l.constEnv); err != nil && dst.Type.IsScalar() && x.Op != "&&" && x.Op != "||" {
			op, a, c := l.binary(b, x)
			if op != kernel.OpPtrAdd {
				rt := l.checkOp(x.Pos, op, []kernel.Operand{a, c}, kernel.Type{})
				if rt.IsScalar() {
					b.At(kpos(x.Pos)).Set(dst, op, a, c)
					return
				}
			}
			v := l.emitBinary(b, x.Pos, op, a, c)
			l.mov(b, dst, v, ExprPos(e))
			return
		}
		if dst.Type.IsPointer() && l.isPointerExpr(x) {
			op, a, c := l.binary(b, x)
			if op == kernel.OpPtrAdd && a.Type() == dst.Type {
				l.checkOp(x.Pos, op, []kernel.Operand{a, c}, kernel.Type{})
				b.At(kpos(x.Pos)).Set(dst, op, a, c)
				return
			}
			l.mov(b, dst, l.emitBinary(b, x.Pos, op, a, c), ExprPos(e))
			return
		}
	case *Unary:
		if x.Op == "*" {
			incr := l.deferIncrs()
			base, idx, view := l.address(b, x.X, x.Pos)
			if view.Pointee() == dst.Type {
				b.At(kpos(x.Pos)).Set(dst, kernel.OpLoad, kernel.V(base), idx)
				l.flushIncrs(b, incr)
				return
			}
			v := kernel.V(l.load(b, x.Pos, base, idx, view))
			l.flushIncrs(b, incr)
			l.mov(b, dst, v, ExprPos(e))
			return
		}
	case *Index:
		if l.vectorElem(x) == nil {
			if base, idx, view, ok := l.indexAddress(b, x); ok {
				if view.Pointee() == dst.Type {
					b.At(kpos(x.Pos)).Set(dst, kernel.OpLoad, kernel.V(base), idx)
					return
				}
				l.mov(b, dst, kernel.V(l.load(b, x.Pos, base, idx, view)), ExprPos(e))
				return
			}
		}
	}
	l.mov(b, dst, l.expr(b, e), ExprPos(e))
}

func (l *lowerer) mov(b *kernel.Builder, dst *kernel.Var, v kernel.Operand, p Pos) {
	vt := v.Type()
	ok := vt == dst.Type || (vt.IsScalar() && dst.Type.IsScalar()) || (vt.IsPointer() && dst.Type.IsPointer())
	if !ok {
		l.fail(p, "cannot assign %v to %s (%v)", vt, dst.Name, dst.Type)
	}
	if vt.IsPointer() && dst.Type.IsPointer() && vt != dst.Type && v.Var != nil && !l.isCastResult(v) {
		l.fail(p, "assigning %v to %s (%v) needs a cast", vt, dst.Name, dst.Type)
	}
	b.At(kpos(p)).Mov(dst, v)
}

func (l *lowerer) isCastResult(v kernel.Operand) bool { return v.Var != nil && v.Var.Temp }

// expr lowers e to an operand (an immediate, a variable, or a temporary holding the value).
func (l *lowerer) expr(b *kernel.Builder, e Expr) kernel.Operand {
	if v, _, err := constEvalU(e, l.constEnv); err == nil {
		return kernel.Imm(v)
	} else if !isNotConst(err) {
		panic(bail{err.(*Error)})
	}
	if f, ok := l.constFloat(e); ok {
		return kernel.FImm(f)
	}
	switch x := e.(type) {
	case *IntLit:
		return kernel.Imm(int64(x.Value))
	case *FloatLit:
		return kernel.FImm(x.Value)
	case *Paren:
		return l.expr(b, x.X)
	case *Ident:
		s := l.lookup(x.Name)
		if s == nil {
			if _, _, _, ok := kernel.LookupCall(x.Name); ok {
				l.fail(x.Pos, "%s is an intrinsic; call it with arguments", x.Name)
			}
			l.fail(x.Pos, "%s is not declared", x.Name)
		}
		switch s.kind {
		case symConst:
			return kernel.Imm(s.val)
		case symFConst:
			return kernel.FImm(s.fval)
		case symTile:
			l.fail(x.Pos, "%s is an aie::tile object: call %s.cycles()", x.Name, x.Name)
		case symObj:
			return l.apiObjValue(b, x, s)
		case symView:
			l.fail(x.Pos, "%s points into the register of %s: only %s[i] is supported", x.Name, s.v.Name, x.Name)
		}
		return kernel.V(s.v)
	case *Member:
		return l.member(b, x)
	case *Call:
		if x.Recv != nil {
			o, ok := l.methodCall(b, x, nil)
			if !ok {
				l.fail(x.Pos, "%s() has no value", x.Fun)
			}
			return o
		}
		if o, ok := l.apiCall(b, x, nil); ok {
			return o
		}
		if h := l.helper(x.Fun); h != nil {
			return l.inline(b, x, h, nil)
		}
		return kernel.V(l.call(b, x, nil))
	case *Binary:
		if x.Op == "&&" || x.Op == "||" {
			return l.logical(b, x)
		}
		op, a, c := l.binary(b, x)
		return l.emitBinary(b, x.Pos, op, a, c)
	case *Unary:
		switch x.Op {
		case "+":
			return l.expr(b, x.X)
		case "-", "~", "!":
			op := map[string]kernel.Op{"-": kernel.OpNeg, "~": kernel.OpNot, "!": kernel.OpLNot}[x.Op]
			a := l.expr(b, x.X)
			if x.Op == "-" && (a.Type().IsVector() || a.Type().IsAcc()) {
				return l.apiNeg(b, x.Pos, a)
			}
			l.checkOp(x.Pos, op, []kernel.Operand{a}, kernel.Type{})
			return kernel.V(b.At(kpos(x.Pos)).Op(op, a))
		case "*":
			incr := l.deferIncrs()
			base, idx, view := l.address(b, x.X, x.Pos)
			v := kernel.V(l.load(b, x.Pos, base, idx, view))
			l.flushIncrs(b, incr)
			return v
		case "&":
			base, idx, view := l.address(b, x, x.Pos) // address handles &p[i], &*p, &array
			return kernel.V(l.pointerValue(b, x.Pos, base, idx, view))
		case "++", "--":
			l.sideEffect(x.Pos, effectTarget(x.X))
			l.incr(b, x.X, x.Op, x.Pos)
			return kernel.V(l.lvalueVar(x.X))
		}
	case *Postfix:
		l.sideEffect(x.Pos, effectTarget(x.X))
		v := l.lvalueVar(x.X)
		old := l.k.NewTemp(v.Type)
		b.At(kpos(x.Pos)).Mov(old, kernel.V(v))
		l.incr(b, x.X, x.Op, x.Pos)
		return kernel.V(old)
	case *Index:
		if v := l.vectorElem(x); v != nil {
			idx := l.expr(b, x.Index)
			l.checkOp(x.Pos, kernel.OpExtElem, []kernel.Operand{kernel.V(v), idx}, kernel.Type{})
			return kernel.V(b.At(kpos(x.Pos)).Op(kernel.OpExtElem, kernel.V(v), idx))
		}
		base, idx, view, ok := l.indexAddress(b, x)
		if !ok {
			l.fail(x.Pos, "only pointers, arrays and vectors can be indexed")
		}
		return kernel.V(l.load(b, x.Pos, base, idx, view))
	case *Cast:
		if x.Type.Ptr > 0 {
			base, idx, view := l.address(b, x, x.Pos)
			return kernel.V(l.pointerValue(b, x.Pos, base, idx, view))
		}
		t := l.typeOf(x.Type, ctxCast).t
		a := l.expr(b, x.X)
		if t.IsVector() || t.IsAcc() {
			if a.Type() == t {
				return a
			}
			l.fail(x.Pos, "cast from %v to %v is not supported", a.Type(), t)
		}
		if !t.IsScalar() {
			l.fail(x.Pos, "cast to %v is not supported (only scalar and pointer casts)", t)
		}
		if !a.Type().IsScalar() {
			l.fail(x.Pos, "cannot cast %v to %v", a.Type(), t)
		}
		tmp := l.k.NewTemp(t)
		b.At(kpos(x.Pos)).Mov(tmp, a)
		return kernel.V(tmp)
	case *Assign:
		l.fail(x.Pos, "an assignment inside an expression is not supported; make it a statement")
	case *Cond:
		return l.selectExpr(b, x)
	case *InitList:
		l.fail(x.Pos, "a braced list is not a value here")
	case *StrLit:
		l.fail(x.Pos, "string literals are only allowed in printf-style calls (which sumac ignores)")
	case *SizeOf:
		if x.Type != nil {
			if n, ok := sizeOfType(x.Type, l.constEnv); ok {
				return kernel.Imm(n)
			}
			l.fail(x.Pos, "sizeof(%s) is not supported (sizeof of scalar and vector types is)", x.Type)
		}
		l.fail(x.Pos, "sizeof of an expression is not supported (sizeof of scalar and vector types is)")
	}
	l.fail(ExprPos(e), "unsupported expression")
	return kernel.Operand{}
}

// member lowers x.name and x->name: this->member, and window->ptr (a pointer to the
// window's current position).
func (l *lowerer) member(b *kernel.Builder, x *Member) kernel.Operand {
	if id, ok := x.X.(*Ident); ok && id.Name == "this" {
		return l.expr(b, &Ident{Pos: x.Pos, Name: x.Name})
	}
	base := l.expr(b, x.X)
	if bt := base.Type(); bt.IsWindow() && x.Name == "ptr" && x.Arrow {
		t := kernel.PtrTo(bt.Elem, 1)
		l.checkOp(x.Pos, kernel.OpWinPtr, []kernel.Operand{base}, t)
		return kernel.V(b.At(kpos(x.Pos)).OpT(kernel.OpWinPtr, t, base))
	}
	l.fail(x.Pos, "member %s of %v is not supported", x.Name, base.Type())
	return kernel.Operand{}
}

// selectExpr lowers c ? a : b with operands free of side effects to a select.
func (l *lowerer) selectExpr(b *kernel.Builder, x *Cond) kernel.Operand {
	if c, ok := l.constCond(x.C); ok {
		if c {
			return l.expr(b, x.X)
		}
		return l.expr(b, x.Y)
	}
	effects := l.effects
	c := l.expr(b, x.C)
	before := l.effects
	a := l.expr(b, x.X)
	y := l.expr(b, x.Y)
	if l.effects != before {
		l.fail(x.Pos, "a conditional expression whose branches have side effects is not supported; use if/else")
	}
	_ = effects
	if c.Type().Elem == kernel.Float32 && c.Type().IsScalar() {
		c = kernel.V(b.At(kpos(x.Pos)).Op(kernel.OpNe, c, kernel.FImm(0)))
	}
	args := []kernel.Operand{c, a, y}
	l.checkOp(x.Pos, kernel.OpSelect, args, kernel.Type{})
	return kernel.V(b.At(kpos(x.Pos)).Op(kernel.OpSelect, args...))
}

// logical lowers && and || on operands free of side effects: both are evaluated (the result
// is the same as with short-circuit evaluation when evaluating cannot fail or change state).
func (l *lowerer) logical(b *kernel.Builder, x *Binary) kernel.Operand {
	before := l.effects
	a := l.truth(b, x.X)
	c := l.truth(b, x.Y)
	if l.effects != before {
		l.fail(x.Pos, "%s with side effects in its operands is not supported", x.Op)
	}
	op := kernel.OpAnd
	if x.Op == "||" {
		op = kernel.OpOr
	}
	return l.emitBinary(b, x.Pos, op, a, c)
}

// truth lowers e != 0 (0 or 1).
func (l *lowerer) truth(b *kernel.Builder, e Expr) kernel.Operand {
	if bin, ok := stripParen(e).(*Binary); ok {
		switch bin.Op {
		case "==", "!=", "<", "<=", ">", ">=":
			return l.expr(b, e)
		case "&&", "||":
			return l.logical(b, bin)
		}
	}
	v := l.expr(b, e)
	zero := kernel.Imm(0)
	if v.Type().Elem == kernel.Float32 {
		zero = kernel.FImm(0)
	}
	return l.emitBinary(b, ExprPos(e), kernel.OpNe, v, zero)
}

// sideEffect counts a side effect on target (a variable, window or stream; "" if unknown)
// below the top of a statement and rejects a second one on the same target: C++ leaves the
// order of evaluation of operands unspecified, which matters only when two effects touch the
// same object (m.mac(*pa++, *pb++) is fine, window_readincr(w) + window_readincr(w) is not).
func (l *lowerer) sideEffect(p Pos, target string) {
	l.effects++
	if l.effectOn == nil {
		l.effectOn = map[string]bool{}
	}
	if l.effects > 1 && (target == "" || l.effectOn[target] || l.effectOn[""]) {
		l.fail(p, "a second side effect in one statement: C++ leaves the order of evaluation of operands unspecified; split the statement")
	}
	l.effectOn[target] = true
}

func (l *lowerer) resetEffects() {
	l.effects = 0
	l.effectOn = nil
}

// effectTarget names the object an expression with a side effect acts on.
func effectTarget(e Expr) string {
	switch x := stripParen(e).(type) {
	case *Ident:
		return x.Name
	case *Member:
		return effectTarget(x.X) + "." + x.Name
	}
	return ""
}

var binOps = map[string]kernel.Op{
	"+": kernel.OpAdd, "-": kernel.OpSub, "*": kernel.OpMul, "/": kernel.OpDiv, "%": kernel.OpRem,
	"<<": kernel.OpShl, ">>": kernel.OpShr, "&": kernel.OpAnd, "|": kernel.OpOr, "^": kernel.OpXor,
	"==": kernel.OpEq, "!=": kernel.OpNe, "<": kernel.OpLt, "<=": kernel.OpLe, ">": kernel.OpGt, ">=": kernel.OpGe,
}

// binary lowers the operands of a binary expression and picks its op (OpPtrAdd for pointer
// arithmetic, whose second operand is then the element count).
func (l *lowerer) binary(b *kernel.Builder, x *Binary) (kernel.Op, kernel.Operand, kernel.Operand) {
	if x.Op == "&&" || x.Op == "||" {
		l.fail(x.Pos, "internal: %s reached binary", x.Op)
	}
	op := binOps[x.Op]
	a := l.expr(b, x.X)
	c := l.expr(b, x.Y)
	if a.Type().IsPointer() || c.Type().IsPointer() {
		switch {
		case x.Op == "+" && a.Type().IsPointer() && c.Type().IsIntScalar():
			return kernel.OpPtrAdd, a, c
		case x.Op == "+" && c.Type().IsPointer() && a.Type().IsIntScalar():
			return kernel.OpPtrAdd, c, a
		case x.Op == "-" && a.Type().IsPointer() && c.Type().IsIntScalar():
			return kernel.OpPtrAdd, a, l.neg(b, c, x.Pos)
		}
		l.fail(x.Pos, "pointer arithmetic %v %s %v is not supported", a.Type(), x.Op, c.Type())
	}
	if at, ct := a.Type(), c.Type(); at.IsVector() || at.IsAcc() || ct.IsVector() || ct.IsAcc() {
		return l.apiBinary(b, x, a, c)
	}
	// No algebraic simplification here: the IR says what the source says, so that
	// emit -> parse -> emit is a fixed point for any IR; strength reduction and constant
	// propagation belong to the backend.
	return op, a, c
}

func (l *lowerer) emitBinary(b *kernel.Builder, p Pos, op kernel.Op, a, c kernel.Operand) kernel.Operand {
	if op == opAPIDone {
		return a
	}
	l.checkOp(p, op, []kernel.Operand{a, c}, kernel.Type{})
	return kernel.V(b.At(kpos(p)).Op(op, a, c))
}

// address lowers a pointer-valued expression to (base pointer variable, index in units of
// the base's pointee, the pointer type it is viewed as). Casts change the view, not the
// address; indexing a view scales the index to the base's units.
func (l *lowerer) address(b *kernel.Builder, e Expr, at Pos) (*kernel.Var, kernel.Operand, kernel.Type) {
	switch x := e.(type) {
	case *Paren:
		return l.address(b, x.X, at)
	case *Ident:
		s := l.lookup(x.Name)
		if s == nil {
			l.fail(x.Pos, "%s is not declared", x.Name)
		}
		if s.kind == symView {
			l.fail(x.Pos, "%s points into the register of %s: only %s[i] is supported", x.Name, s.v.Name, x.Name)
		}
		if (s.kind != symVar && s.kind != symArray) || !s.v.Type.IsPointer() {
			t := "a constant"
			if s.kind == symVar || s.kind == symArray {
				t = s.v.Type.String()
			}
			l.fail(x.Pos, "%s is %s, not a pointer", x.Name, t)
		}
		return s.v, kernel.Imm(0), s.v.Type
	case *Cast:
		t := l.typeOf(x.Type, ctxCast).t
		if !t.IsPointer() {
			l.fail(x.Pos, "a cast to %v is not a pointer", t)
		}
		base, idx, _ := l.address(b, x.X, at)
		return base, idx, t
	case *Unary:
		switch x.Op {
		case "&":
			inner := stripParen(x.X)
			switch y := inner.(type) {
			case *Index:
				base, idx, view, ok := l.indexAddress(b, y)
				if !ok {
					l.fail(y.Pos, "only pointers and arrays can be indexed")
				}
				return base, idx, view
			case *Unary:
				if y.Op == "*" {
					return l.address(b, y.X, at)
				}
			case *Ident:
				if s := l.lookup(y.Name); s != nil && s.kind == symArray {
					return s.v, kernel.Imm(0), s.v.Type
				}
				l.fail(x.Pos, "taking the address of variable %s is not supported (registers have no address)", y.Name)
			}
			l.fail(x.Pos, "cannot take the address of this expression")
		case "*":
			l.fail(x.Pos, "pointers to pointers are not supported")
		}
	case *Binary:
		if x.Op == "+" || x.Op == "-" {
			if l.isPointerExpr(x.X) {
				base, idx, view := l.address(b, x.X, at)
				n := l.expr(b, x.Y)
				if x.Op == "-" {
					n = l.neg(b, n, x.Pos)
				}
				return base, l.scaledIndex(b, x.Pos, idx, n, view, base), view
			}
			if x.Op == "+" && l.isPointerExpr(x.Y) {
				base, idx, view := l.address(b, x.Y, at)
				n := l.expr(b, x.X)
				return base, l.scaledIndex(b, x.Pos, idx, n, view, base), view
			}
		}
	case *Postfix:
		// *p++: the address is p before the increment
		l.sideEffect(x.Pos, effectTarget(x.X))
		v := l.lvalueVar(x.X)
		if !v.Type.IsPointer() {
			l.fail(x.Pos, "%s is not a pointer", v.Name)
		}
		if l.deferIncr != nil {
			// the access uses p itself and p moves after it (a post-incremented load or
			// store, as the hardware does it), not a copy of p made before the increment
			*l.deferIncr = append(*l.deferIncr, x)
			return v, kernel.Imm(0), v.Type
		}
		old := l.k.NewTemp(v.Type)
		b.At(kpos(x.Pos)).Mov(old, kernel.V(v))
		l.incr(b, x.X, x.Op, x.Pos)
		return old, kernel.Imm(0), v.Type
	case *Call, *Member:
		o := l.expr(b, x)
		if !o.Type().IsPointer() || o.Var == nil {
			l.fail(ExprPos(e), "this expression is %v, not a pointer", o.Type())
		}
		return o.Var, kernel.Imm(0), o.Type()
	}
	l.fail(ExprPos(e), "unsupported pointer expression (use p, p + n, &p[i], (T*)p, or *(T*)&p[i])")
	return nil, kernel.Operand{}, kernel.Type{}
}

// deferIncrs starts collecting the post-increments of the pointer expression about to be
// lowered (*p++): the access then goes through p, and flushIncrs moves p after it.
func (l *lowerer) deferIncrs() *[]*Postfix {
	if l.deferIncr != nil {
		return nil // nested: the outer access collects
	}
	l.deferIncr = &[]*Postfix{}
	return l.deferIncr
}

// flushIncrs emits the collected post-increments (after the access that used the pointer).
func (l *lowerer) flushIncrs(b *kernel.Builder, incr *[]*Postfix) {
	if incr == nil {
		return
	}
	l.deferIncr = nil
	for _, x := range *incr {
		l.incr(b, x.X, x.Op, x.Pos)
	}
}

// isPointerExpr reports whether e has pointer type, without emitting code.
func (l *lowerer) isPointerExpr(e Expr) bool {
	switch x := e.(type) {
	case *Paren:
		return l.isPointerExpr(x.X)
	case *Ident:
		s := l.lookup(x.Name)
		return s != nil && (s.kind == symVar || s.kind == symArray) && s.v.Type.IsPointer()
	case *Cast:
		return x.Type.Ptr > 0
	case *Unary:
		return x.Op == "&"
	case *Binary:
		return (x.Op == "+" || x.Op == "-") && l.isPointerExpr(x.X) || x.Op == "+" && l.isPointerExpr(x.Y)
	case *Postfix:
		return l.isPointerExpr(x.X)
	case *Member:
		return x.Name == "ptr" && x.Arrow
	case *Call:
		return x.Fun == "data" && x.Recv != nil || strings.HasPrefix(x.Fun, "aie::begin") || strings.HasPrefix(x.Fun, "aie::cbegin")
	}
	return false
}

// indexAddress lowers &P[i] (and &A[i][j] on a multi-dimensional array) for a pointer-valued
// P.
func (l *lowerer) indexAddress(b *kernel.Builder, x *Index) (*kernel.Var, kernel.Operand, kernel.Type, bool) {
	// A[i][j]...: a multi-dimensional array indexed in full
	var idxs []Expr
	cur := Expr(x)
	for {
		ix, ok := stripParen(cur).(*Index)
		if !ok {
			break
		}
		idxs = append([]Expr{ix.Index}, idxs...)
		cur = ix.X
	}
	if id, ok := stripParen(cur).(*Ident); ok && len(idxs) > 1 {
		if s := l.lookup(id.Name); s != nil && s.kind == symArray && len(s.dims) == len(idxs) {
			var flat kernel.Operand
			for k, ie := range idxs {
				n := l.expr(b, ie)
				if !n.Type().IsIntScalar() {
					l.fail(ExprPos(ie), "index must be an integer, have %v", n.Type())
				}
				if k == 0 {
					flat = n
					continue
				}
				flat = l.foldMulAdd(b, x.Pos, flat, int64(s.dims[k]), n)
			}
			return s.v, flat, s.v.Type, true
		}
	}
	if !l.isPointerExpr(x.X) {
		return nil, kernel.Operand{}, kernel.Type{}, false
	}
	base, idx, view := l.address(b, x.X, x.Pos)
	n := l.expr(b, x.Index)
	if !n.Type().IsIntScalar() {
		l.fail(ExprPos(x.Index), "index must be an integer, have %v", n.Type())
	}
	return base, l.scaledIndex(b, x.Pos, idx, n, view, base), view, true
}

// foldMulAdd returns a*m + n (folding constants).
func (l *lowerer) foldMulAdd(b *kernel.Builder, p Pos, a kernel.Operand, m int64, n kernel.Operand) kernel.Operand {
	if a.IsIntImm() && n.IsIntImm() {
		return kernel.Imm(a.Imm*m + n.Imm)
	}
	am := a
	if a.IsIntImm() {
		am = kernel.Imm(a.Imm * m)
	} else {
		am = l.emitBinary(b, p, kernel.OpMul, a, kernel.Imm(m))
	}
	if n.IsIntImm() && n.Imm == 0 {
		return am
	}
	return l.emitBinary(b, p, kernel.OpAdd, am, n)
}

// scaledIndex returns idx + n*(sizeof view pointee / sizeof base pointee).
func (l *lowerer) scaledIndex(b *kernel.Builder, p Pos, idx, n kernel.Operand, view kernel.Type, base *kernel.Var) kernel.Operand {
	vb, bb := view.Pointee().Bytes(), base.Type.Pointee().Bytes()
	if vb%bb != 0 {
		l.fail(p, "indexing %v viewed as %v: element size %d is not a multiple of %d", base.Type, view, vb, bb)
	}
	scale := int64(vb / bb)
	if n.IsIntImm() && idx.IsIntImm() {
		return kernel.Imm(idx.Imm + n.Imm*scale)
	}
	if scale != 1 {
		n = l.emitBinary(b, p, kernel.OpMul, n, kernel.Imm(scale))
	}
	if idx.IsIntImm() && idx.Imm == 0 { // &p[n] on the base pointer itself: the index is n
		return n
	}
	return l.emitBinary(b, p, kernel.OpAdd, idx, n)
}

func (l *lowerer) load(b *kernel.Builder, p Pos, base *kernel.Var, idx kernel.Operand, view kernel.Type) *kernel.Var {
	t := view.Pointee()
	l.checkOp(p, kernel.OpLoad, []kernel.Operand{kernel.V(base), idx}, t)
	return b.At(kpos(p)).OpT(kernel.OpLoad, t, kernel.V(base), idx)
}

// pointerValue materializes a pointer (base + idx, viewed as view) in a temporary.
func (l *lowerer) pointerValue(b *kernel.Builder, p Pos, base *kernel.Var, idx kernel.Operand, view kernel.Type) *kernel.Var {
	v := base
	if !(idx.IsIntImm() && idx.Imm == 0) {
		v = b.At(kpos(p)).Op(kernel.OpPtrAdd, kernel.V(base), idx)
	}
	if view == v.Type && v != base {
		return v
	}
	t := l.k.NewTemp(view)
	b.At(kpos(p)).Mov(t, kernel.V(v))
	return t
}

// args lowers a call's arguments left to right.
func (l *lowerer) args(b *kernel.Builder, c *Call) []kernel.Operand {
	var out []kernel.Operand
	for _, a := range c.Args {
		out = append(out, l.expr(b, a))
	}
	return out
}

// windowEffects are calls with side effects on a window's or stream's position.
var windowEffects = map[kernel.Op]bool{kernel.OpWinReadIncr: true, kernel.OpWinWriteIncr: true, kernel.OpWinIncr: true,
	kernel.OpWinWrite: true, kernel.OpStreamRead: true, kernel.OpStreamWrite: true}

// call lowers a call; the result goes to dst if given, else to a new temporary.
func (l *lowerer) call(b *kernel.Builder, c *Call, dst *kernel.Var) *kernel.Var {
	if o, ok := l.apiCall(b, c, dst); ok {
		if dst != nil {
			if o.Var != dst {
				l.mov(b, dst, o, c.Pos)
			}
			return dst
		}
		if o.Var == nil {
			t := l.k.NewTemp(o.Type())
			b.At(kpos(c.Pos)).Mov(t, o)
			return t
		}
		return o.Var
	}
	if h := l.helper(c.Fun); h != nil {
		o := l.inline(b, c, h, dst)
		if dst != nil {
			if o.Var != dst {
				l.mov(b, dst, o, c.Pos)
			}
			return dst
		}
		if o.Var == nil {
			t := l.k.NewTemp(o.Type())
			b.At(kpos(c.Pos)).Mov(t, o)
			return t
		}
		return o.Var
	}
	name := c.Fun
	op, typ, lanes, ok := kernel.LookupCall(name)
	if !ok {
		if ignoredCalls[name] {
			l.fail(c.Pos, "%s has no value sumac can compute", name)
		}
		l.fail(c.Pos, "unknown function %s: not an AIE1 intrinsic or window function that sumac supports", name)
	}
	if !op.Info().HasDst {
		l.fail(c.Pos, "%s has no result", name)
	}
	if windowEffects[op] && dst == nil {
		target := ""
		if len(c.Args) > 0 {
			target = effectTarget(c.Args[0])
		}
		l.sideEffect(c.Pos, target)
	}
	args := l.args(b, c)
	var rt kernel.Type
	switch op {
	case kernel.OpUndef, kernel.OpNull:
		if len(args) != 0 {
			l.fail(c.Pos, "%s takes no arguments", name)
		}
		rt = typ
	case kernel.OpWinRead, kernel.OpWinReadIncr:
		if len(args) != 1 || !args[0].Type().IsWindow() {
			l.fail(c.Pos, "%s takes one window argument", name)
		}
		e := args[0].Type().Elem
		rt = kernel.ScalarOf(e)
		if lanes > 1 {
			rt = kernel.VecOf(e, lanes)
			if !rt.Valid() {
				l.fail(c.Pos, "%s on %v: %d x %v is not a vector type", name, args[0].Type(), lanes, e)
			}
		}
		l.checkOp(c.Pos, op, args, rt)
	default:
		rt = l.checkOp(c.Pos, op, args, kernel.Type{})
		if op.IsMAC() {
			l.checkMACParams(c, op, args)
		}
	}
	if dst == nil {
		dst = l.k.NewTemp(rt)
	} else if dst.Type != rt && !(dst.Type.IsScalar() && rt.IsScalar()) {
		l.fail(c.Pos, "cannot assign the %v result of %s to %s (%v)", rt, name, dst.Name, dst.Type)
	} else if dst.Type != rt && (op == kernel.OpWinRead || op == kernel.OpWinReadIncr) {
		// int x = window_readincr(in) on an int8 window: the element read, then C++'s
		// implicit conversion to the variable's type
		t := l.k.NewTemp(rt)
		b.At(kpos(c.Pos)).Emit(op, t, args...)
		l.mov(b, dst, kernel.V(t), c.Pos)
		return dst
	}
	b.At(kpos(c.Pos)).Emit(op, dst, args...)
	return dst
}

// checkMACParams requires the data-selection parameters of a MAC to be compile-time
// constants: the hardware takes them from the instruction word or configuration registers
// the compiler fills (UG1079 "MAC Intrinsics": zstart "must be a compile time constant";
// offsets, steps and squares likewise select the permute network's configuration).
func (l *lowerer) checkMACParams(c *Call, op kernel.Op, args []kernel.Operand) {
	f, err := kernel.FormOf(op, args)
	if err != nil {
		l.fail(c.Pos, "%v", err)
	}
	lay := kernel.Layout(f, op.Info().Acc)
	names := map[int]string{lay.XOffs: "xoffsets", lay.XOffsHi: "xoffsets_hi", lay.XStep: "xstep", lay.XSquare: "xsquare",
		lay.ZStart: "zstart", lay.ZOffs: "zoffsets", lay.ZOffsHi: "zoffsets_hi", lay.ZStep: "zstep", lay.ZSquare: "zsquare"}
	idx := make([]int, 0, len(names))
	for i := range names {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		if i >= 0 && i < len(args) && !args[i].IsIntImm() {
			p := c.Pos
			if i < len(c.Args) {
				p = ExprPos(c.Args[i])
			}
			l.fail(p, "%s: %s must be a compile-time constant", c.Fun, names[i])
		}
	}
}

// modeCall lowers the mode-control calls set_rnd(rnd_...), set_sat() and clr_sat() (UG1079
// "Rounding and Saturation Modes"): they set the srs family's modes for the rest of the run.
func (l *lowerer) modeCall(b *kernel.Builder, c *Call) bool {
	switch c.Fun {
	case "set_rnd":
		if len(c.Args) != 1 {
			l.fail(c.Pos, "set_rnd takes one rounding constant (rnd_floor, rnd_conv_even, ...)")
		}
		id, ok := stripParen(c.Args[0]).(*Ident)
		if !ok {
			l.fail(ExprPos(c.Args[0]), "set_rnd takes a rounding constant (rnd_floor, rnd_ceil, rnd_pos_inf, rnd_neg_inf, rnd_sym_inf, rnd_sym_zero, rnd_conv_even, rnd_conv_odd)")
		}
		r, ok := kernel.RoundConst(id.Name)
		if !ok {
			l.fail(id.Pos, "%s is not an AIE1 rounding constant (rnd_floor, rnd_ceil, rnd_pos_inf, rnd_neg_inf, rnd_sym_inf, rnd_sym_zero, rnd_conv_even, rnd_conv_odd)", id.Name)
		}
		b.At(kpos(c.Pos)).Emit(kernel.OpSetRnd, nil, kernel.Imm(int64(r)))
		return true
	case "set_sat", "clr_sat":
		if len(c.Args) != 0 {
			l.fail(c.Pos, "%s takes no arguments", c.Fun)
		}
		m, _ := kernel.SatCall(c.Fun)
		b.At(kpos(c.Pos)).Emit(kernel.OpSetSat, nil, kernel.Imm(int64(m)))
		return true
	}
	return false
}

// windowScalarConv converts a scalar written to an output window of another element type,
// as C++'s implicit conversion to the parameter does (UG1079 "Window and Streaming Data API"
// declares one window_writeincr per window type: window_writeincr(output_window<float> *,
// float), ...; onnx2versal's argmax writes an int index to a float window). An integer
// constant written to a float window is folded to the float constant, as for writeincr.
func (l *lowerer) windowScalarConv(b *kernel.Builder, p Pos, w, v kernel.Operand) kernel.Operand {
	wt := w.Type()
	if !wt.IsWindow() || !v.Type().IsScalar() || v.Type().Elem == wt.Elem {
		return v
	}
	if wt.Elem == kernel.Float32 && v.IsIntImm() {
		from := kernel.Int32
		if v.Imm > math.MaxInt32 || v.Imm < math.MinInt32 {
			from = kernel.UInt32
		}
		return kernel.FImm(math.Float32frombits(uint32(kernel.Convert(v.Imm, from, kernel.Float32))))
	}
	t := l.k.NewTemp(kernel.ScalarOf(wt.Elem))
	l.mov(b, t, v, p)
	return kernel.V(t)
}
