package cfront

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Parse preprocesses and parses one kernel source file. defines are -D options (NAME or
// NAME=VALUE). Errors are *Error values ("file:line:col: message").
func Parse(file string, src []byte, defines []string) (*File, error) {
	return ParseConfig(file, src, &Config{Defines: defines})
}

// ParseConfig preprocesses and parses one kernel source file with cfg, instantiating the
// kernel cfg.Instance names (or the file's only kernel).
func ParseConfig(file string, src []byte, cfg *Config) (*File, error) {
	toks, files, notes, err := preprocess(file, src, cfg)
	if err != nil {
		return nil, err
	}
	p := newParser(toks)
	p.notes = notes
	f, err := p.parseFile(cfg.Instance)
	if err != nil {
		return nil, err
	}
	f.Files = files
	f.Notes = p.notes
	return f, nil
}

type parser struct {
	toks []Token
	i    int
	// types are the names declared as types (typedefs, classes) and typedefs their meaning
	types    map[string]*TypeName
	classes  map[string]bool
	noGT     int // > ends an expression (inside template arguments)
	notes    []string
	funcTmpl map[string]bool // user function templates (their names take <...> in calls)
}

func newParser(toks []Token) *parser {
	return &parser{toks: toks, types: map[string]*TypeName{}, classes: map[string]bool{}, funcTmpl: map[string]bool{}}
}

// bail carries a syntax error up through the recursive descent.
type bail struct{ err *Error }

func (p *parser) fail(pos Pos, format string, a ...any) {
	panic(bail{errorf(pos, format, a...)})
}

func (p *parser) catch(err *error) {
	if r := recover(); r != nil {
		b, ok := r.(bail)
		if !ok {
			panic(r)
		}
		*err = b.err
	}
}

func (p *parser) note(pos Pos, format string, a ...any) {
	p.notes = append(p.notes, errorf(pos, format, a...).Error())
}

func (p *parser) peek() Token { return p.toks[p.i] }
func (p *parser) peekAt(k int) Token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() Token {
	t := p.toks[p.i]
	if t.Kind != tEOF {
		p.i++
	}
	return t
}
func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.Kind == tPunct || t.Kind == tIdent) && t.Text == text
}
func (p *parser) isAt(k int, text string) bool {
	t := p.peekAt(k)
	return (t.Kind == tPunct || t.Kind == tIdent) && t.Text == text
}
func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}
func (p *parser) expect(text, context string) Token {
	if !p.is(text) {
		t := p.peek()
		p.fail(t.Pos, "expected '%s' %s, found %s", text, context, t)
	}
	return p.next()
}

// expectClose consumes a '>' closing template arguments, splitting '>>' and '>='.
func (p *parser) expectClose(context string) {
	t := p.peek()
	if t.Kind == tPunct && len(t.Text) > 1 && t.Text[0] == '>' {
		p.toks[p.i].Text = t.Text[1:]
		p.toks[p.i].Pos.Col++
		return
	}
	p.expect(">", context)
}

// skipBalanced skips a parenthesized, bracketed or braced group starting at the current
// token and returns its tokens (delimiters excluded).
func (p *parser) skipBalanced() []Token {
	open := p.next()
	closeOf := map[string]string{"(": ")", "[": "]", "{": "}"}
	want := closeOf[open.Text]
	depth := 1
	start := p.i
	for {
		t := p.peek()
		if t.Kind == tEOF {
			p.fail(open.Pos, "this '%s' has no matching '%s'", open.Text, want)
		}
		if t.Kind == tPunct {
			switch t.Text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
		p.next()
		if depth == 0 {
			return p.toks[start : p.i-1]
		}
	}
}

// parseExprOnly parses a whole token list as one expression (for #if).
func (p *parser) parseExprOnly() (e Expr, err error) {
	defer p.catch(&err)
	e = p.parseExpr()
	if t := p.peek(); t.Kind != tEOF {
		p.fail(t.Pos, "unexpected %s in #if expression", t)
	}
	return e, nil
}

var unsupportedKeywords = map[string]string{
	"while": "while loops", "do": "do loops", "switch": "switch statements", "case": "switch statements",
	"goto": "goto", "break": "break", "continue": "continue", "union": "unions", "new": "new",
	"delete": "delete", "throw": "exceptions", "try": "exceptions", "catch": "exceptions",
	"operator": "", "double": "double (the AIE1 has no double-precision arithmetic)",
}

func (p *parser) unsupported(t Token) {
	if what, ok := unsupportedKeywords[t.Text]; ok && what != "" && t.Kind == tIdent {
		p.fail(t.Pos, "%s are not supported in the AIE kernel subset", what)
	}
}

var (
	vectorTypeRE = regexp.MustCompile(`^v[0-9]+(u?int(8|16|32)|c?int(16|32)|c?float|c?acc(48|80)|accfloat|caccfloat)$`)
	windowTypeRE = regexp.MustCompile(`^(input|output)_(window|stream)_[a-z0-9_]+$`)
	scalarTypes  = map[string]bool{
		"int": true, "unsigned": true, "signed": true, "short": true, "long": true, "char": true, "float": true,
		"bool": true, "double": true, "void": true,
		"int8": true, "uint8": true, "int16": true, "uint16": true, "int32": true, "uint32": true, "int64": true, "uint64": true,
		"int8_t": true, "uint8_t": true, "int16_t": true, "uint16_t": true, "int32_t": true, "uint32_t": true,
		"int64_t": true, "uint64_t": true, "size_t": true,
		"acc48": true, "acc80": true, "accfloat": true, "cacc48": true, "cacc80": true, "caccfloat": true,
		"cint16": true, "cint32": true, "cfloat": true, "acc32": true, "acc40": true, "acc64": true, "acc56": true,
		"acc16": true, "acc24": true, "acc72": true,
	}
	// templateTypes are the library class templates kernels name in types (with or without
	// their namespace).
	templateTypes = map[string]bool{
		"input_window": true, "output_window": true, "input_stream": true, "output_stream": true,
		"input_cascade": true, "output_cascade": true, "input_buffer": true, "output_buffer": true,
		"input_circular_buffer": true, "output_circular_buffer": true, "input_async_buffer": true,
		"output_async_buffer": true, "input_async_circular_buffer": true, "output_async_circular_buffer": true,
		"input_pktstream": true, "output_pktstream": true, "extents": true, "margin": true,
		"aie::vector": true, "aie::accum": true, "aie::mask": true, "aie::mmul": true, "aie::tile": true,
		"aie::vector_iterator": true, "aie::const_vector_iterator": true, "aie::circular_iterator": true,
		"aie::vector_elem_ref": true, "aie::vector_ref": true, "aie::cfr": true,
		"std::array": true, "aie::detail::accum": true,
	}
)

// canonName drops the adf:: and :: prefixes of a qualified name.
func canonName(s string) string {
	s = strings.TrimPrefix(s, "::")
	s = strings.TrimPrefix(s, "adf::")
	return s
}

// isTypeName reports whether a (qualified) name names a type.
func (p *parser) isTypeName(s string) bool {
	s = canonName(s)
	if scalarTypes[s] || vectorTypeRE.MatchString(s) || windowTypeRE.MatchString(s) || templateTypes[s] {
		return true
	}
	if s == "auto" || s == "aie::tile" {
		return true
	}
	_, ok := p.types[s]
	return ok
}

var declSpecifiers = map[string]bool{"const": true, "static": true, "constexpr": true, "volatile": true,
	"inline": true, "typename": true, "alignas": true, "__attribute__": true, "extern": true, "register": true,
	"__restrict": true, "restrict": true, "__restrict__": true, "thread_local": true, "mutable": true,
	"__aie_dm_resource_a": true, "__aie_dm_resource_b": true, "chess_storage": true}

// qualifiedAt reads the qualified name starting at token k (a::b::c) and the index after it.
func (p *parser) qualifiedAt(k int) (string, int) {
	t := p.peekAt(k)
	name := ""
	if t.Kind == tPunct && t.Text == "::" {
		k++
		t = p.peekAt(k)
	}
	if t.Kind != tIdent {
		return "", k
	}
	name = t.Text
	k++
	for p.peekAt(k).Text == "::" && p.peekAt(k+1).Kind == tIdent {
		name += "::" + p.peekAt(k+1).Text
		k += 2
	}
	return name, k
}

// startsType reports whether the tokens at the current position begin a declaration.
func (p *parser) startsType() bool {
	t := p.peek()
	if t.Kind == tPunct && t.Text == "[" && p.isAt(1, "[") {
		return p.attrThenType()
	}
	if t.Kind != tIdent && !(t.Kind == tPunct && t.Text == "::") {
		return false
	}
	if declSpecifiers[t.Text] {
		return true
	}
	name, k := p.qualifiedAt(0)
	if !p.isTypeName(name) {
		return false
	}
	// a type name followed by '(' is a functional cast or constructor call in an expression,
	// unless it is a scalar keyword (int(x) is a cast, but "int (&a)[4]" does not occur here)
	if p.peekAt(k).Text == "(" && (p.isAt(k+1, "&") || p.isAt(k+1, "*")) && p.peekAt(k+2).Kind == tIdent && p.isAt(k+3, ")") {
		return true // T (&a)[N], T (*p)[N]: a declarator in parentheses
	}
	if p.peekAt(k).Text == "(" || p.peekAt(k).Text == "::" {
		return false
	}
	return true
}

func (p *parser) attrThenType() bool {
	save := p.i
	defer func() { p.i = save }()
	p.skipAttributes(nil)
	return p.startsType()
}

// skipAttributes skips [[...]], alignas(...), __attribute__((...)) and the chess storage
// qualifiers before or inside a declaration; chess attributes become pragmas in prs.
func (p *parser) skipAttributes(prs *[]*Pragma) {
	for {
		switch {
		case p.is("[") && p.isAt(1, "["):
			p.parseAttribute(prs)
		case p.is("alignas") || p.is("__attribute__") || p.is("chess_storage") || p.is("__declspec"):
			t := p.next()
			if p.is("(") {
				p.skipBalanced()
			} else {
				p.fail(t.Pos, "expected '(' after %s", t.Text)
			}
		case p.is("__aie_dm_resource_a") || p.is("__aie_dm_resource_b"):
			p.next()
		default:
			return
		}
	}
}

// parseAttribute reads [[a, b(x), chess::c]] or [[using chess: a, b]]. chess attributes
// become pragmas (prepare_for_pipelining, min_loop_count, ...); others are ignored.
func (p *parser) parseAttribute(prs *[]*Pragma) {
	lb := p.next()
	p.next()
	ns := ""
	if p.accept("using") {
		n := p.next()
		ns = n.Text
		p.expect(":", "after the attribute namespace")
	}
	for !(p.is("]") && p.isAt(1, "]")) {
		if p.peek().Kind == tEOF {
			p.fail(lb.Pos, "unterminated attribute [[")
		}
		if p.accept(",") {
			continue
		}
		t := p.peek()
		name, k := p.qualifiedAt(0)
		if name == "" {
			p.fail(t.Pos, "expected an attribute name, found %s", t)
		}
		p.i += k
		if ns != "" {
			name = ns + "::" + name
		}
		pr := &Pragma{Pos: t.Pos}
		if p.is("(") {
			pr.Args = p.parsePragmaArgs(name)
		}
		if rest, ok := strings.CutPrefix(name, "chess::"); ok {
			pr.Name = "chess_" + rest
			if prs != nil {
				*prs = append(*prs, pr)
			} else {
				p.note(t.Pos, "attribute %s ignored here (it applies to loops)", name)
			}
		}
	}
	p.next()
	p.next()
}

// parsePragmaArgs reads (a, b) or (a, ) of a pragma or attribute.
func (p *parser) parsePragmaArgs(name string) []Expr {
	var args []Expr
	open := p.expect("(", "")
	if p.accept(")") {
		return nil
	}
	for {
		if p.is(",") {
			args = append(args, nil)
		} else if p.is(")") {
			args = append(args, nil)
			p.next()
			return args
		} else {
			args = append(args, p.parseAssign())
		}
		if p.accept(")") {
			return args
		}
		if !p.accept(",") {
			p.fail(p.peek().Pos, "expected ',' or ')' in %s(...) opened at %v, found %s", name, open.Pos, p.peek())
		}
	}
}

// parseType parses a type: specifiers, the base name with template arguments, '*'s with
// their qualifiers and a '&'. It returns nil, consuming nothing, if the next token does not
// start a type.
func (p *parser) parseType() *TypeName {
	if !p.startsType() {
		return nil
	}
	t := p.peek()
	ty := &TypeName{Pos: t.Pos}
	for {
		p.skipAttributes(nil)
		switch {
		case p.is("const") || p.is("constexpr"):
			ty.Const = true
			p.next()
			continue
		case p.is("static") || p.is("thread_local"):
			ty.Static = true
			p.next()
			continue
		case p.is("volatile") || p.is("inline") || p.is("typename") || p.is("extern") || p.is("register") || p.is("mutable"):
			p.next()
			continue
		}
		break
	}
	b := p.peek()
	if b.Kind != tIdent && b.Text != "::" {
		p.fail(b.Pos, "expected a type name, found %s", b)
	}
	ty.Pos = b.Pos
	switch b.Text {
	case "unsigned", "signed", "short", "long", "char", "int":
		ty.Base = p.parseScalarWords()
	default:
		name, k := p.qualifiedAt(0)
		if !p.isTypeName(name) {
			p.fail(b.Pos, "expected a type name, found %s", b)
		}
		p.i += k
		ty.Base = canonName(name)
		if p.is("<") {
			ty.Args = p.parseTemplateArgs()
		}
		// a typedef stands for its meaning
		if td, ok := p.types[ty.Base]; ok && td != nil {
			c := *td
			c.Pos = ty.Pos
			c.Const = c.Const || ty.Const
			c.Static = ty.Static
			c.Ptr += 0
			ty = &c
			ty.Dims = append([]Expr(nil), td.Dims...)
		}
	}
	for p.is("const") || p.is("volatile") {
		ty.Const = ty.Const || p.peek().Text == "const"
		p.next()
	}
	for p.is("*") {
		p.next()
		ty.Ptr++
		for p.is("__restrict") || p.is("__restrict__") || p.is("restrict") || p.is("const") || p.is("volatile") {
			if p.peek().Text == "const" || p.peek().Text == "volatile" {
				ty.Const = ty.Const || p.peek().Text == "const"
			} else {
				ty.Restrict = true
			}
			p.next()
		}
	}
	if p.is("&") || p.is("&&") {
		ty.Ref = true
		p.next()
		for p.is("__restrict") || p.is("__restrict__") || p.is("restrict") {
			ty.Restrict = true
			p.next()
		}
	}
	p.skipAttributes(nil)
	return ty
}

// parseScalarWords reads the multi-word scalar types (unsigned int, long long, ...) and
// returns the canonical spelling.
func (p *parser) parseScalarWords() string {
	uns, sign, short, char, long, isInt := false, false, false, false, 0, false
	first := p.peek()
	for {
		t := p.peek()
		switch t.Text {
		case "unsigned":
			uns = true
		case "signed":
			sign = true
		case "short":
			short = true
		case "char":
			char = true
		case "long":
			long++
		case "int":
			isInt = true
		default:
			switch {
			case long >= 2 || (long == 1 && !isInt && !short && !char):
				if long == 1 {
					p.fail(first.Pos, "long is not supported in the AIE kernel subset (use int)")
				}
				p.fail(first.Pos, "64-bit integers (long long) are not supported: the AIE1 scalar unit is 32-bit")
			case char && uns:
				return "uint8"
			case char:
				return "int8"
			case short && uns:
				return "uint16"
			case short:
				return "int16"
			case uns:
				return "unsigned int"
			}
			_ = sign
			return "int"
		}
		p.next()
	}
}

// parseTemplateArgs reads <a, b, ...>: each argument a type or a constant expression.
func (p *parser) parseTemplateArgs() []*TArg {
	p.expect("<", "")
	var args []*TArg
	p.noGT++
	defer func() { p.noGT-- }()
	if t := p.peek(); t.Kind == tPunct && t.Text[0] == '>' {
		p.expectClose("to close the template arguments")
		return args
	}
	for {
		if p.startsType() {
			args = append(args, &TArg{Type: p.parseType()})
		} else {
			args = append(args, &TArg{Expr: p.parseCond()})
		}
		if p.accept(",") {
			continue
		}
		p.expectClose("to close the template arguments")
		return args
	}
}

// tryTemplateArgs parses <...> after a name if what follows is a template argument list that
// is followed by '(' , '::' or '{'; otherwise it consumes nothing.
func (p *parser) tryTemplateArgs() (args []*TArg, ok bool) {
	save := p.i
	saved := append([]Token(nil), p.toks[p.i:min(p.i+64, len(p.toks))]...)
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bail); !isBail {
				panic(r)
			}
			copy(p.toks[save:], saved)
			p.i = save
			args, ok = nil, false
		}
	}()
	args = p.parseTemplateArgs()
	if p.is("(") || p.is("::") || p.is("{") {
		return args, true
	}
	copy(p.toks[save:], saved)
	p.i = save
	return nil, false
}

// templateCallees are the library functions and casts called with explicit template
// arguments (with or without namespace).
var templateCallees = map[string]bool{
	"static_cast": true, "reinterpret_cast": true, "const_cast": true,
	"readincr_v": true, "window_readincr_v": true, "window_read_v": true, "window_readdecr_v": true,
	"window_incr_v": true, "window_decr_v": true, "writeincr_v": true,
}

func (p *parser) takesTemplateArgs(name string) bool {
	n := canonName(name)
	return strings.Contains(n, "::") || templateCallees[n] || p.funcTmpl[n] || p.isTypeName(n)
}

func (p *parser) parseBlock() *Block {
	lb := p.expect("{", "to open a block")
	b := &Block{Pos: lb.Pos}
	for !p.is("}") {
		if p.peek().Kind == tEOF {
			p.fail(lb.Pos, "unterminated block: this '{' has no matching '}'")
		}
		b.Stmts = append(b.Stmts, p.parseStmt())
	}
	b.Rbr = p.next().Pos
	return b
}

// chessStmtPragmas are chess directives that stand as statements.
var chessStmtPragmas = map[string]bool{"chess_separator_scheduler": true, "chess_separator": true,
	"chess_report": true, "chess_memory_fence": true}

func (p *parser) parseStmt() Stmt {
	t := p.peek()
	switch {
	case t.Kind == tPunct && t.Text == "{":
		return p.parseBlock()
	case t.Kind == tPunct && t.Text == ";":
		p.next()
		return &EmptyStmt{Pos: t.Pos}
	case t.Kind == tPunct && t.Text == "[" && p.isAt(1, "["):
		var prs []*Pragma
		p.skipAttributesInto(&prs)
		if p.is("for") {
			f := p.parseFor()
			f.Pragmas = append(prs, f.Pragmas...)
			return f
		}
		for _, pr := range prs {
			p.note(pr.Pos, "attribute %s ignored: it applies to loops", pr.Name)
		}
		return p.parseStmt()
	case t.Kind == tIdent && t.Text == "for":
		return p.parseFor()
	case t.Kind == tIdent && t.Text == "if":
		return p.parseIf()
	case t.Kind == tIdent && t.Text == "else":
		p.fail(t.Pos, "else without if")
	case t.Kind == tIdent && t.Text == "return":
		p.next()
		r := &ReturnStmt{Pos: t.Pos}
		if !p.is(";") {
			r.X = p.parseExpr()
		}
		p.expect(";", "after return")
		return r
	case t.Kind == tIdent && strings.HasPrefix(t.Text, "chess_"):
		if chessStmtPragmas[t.Text] || p.isAt(1, "(") || p.isAt(1, ";") {
			p.next()
			pr := &Pragma{Pos: t.Pos, Name: t.Text}
			if p.is("(") {
				pr.Args = p.parsePragmaArgs(t.Text)
			}
			p.accept(";")
			return &PragmaStmt{Pos: t.Pos, Pragma: pr}
		}
	case t.Kind == tIdent && (t.Text == "static_assert"):
		p.next()
		p.skipBalanced()
		p.expect(";", "after static_assert")
		return &EmptyStmt{Pos: t.Pos}
	case t.Kind == tIdent && (t.Text == "using" || t.Text == "typedef"):
		p.parseTypedef()
		return &EmptyStmt{Pos: t.Pos}
	}
	if t.Kind == tIdent {
		p.unsupported(t)
	}
	if d := p.parseDecl(); d != nil {
		p.expect(";", "after the declaration")
		return d
	}
	e := p.parseExpr()
	p.expect(";", "after the expression")
	return &ExprStmt{Pos: t.Pos, X: e}
}

func (p *parser) skipAttributesInto(prs *[]*Pragma) { p.skipAttributes(prs) }

func (p *parser) parseIf() Stmt {
	it := p.next()
	s := &IfStmt{Pos: it.Pos}
	if p.accept("constexpr") {
		s.Constexpr = true
	}
	p.expect("(", "after if")
	if p.startsType() {
		p.fail(p.peek().Pos, "a declaration in an if condition is not supported")
	}
	s.Cond = p.parseExpr()
	p.expect(")", "to close the if condition")
	s.Then = p.parseStmt()
	if _, ok := s.Then.(*DeclStmt); ok {
		p.fail(s.Then.stmtPos(), "a declaration cannot be the body of an if without braces")
	}
	if p.accept("else") {
		s.Else = p.parseStmt()
		if _, ok := s.Else.(*DeclStmt); ok {
			p.fail(s.Else.stmtPos(), "a declaration cannot be the body of an else without braces")
		}
	}
	return s
}

// parseTypedef reads typedef T name; or using name = T; (using namespace X; is skipped).
func (p *parser) parseTypedef() {
	t := p.next()
	if t.Text == "using" {
		if p.accept("namespace") {
			p.qualifiedName()
			p.expect(";", "after using namespace")
			return
		}
		n := p.next()
		if n.Kind != tIdent {
			p.fail(n.Pos, "expected a name after using, found %s", n)
		}
		if !p.accept("=") {
			// using X::name; brings a name in scope: nothing to do
			for !p.is(";") && p.peek().Kind != tEOF {
				p.next()
			}
			p.expect(";", "after using")
			return
		}
		ty := p.parseType()
		if ty == nil {
			p.fail(p.peek().Pos, "expected a type after using %s =", n.Text)
		}
		p.types[n.Text] = ty
		p.expect(";", "after the alias")
		return
	}
	ty := p.parseType()
	if ty == nil {
		p.fail(p.peek().Pos, "expected a type after typedef, found %s", p.peek())
	}
	for {
		ptr := 0
		for p.accept("*") {
			ptr++
		}
		n := p.next()
		if n.Kind != tIdent {
			p.fail(n.Pos, "expected the typedef's name, found %s", n)
		}
		c := *ty
		c.Ptr += ptr
		for p.is("[") {
			p.next()
			c.Dims = append(c.Dims, p.parseExpr())
			p.expect("]", "to close the array dimension")
		}
		p.types[n.Text] = &c
		if !p.accept(",") {
			break
		}
	}
	p.expect(";", "after the typedef")
}

func (p *parser) qualifiedName() string {
	name, k := p.qualifiedAt(0)
	if name == "" {
		p.fail(p.peek().Pos, "expected a name, found %s", p.peek())
	}
	p.i += k
	return name
}

// parseDecl parses "type name [= init], ..." without the ';', or returns nil.
func (p *parser) parseDecl() *DeclStmt {
	t := p.peek()
	ty := p.parseType()
	if ty == nil {
		return nil
	}
	if ty.Base == "void" && ty.Ptr == 0 {
		p.fail(t.Pos, "a variable cannot have type void")
	}
	d := &DeclStmt{Pos: t.Pos, Type: ty}
	for {
		d.Names = append(d.Names, p.parseDeclarator(true))
		if !p.accept(",") {
			break
		}
	}
	return d
}

// parseDeclarator reads [*...][&] name [dims] [= init | {init} | (args)], or (&name)[N].
func (p *parser) parseDeclarator(withInit bool) *Declarator {
	ptr, ref := 0, false
	for {
		switch {
		case p.accept("*"):
			ptr++
			for p.is("__restrict") || p.is("__restrict__") || p.is("restrict") || p.is("const") {
				p.next()
			}
			continue
		case p.accept("&"):
			ref = true
			continue
		}
		break
	}
	p.skipAttributes(nil)
	paren := false
	if p.is("(") && (p.isAt(1, "&") || p.isAt(1, "*")) {
		// (&name)[N]: a reference (or pointer) to an array
		p.next()
		if p.next().Text == "&" {
			ref = true
		} else {
			ptr++
		}
		paren = true
	}
	n := p.next()
	if n.Kind != tIdent {
		p.fail(n.Pos, "expected a variable name, found %s", n)
	}
	if p.isTypeName(n.Text) || (unsupportedKeywords[n.Text] != "" && n.Text != "operator") {
		p.fail(n.Pos, "%q is a type or keyword, not a variable name", n.Text)
	}
	if paren {
		p.expect(")", "after the name of an array reference")
	}
	dc := &Declarator{Pos: n.Pos, Name: n.Text, Ptr: ptr, Ref: ref}
	for p.is("[") {
		p.next()
		if p.is("]") {
			dc.Dims = append(dc.Dims, nil)
		} else {
			dc.Dims = append(dc.Dims, p.parseExpr())
		}
		p.expect("]", "to close the array dimension")
	}
	p.skipAttributes(nil)
	for p.is("chess_storage") {
		p.next()
		p.skipBalanced()
	}
	if !withInit {
		return dc
	}
	switch {
	case p.accept("="):
		if p.is("{") {
			dc.Init = p.parseInitList()
		} else {
			dc.Init = p.parseAssign()
		}
	case p.is("{"):
		dc.Init = p.parseInitList()
	case p.is("("):
		// constructor-style initialization: T x(a, b)
		lp := p.next()
		il := &InitList{Pos: lp.Pos}
		for !p.is(")") {
			il.Elems = append(il.Elems, p.parseAssign())
			if !p.accept(",") {
				break
			}
		}
		p.expect(")", "to close the initializer")
		dc.Init = &Paren{Pos: lp.Pos, X: il}
	}
	return dc
}

func (p *parser) parseInitList() *InitList {
	lb := p.expect("{", "")
	il := &InitList{Pos: lb.Pos}
	for !p.is("}") {
		if p.is("{") {
			il.Elems = append(il.Elems, p.parseInitList())
		} else {
			il.Elems = append(il.Elems, p.parseAssign())
		}
		if !p.accept(",") {
			break
		}
	}
	p.expect("}", "to close the initializer list")
	return il
}

func (p *parser) parseFor() *ForStmt {
	ft := p.next()
	fs := &ForStmt{Pos: ft.Pos}
	p.expect("(", "after for")
	if !p.is(";") {
		if d := p.parseDecl(); d != nil {
			fs.Init = d
		} else {
			e := p.parseExpr()
			fs.Init = &ExprStmt{Pos: ExprPos(e), X: e}
		}
	}
	p.expect(";", "after the loop initialization")
	if !p.is(";") {
		fs.Cond = p.parseExpr()
	}
	p.expect(";", "after the loop condition")
	if !p.is(")") {
		fs.Post = p.parseExpr()
	}
	p.expect(")", "to close the for header")
	for {
		if p.is("[") && p.isAt(1, "[") {
			p.skipAttributes(&fs.Pragmas)
			continue
		}
		if !(p.peek().Kind == tIdent && strings.HasPrefix(p.peek().Text, "chess_")) {
			break
		}
		pt := p.next()
		pr := &Pragma{Pos: pt.Pos, Name: pt.Text}
		if p.is("(") {
			pr.Args = p.parsePragmaArgs(pt.Text)
		}
		fs.Pragmas = append(fs.Pragmas, pr)
	}
	fs.Body = p.parseStmt()
	if _, ok := fs.Body.(*DeclStmt); ok {
		p.fail(fs.Body.stmtPos(), "a declaration cannot be the body of a for loop without braces")
	}
	return fs
}

func (p *parser) parseExpr() Expr {
	e := p.parseAssign()
	if p.is(",") && p.noGT == 0 {
		p.fail(p.peek().Pos, "the comma operator is not supported in the AIE kernel subset")
	}
	return e
}

var assignOps = map[string]bool{"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "<<=": true, ">>=": true, "&=": true, "|=": true, "^=": true}

func (p *parser) parseAssign() Expr {
	l := p.parseCond()
	if t := p.peek(); t.Kind == tPunct && assignOps[t.Text] && !(p.noGT > 0 && t.Text[0] == '>') {
		p.next()
		var r Expr
		if p.is("{") {
			r = p.parseInitList()
		} else {
			r = p.parseAssign()
		}
		return &Assign{Pos: t.Pos, Op: t.Text, L: l, R: r}
	}
	return l
}

func (p *parser) parseCond() Expr {
	c := p.parseBinary(0)
	if t := p.peek(); t.Kind == tPunct && t.Text == "?" {
		p.next()
		x := p.parseAssign()
		p.expect(":", "in a conditional expression")
		y := p.parseCond()
		return &Cond{Pos: t.Pos, C: c, X: x, Y: y}
	}
	return c
}

// binary operator precedence, loosest first (C 6.5.5-6.5.14)
var binPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

func (p *parser) parseBinary(min int) Expr {
	x := p.parseUnary()
	for {
		t := p.peek()
		prec, ok := binPrec[t.Text]
		if t.Kind != tPunct || !ok || prec <= min {
			return x
		}
		if p.noGT > 0 && (t.Text == ">" || t.Text == ">>" || t.Text == ">=") {
			return x
		}
		p.next()
		y := p.parseBinary(prec)
		x = &Binary{Pos: t.Pos, Op: t.Text, X: x, Y: y}
	}
}

func (p *parser) parseUnary() Expr {
	t := p.peek()
	if t.Kind == tPunct {
		switch t.Text {
		case "-", "+", "!", "~", "*", "&", "++", "--":
			p.next()
			return &Unary{Pos: t.Pos, Op: t.Text, X: p.parseUnary()}
		case "(":
			if p.castAhead() {
				p.next()
				ty := p.parseType()
				p.expect(")", "to close the cast")
				return &Cast{Pos: t.Pos, Type: ty, X: p.parseUnary()}
			}
		}
	}
	if t.Kind == tIdent && t.Text == "sizeof" {
		p.next()
		s := &SizeOf{Pos: t.Pos}
		if p.is("(") && p.castAhead() {
			p.next()
			s.Type = p.parseType()
			p.expect(")", "to close sizeof")
			return s
		}
		s.X = p.parseUnary()
		return s
	}
	return p.parsePostfix()
}

// castAhead reports whether "(" starts a C cast: ( type ) followed by an operand.
func (p *parser) castAhead() bool {
	n := p.peekAt(1)
	if n.Kind != tIdent && n.Text != "::" {
		return false
	}
	save := p.i
	p.i++
	ok := p.startsType()
	p.i = save
	return ok
}

func (p *parser) parsePostfix() Expr {
	x := p.parsePrimary()
	for {
		t := p.peek()
		switch {
		case t.Kind == tPunct && t.Text == "[":
			p.next()
			old := p.noGT
			p.noGT = 0
			i := p.parseExpr()
			p.noGT = old
			p.expect("]", "to close the index")
			x = &Index{Pos: t.Pos, X: x, Index: i}
		case t.Kind == tPunct && (t.Text == "++" || t.Text == "--"):
			p.next()
			x = &Postfix{Pos: t.Pos, Op: t.Text, X: x}
		case t.Kind == tPunct && t.Text == "(":
			p.fail(t.Pos, "only named functions, intrinsics and member functions can be called")
		case t.Kind == tPunct && (t.Text == "." || t.Text == "->"):
			p.next()
			p.accept("template")
			n := p.next()
			if n.Kind != tIdent {
				p.fail(n.Pos, "expected a member name after %s, found %s", t.Text, n)
			}
			var targs []*TArg
			hasTA := false
			if p.is("<") {
				if a, ok := p.tryTemplateArgs(); ok {
					targs, hasTA = a, true
				}
			}
			if p.is("(") {
				c := &Call{Pos: n.Pos, Fun: n.Text, TArgs: targs, HasTA: hasTA, Recv: x, Arrow: t.Text == "->"}
				p.callArgs(c)
				x = c
				continue
			}
			if hasTA {
				p.fail(n.Pos, "member %s with template arguments must be called", n.Text)
			}
			x = &Member{Pos: t.Pos, X: x, Name: n.Text, Arrow: t.Text == "->"}
		default:
			return x
		}
	}
}

func (p *parser) callArgs(c *Call) {
	p.expect("(", "")
	old := p.noGT
	p.noGT = 0
	defer func() { p.noGT = old }()
	for !p.is(")") {
		if p.is("{") {
			c.Args = append(c.Args, p.parseInitList())
		} else {
			c.Args = append(c.Args, p.parseAssign())
		}
		if !p.accept(",") {
			break
		}
	}
	c.Rpar = p.expect(")", "to close the argument list of "+c.Fun).Pos
}

// StrLit is a string literal (only printf-style calls, which the lowering ignores, take them).
type StrLit struct {
	Pos  Pos
	Text string
}

func (e *StrLit) exprPos() Pos { return e.Pos }

func (p *parser) parsePrimary() Expr {
	t := p.peek()
	if t.Kind == tIdent && t.Text == "typeid" && p.isAt(1, "(") {
		// typeid(T).name(): a string, only for the printf-style calls sumac ignores
		p.next()
		depth := 0
		for {
			x := p.next()
			if x.Kind == tEOF {
				p.fail(t.Pos, "unterminated typeid(...)")
			}
			if x.Text == "(" {
				depth++
			} else if x.Text == ")" {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if p.is(".") && p.isAt(1, "name") && p.isAt(2, "(") && p.isAt(3, ")") {
			p.i += 4
		}
		return &StrLit{Pos: t.Pos, Text: "\"typeid\""}
	}
	switch t.Kind {
	case tNumber:
		p.next()
		return p.numLit(t)
	case tString:
		p.next()
		s := &StrLit{Pos: t.Pos, Text: t.Text}
		for p.peek().Kind == tString { // adjacent literals concatenate
			s.Text += p.next().Text
		}
		return s
	case tIdent:
		p.unsupported(t)
		if t.Text == "this" {
			p.next()
			return &Ident{Pos: t.Pos, Name: "this"}
		}
		if t.Text == "operator" { // operator+(a, b): the C++ spelling of a vector add
			p.next()
			op := p.next()
			if op.Kind != tPunct || !strings.Contains("+-*", op.Text) || len(op.Text) != 1 {
				p.fail(op.Pos, "operator%s is not supported (only operator+, operator-, operator*)", op.Text)
			}
			if !p.is("(") {
				p.fail(p.peek().Pos, "expected '(' after operator%s", op.Text)
			}
			c := &Call{Pos: t.Pos, Fun: "operator" + op.Text}
			p.callArgs(c)
			return c
		}
		if t.Text == "static_cast" || t.Text == "reinterpret_cast" || t.Text == "const_cast" {
			p.next()
			args := p.parseTemplateArgs()
			if len(args) != 1 || args[0].Type == nil {
				p.fail(t.Pos, "%s takes one type argument", t.Text)
			}
			p.expect("(", "after "+t.Text+"<...>")
			x := p.parseExpr()
			p.expect(")", "to close "+t.Text)
			return &Cast{Pos: t.Pos, Type: args[0].Type, X: x, Named: t.Text}
		}
	case tPunct:
		if t.Text == "(" {
			p.next()
			old := p.noGT
			p.noGT = 0
			x := p.parseExpr()
			p.noGT = old
			p.expect(")", "to close the parenthesis")
			return &Paren{Pos: t.Pos, X: x}
		}
		if t.Text == "{" {
			return p.parseInitList()
		}
		if t.Text != "::" {
			p.next()
			p.fail(t.Pos, "expected an expression, found %s", t)
		}
	default:
		p.next()
		p.fail(t.Pos, "expected an expression, found %s", t)
	}
	name, k := p.qualifiedAt(0)
	if name == "" {
		p.next()
		p.fail(t.Pos, "expected an expression, found %s", t)
	}
	p.i += k
	var targs []*TArg
	hasTA := false
	if p.is("<") && p.takesTemplateArgs(name) {
		if a, ok := p.tryTemplateArgs(); ok {
			targs, hasTA = a, true
			// Class<args>::member
			for p.is("::") && p.peekAt(1).Kind == tIdent {
				p.next()
				name += "<>::" + p.next().Text
			}
		}
	}
	if p.isTypeName(name) && !hasTA && !p.is("(") && !p.is("{") && !p.is("::") {
		p.fail(t.Pos, "unexpected type name %s in an expression", name)
	}
	if p.is("(") {
		// a functional cast of a scalar type: float(x), int(x)
		if scalarTypes[name] && !hasTA {
			p.next()
			x := p.parseExpr()
			p.expect(")", "to close the cast")
			return &Cast{Pos: t.Pos, Type: &TypeName{Pos: t.Pos, Base: name}, X: x, Named: "functional"}
		}
		c := &Call{Pos: t.Pos, Fun: canonName(name), TArgs: targs, HasTA: hasTA}
		p.callArgs(c)
		return c
	}
	if p.is("{") && hasTA {
		il := p.parseInitList()
		return &Call{Pos: t.Pos, Fun: canonName(name), TArgs: targs, HasTA: true, Args: il.Elems, Rpar: il.Pos}
	}
	if n, ok := p.mmulSize(name, targs); ok {
		return &IntLit{Pos: t.Pos, Text: fmt.Sprint(n), Value: uint64(n)}
	}
	return &Ident{Pos: t.Pos, Name: canonName(name), TArgs: targs, HasTA: hasTA}
}

// mmulSize reads aie::mmul<M, K, N, ...>::size_A (M*K), size_B (K*N) and size_C (M*N), also
// through an alias (using MMUL = aie::mmul<...>; MMUL::size_A), as constants.
func (p *parser) mmulSize(name string, targs []*TArg) (int64, bool) {
	i := strings.LastIndex(name, "::")
	if i < 0 {
		return 0, false
	}
	base, member := name[:i], name[i+2:]
	if member != "size_A" && member != "size_B" && member != "size_C" {
		return 0, false
	}
	args := targs
	if b, ok := strings.CutSuffix(base, "<>"); ok {
		base = b
	} else if td := p.types[base]; td != nil {
		base, args = td.Base, td.Args
	}
	if canonName(base) != "aie::mmul" || len(args) < 3 {
		return 0, false
	}
	var d [3]int64
	for k := 0; k < 3; k++ {
		if args[k].Expr == nil {
			return 0, false
		}
		v, err := constEval(args[k].Expr, nil)
		if err != nil {
			return 0, false
		}
		d[k] = v
	}
	switch member {
	case "size_A":
		return d[0] * d[1], true
	case "size_B":
		return d[1] * d[2], true
	}
	return d[0] * d[2], true
}

// numLit turns a number token into an integer or floating-point literal.
func (p *parser) numLit(t Token) Expr {
	if strings.HasPrefix(t.Text, "'") {
		v, ok := charValue(t.Text)
		if !ok {
			p.fail(t.Pos, "unsupported character literal %s", t.Text)
		}
		return &IntLit{Pos: t.Pos, Text: t.Text, Value: uint64(v)}
	}
	s := strings.ToLower(t.Text)
	if !strings.HasPrefix(s, "0x") && (strings.ContainsAny(s, ".e") || strings.HasSuffix(s, "f")) {
		f := strings.TrimRight(s, "fl")
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			p.fail(t.Pos, "malformed floating-point literal %s", t.Text)
		}
		if !strings.HasSuffix(s, "f") {
			p.note(t.Pos, "double literal %s computed in float (the AIE1 has no double arithmetic)", t.Text)
		}
		if math.Abs(v) > math.MaxFloat32 {
			p.fail(t.Pos, "floating-point literal %s does not fit in float", t.Text)
		}
		return &FloatLit{Pos: t.Pos, Text: t.Text, Value: float32(v)}
	}
	return p.intLit(t)
}

func charValue(s string) (int64, bool) {
	body := strings.TrimSuffix(strings.TrimPrefix(s, "'"), "'")
	if len(body) == 1 {
		return int64(body[0]), true
	}
	esc := map[string]int64{`\n`: 10, `\t`: 9, `\0`: 0, `\\`: 92, `\'`: 39, `\"`: 34, `\r`: 13}
	v, ok := esc[body]
	return v, ok
}

func (p *parser) intLit(t Token) Expr {
	s := strings.ToLower(t.Text)
	unsigned := false
	for len(s) > 0 && (s[len(s)-1] == 'u' || s[len(s)-1] == 'l') {
		if s[len(s)-1] == 'u' {
			unsigned = true
		}
		s = s[:len(s)-1]
	}
	base := 10
	digits := s
	switch {
	case strings.HasPrefix(s, "0x"):
		base, digits = 16, s[2:]
	case strings.HasPrefix(s, "0b"):
		base, digits = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil || digits == "" {
		p.fail(t.Pos, "malformed integer literal %s", t.Text)
	}
	if v > 0xFFFFFFFF {
		p.fail(t.Pos, "integer literal %s does not fit in 32 bits", t.Text)
	}
	if v > 0x7FFFFFFF && !unsigned {
		if base == 10 {
			// C 6.4.4.1 would make it a long; the subset has no 64-bit integers
			p.fail(t.Pos, "integer literal %s does not fit in int: write it in hex or with a u suffix", t.Text)
		}
		unsigned = true // C 6.4.4.1: a hex or octal constant that does not fit in int is unsigned int
	}
	return &IntLit{Pos: t.Pos, Text: t.Text, Value: v, Unsigned: unsigned}
}
