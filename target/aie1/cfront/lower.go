package cfront

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// ParseKernel preprocesses, parses and lowers one kernel source file to the kernel IR.
// defines are -D options (NAME or NAME=VALUE). Every error is an *Error with the file, line
// and column of the offending construct.
func ParseKernel(file string, src []byte, defines []string) (*kernel.Kernel, error) {
	f, err := Parse(file, src, defines)
	if err != nil {
		return nil, err
	}
	k, err := Lower(f)
	if err != nil {
		return nil, err
	}
	if len(defines) > 0 {
		k.Defines = map[string]string{}
		for _, d := range defines {
			n, v, ok := strings.Cut(d, "=")
			if !ok {
				v = "1"
			}
			k.Defines[n] = v
		}
	}
	return k, nil
}

// Lower turns a parsed file with exactly one function into a kernel.
//
// Scalar variables that are initialized with a constant and never modified (the mac16
// parameters `unsigned int xoffsets = 0x73727170;` of seed 001) become immediates: the
// intrinsics need compile-time constants there. Expressions are split into three-address
// instructions in C's evaluation order; a statement may contain at most one side effect
// below its top level, because C++ leaves the order of evaluation of function arguments
// unspecified and sumac's result must not depend on it.
func Lower(f *File) (k *kernel.Kernel, err error) {
	if len(f.Funcs) != 1 {
		var names []string
		for _, fn := range f.Funcs {
			names = append(names, fn.Name)
		}
		return nil, errorf(f.Funcs[1].Pos, "%d functions defined (%s): a kernel file defines exactly one kernel function", len(f.Funcs), strings.Join(names, ", "))
	}
	fn := f.Funcs[0]
	l := &lowerer{k: kernel.New(fn.Name), modified: map[string]bool{}}
	defer l.catch(&err)
	l.b = kernel.NewBuilder(l.k)
	collectModified(fn.Body, l.modified)
	l.push()
	for _, p := range fn.Params {
		t := l.typeOf(p.Type, true)
		l.checkName(p.Pos, p.Name)
		v := l.b.At(kpos(p.Pos)).Param(p.Name, t)
		v.Restrict = p.Type.Restrict
		l.bind(p.Name, &sym{v: v})
	}
	l.block(l.b, fn.Body.Stmts)
	l.pop()
	if err := l.b.Err(); err != nil {
		return nil, err
	}
	if err := l.k.Validate(); err != nil {
		return nil, err
	}
	return l.k, nil
}

type sym struct {
	v        *kernel.Var // nil for a constant
	isConst  bool
	val      int64
	unsigned bool
}

type lowerer struct {
	k        *kernel.Kernel
	b        *kernel.Builder
	scopes   []map[string]*sym
	modified map[string]bool // names assigned after their declaration, incremented or address-taken
	effects  int             // side effects in the current statement below its top level
}

func (l *lowerer) fail(p Pos, format string, a ...any) { panic(bail{errorf(p, format, a...)}) }

func (l *lowerer) catch(err *error) {
	if r := recover(); r != nil {
		b, ok := r.(bail)
		if !ok {
			panic(r)
		}
		*err = b.err
	}
}

func kpos(p Pos) kernel.Pos { return kernel.Pos{File: p.File, Line: p.Line, Col: p.Col} }

func (l *lowerer) push() { l.scopes = append(l.scopes, map[string]*sym{}) }
func (l *lowerer) pop()  { l.scopes = l.scopes[:len(l.scopes)-1] }

func (l *lowerer) bind(name string, s *sym) { l.scopes[len(l.scopes)-1][name] = s }

func (l *lowerer) lookup(name string) *sym {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if s, ok := l.scopes[i][name]; ok {
			return s
		}
	}
	return nil
}

// checkName rejects redeclaration in the same scope and names the IR reserves.
func (l *lowerer) checkName(p Pos, name string) {
	if _, dup := l.scopes[len(l.scopes)-1][name]; dup {
		l.fail(p, "%s is already declared in this scope", name)
	}
	if _, _, _, ok := kernel.LookupCall(name); ok {
		l.fail(p, "%s is the name of an intrinsic", name)
	}
	_, isRnd := kernel.RoundConst(name)
	_, isSat := kernel.SatCall(name)
	if isRnd || isSat || name == "set_rnd" {
		l.fail(p, "%s is the name of a mode constant or call", name)
	}
}

// newVar declares an IR variable for a C variable, renaming it (name_1, name_2, ...) if an
// outer or earlier scope already used the name: IR variable names are unique per kernel.
func (l *lowerer) newVar(b *kernel.Builder, p Pos, name string, t kernel.Type) *kernel.Var {
	irName := name
	for n := 1; l.k.Lookup(irName) != nil; n++ {
		irName = fmt.Sprintf("%s_%d", name, n)
	}
	return b.At(kpos(p)).Decl(irName, t)
}

// typeOf maps a written type to an IR type. Windows are written as pointers
// (input_window_int16 *w) and are window values in the IR.
func (l *lowerer) typeOf(t *TypeName, param bool) kernel.Type {
	if strings.HasPrefix(t.Base, "input_window_") || strings.HasPrefix(t.Base, "output_window_") {
		if t.Ptr != 1 || !param {
			l.fail(t.Pos, "a window is a kernel parameter of type %s *", t.Base)
		}
		kt, err := kernel.ParseType(t.Base)
		if err != nil {
			l.fail(t.Pos, "%v", err)
		}
		return kt
	}
	if t.Ptr > 1 {
		l.fail(t.Pos, "pointers to pointers are not supported in the AIE kernel subset")
	}
	s := t.Base + strings.Repeat("*", t.Ptr)
	kt, err := kernel.ParseType(s)
	if err != nil {
		l.fail(t.Pos, "unsupported type %s: %v", s, err)
	}
	return kt
}

// collectModified records every name that is assigned (other than by its declaration),
// incremented, decremented or has its address taken.
func collectModified(s Stmt, m map[string]bool) {
	var expr func(e Expr)
	target := func(e Expr) {
		for {
			if p, ok := e.(*Paren); ok {
				e = p.X
				continue
			}
			break
		}
		if id, ok := e.(*Ident); ok {
			m[id.Name] = true
		}
	}
	expr = func(e Expr) {
		switch e := e.(type) {
		case *Assign:
			target(e.L)
			expr(e.L)
			expr(e.R)
		case *Unary:
			if e.Op == "++" || e.Op == "--" || e.Op == "&" {
				target(e.X)
			}
			expr(e.X)
		case *Postfix:
			target(e.X)
			expr(e.X)
		case *Binary:
			expr(e.X)
			expr(e.Y)
		case *Call:
			for _, a := range e.Args {
				expr(a)
			}
		case *Index:
			expr(e.X)
			expr(e.Index)
		case *Cast:
			expr(e.X)
		case *Paren:
			expr(e.X)
		case *Cond:
			expr(e.C)
			expr(e.X)
			expr(e.Y)
		}
	}
	var stmt func(s Stmt)
	stmt = func(s Stmt) {
		switch s := s.(type) {
		case *Block:
			for _, x := range s.Stmts {
				stmt(x)
			}
		case *DeclStmt:
			for _, d := range s.Names {
				if d.Init != nil {
					expr(d.Init)
				}
			}
		case *ExprStmt:
			expr(s.X)
		case *ForStmt:
			if s.Init != nil {
				stmt(s.Init)
			}
			if s.Cond != nil {
				expr(s.Cond)
			}
			if s.Post != nil {
				expr(s.Post)
			}
			stmt(s.Body)
		}
	}
	stmt(s)
}

func (l *lowerer) block(b *kernel.Builder, stmts []Stmt) {
	for _, s := range stmts {
		l.stmt(b, s)
	}
}

func (l *lowerer) stmt(b *kernel.Builder, s Stmt) {
	l.effects = 0
	b.At(kpos(s.stmtPos()))
	switch s := s.(type) {
	case *EmptyStmt:
	case *Block:
		l.push()
		l.block(b, s.Stmts)
		l.pop()
	case *DeclStmt:
		l.decl(b, s)
	case *ExprStmt:
		l.exprStmt(b, s.X)
	case *ForStmt:
		l.forStmt(b, s)
	default:
		l.fail(s.stmtPos(), "unsupported statement")
	}
}

func (l *lowerer) decl(b *kernel.Builder, s *DeclStmt) {
	for _, d := range s.Names {
		ty := *s.Type
		ty.Ptr += d.Ptr
		t := l.typeOf(&ty, false)
		l.checkName(d.Pos, d.Name)
		if t.IsScalar() && t.Elem != kernel.Float32 && d.Init != nil && !l.modified[d.Name] {
			v, u, err := constEvalU(d.Init, l.constEnv)
			if err == nil {
				l.bind(d.Name, &sym{isConst: true, val: convertConst(v, t), unsigned: u || !t.Elem.Signed()})
				continue
			}
			if !isNotConst(err) {
				panic(bail{err.(*Error)})
			}
		}
		v := l.newVar(b, d.Pos, d.Name, t)
		l.bind(d.Name, &sym{v: v}) // in C a declarator's scope starts before its initializer
		if d.Init != nil {
			l.effects = 0
			l.into(b, v, d.Init)
		}
	}
}

// convertConst converts a constant to a scalar type as C assignment does.
func convertConst(v int64, t kernel.Type) int64 {
	switch t.Elem {
	case kernel.Int8:
		return int64(int8(v))
	case kernel.UInt8:
		return int64(uint8(v))
	case kernel.Int16:
		return int64(int16(v))
	case kernel.UInt16:
		return int64(uint16(v))
	case kernel.Int32:
		return int64(int32(v))
	case kernel.UInt32:
		return int64(uint32(v))
	}
	return v
}

func (l *lowerer) constEnv(name string) (int64, bool, bool) {
	s := l.lookup(name)
	if s == nil || !s.isConst {
		return 0, false, false
	}
	return s.val, s.unsigned, true
}

// exprStmt lowers an expression evaluated for its effect.
func (l *lowerer) exprStmt(b *kernel.Builder, e Expr) {
	for {
		if p, ok := e.(*Paren); ok {
			e = p.X
			continue
		}
		break
	}
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
		if l.modeCall(b, e) {
			return
		}
		op, _, _, ok := kernel.LookupCall(e.Fun)
		if ok && !op.Info().HasDst {
			args := l.args(b, e)
			l.checkOp(e.Pos, op, args, kernel.Type{})
			b.At(kpos(e.Pos)).Emit(op, nil, args...)
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
	for {
		if p, ok := x.(*Paren); ok {
			x = p.X
			continue
		}
		break
	}
	id, ok := x.(*Ident)
	if !ok {
		l.fail(ExprPos(x), "cannot assign to this expression")
	}
	s := l.lookup(id.Name)
	switch {
	case s == nil:
		l.fail(id.Pos, "%s is not declared", id.Name)
	case s.isConst:
		l.fail(id.Pos, "internal error: constant %s assigned", id.Name)
	case s.v.Type.IsWindow():
		l.fail(id.Pos, "cannot assign to window %s", id.Name)
	}
	return s.v
}

var compoundOps = map[string]kernel.Op{
	"+=": kernel.OpAdd, "-=": kernel.OpSub, "*=": kernel.OpMul, "/=": kernel.OpDiv, "%=": kernel.OpRem,
	"<<=": kernel.OpShl, ">>=": kernel.OpShr, "&=": kernel.OpAnd, "|=": kernel.OpOr, "^=": kernel.OpXor,
}

func (l *lowerer) assign(b *kernel.Builder, e *Assign) {
	lhs := e.L
	for {
		if p, ok := lhs.(*Paren); ok {
			lhs = p.X
			continue
		}
		break
	}
	if _, ok := lhs.(*Ident); !ok {
		// a store through a pointer: *(T*)&p[i] = v, p[i] = v, *p = v
		if e.Op != "=" {
			l.fail(e.Pos, "compound assignment %s through a pointer is not supported; write p[i] = p[i] + v", e.Op)
		}
		var base *kernel.Var
		var idx kernel.Operand
		var view kernel.Type
		switch x := lhs.(type) {
		case *Unary:
			if x.Op != "*" {
				l.fail(x.Pos, "cannot assign to this expression")
			}
			base, idx, view = l.address(b, x.X, x.Pos)
		case *Index:
			var ok bool
			if base, idx, view, ok = l.indexAddress(b, x); !ok {
				l.fail(x.Pos, "only pointers can be indexed")
			}
		default:
			l.fail(ExprPos(lhs), "cannot assign to this expression")
		}
		val := l.expr(b, e.R)
		pt := view.Pointee()
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
		return
	}
	v := l.lvalueVar(lhs)
	if e.Op == "=" {
		l.into(b, v, e.R)
		return
	}
	op := compoundOps[e.Op]
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
	for {
		if p, ok := e.(*Paren); ok {
			e = p.X
			continue
		}
		break
	}
	switch x := e.(type) {
	case *Call:
		l.call(b, x, dst)
		return
	case *Binary:
		if _, _, err := constEvalU(x, l.constEnv); err != nil && dst.Type.IsScalar() {
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
			base, idx, view := l.address(b, x.X, x.Pos)
			if view.Pointee() == dst.Type {
				b.At(kpos(x.Pos)).Set(dst, kernel.OpLoad, kernel.V(base), idx)
				return
			}
		}
	case *Index:
		if base, idx, view, ok := l.indexAddress(b, x); ok && view.Pointee() == dst.Type {
			b.At(kpos(x.Pos)).Set(dst, kernel.OpLoad, kernel.V(base), idx)
			return
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
	switch x := e.(type) {
	case *IntLit:
		return kernel.Imm(int64(x.Value))
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
		if s.isConst {
			return kernel.Imm(s.val)
		}
		return kernel.V(s.v)
	case *Call:
		return kernel.V(l.call(b, x, nil))
	case *Binary:
		op, a, c := l.binary(b, x)
		return l.emitBinary(b, x.Pos, op, a, c)
	case *Unary:
		switch x.Op {
		case "+":
			return l.expr(b, x.X)
		case "-", "~", "!":
			op := map[string]kernel.Op{"-": kernel.OpNeg, "~": kernel.OpNot, "!": kernel.OpLNot}[x.Op]
			a := l.expr(b, x.X)
			l.checkOp(x.Pos, op, []kernel.Operand{a}, kernel.Type{})
			return kernel.V(b.At(kpos(x.Pos)).Op(op, a))
		case "*":
			base, idx, view := l.address(b, x.X, x.Pos)
			return kernel.V(l.load(b, x.Pos, base, idx, view))
		case "&":
			base, idx, view := l.address(b, x.X, x.Pos)
			return kernel.V(l.pointerValue(b, x.Pos, base, idx, view))
		case "++", "--":
			l.sideEffect(x.Pos)
			l.incr(b, x.X, x.Op, x.Pos)
			return kernel.V(l.lvalueVar(x.X))
		}
	case *Postfix:
		l.sideEffect(x.Pos)
		v := l.lvalueVar(x.X)
		old := l.k.NewTemp(v.Type)
		b.At(kpos(x.Pos)).Mov(old, kernel.V(v))
		l.incr(b, x.X, x.Op, x.Pos)
		return kernel.V(old)
	case *Index:
		base, idx, view, ok := l.indexAddress(b, x)
		if !ok {
			l.fail(x.Pos, "only pointers can be indexed")
		}
		return kernel.V(l.load(b, x.Pos, base, idx, view))
	case *Cast:
		if x.Type.Ptr > 0 {
			base, idx, view := l.address(b, x, x.Pos)
			return kernel.V(l.pointerValue(b, x.Pos, base, idx, view))
		}
		t := l.typeOf(x.Type, false)
		if !t.IsScalar() {
			l.fail(x.Pos, "cast to %v is not supported (only scalar and pointer casts)", t)
		}
		a := l.expr(b, x.X)
		if !a.Type().IsScalar() {
			l.fail(x.Pos, "cannot cast %v to %v", a.Type(), t)
		}
		tmp := l.k.NewTemp(t)
		b.At(kpos(x.Pos)).Mov(tmp, a)
		return kernel.V(tmp)
	case *Assign:
		l.fail(x.Pos, "an assignment inside an expression is not supported; make it a statement")
	case *Cond:
		l.fail(x.Pos, "the conditional operator ?: is supported only in constant expressions")
	}
	l.fail(ExprPos(e), "unsupported expression")
	return kernel.Operand{}
}

// sideEffect counts a side effect below the top of a statement and rejects a second one.
func (l *lowerer) sideEffect(p Pos) {
	l.effects++
	if l.effects > 1 {
		l.fail(p, "a second side effect in one statement: C++ leaves the order of evaluation of operands unspecified; split the statement")
	}
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
		l.fail(x.Pos, "%s is supported only in constant expressions", x.Op)
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
	// No algebraic simplification here: the IR says what the source says, so that
	// emit -> parse -> emit is a fixed point for any IR; strength reduction and constant
	// propagation belong to the backend.
	return op, a, c
}

func (l *lowerer) emitBinary(b *kernel.Builder, p Pos, op kernel.Op, a, c kernel.Operand) kernel.Operand {
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
		if s.isConst || !s.v.Type.IsPointer() {
			t := "a constant"
			if !s.isConst {
				t = s.v.Type.String()
			}
			l.fail(x.Pos, "%s is %s, not a pointer", x.Name, t)
		}
		return s.v, kernel.Imm(0), s.v.Type
	case *Cast:
		t := l.typeOf(x.Type, false)
		if !t.IsPointer() {
			l.fail(x.Pos, "a cast to %v is not a pointer", t)
		}
		base, idx, _ := l.address(b, x.X, at)
		return base, idx, t
	case *Unary:
		switch x.Op {
		case "&":
			inner := x.X
			for {
				if p, ok := inner.(*Paren); ok {
					inner = p.X
					continue
				}
				break
			}
			switch y := inner.(type) {
			case *Index:
				base, idx, view, ok := l.indexAddress(b, y)
				if !ok {
					l.fail(y.Pos, "only pointers can be indexed")
				}
				return base, idx, view
			case *Unary:
				if y.Op == "*" {
					return l.address(b, y.X, at)
				}
			case *Ident:
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
		l.sideEffect(x.Pos)
		v := l.lvalueVar(x.X)
		if !v.Type.IsPointer() {
			l.fail(x.Pos, "%s is not a pointer", v.Name)
		}
		old := l.k.NewTemp(v.Type)
		b.At(kpos(x.Pos)).Mov(old, kernel.V(v))
		l.incr(b, x.X, x.Op, x.Pos)
		return old, kernel.Imm(0), v.Type
	}
	l.fail(ExprPos(e), "unsupported pointer expression (use p, p + n, &p[i], (T*)p, or *(T*)&p[i])")
	return nil, kernel.Operand{}, kernel.Type{}
}

// isPointerExpr reports whether e has pointer type, without emitting code.
func (l *lowerer) isPointerExpr(e Expr) bool {
	switch x := e.(type) {
	case *Paren:
		return l.isPointerExpr(x.X)
	case *Ident:
		s := l.lookup(x.Name)
		return s != nil && !s.isConst && s.v.Type.IsPointer()
	case *Cast:
		return x.Type.Ptr > 0
	case *Unary:
		return x.Op == "&"
	case *Binary:
		return (x.Op == "+" || x.Op == "-") && l.isPointerExpr(x.X) || x.Op == "+" && l.isPointerExpr(x.Y)
	case *Postfix:
		return l.isPointerExpr(x.X)
	}
	return false
}

// indexAddress lowers &P[i] for a pointer-valued P.
func (l *lowerer) indexAddress(b *kernel.Builder, x *Index) (*kernel.Var, kernel.Operand, kernel.Type, bool) {
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

// windowFns are calls with side effects on a window's position.
var windowEffects = map[kernel.Op]bool{kernel.OpWinReadIncr: true, kernel.OpWinWriteIncr: true, kernel.OpWinIncr: true, kernel.OpWinWrite: true}

// call lowers a call; the result goes to dst if given, else to a new temporary.
func (l *lowerer) call(b *kernel.Builder, c *Call, dst *kernel.Var) *kernel.Var {
	op, typ, lanes, ok := kernel.LookupCall(c.Fun)
	if !ok {
		l.fail(c.Pos, "unknown function %s: not an AIE1 intrinsic or window function that sumac supports", c.Fun)
	}
	if !op.Info().HasDst {
		l.fail(c.Pos, "%s has no result", c.Fun)
	}
	if windowEffects[op] && dst == nil {
		l.sideEffect(c.Pos)
	}
	args := l.args(b, c)
	var rt kernel.Type
	switch op {
	case kernel.OpUndef, kernel.OpNull:
		if len(args) != 0 {
			l.fail(c.Pos, "%s takes no arguments", c.Fun)
		}
		rt = typ
	case kernel.OpWinRead, kernel.OpWinReadIncr:
		if len(args) != 1 || !args[0].Type().IsWindow() {
			l.fail(c.Pos, "%s takes one window argument", c.Fun)
		}
		e := args[0].Type().Elem
		rt = kernel.ScalarOf(e)
		if lanes > 1 {
			rt = kernel.VecOf(e, lanes)
			if !rt.Valid() {
				l.fail(c.Pos, "%s on %v: %d x %v is not a vector type", c.Fun, args[0].Type(), lanes, e)
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
		l.fail(c.Pos, "cannot assign the %v result of %s to %s (%v)", rt, c.Fun, dst.Name, dst.Type)
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
			l.fail(ExprPos(c.Args[i]), "%s: %s must be a compile-time constant", c.Fun, names[i])
		}
	}
}

func (l *lowerer) forStmt(b *kernel.Builder, s *ForStmt) {
	l.push()
	defer l.pop()
	var iv *kernel.Var
	var start kernel.Operand
	var ivName string
	switch in := s.Init.(type) {
	case *DeclStmt:
		if len(in.Names) != 1 || in.Names[0].Init == nil {
			l.fail(in.Pos, "the loop must declare and initialize one counter")
		}
		d := in.Names[0]
		t := l.typeOf(in.Type, false)
		if !t.IsIntScalar() {
			l.fail(d.Pos, "loop counter %s must be an integer", d.Name)
		}
		start = l.expr(b, d.Init)
		l.checkName(d.Pos, d.Name)
		iv = l.newVar(b, d.Pos, d.Name, t)
		ivName = d.Name
		l.bind(d.Name, &sym{v: iv})
	case *ExprStmt:
		a, ok := in.X.(*Assign)
		if !ok || a.Op != "=" {
			l.fail(in.Pos, "the loop initialization must set the counter: i = start")
		}
		iv = l.lvalueVar(a.L)
		ivName = a.L.(*Ident).Name
		start = l.expr(b, a.R)
	default:
		l.fail(s.Pos, "the loop needs a counter initialization: for (int i = start; ...)")
	}
	if !iv.Type.IsIntScalar() {
		l.fail(s.Pos, "loop counter %s must be an integer", iv.Name)
	}
	// condition: i CMP limit (or limit CMP i)
	cond, ok := s.Cond.(*Binary)
	if s.Cond == nil || !ok {
		l.fail(s.Pos, "the loop condition must compare the counter with a limit: %s < n", ivName)
	}
	cmps := map[string]kernel.Cmp{"<": kernel.Lt, "<=": kernel.Le, ">": kernel.Gt, ">=": kernel.Ge, "!=": kernel.Ne}
	flip := map[kernel.Cmp]kernel.Cmp{kernel.Lt: kernel.Gt, kernel.Le: kernel.Ge, kernel.Gt: kernel.Lt, kernel.Ge: kernel.Le, kernel.Ne: kernel.Ne}
	cmp, ok := cmps[cond.Op]
	if !ok {
		l.fail(cond.Pos, "the loop condition must use <, <=, >, >= or !=")
	}
	var limitE Expr
	switch {
	case isIdent(cond.X, ivName):
		limitE = cond.Y
	case isIdent(cond.Y, ivName):
		limitE = cond.X
		cmp = flip[cmp]
	default:
		l.fail(ExprPos(cond), "the loop condition must compare the counter %s with a limit", ivName)
	}
	if mentions(limitE, ivName) {
		l.fail(ExprPos(limitE), "the loop limit must not depend on the counter")
	}
	limit := l.expr(b, limitE)
	if !limit.Type().IsIntScalar() {
		l.fail(ExprPos(limitE), "the loop limit must be an integer")
	}
	step := l.loopStep(s, ivName)
	loop, lb := b.At(kpos(s.Pos)).For(iv, start, limit, step)
	loop.Cmp = cmp
	for _, p := range s.Pragmas {
		switch p.Name {
		case "chess_prepare_for_pipelining":
			if p.Args != nil {
				l.fail(p.Pos, "chess_prepare_for_pipelining takes no arguments")
			}
			loop.Pipelined = true
		case "chess_loop_range":
			if len(p.Args) < 1 || len(p.Args) > 2 || p.Args[0] == nil {
				l.fail(p.Pos, "chess_loop_range takes (min, max) or (min, )")
			}
			mn, _, err := constEvalU(p.Args[0], l.constEnv)
			if err != nil {
				l.fail(ExprPos(p.Args[0]), "chess_loop_range: the minimum must be a compile-time constant")
			}
			var mx int64
			if len(p.Args) == 2 && p.Args[1] != nil {
				if mx, _, err = constEvalU(p.Args[1], l.constEnv); err != nil {
					l.fail(ExprPos(p.Args[1]), "chess_loop_range: the maximum must be a compile-time constant")
				}
				if mx == 0 {
					l.fail(ExprPos(p.Args[1]), "chess_loop_range: a maximum of 0 is not supported (leave it empty for no bound)")
				}
			}
			loop.HasRange, loop.RangeMin, loop.RangeMax = true, mn, mx
		default:
			l.fail(p.Pos, "pragma %s is not supported (sumac knows chess_prepare_for_pipelining and chess_loop_range)", p.Name)
		}
	}
	if isModifiedIn(s.Body, ivName) {
		l.fail(s.Pos, "the loop body modifies the counter %s; sumac needs counted loops", ivName)
	}
	l.push()
	if blk, ok := s.Body.(*Block); ok {
		l.block(lb, blk.Stmts)
	} else {
		l.stmt(lb, s.Body)
	}
	l.pop()
	b.At(kpos(s.Pos))
}

// loopStep decodes the increment i++, ++i, i--, --i, i += c, i -= c or i = i + c.
func (l *lowerer) loopStep(s *ForStmt, iv string) int64 {
	bad := func() int64 {
		p := s.Pos
		if s.Post != nil {
			p = ExprPos(s.Post)
		}
		l.fail(p, "the loop increment must change the counter %s by a constant (i++, i += c)", iv)
		return 0
	}
	switch e := s.Post.(type) {
	case *Postfix:
		if isIdent(e.X, iv) {
			return map[string]int64{"++": 1, "--": -1}[e.Op]
		}
	case *Unary:
		if isIdent(e.X, iv) && (e.Op == "++" || e.Op == "--") {
			return map[string]int64{"++": 1, "--": -1}[e.Op]
		}
	case *Assign:
		if !isIdent(e.L, iv) {
			return bad()
		}
		switch e.Op {
		case "+=", "-=":
			c, _, err := constEvalU(e.R, l.constEnv)
			if err != nil || c == 0 {
				return bad()
			}
			if e.Op == "-=" {
				c = -c
			}
			return c
		case "=":
			if bin, ok := e.R.(*Binary); ok && (bin.Op == "+" || bin.Op == "-") && isIdent(bin.X, iv) {
				c, _, err := constEvalU(bin.Y, l.constEnv)
				if err != nil || c == 0 {
					return bad()
				}
				if bin.Op == "-" {
					c = -c
				}
				return c
			}
		}
	}
	return bad()
}

func isIdent(e Expr, name string) bool {
	for {
		if p, ok := e.(*Paren); ok {
			e = p.X
			continue
		}
		break
	}
	id, ok := e.(*Ident)
	return ok && id.Name == name
}

func mentions(e Expr, name string) bool {
	found := false
	var walk func(Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case *Ident:
			found = found || x.Name == name
		case *Unary:
			walk(x.X)
		case *Postfix:
			walk(x.X)
		case *Binary:
			walk(x.X)
			walk(x.Y)
		case *Assign:
			walk(x.L)
			walk(x.R)
		case *Call:
			for _, a := range x.Args {
				walk(a)
			}
		case *Index:
			walk(x.X)
			walk(x.Index)
		case *Cast:
			walk(x.X)
		case *Paren:
			walk(x.X)
		case *Cond:
			walk(x.C)
			walk(x.X)
			walk(x.Y)
		}
	}
	walk(e)
	return found
}

func isModifiedIn(s Stmt, name string) bool {
	m := map[string]bool{}
	collectModified(s, m)
	// a declaration of the same name in the body shadows the counter; be conservative
	return m[name]
}

func stripParen(e Expr) Expr {
	for {
		p, ok := e.(*Paren)
		if !ok {
			return e
		}
		e = p.X
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
