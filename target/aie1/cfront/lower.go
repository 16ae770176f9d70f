package cfront

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// ParseKernel preprocesses, parses and lowers one kernel source file to the kernel IR.
// defines are -D options (NAME or NAME=VALUE). Every error is an *Error with the file, line
// and column of the offending construct.
func ParseKernel(file string, src []byte, defines []string) (*kernel.Kernel, error) {
	return ParseKernelConfig(file, src, &Config{Defines: defines})
}

// ParseKernelConfig is ParseKernel with the instance to lower, include directories and a
// file reader (Config).
func ParseKernelConfig(file string, src []byte, cfg *Config) (*kernel.Kernel, error) {
	f, err := ParseConfig(file, src, cfg)
	if err != nil {
		return nil, err
	}
	k, err := Lower(f)
	if err != nil {
		return nil, err
	}
	if len(cfg.Defines) > 0 {
		k.Defines = map[string]string{}
		for _, d := range cfg.Defines {
			n, v, ok := strings.Cut(d, "=")
			if !ok {
				v = "1"
			}
			k.Defines[n] = v
		}
	}
	return k, nil
}

// Lower turns a parsed file into a kernel: the function (or kernel class member function)
// the file's Kernel names, or its only function.
//
// Scalar variables that are initialized with a constant and never modified (the mac16
// parameters `unsigned int xoffsets = 0x73727170;` of seed 001, template and constructor
// arguments) become immediates: the intrinsics need compile-time constants there.
// Expressions are split into three-address instructions in C's evaluation order; a statement
// may contain at most one side effect below its top level, because C++ leaves the order of
// evaluation of function arguments unspecified and sumac's result must not depend on it.
// Conditions known at compile time select their branch; others become kernel.If.
func Lower(f *File) (k *kernel.Kernel, err error) {
	fn := f.Kernel
	if fn == nil {
		if len(f.Funcs) != 1 {
			var names []string
			for _, fn := range f.Funcs {
				names = append(names, fn.Name)
			}
			pos := Pos{}
			if len(f.Funcs) > 1 {
				pos = f.Funcs[1].Pos
			}
			return nil, errorf(pos, "%d functions defined (%s): pass --instance NAME to pick the kernel", len(f.Funcs), strings.Join(names, ", "))
		}
		fn = f.Funcs[0]
	}
	name := fn.Name
	l := &lowerer{k: kernel.New(name), modified: map[string]bool{}, file: f, fn: fn}
	defer l.catch(&err)
	if fn.Result != nil && !(fn.Result.Base == "void" && fn.Result.Ptr == 0) {
		l.fail(fn.Pos, "a kernel function returns void, not %s", fn.Result)
	}
	l.b = kernel.NewBuilder(l.k)
	l.entry = kernel.NewBodyBuilder(l.k, &l.entryBody)
	collectModified(fn.Body, l.modified)
	l.push() // file scope
	l.globals(f.Globals)
	if f.Class != nil {
		l.push() // class scope
	}
	l.push() // parameters
	for _, p := range fn.Params {
		l.param(p)
	}
	if f.Class != nil {
		l.classMembers(f)
	}
	if f.Instance != "" && (f.Class != nil || f.Instance != fn.Name) {
		l.k.Entry = &kernel.Entry{Name: f.Instance, Ctor: l.ctor}
		if f.Class != nil {
			l.k.Entry.Method = fn.Name
		}
	}
	l.body(l.b, fn.Body.Stmts, true)
	l.pop()
	if len(l.entryBody) > 0 {
		l.k.Body = append(l.entryBody, l.k.Body...)
	}
	if err := l.b.Err(); err != nil {
		return nil, oneLine(err)
	}
	if err := l.entry.Err(); err != nil {
		return nil, oneLine(err)
	}
	foldKnownConditions(l.k)
	foldTempMoves(l.k)
	if err := l.k.Validate(); err != nil {
		return nil, oneLine(err)
	}
	l.k.Includes = f.Files
	l.k.Notes = append(append([]string(nil), f.Notes...), l.notes...)
	return l.k, nil
}

// oneLine reports the first of several errors (the builder records every one) on one line,
// with how many more there were.
func oneLine(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok || len(j.Unwrap()) < 2 {
		return err
	}
	es := j.Unwrap()
	return fmt.Errorf("%w (and %d more errors)", es[0], len(es)-1)
}

// symKind is what a name stands for.
type symKind uint8

const (
	symVar    symKind = iota // an IR variable
	symConst                 // an integer constant
	symFConst                // a float constant
	symArray                 // an array: v points to its elements (storage or a parameter)
	symTile                  // an aie::tile object
	symLazy                  // a file-scope variable not lowered yet (lowered on first use)
	symObj                   // an object of the AI Engine API (aie::mmul): see api.go
	symView                  // a pointer to the lanes of a vector variable v (T *p = (T *)&v): p[i] only
)

type sym struct {
	kind symKind
	v    *kernel.Var // symVar, symArray
	// constants
	isConst  bool
	val      int64
	unsigned bool
	fval     float32
	// arrays: dimensions (in elements; the first may be 0 for an array parameter of unknown size)
	dims []int
	// lazily lowered file-scope declarations
	decl *DeclStmt
	dc   *Declarator
	// API objects
	obj *apiObj
}

type lowerer struct {
	// deferIncr collects the pointer post-increments of the access being lowered (*p++)
	deferIncr *[]*Postfix
	k         *kernel.Kernel
	b         *kernel.Builder
	entry     *kernel.Builder // code at kernel entry (file-scope and member initialization)
	entryBody []kernel.Stmt
	scopes    []map[string]*sym
	modified  map[string]bool // names assigned after their declaration, incremented or address-taken
	effects   int             // side effects in the current statement below its top level
	effectOn  map[string]bool // the objects they act on
	file      *File
	fn        *FuncDecl
	notes     []string
	noted     map[string]bool
	ctor      []kernel.CtorArg
	// rawWord: a get_ss of a float stream is being lowered where its raw word is moved or
	// dropped (ports.go)
	rawWord     bool
	inlineDepth int // depth of helper inlining
	loops       int // depth of the loops being lowered
	ret         *returnSlot
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

// note records an accepted but ignored construct once per kind.
func (l *lowerer) note(p Pos, key, format string, a ...any) {
	if l.noted == nil {
		l.noted = map[string]bool{}
	}
	if l.noted[key] {
		return
	}
	l.noted[key] = true
	l.notes = append(l.notes, errorf(p, format, a...).Error())
}

func kpos(p Pos) kernel.Pos { return kernel.Pos{File: p.File, Line: p.Line, Col: p.Col} }

func (l *lowerer) push() { l.scopes = append(l.scopes, map[string]*sym{}) }
func (l *lowerer) pop()  { l.scopes = l.scopes[:len(l.scopes)-1] }

func (l *lowerer) bind(name string, s *sym) { l.scopes[len(l.scopes)-1][name] = s }

func (l *lowerer) lookup(name string) *sym {
	name = strings.TrimPrefix(name, "this->")
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if s, ok := l.scopes[i][name]; ok {
			if s.kind == symLazy {
				s = l.materialize(i, name, s)
			}
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

// collectModified records every name that is assigned (other than by its declaration),
// incremented, decremented or has its address taken.
func collectModified(s Stmt, m map[string]bool) {
	var expr func(e Expr)
	target := func(e Expr) {
		for {
			switch x := e.(type) {
			case *Paren:
				e = x.X
				continue
			case *Member:
				if id, ok := x.X.(*Ident); ok && id.Name == "this" {
					m[x.Name] = true
				}
			case *Ident:
				m[x.Name] = true
			}
			break
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
			if e.Recv != nil {
				expr(e.Recv)
			}
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
		case *Member:
			expr(e.X)
		case *InitList:
			for _, x := range e.Elems {
				expr(x)
			}
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
		case *IfStmt:
			expr(s.Cond)
			stmt(s.Then)
			if s.Else != nil {
				stmt(s.Else)
			}
		case *ReturnStmt:
			if s.X != nil {
				expr(s.X)
			}
		}
	}
	stmt(s)
}

// body lowers a list of statements; top marks the kernel function's own body (where a final
// return; is allowed).
func (l *lowerer) body(b *kernel.Builder, stmts []Stmt, top bool) {
	for i, s := range stmts {
		if r, ok := s.(*ReturnStmt); ok {
			l.returnStmt(b, r, top && i == len(stmts)-1 || l.ret != nil && i == len(stmts)-1)
			continue
		}
		l.stmt(b, s)
	}
}

func (l *lowerer) block(b *kernel.Builder, stmts []Stmt) { l.body(b, stmts, false) }

func (l *lowerer) stmt(b *kernel.Builder, s Stmt) {
	l.resetEffects()
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
	case *IfStmt:
		l.ifStmt(b, s)
	case *PragmaStmt:
		l.pragmaStmt(b, s.Pragma)
	case *ReturnStmt:
		l.returnStmt(b, s, false)
	default:
		l.fail(s.stmtPos(), "unsupported statement")
	}
}

// returnStmt: a kernel returns at its end; an inlined helper returns its value there.
func (l *lowerer) returnStmt(b *kernel.Builder, r *ReturnStmt, last bool) {
	if !last {
		l.fail(r.Pos, "return before the end of the function is not supported (sumac's kernel IR has no early exit)")
	}
	if l.ret != nil {
		if r.X == nil {
			if l.ret.v != nil {
				l.fail(r.Pos, "return without a value in a function returning %v", l.ret.v.Type)
			}
			return
		}
		if l.ret.v == nil {
			l.fail(r.Pos, "return with a value in a void function")
		}
		l.resetEffects()
		l.into(b, l.ret.v, r.X)
		l.ret.done = true
		return
	}
	if r.X != nil {
		l.fail(r.Pos, "a kernel function returns nothing")
	}
}

func (l *lowerer) ifStmt(b *kernel.Builder, s *IfStmt) {
	if c, ok := l.constCond(s.Cond); ok {
		taken := s.Then
		if !c {
			taken = s.Else
		}
		if taken != nil {
			l.push()
			l.stmt(b, taken)
			l.pop()
		}
		return
	}
	if s.Constexpr {
		l.fail(ExprPos(s.Cond), "the condition of if constexpr is not a compile-time constant")
	}
	l.resetEffects()
	c := l.expr(b, s.Cond)
	if t := c.Type(); !t.IsIntScalar() && !t.IsPointer() {
		if t.IsScalar() { // a float condition: compare with zero
			c = kernel.V(b.At(kpos(s.Pos)).Op(kernel.OpNe, c, kernel.FImm(0)))
		} else {
			l.fail(ExprPos(s.Cond), "an if condition must be a scalar, have %v", t)
		}
	}
	_, tb, eb := b.At(kpos(s.Pos)).If(c)
	l.push()
	l.stmt(tb, s.Then)
	l.pop()
	if s.Else != nil {
		l.push()
		l.stmt(eb, s.Else)
		l.pop()
	}
	b.At(kpos(s.Pos))
}

// constCond evaluates a condition known at compile time (integer or float constants).
func (l *lowerer) constCond(e Expr) (bool, bool) {
	if v, _, err := constEvalU(e, l.constEnv); err == nil {
		return v != 0, true
	} else if !isNotConst(err) {
		panic(bail{err.(*Error)})
	}
	if f, ok := l.constFloat(e); ok {
		return f != 0, true
	}
	return false, false
}

// pragmaStmt lowers a chess directive written as a statement.
func (l *lowerer) pragmaStmt(b *kernel.Builder, p *Pragma) {
	switch p.Name {
	case "chess_separator_scheduler", "chess_separator":
		n := int64(0)
		if len(p.Args) == 1 && p.Args[0] != nil {
			v, _, err := constEvalU(p.Args[0], l.constEnv)
			if err != nil {
				l.fail(ExprPos(p.Args[0]), "%s: the cycle count must be a compile-time constant", p.Name)
			}
			n = v
		}
		b.At(kpos(p.Pos)).Emit(kernel.OpBarrier, nil, kernel.Imm(n))
	default:
		l.note(p.Pos, p.Name, "%s ignored (it does not change the result, and sumac's scheduler does not use it)", p.Name)
	}
}

func (l *lowerer) constEnv(name string) (int64, bool, bool) {
	s := l.lookup(name)
	if s == nil || s.kind != symConst {
		return 0, false, false
	}
	return s.val, s.unsigned, true
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

func (l *lowerer) forStmt(b *kernel.Builder, s *ForStmt) {
	l.push()
	defer l.pop()
	l.loops++
	defer func() { l.loops-- }()
	var iv *kernel.Var
	var start kernel.Operand
	var ivName string
	switch in := s.Init.(type) {
	case *DeclStmt:
		if len(in.Names) != 1 || in.Names[0].Init == nil {
			l.fail(in.Pos, "the loop must declare and initialize one counter")
		}
		d := in.Names[0]
		t := kernel.ScalarOf(kernel.Int32)
		if in.Type.Base != "auto" {
			t = l.typeOf(in.Type, ctxLocal).t
		}
		if !t.IsIntScalar() || d.Ptr != 0 || len(d.Dims) > 0 {
			l.fail(d.Pos, "loop counter %s must be an integer", d.Name)
		}
		start = l.expr(b, d.Init)
		if in.Type.Base == "auto" && start.Type().IsScalar() && start.Type().Elem != kernel.Float32 && !start.IsImm() {
			t = start.Type()
			if t.Elem.Bits() < 32 {
				t = kernel.ScalarOf(kernel.Int32)
			}
		}
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
		id, ok := stripParen(a.L).(*Ident)
		if !ok {
			l.fail(in.Pos, "the loop initialization must set the counter: i = start")
		}
		ivName = id.Name
		start = l.expr(b, a.R)
	default:
		l.fail(s.Pos, "the loop needs a counter initialization: for (int i = start; ...)")
	}
	if !iv.Type.IsIntScalar() {
		l.fail(s.Pos, "loop counter %s must be an integer", iv.Name)
	}
	if start.IsIntImm() {
		// the counter starts at the constant converted to its type, as C's initialization
		// does: int i = 0xffffffff starts at -1 (the interpreter's move and the backend's trip
		// count then agree)
		start = kernel.Imm(iv.Type.Elem.Wrap(start.Imm))
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
	if l.flattenLoop(b, s, iv, ivName, start, limit, step, cmp) {
		return
	}
	loop, lb := b.At(kpos(s.Pos)).For(iv, start, limit, step)
	loop.Cmp = cmp
	for _, p := range s.Pragmas {
		l.loopPragma(loop, p)
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

// loopPragma applies a chess loop pragma or attribute (UG1079 "Loops", "Loop Flattening and
// Unrolling", "Chess Directives and C++ Attributes").
func (l *lowerer) loopPragma(loop *kernel.Loop, p *Pragma) {
	constArg := func(i int, what string) int64 {
		if i >= len(p.Args) || p.Args[i] == nil {
			l.fail(p.Pos, "%s needs %s", p.Name, what)
		}
		v, _, err := constEvalU(p.Args[i], l.constEnv)
		if err != nil {
			l.fail(ExprPos(p.Args[i]), "%s: %s must be a compile-time constant", p.Name, what)
		}
		return v
	}
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
	case "chess_min_loop_count":
		loop.HasRange, loop.RangeMin = true, constArg(0, "the minimum")
	case "chess_max_loop_count":
		if !loop.HasRange {
			loop.HasRange, loop.RangeMin = true, 0
		}
		loop.RangeMax = constArg(0, "the maximum")
	case "chess_flatten_loop":
		loop.Flatten = true
	case "chess_unroll_loop", "chess_unroll_loop_assuming_multiple":
		n := int64(0)
		if len(p.Args) == 1 && p.Args[0] != nil {
			if id, ok := p.Args[0].(*Ident); ok && id.Name == "*" {
				n = 0
			} else {
				n = constArg(0, "the unroll factor")
			}
		}
		if n == 0 {
			loop.Flatten = true
		} else {
			loop.Unroll = int(n)
		}
	case "chess_loop_count", "chess_pipeline_non_leaf_loop_solution", "chess_pipeline_adjust_preamble",
		"chess_no_hw_loop", "chess_modulo_scheduling_budget_ratio", "chess_no_pipelining", "chess_unroll_loop_fixed",
		"chess_prepare_for_pipelining_once":
		l.note(p.Pos, p.Name, "%s ignored (it guides the chess compiler's scheduler; sumac's scheduler decides itself)", p.Name)
	default:
		l.fail(p.Pos, "pragma %s is not supported (sumac knows chess_prepare_for_pipelining, chess_loop_range, chess_min/max_loop_count, chess_flatten_loop, chess_unroll_loop and the scheduling hints it ignores)", p.Name)
	}
}

// maxFlatten bounds the loops the front end unrolls.
const maxFlatten = 64

// flattenLoop unrolls a loop marked chess_flatten_loop (or chess_unroll_loop(*)), or one whose
// counter a MAC's data-selection parameters use (macCounter), whose trip
// count is a compile-time constant of at most maxFlatten, as the chess compiler does (UG1079
// "Loop Flattening and Unrolling"): each copy of the body sees the counter as a constant, so
// an intrinsic's data selection parameters may depend on it (`fpmac(acc, x, k, ...)` in a
// flattened k loop). It reports whether it did.
func (l *lowerer) flattenLoop(b *kernel.Builder, s *ForStmt, iv *kernel.Var, ivName string, start, limit kernel.Operand, step int64, cmp kernel.Cmp) bool {
	flatten := false
	for _, p := range s.Pragmas {
		if p.Name == "chess_flatten_loop" || p.Name == "chess_unroll_loop" && (len(p.Args) == 0 || p.Args[0] == nil || isIdent(p.Args[0], "*")) {
			flatten = true
		}
	}
	// a counter in a MAC's data-selection parameters needs the copies too (macCounter)
	flatten = flatten || macCounter(s.Body, ivName)
	probe := &kernel.Loop{Start: start, Limit: limit, Step: kernel.Imm(step), Cmp: cmp}
	n, ok := probe.TripCount()
	if !flatten || !ok || n > maxFlatten || isModifiedIn(s.Body, ivName) {
		return false
	}
	for _, p := range s.Pragmas {
		l.loopPragma(probe, p) // the other pragmas are still checked
	}
	for i := int64(0); i < n; i++ {
		l.push()
		v := convertConst(start.Imm+i*step, iv.Type)
		l.bind(ivName, &sym{kind: symConst, isConst: true, val: v, unsigned: !iv.Type.Elem.Signed()})
		if blk, ok := s.Body.(*Block); ok {
			l.block(b, blk.Stmts)
		} else {
			l.stmt(b, s.Body)
		}
		l.pop()
	}
	// the counter's value after the loop (visible when it was declared outside)
	b.At(kpos(s.Pos)).Mov(iv, kernel.Imm(convertConst(start.Imm+n*step, iv.Type)))
	return true
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
	id, ok := stripParen(e).(*Ident)
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
			if x.Recv != nil {
				walk(x.Recv)
			}
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
		case *Member:
			walk(x.X)
		}
	}
	walk(e)
	return found
}

func isModifiedIn(s Stmt, name string) bool {
	single := func(s Stmt) bool {
		m := map[string]bool{}
		collectModified(s, m)
		return m[name]
	}
	declares := func(d *DeclStmt) bool {
		for _, n := range d.Names {
			if n.Name == name {
				return true
			}
		}
		return false
	}
	// a declaration of the same name in a nested scope shadows the counter from there on
	switch s := s.(type) {
	case *Block:
		for _, x := range s.Stmts {
			if isModifiedIn(x, name) {
				return true
			}
			if d, ok := x.(*DeclStmt); ok && declares(d) {
				return false
			}
		}
		return false
	case *ForStmt:
		if d, ok := s.Init.(*DeclStmt); ok && declares(d) {
			return single(d)
		}
		if s.Init != nil && isModifiedIn(s.Init, name) {
			return true
		}
		for _, e := range []Expr{s.Cond, s.Post} {
			if e != nil && single(&ExprStmt{X: e}) {
				return true
			}
		}
		return isModifiedIn(s.Body, name)
	case *IfStmt:
		if single(&ExprStmt{X: s.Cond}) || isModifiedIn(s.Then, name) {
			return true
		}
		return s.Else != nil && isModifiedIn(s.Else, name)
	case nil:
		return false
	}
	return single(s)
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
