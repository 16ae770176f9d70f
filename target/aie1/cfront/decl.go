package cfront

import (
	"fmt"
	"sort"
	"strings"
)

// File-scope declarations: globals, typedefs, enums, namespaces, kernel functions, kernel
// classes (UG1079 "C++ Kernel Class Support") and templates of both (UG1079 "C++ Template
// Support"). Function bodies are kept as token ranges and parsed only for the kernel that is
// lowered (and the helpers it calls), so a header full of code sumac does not need costs
// nothing; templates are kept as token ranges and instantiated by substituting their
// parameters, as the ADF graph's kernel::create(f<...>) / create_object<C<...>>(...) would.

type tparam struct {
	name   string
	isType bool
	def    []Token
}

// funcDef is a function definition (or declaration) at file scope or in a class.
type funcDef struct {
	pos     Pos
	name    string
	class   string    // Class::name definitions: the class's base name
	cargs   [][]Token // Class<a, b>::name: the class's template arguments as written
	tparams []tparam  // nil: not a template
	toks    []Token   // template: the whole definition; otherwise the body's tokens ({ ... })
	decl    *FuncDecl
	static  bool
	hasBody bool
}

// classDef is a kernel class or class template.
type classDef struct {
	pos     Pos
	name    string
	tparams []tparam
	toks    []Token // the definition from "class" to its closing '}'
	inst    map[string]*ClassDecl
}

// unit collects the file-scope declarations.
type unit struct {
	p       *parser
	funcs   []*funcDef
	classes map[string]*classDef
	order   []string
	globals []*DeclStmt
	// bodies: methods defined inside a class (instantiated), by class instance and name
	methods map[string]*funcDef
	// outOfClass: the classes with a constructor or destructor defined outside the class
	outOfClass map[string]Pos
}

func (p *parser) parseFile(instance string) (f *File, err error) {
	defer p.catch(&err)
	u := &unit{p: p, classes: map[string]*classDef{}, methods: map[string]*funcDef{}}
	u.top(false)
	if t := p.peek(); t.Kind != tEOF {
		p.fail(t.Pos, "unexpected %s at file scope", t)
	}
	return u.selectKernel(instance)
}

// top reads declarations until the end of the file (or, in a namespace, its closing '}').
func (u *unit) top(inBraces bool) {
	p := u.p
	for {
		t := p.peek()
		if t.Kind == tEOF {
			if inBraces {
				p.fail(t.Pos, "unterminated namespace or extern block")
			}
			return
		}
		if inBraces && t.Kind == tPunct && t.Text == "}" {
			p.next()
			return
		}
		switch {
		case t.Kind == tPunct && t.Text == ";":
			p.next()
		case t.Kind == tIdent && t.Text == "template":
			u.template()
		case t.Kind == tIdent && t.Text == "namespace":
			p.next()
			for p.peek().Kind == tIdent || p.is("::") {
				p.next()
			}
			if p.accept("=") { // namespace alias
				p.qualifiedName()
				p.expect(";", "after the namespace alias")
				continue
			}
			p.expect("{", "to open the namespace")
			u.top(true)
		case t.Kind == tIdent && t.Text == "extern" && p.peekAt(1).Kind == tString:
			p.next()
			p.next()
			if p.accept("{") {
				u.top(true)
			}
		case t.Kind == tIdent && (t.Text == "using" || t.Text == "typedef"):
			p.parseTypedef()
		case t.Kind == tIdent && t.Text == "static_assert":
			p.next()
			p.skipBalanced()
			p.expect(";", "after static_assert")
		case t.Kind == tIdent && (t.Text == "class" || t.Text == "struct"):
			start := p.i
			if u.isForward() {
				continue
			}
			name := u.classExtent()
			cd := &classDef{pos: t.Pos, name: name, toks: p.toks[start:p.i], inst: map[string]*ClassDecl{}}
			u.addClass(cd)
			p.expect(";", "after the class definition")
		case t.Kind == tIdent && t.Text == "enum":
			u.enum()
		default:
			u.declOrFunc(nil, t.Pos)
		}
	}
}

// isForward skips "class X;" and reports whether it did.
func (u *unit) isForward() bool {
	p := u.p
	if p.peekAt(1).Kind == tIdent && p.isAt(2, ";") {
		p.types[p.peekAt(1).Text] = nil
		p.i += 3
		return true
	}
	return false
}

func (u *unit) addClass(cd *classDef) {
	u.p.types[cd.name] = nil
	u.p.classes[cd.name] = true
	if _, dup := u.classes[cd.name]; !dup {
		u.order = append(u.order, cd.name)
	}
	u.classes[cd.name] = cd
}

// classExtent skips "class Name ... { ... }" and returns the name.
func (u *unit) classExtent() string {
	p := u.p
	kw := p.next()
	p.skipAttributes(nil)
	n := p.next()
	if n.Kind != tIdent {
		p.fail(n.Pos, "expected the %s's name, found %s", kw.Text, n)
	}
	p.types[n.Text] = nil
	for !p.is("{") {
		if p.peek().Kind == tEOF || p.is(";") {
			p.fail(n.Pos, "expected the body of %s %s", kw.Text, n.Text)
		}
		if p.is("(") || p.is("[") {
			p.skipBalanced()
			continue
		}
		p.next()
	}
	p.skipBalanced()
	return n.Text
}

// templateParams reads <typename T, int N = 4, ...>.
func (u *unit) templateParams() []tparam {
	p := u.p
	p.expect("<", "after template")
	var ps []tparam
	if p.accept(">") {
		return ps
	}
	for {
		t := p.peek()
		var tp tparam
		switch {
		case p.is("typename") || p.is("class"):
			p.next()
			tp.isType = true
			if p.is("...") {
				p.fail(t.Pos, "variadic templates are not supported in the AIE kernel subset")
			}
			n := p.next()
			if n.Kind != tIdent {
				p.fail(n.Pos, "expected a template parameter name, found %s", n)
			}
			tp.name = n.Text
		case p.is("template"):
			p.fail(t.Pos, "template template parameters are not supported in the AIE kernel subset")
		default:
			// a non-type parameter: a type (possibly a parameter of this template) and a name
			for p.peekAt(1).Kind == tIdent || p.isAt(1, "::") || p.isAt(1, "*") || p.isAt(1, "<") {
				if p.isAt(1, "<") {
					p.next()
					p.skipAngles()
					continue
				}
				p.next()
			}
			n := p.next()
			if n.Kind != tIdent {
				p.fail(n.Pos, "expected a template parameter name, found %s", n)
			}
			tp.name = n.Text
		}
		if p.accept("=") {
			depth := 0
			for {
				x := p.peek()
				if x.Kind == tEOF {
					p.fail(t.Pos, "unterminated template parameter list")
				}
				if depth == 0 && (x.Text == "," || x.Text == ">" || x.Text == ">>") {
					break
				}
				switch x.Text {
				case "<", "(":
					depth++
				case ">", ")":
					depth--
				}
				tp.def = append(tp.def, p.next())
			}
		}
		ps = append(ps, tp)
		if p.accept(",") {
			continue
		}
		p.expectClose("to close the template parameter list")
		return ps
	}
}

// skipAngles skips a <...> group starting at the current '<'.
func (u *parser) skipAngles() {
	p := u
	open := p.expect("<", "")
	depth := 1
	for depth > 0 {
		t := p.next()
		switch {
		case t.Kind == tEOF:
			p.fail(open.Pos, "this '<' has no matching '>'")
		case t.Text == "<":
			depth++
		case t.Text == ">":
			depth--
		case t.Text == ">>":
			depth -= 2
		case t.Text == "(":
			p.i--
			p.skipBalanced()
		}
	}
}

// template reads a template declaration and keeps its tokens.
func (u *unit) template() {
	p := u.p
	tt := p.next()
	tps := u.templateParams()
	start := p.i
	if p.is("class") || p.is("struct") {
		if u.isForward() {
			return
		}
		name := u.classExtent()
		u.addClass(&classDef{pos: tt.Pos, name: name, tparams: tps, toks: p.toks[start:p.i], inst: map[string]*ClassDecl{}})
		p.expect(";", "after the class template")
		return
	}
	// a function template (or a member of a class template defined outside it)
	u.declOrFunc(tps, tt.Pos)
	_ = start
}

// enum reads enum [class] [Name] [: type] { A = v, B, ... }; its enumerators become int
// constants.
func (u *unit) enum() {
	p := u.p
	et := p.next()
	p.accept("class")
	p.accept("struct")
	if p.peek().Kind == tIdent {
		p.types[p.peek().Text] = &TypeName{Pos: p.peek().Pos, Base: "int"}
		p.next()
	}
	if p.accept(":") {
		p.parseType()
	}
	if p.accept(";") {
		return
	}
	p.expect("{", "to open the enum")
	d := &DeclStmt{Pos: et.Pos, Type: &TypeName{Pos: et.Pos, Base: "int", Const: true}}
	var prev Expr = &IntLit{Pos: et.Pos, Text: "-1", Value: 0}
	first := true
	for !p.is("}") {
		n := p.next()
		if n.Kind != tIdent {
			p.fail(n.Pos, "expected an enumerator, found %s", n)
		}
		dc := &Declarator{Pos: n.Pos, Name: n.Text}
		if p.accept("=") {
			dc.Init = p.parseCond()
		} else if first {
			dc.Init = &IntLit{Pos: n.Pos, Text: "0"}
		} else {
			dc.Init = &Binary{Pos: n.Pos, Op: "+", X: prev, Y: &IntLit{Pos: n.Pos, Text: "1", Value: 1}}
		}
		first = false
		prev = &Ident{Pos: n.Pos, Name: n.Text}
		d.Names = append(d.Names, dc)
		if !p.accept(",") {
			break
		}
	}
	p.expect("}", "to close the enum")
	for !p.is(";") && p.peek().Kind != tEOF {
		p.next()
	}
	p.expect(";", "after the enum")
	u.globals = append(u.globals, d)
}

// declOrFunc reads a file-scope variable declaration or a function definition (or
// prototype); tps are the template parameters of a function template.
func (u *unit) declOrFunc(tps []tparam, at Pos) {
	p := u.p
	start := p.i
	// an out-of-class constructor definition C::C(...) or C<T>::C(...)
	if fd := u.tryCtorDef(tps); fd {
		return
	}
	static := false
	for k := 0; k < 6; k++ {
		if t := p.peekAt(k); t.Text == "static" || t.Text == "inline" {
			static = true
		}
	}
	save := p.i
	ty := p.parseType()
	if ty == nil {
		t := p.peek()
		p.fail(t.Pos, "expected a declaration at file scope, found %s", t)
	}
	// a function: [Class[<args>]::]name(
	k := 0
	var class string
	var cargs [][]Token
	name := ""
	t0 := p.peek()
	if t0.Kind == tIdent && (p.isAt(1, "(") || p.isAt(1, "::") || p.isAt(1, "<")) {
		k = p.i
		if p.isAt(1, "<") || p.isAt(1, "::") {
			class = t0.Text
			p.next()
			if p.is("<") {
				cargs = u.splitAngles()
			}
			if !p.accept("::") {
				p.i = k
				class = ""
				cargs = nil
			}
		}
		if p.peek().Kind == tIdent && p.isAt(1, "(") {
			name = p.next().Text
		} else {
			p.i = k
			class, cargs = "", nil
		}
	}
	if name == "" {
		if tps != nil {
			p.fail(at, "variable templates are not supported in the AIE kernel subset")
		}
		p.i = save
		d := p.parseDecl()
		p.expect(";", "after the declaration")
		u.globals = append(u.globals, d)
		return
	}
	fd := &funcDef{pos: t0.Pos, name: name, class: class, cargs: cargs, tparams: tps, static: static}
	p.skipBalanced() // parameters
	for p.is("const") || p.is("noexcept") || p.is("override") || p.is("final") {
		p.next()
	}
	p.skipAttributes(nil)
	switch {
	case p.accept(";"):
		return // a prototype
	case p.is("="):
		for !p.is(";") && p.peek().Kind != tEOF {
			p.next()
		}
		p.expect(";", "")
		return
	case p.is("{"):
		bstart := p.i
		p.skipBalanced()
		fd.hasBody = true
		if tps != nil {
			fd.toks = p.toks[start:p.i]
		} else {
			fd.toks = p.toks[save:p.i]
			_ = bstart
		}
	default:
		p.fail(p.peek().Pos, "expected the body of function %s, found %s", name, p.peek())
	}
	if tps != nil && class == "" {
		p.funcTmpl[name] = true
	}
	u.funcs = append(u.funcs, fd)
}

// tryCtorDef skips an out-of-class constructor or destructor definition (C::C(...) ...).
func (u *unit) tryCtorDef(tps []tparam) bool {
	p := u.p
	t := p.peek()
	if t.Kind != tIdent || !p.classes[t.Text] {
		return false
	}
	k := 1
	if p.isAt(1, "<") {
		save := p.i
		p.next()
		p.skipAngles()
		k = p.i - save
		p.i = save
	}
	if !p.isAt(k, "::") || !(p.peekAt(k+1).Text == t.Text || p.isAt(k+1, "~")) {
		return false
	}
	// skip it: C<...>::C(params) [: member(args), member{args}, ...] { body }, or ~C()
	// {...}; only the kernel selected may not have one (selectKernel), as its constructor's
	// body would run when the graph starts
	if u.outOfClass == nil {
		u.outOfClass = map[string]Pos{}
	}
	if _, seen := u.outOfClass[t.Text]; !seen {
		u.outOfClass[t.Text] = t.Pos
	}
	for p.peek().Text != "(" {
		if p.peek().Kind == tEOF {
			p.fail(t.Pos, "unexpected end of file in %s's constructor", t.Text)
		}
		p.next()
	}
	p.skipBalanced() // the parameters
	if p.peek().Text == ":" {
		p.next()
		for {
			for p.peek().Text != "(" && p.peek().Text != "{" {
				if p.peek().Kind == tEOF {
					p.fail(t.Pos, "unexpected end of file in %s's constructor", t.Text)
				}
				p.next()
			}
			p.skipBalanced() // one member's initializer
			if p.peek().Text != "," {
				break
			}
			p.next()
		}
	}
	if p.peek().Text != "{" {
		p.fail(p.peek().Pos, "expected %s's constructor body", t.Text)
	}
	p.skipBalanced()
	if p.peek().Text == ";" {
		p.next()
	}
	return true
}

// splitAngles reads <a, b, ...> and returns each argument's tokens.
func (u *unit) splitAngles() [][]Token {
	p := u.p
	open := p.expect("<", "")
	var args [][]Token
	var cur []Token
	depth := 0
	for {
		t := p.next()
		if t.Kind == tEOF {
			p.fail(open.Pos, "this '<' has no matching '>'")
		}
		switch t.Text {
		case "<", "(", "[":
			depth++
		case ")", "]":
			depth--
		case ">":
			if depth == 0 {
				return append(args, cur)
			}
			depth--
		case ",":
			if depth == 0 {
				args = append(args, cur)
				cur = nil
				continue
			}
		}
		cur = append(cur, t)
	}
}

// ---- Selecting and instantiating the kernel ----------------------------------------------

type instanceSpec struct {
	name  string
	targs [][]Token
	hasTA bool
	ctor  []Expr
	text  string
}

// parseInstance reads "Name", "Name<a, b>" or "Name<a, b>(x, y)".
func parseInstance(s string) (*instanceSpec, error) {
	toks, err := lex("--instance", []byte(s))
	if err != nil {
		return nil, err
	}
	var clean []Token
	for _, t := range toks {
		if t.Kind != tNewline {
			clean = append(clean, t)
		}
	}
	p := newParser(clean)
	spec := &instanceSpec{text: s}
	err = func() (err error) {
		defer p.catch(&err)
		spec.name = canonName(p.qualifiedName())
		if p.is("<") {
			u := &unit{p: p}
			spec.targs = u.splitAngles()
			spec.hasTA = true
		}
		if p.is("(") {
			c := &Call{Fun: spec.name}
			p.callArgs(c)
			spec.ctor = c.Args
		}
		if t := p.peek(); t.Kind != tEOF {
			p.fail(t.Pos, "unexpected %s in the instance (want Name, Name<args> or Name<args>(constructor args))", t)
		}
		return nil
	}()
	if err != nil {
		return nil, fmt.Errorf("--instance %q: %v", s, err)
	}
	return spec, nil
}

func joinTokens(ts []Token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 && (t.Space || isIdentStart(t.Text[0]) && isIdentStart(ts[i-1].Text[len(ts[i-1].Text)-1])) {
			b.WriteByte(' ')
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

func instName(name string, args [][]Token) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, joinTokens(a))
	}
	return name + "<" + strings.Join(parts, ", ") + ">"
}

// bindTemplate maps each template parameter to its argument tokens (defaults filled in).
func (u *unit) bindTemplate(at Pos, what string, tps []tparam, args [][]Token) (map[string][]Token, [][]Token) {
	if len(args) > len(tps) {
		u.p.fail(at, "%s takes %d template arguments, %d given", what, len(tps), len(args))
	}
	m := map[string][]Token{}
	full := append([][]Token(nil), args...)
	for i, tp := range tps {
		if i < len(args) {
			m[tp.name] = args[i]
			continue
		}
		if tp.def == nil {
			var names []string
			for _, t := range tps {
				names = append(names, t.name)
			}
			u.p.fail(at, "%s needs template argument %s (parameters: %s)", what, tp.name, strings.Join(names, ", "))
		}
		d := substitute(tp.def, m)
		m[tp.name] = d
		full = append(full, d)
	}
	return m, full
}

// substitute replaces template parameters by their arguments; an argument of more than one
// token that is not a type is parenthesized. Tokens take the position of the parameter's use.
func substitute(toks []Token, m map[string][]Token) []Token {
	var out []Token
	for _, t := range toks {
		a, ok := m[t.Text]
		if t.Kind != tIdent || !ok {
			out = append(out, t)
			continue
		}
		wrap := len(a) > 1 && !looksLikeType(a)
		if wrap {
			out = append(out, Token{Kind: tPunct, Text: "(", Pos: t.Pos})
		}
		for _, x := range a {
			x.Pos, x.From = t.Pos, nil
			out = append(out, x)
		}
		if wrap {
			out = append(out, Token{Kind: tPunct, Text: ")", Pos: t.Pos})
		}
	}
	return out
}

func looksLikeType(a []Token) bool {
	if a[0].Kind != tIdent {
		return false
	}
	p := newParser(append(append([]Token(nil), a...), Token{Kind: tEOF}))
	return p.startsType()
}

func (u *unit) selectKernel(instance string) (*File, error) {
	p := u.p
	f := &File{Globals: u.globals}
	var spec *instanceSpec
	if instance != "" {
		var err error
		if spec, err = parseInstance(instance); err != nil {
			return nil, err
		}
	}
	if spec == nil {
		// the file's kernel: its one kernel class, else its one function
		var classes, tmpls []string
		for _, n := range u.order {
			cd := u.classes[n]
			if cd.tparams != nil {
				tmpls = append(tmpls, n+"<...>")
				continue
			}
			if registered(cd.toks) != "" {
				classes = append(classes, n)
			}
		}
		var fns []*funcDef
		for _, fd := range u.funcs {
			switch {
			case fd.tparams != nil && fd.class == "":
				tmpls = append(tmpls, fd.name+"<...>")
			case fd.class == "" && fd.hasBody:
				fns = append(fns, fd)
			}
		}
		if len(classes) == 0 && len(fns) > 1 { // helpers are static or inline
			var pub []*funcDef
			for _, fd := range fns {
				if !fd.static {
					pub = append(pub, fd)
				}
			}
			if len(pub) >= 1 {
				fns = pub
			}
		}
		switch {
		case len(classes) == 1:
			spec = &instanceSpec{name: classes[0], text: classes[0]}
		case len(classes) == 0 && len(fns) == 1:
			spec = &instanceSpec{name: fns[0].name, text: fns[0].name}
		case len(classes)+len(fns) == 0 && len(tmpls) > 0:
			return nil, errorf(p.peek().Pos, "the kernels here are templates (%s): pass --instance with their arguments, e.g. --instance '%s'", strings.Join(tmpls, ", "), strings.Replace(tmpls[0], "...", "...", 1))
		case len(classes)+len(fns) == 0:
			return nil, errorf(p.peek().Pos, "no kernel function defined")
		default:
			var names []string
			for _, c := range classes {
				names = append(names, c)
			}
			for _, fd := range fns {
				names = append(names, fd.name)
			}
			names = append(names, tmpls...)
			return nil, errorf(p.peek().Pos, "%d kernels defined (%s): pass --instance NAME to pick one", len(names), strings.Join(names, ", "))
		}
	}
	f.CtorArgs = spec.ctor
	if at, ok := u.outOfClass[spec.name]; ok {
		return nil, errorf(at, "constructors and destructors defined outside their class are not supported (define %s's constructor in the class)", spec.name)
	}
	if cd, ok := u.classes[spec.name]; ok {
		c := u.instantiateClass(cd, spec)
		f.Class = c
		f.Instance = c.Name
		fd := u.method(cd, c, spec)
		f.Kernel = fd
		f.Funcs = append(f.Funcs, fd)
	} else {
		fd := u.function(spec)
		f.Kernel = fd
		f.Funcs = append(f.Funcs, fd)
		f.Instance = fd.Name
		if spec.hasTA {
			f.Instance = instName(spec.name, spec.targs)
		}
		if spec.ctor != nil {
			return nil, errorf(ExprPos(spec.ctor[0]), "--instance %q: %s is a function; constructor arguments are for kernel classes", spec.text, spec.name)
		}
	}
	// helpers: every other free function with a body, parsed when called (a function
	// template once per list of template arguments)
	for _, fd := range u.funcs {
		if fd.class == "" && fd.tparams == nil && fd.hasBody && fd.name != f.Kernel.Name {
			f.helpers = append(f.helpers, u.lazyHelper(fd))
		}
		if fd.class == "" && fd.tparams != nil && fd.hasBody && fd.name != f.Kernel.Name {
			f.helpers = append(f.helpers, u.templateHelper(fd))
		}
	}
	return f, nil
}

// registeredIn finds the REGISTER_FUNCTION(C::f) a registerKernelClass body reaches: its
// if/else chain on template arguments (if (LCNT == 5) REGISTER_FUNCTION(C::filter5); ...)
// evaluated on the instance's values; the first REGISTER_FUNCTION when the body does not parse
// or a condition is not a constant.
func (u *unit) registeredIn(toks []Token) string {
	first := registered(toks)
	i := 0
	for i < len(toks) && toks[i].Text != "{" {
		i++
	}
	if i == len(toks) {
		return first
	}
	var blk *Block
	func() {
		defer func() { recover() }()
		blk = u.sub(toks[i:]).parseBlock()
	}()
	if blk == nil {
		return first
	}
	var find func(st Stmt) (string, bool)
	find = func(st Stmt) (string, bool) {
		switch s := st.(type) {
		case *Block:
			for _, x := range s.Stmts {
				if n, ok := find(x); ok {
					return n, true
				}
			}
		case *IfStmt:
			c, err := constEval(s.Cond, nil)
			if err != nil {
				return "", false
			}
			if c != 0 {
				return find(s.Then)
			}
			if s.Else != nil {
				return find(s.Else)
			}
		case *ExprStmt:
			if call, ok := s.X.(*Call); ok && call.Fun == "REGISTER_FUNCTION" && len(call.Args) == 1 {
				if id, ok := call.Args[0].(*Ident); ok {
					n := id.Name
					if j := strings.LastIndex(n, "::"); j >= 0 {
						n = n[j+2:]
					}
					return n, true
				}
			}
		}
		return "", false
	}
	if n, ok := find(blk); ok {
		return n
	}
	return first
}

// registered finds REGISTER_FUNCTION(C::f) in a class's tokens.
func registered(toks []Token) string {
	for i := 0; i+5 < len(toks); i++ {
		if toks[i].Text == "REGISTER_FUNCTION" && toks[i+1].Text == "(" {
			for j := i + 2; j < len(toks) && toks[j].Text != ")"; j++ {
				if toks[j].Kind == tIdent && toks[j+1].Text == ")" {
					return toks[j].Text
				}
			}
		}
	}
	return ""
}

// function instantiates (or finds) a free function.
func (u *unit) function(spec *instanceSpec) *FuncDecl {
	p := u.p
	var cands []*funcDef
	for _, fd := range u.funcs {
		if fd.name == spec.name && fd.class == "" && fd.hasBody {
			cands = append(cands, fd)
		}
	}
	if len(cands) == 0 {
		var names []string
		for _, fd := range u.funcs {
			if fd.class == "" && fd.hasBody {
				names = append(names, fd.name)
			}
		}
		for n := range u.classes {
			names = append(names, n)
		}
		sort.Strings(names)
		p.fail(p.peek().Pos, "--instance %q: no kernel function or class %s here (defined: %s)", spec.text, spec.name, strings.Join(names, ", "))
	}
	fd := cands[0]
	if fd.tparams == nil {
		if spec.hasTA {
			p.fail(fd.pos, "--instance %q: %s is not a template", spec.text, spec.name)
		}
		return u.parseFuncDef(fd, fd.toks, "")
	}
	if !spec.hasTA && len(fd.tparams) > 0 {
		allDef := true
		for _, tp := range fd.tparams {
			allDef = allDef && tp.def != nil
		}
		if !allDef {
			p.fail(fd.pos, "%s is a function template: pass --instance '%s<...>' with its template arguments", fd.name, fd.name)
		}
	}
	m, _ := u.bindTemplate(fd.pos, fd.name, fd.tparams, spec.targs)
	toks := substitute(fd.toks, m)
	return u.parseFuncDef(fd, toks, "")
}

// parseFuncDef parses a function definition from its tokens (result type to '}').
func (u *unit) parseFuncDef(fd *funcDef, toks []Token, class string) *FuncDecl {
	sub := u.sub(toks)
	d := &FuncDecl{Pos: fd.pos, Name: fd.name, Class: class}
	sub.skipAttributes(nil)
	for sub.is("static") || sub.is("inline") || sub.is("constexpr") || sub.is("extern") || sub.is("virtual") {
		sub.next()
	}
	d.Result = sub.parseType()
	if d.Result == nil {
		sub.fail(sub.peek().Pos, "expected the result type of %s, found %s", fd.name, sub.peek())
	}
	// skip to the name
	for !(sub.peek().Text == fd.name && sub.isAt(1, "(")) {
		if sub.peek().Kind == tEOF {
			sub.fail(fd.pos, "internal: lost the name of %s", fd.name)
		}
		sub.next()
	}
	sub.next()
	d.Params = sub.parseParams(fd.name)
	for sub.is("const") || sub.is("noexcept") || sub.is("override") || sub.is("final") {
		sub.next()
	}
	sub.skipAttributes(nil)
	d.Body = sub.parseBlock()
	u.p.notes = append(u.p.notes, sub.notes...)
	return d
}

// sub returns a parser over toks sharing this file's declarations.
func (u *unit) sub(toks []Token) *parser {
	t := append([]Token(nil), toks...)
	end := Pos{}
	if len(toks) > 0 {
		end = toks[len(toks)-1].Pos
	}
	t = append(t, Token{Kind: tEOF, Pos: end})
	return &parser{toks: t, types: u.p.types, classes: u.p.classes, funcTmpl: u.p.funcTmpl}
}

// parseParams reads (params) of a function.
func (p *parser) parseParams(fn string) []*Param {
	p.expect("(", "after the function name")
	var ps []*Param
	if p.accept(")") {
		return ps
	}
	if p.is("void") && p.isAt(1, ")") {
		p.next()
		p.next()
		return ps
	}
	for {
		pt := p.peek()
		ty := p.parseType()
		if ty == nil {
			p.fail(pt.Pos, "expected a parameter type, found %s", pt)
		}
		var dc *Declarator
		if p.is(",") || p.is(")") {
			p.fail(p.peek().Pos, "parameter %d of %s has no name", len(ps)+1, fn)
		}
		dc = p.parseDeclarator(false)
		ty2 := *ty
		ty2.Ptr += dc.Ptr
		ty2.Ref = ty2.Ref || dc.Ref
		ty2.Dims = dc.Dims
		if p.accept("=") {
			p.parseAssign() // default argument: the harness passes every argument
		}
		ps = append(ps, &Param{Pos: dc.Pos, Type: &ty2, Name: dc.Name})
		if !p.accept(",") {
			break
		}
	}
	p.expect(")", "to close the parameter list")
	return ps
}

// instantiateClass parses a (template) class for the instance.
func (u *unit) instantiateClass(cd *classDef, spec *instanceSpec) *ClassDecl {
	p := u.p
	toks := cd.toks
	name := cd.name
	if cd.tparams != nil {
		if !spec.hasTA {
			allDef := true
			for _, tp := range cd.tparams {
				allDef = allDef && tp.def != nil
			}
			if !allDef {
				p.fail(cd.pos, "%s is a class template: pass --instance '%s<...>' with its template arguments", cd.name, cd.name)
			}
		}
		m, full := u.bindTemplate(cd.pos, cd.name, cd.tparams, spec.targs)
		toks = substitute(cd.toks, m)
		name = instName(cd.name, full)
	} else if spec.hasTA {
		p.fail(cd.pos, "--instance %q: %s is not a template", spec.text, cd.name)
	}
	if c, ok := cd.inst[name]; ok {
		return c
	}
	c := u.parseClass(toks, cd.name, name)
	cd.inst[name] = c
	return c
}

// parseClass reads class Name ... { members }.
func (u *unit) parseClass(toks []Token, base, name string) *ClassDecl {
	sub := u.sub(toks)
	kw := sub.next()
	sub.skipAttributes(nil)
	n := sub.next()
	c := &ClassDecl{Pos: n.Pos, Name: name}
	for !sub.is("{") {
		sub.next()
	}
	sub.next()
	defaultPublic := kw.Text == "struct"
	_ = defaultPublic
	for !sub.is("}") {
		t := sub.peek()
		switch {
		case t.Kind == tEOF:
			sub.fail(n.Pos, "unterminated class %s", base)
		case t.Kind == tPunct && t.Text == ";":
			sub.next()
		case t.Kind == tIdent && (t.Text == "public" || t.Text == "private" || t.Text == "protected") && sub.isAt(1, ":"):
			sub.next()
			sub.next()
		case t.Kind == tIdent && (t.Text == "friend" || t.Text == "template"):
			sub.note(t.Pos, "class member %s ... ignored", t.Text)
			u.skipMember(sub)
		case t.Kind == tIdent && t.Text == "static_assert":
			sub.next()
			sub.skipBalanced()
			sub.accept(";")
		case t.Kind == tIdent && (t.Text == "using" || t.Text == "typedef"):
			sub.parseTypedef()
		case t.Kind == tIdent && t.Text == "enum":
			uu := &unit{p: sub}
			uu.enum()
			for _, g := range uu.globals {
				c.Fields = append(c.Fields, &Field{Decl: g})
			}
		case t.Kind == tPunct && t.Text == "~":
			u.skipMember(sub)
		case t.Kind == tIdent && t.Text == base && sub.isAt(1, "("):
			c.Ctors = append(c.Ctors, u.parseCtor(sub))
		case t.Kind == tIdent && t.Text == "static" && sub.isAt(1, "void") && sub.peekAt(2).Text == "registerKernelClass":
			start := sub.i
			u.skipMember(sub)
			body := sub.toks[start:sub.i]
			c.Registered = u.registeredIn(body)
			for i := 0; i+3 < len(body); i++ {
				if body[i].Text == "REGISTER_PARAMETER" && body[i+1].Text == "(" && body[i+2].Kind == tIdent {
					c.Params = append(c.Params, body[i+2].Text)
				}
			}
		default:
			u.member(sub, c)
		}
	}
	u.p.notes = append(u.p.notes, sub.notes...)
	return c
}

// skipMember skips one member declaration or definition.
func (u *unit) skipMember(p *parser) {
	for {
		t := p.peek()
		switch {
		case t.Kind == tEOF:
			return
		case t.Text == ";":
			p.next()
			return
		case t.Text == "{":
			p.skipBalanced()
			p.accept(";")
			return
		case t.Text == "(" || t.Text == "[":
			p.skipBalanced()
		case t.Text == "<" && p.i > 0 && p.toks[p.i-1].Text == "template":
			p.skipAngles()
		default:
			p.next()
		}
	}
}

func (u *unit) parseCtor(p *parser) *Ctor {
	n := p.next()
	ct := &Ctor{Pos: n.Pos}
	ct.Params = p.parseParams(n.Text)
	p.accept("noexcept")
	if p.accept(":") {
		for {
			m := p.next()
			if m.Kind != tIdent {
				p.fail(m.Pos, "expected a member name in the initializer list, found %s", m)
			}
			mi := &MemberInit{Pos: m.Pos, Name: m.Text}
			c := &Call{Fun: m.Text}
			if p.is("{") {
				il := p.parseInitList()
				mi.Args = il.Elems
			} else {
				p.callArgs(c)
				mi.Args = c.Args
			}
			ct.Inits = append(ct.Inits, mi)
			if !p.accept(",") {
				break
			}
		}
	}
	switch {
	case p.is("{"):
		ct.Body = p.parseBlock()
	case p.accept("="):
		p.next() // default / delete
		p.expect(";", "")
	default:
		p.expect(";", "after the constructor")
	}
	p.accept(";")
	return ct
}

// member reads a field or a method of a class.
func (u *unit) member(p *parser, c *ClassDecl) {
	start := p.i
	p.skipAttributes(nil)
	isStatic := false
	for p.is("static") || p.is("inline") || p.is("virtual") || p.is("constexpr") || p.is("explicit") {
		isStatic = isStatic || p.peek().Text == "static"
		if p.peek().Text == "constexpr" {
			break
		}
		p.next()
	}
	ty := p.parseType()
	if ty == nil {
		t := p.peek()
		p.fail(t.Pos, "expected a member declaration, found %s", t)
	}
	if p.peek().Kind == tIdent && p.isAt(1, "(") {
		name := p.next()
		fd := &funcDef{pos: name.Pos, name: name.Text}
		p.skipBalanced()
		for p.is("const") || p.is("noexcept") || p.is("override") || p.is("final") {
			p.next()
		}
		switch {
		case p.is("{"):
			p.skipBalanced()
			fd.hasBody = true
			fd.toks = p.toks[start:p.i]
		case p.accept("="):
			p.next()
			p.expect(";", "")
		default:
			p.expect(";", "after the member function declaration")
		}
		fd.static = isStatic
		u.methods[c.Name+"::"+name.Text] = fd
		c.Methods = append(c.Methods, &FuncDecl{Pos: name.Pos, Name: name.Text, Class: c.Name})
		return
	}
	d := &DeclStmt{Pos: ty.Pos, Type: ty}
	for {
		d.Names = append(d.Names, p.parseDeclarator(true))
		if !p.accept(",") {
			break
		}
	}
	p.expect(";", "after the member declaration")
	if isStatic {
		d.Type.Static = true
	}
	c.Fields = append(c.Fields, &Field{Decl: d})
}

// method finds and parses the kernel member function of a class instance.
func (u *unit) method(cd *classDef, c *ClassDecl, spec *instanceSpec) *FuncDecl {
	p := u.p
	name := c.Registered
	if name == "" {
		var cands []string
		for _, m := range c.Methods {
			if fd := u.methods[c.Name+"::"+m.Name]; fd == nil || !fd.static {
				cands = append(cands, m.Name)
			}
		}
		for _, fd := range u.funcs {
			if fd.class == cd.name && !contains(cands, fd.name) {
				cands = append(cands, fd.name)
			}
		}
		if len(cands) != 1 {
			p.fail(cd.pos, "class %s has no registerKernelClass with REGISTER_FUNCTION, and %d member functions (%s): the kernel is ambiguous", cd.name, len(cands), strings.Join(cands, ", "))
		}
		name = cands[0]
	}
	if fd := u.methods[c.Name+"::"+name]; fd != nil && fd.hasBody {
		return u.parseFuncDef(fd, fd.toks, c.Name)
	}
	for _, fd := range u.funcs {
		if fd.class != cd.name || fd.name != name || !fd.hasBody {
			continue
		}
		toks := fd.toks
		if fd.tparams != nil {
			if cd.tparams == nil {
				p.fail(fd.pos, "%s::%s is defined as a template, but %s is not a class template", cd.name, name, cd.name)
			}
			// the definition's parameters are named by their place in Class<a, b, ...>
			_, full := u.bindTemplate(cd.pos, cd.name, cd.tparams, spec.targs)
			m := map[string][]Token{}
			for j, a := range fd.cargs {
				if len(a) == 1 && a[0].Kind == tIdent && j < len(full) {
					m[a[0].Text] = full[j]
				}
			}
			for _, tp := range fd.tparams {
				if _, ok := m[tp.name]; !ok {
					p.fail(fd.pos, "template parameter %s of %s::%s is not an argument of %s<...>", tp.name, cd.name, name, cd.name)
				}
			}
			toks = substitute(fd.toks, m)
		}
		return u.parseFuncDef(fd, toks, c.Name)
	}
	p.fail(cd.pos, "the kernel member function %s::%s is declared but not defined in the files read", cd.name, name)
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// lazyHelper returns a helper whose body is parsed on first use.
func (u *unit) lazyHelper(fd *funcDef) *helper {
	return &helper{name: fd.name, parse: func() (d *FuncDecl, err error) {
		defer u.p.catch(&err)
		return u.parseFuncDef(fd, fd.toks, ""), nil
	}}
}

// templateHelper is a function template the kernel may call with explicit template
// arguments (f<4, int16>(...)): each list of arguments is substituted and parsed once.
func (u *unit) templateHelper(fd *funcDef) *helper {
	cache := map[string]*FuncDecl{}
	return &helper{name: fd.name, tmpl: func(at Pos, targs [][]Token) (d *FuncDecl, err error) {
		var key []string
		for _, a := range targs {
			for _, t := range a {
				key = append(key, t.Text)
			}
			key = append(key, ",")
		}
		k := strings.Join(key, " ")
		if d, ok := cache[k]; ok {
			return d, nil
		}
		defer u.p.catch(&err)
		m, _ := u.bindTemplate(at, fd.name, fd.tparams, targs)
		d = u.parseFuncDef(fd, substitute(fd.toks, m), "")
		cache[k] = d
		return d, nil
	}}
}

// helper is a function the kernel may call (inlined by the lowering).
type helper struct {
	name  string
	parse func() (*FuncDecl, error)
	// tmpl instantiates a function template with the call's template arguments
	tmpl func(at Pos, targs [][]Token) (*FuncDecl, error)
	decl *FuncDecl
	err  error
	done bool
}

func (h *helper) get() (*FuncDecl, error) {
	if !h.done {
		h.decl, h.err = h.parse()
		h.done = true
	}
	return h.decl, h.err
}
