package cfront

import (
	"regexp"
	"strconv"
	"strings"
)

// Parse preprocesses and parses one kernel source file. defines are -D options (NAME or
// NAME=VALUE). Errors are *Error values ("file:line:col: message").
func Parse(file string, src []byte, defines []string) (*File, error) {
	toks, err := Preprocess(file, src, defines)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	f, err := p.parseFile()
	if err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct {
	toks []Token
	i    int
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

func (p *parser) parseFile() (f *File, err error) {
	defer p.catch(&err)
	f = &File{}
	for p.peek().Kind != tEOF {
		f.Funcs = append(f.Funcs, p.parseFunc())
	}
	if len(f.Funcs) == 0 {
		p.fail(p.peek().Pos, "no kernel function defined")
	}
	return f, nil
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
	"if": "if statements", "else": "if statements", "while": "while loops", "do": "do loops",
	"switch": "switch statements", "case": "switch statements", "goto": "goto", "break": "break",
	"continue": "continue", "return": "return statements", "struct": "structs", "class": "classes",
	"template": "templates", "typedef": "typedef", "static": "static variables", "extern": "extern",
	"namespace": "namespaces", "using": "using declarations", "new": "new", "delete": "delete",
	"auto": "auto", "sizeof": "sizeof", "union": "unions", "enum": "enums", "inline": "inline functions",
	"double": "double", "long": "long integers", "char": "char", "bool": "bool", "volatile": "volatile",
}

func (p *parser) unsupported(t Token) {
	if what, ok := unsupportedKeywords[t.Text]; ok && t.Kind == tIdent {
		p.fail(t.Pos, "%s are not supported in the AIE kernel subset", what)
	}
}

func (p *parser) parseFunc() *FuncDecl {
	t := p.peek()
	p.unsupported(t)
	if t.Kind != tIdent || t.Text != "void" {
		p.fail(t.Pos, "expected a kernel function definition 'void name(...) { ... }', found %s", t)
	}
	p.next()
	name := p.next()
	if name.Kind != tIdent {
		p.fail(name.Pos, "expected the kernel function's name, found %s", name)
	}
	fd := &FuncDecl{Pos: t.Pos, Result: "void", Name: name.Text}
	p.expect("(", "after the function name")
	if !p.is(")") {
		if p.is("void") && p.peekAt(1).Text == ")" {
			p.next()
		} else {
			for {
				pt := p.peek()
				ty := p.parseType()
				if ty == nil {
					p.fail(pt.Pos, "expected a parameter type, found %s", pt)
				}
				pn := p.next()
				if pn.Kind != tIdent {
					p.fail(pn.Pos, "expected a parameter name, found %s", pn)
				}
				fd.Params = append(fd.Params, &Param{Pos: pn.Pos, Type: ty, Name: pn.Text})
				if !p.accept(",") {
					break
				}
			}
		}
	}
	p.expect(")", "to close the parameter list")
	if !p.is("{") {
		p.fail(p.peek().Pos, "expected the function body '{', found %s", p.peek())
	}
	fd.Body = p.parseBlock()
	return fd
}

var (
	vectorTypeRE = regexp.MustCompile(`^v[0-9]+(u?int(8|16|32)|c?int(16|32)|c?float|c?acc(48|80)|accfloat|caccfloat)$`)
	windowTypeRE = regexp.MustCompile(`^(input|output)_window_[a-z0-9_]+$`)
	scalarTypes  = map[string]bool{
		"int": true, "unsigned": true, "signed": true, "short": true, "float": true,
		"int8": true, "uint8": true, "int16": true, "uint16": true, "int32": true, "uint32": true,
		"int8_t": true, "uint8_t": true, "int16_t": true, "uint16_t": true, "int32_t": true, "uint32_t": true,
		"void": true,
	}
)

// isTypeWord reports whether an identifier starts a type.
func isTypeWord(s string) bool {
	return s == "const" || scalarTypes[s] || vectorTypeRE.MatchString(s) || windowTypeRE.MatchString(s) ||
		strings.HasPrefix(s, "input_stream_") || strings.HasPrefix(s, "output_stream_")
}

// parseType parses a type (qualifiers, base name, '*'s, and __restrict after a '*'). It returns
// nil, consuming nothing, if the next token does not start a type.
func (p *parser) parseType() *TypeName {
	t := p.peek()
	if t.Kind != tIdent || !isTypeWord(t.Text) {
		return nil
	}
	ty := &TypeName{Pos: t.Pos}
	for p.is("const") {
		ty.Const = true
		p.next()
	}
	b := p.next()
	if b.Kind != tIdent || !isTypeWord(b.Text) || b.Text == "const" {
		p.fail(b.Pos, "expected a type name, found %s", b)
	}
	switch b.Text {
	case "unsigned", "signed":
		if p.is("int") {
			p.next()
		} else if p.is("short") || p.is("char") || p.is("long") {
			p.fail(p.peek().Pos, "%s %s is not supported in the AIE kernel subset (use int or unsigned int)", b.Text, p.peek().Text)
		}
		if b.Text == "unsigned" {
			ty.Base = "unsigned int"
		} else {
			ty.Base = "int"
		}
	case "short":
		p.accept("int")
		ty.Base = "int16"
	default:
		ty.Base = b.Text
	}
	if strings.HasPrefix(ty.Base, "input_stream_") || strings.HasPrefix(ty.Base, "output_stream_") {
		p.fail(b.Pos, "stream interfaces (%s) are not supported; use windows or buffers", ty.Base)
	}
	for p.is("const") {
		ty.Const = true
		p.next()
	}
	for p.is("*") {
		p.next()
		ty.Ptr++
		for p.is("__restrict") || p.is("__restrict__") || p.is("restrict") || p.is("const") {
			if p.peek().Text == "const" {
				ty.Const = true
			} else {
				ty.Restrict = true
			}
			p.next()
		}
	}
	if p.is("&") {
		p.fail(p.peek().Pos, "references are not supported in the AIE kernel subset")
	}
	return ty
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

func (p *parser) parseStmt() Stmt {
	t := p.peek()
	switch {
	case t.Kind == tPunct && t.Text == "{":
		return p.parseBlock()
	case t.Kind == tPunct && t.Text == ";":
		p.next()
		return &EmptyStmt{Pos: t.Pos}
	case t.Kind == tIdent && t.Text == "for":
		return p.parseFor()
	case t.Kind == tIdent && strings.HasPrefix(t.Text, "chess_"):
		p.fail(t.Pos, "%s is only allowed between a for loop's header and its body", t.Text)
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
		ptr := 0
		for p.accept("*") {
			ptr++
		}
		n := p.next()
		if n.Kind != tIdent {
			p.fail(n.Pos, "expected a variable name, found %s", n)
		}
		if isTypeWord(n.Text) || unsupportedKeywords[n.Text] != "" {
			p.fail(n.Pos, "%q is a type or keyword, not a variable name", n.Text)
		}
		dc := &Declarator{Pos: n.Pos, Name: n.Text, Ptr: ptr}
		if p.is("[") {
			p.fail(p.peek().Pos, "local arrays are not supported in the AIE kernel subset")
		}
		if p.is("(") {
			p.fail(p.peek().Pos, "constructor-style initialization is not supported; write %s = ...", n.Text)
		}
		if p.accept("=") {
			dc.Init = p.parseAssign()
		}
		d.Names = append(d.Names, dc)
		if !p.accept(",") {
			break
		}
	}
	return d
}

func (p *parser) parseFor() Stmt {
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
	for p.peek().Kind == tIdent && strings.HasPrefix(p.peek().Text, "chess_") {
		pt := p.next()
		pr := &Pragma{Pos: pt.Pos, Name: pt.Text}
		if p.accept("(") {
			for !p.is(")") {
				if p.is(",") { // an empty argument: chess_loop_range(4, )
					pr.Args = append(pr.Args, nil)
					p.next()
					if p.is(")") {
						pr.Args = append(pr.Args, nil)
					}
					continue
				}
				pr.Args = append(pr.Args, p.parseAssign())
				if p.is(",") {
					p.next()
					if p.is(")") {
						pr.Args = append(pr.Args, nil)
					}
					continue
				}
				if !p.is(")") {
					p.fail(p.peek().Pos, "expected ',' or ')' in %s, found %s", pt.Text, p.peek())
				}
			}
			p.next()
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
	if p.is(",") {
		p.fail(p.peek().Pos, "the comma operator is not supported in the AIE kernel subset")
	}
	return e
}

var assignOps = map[string]bool{"=": true, "+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "<<=": true, ">>=": true, "&=": true, "|=": true, "^=": true}

func (p *parser) parseAssign() Expr {
	l := p.parseCond()
	if t := p.peek(); t.Kind == tPunct && assignOps[t.Text] {
		p.next()
		r := p.parseAssign()
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
			if n := p.peekAt(1); n.Kind == tIdent && isTypeWord(n.Text) {
				p.next()
				ty := p.parseType()
				p.expect(")", "to close the cast")
				return &Cast{Pos: t.Pos, Type: ty, X: p.parseUnary()}
			}
		}
	}
	return p.parsePostfix()
}

func (p *parser) parsePostfix() Expr {
	x := p.parsePrimary()
	for {
		t := p.peek()
		switch {
		case t.Kind == tPunct && t.Text == "[":
			p.next()
			i := p.parseExpr()
			p.expect("]", "to close the index")
			x = &Index{Pos: t.Pos, X: x, Index: i}
		case t.Kind == tPunct && (t.Text == "++" || t.Text == "--"):
			p.next()
			x = &Postfix{Pos: t.Pos, Op: t.Text, X: x}
		case t.Kind == tPunct && t.Text == "(":
			p.fail(t.Pos, "only named functions and intrinsics can be called")
		case t.Kind == tPunct && (t.Text == "." || t.Text == "->"):
			p.fail(t.Pos, "member access (%s) is not supported in the AIE kernel subset", t.Text)
		default:
			return x
		}
	}
}

func (p *parser) parsePrimary() Expr {
	t := p.next()
	switch t.Kind {
	case tNumber:
		return p.intLit(t)
	case tIdent:
		p.unsupported(t)
		if isTypeWord(t.Text) {
			p.fail(t.Pos, "unexpected type name %s in an expression", t.Text)
		}
		name := t.Text
		if name == "operator" { // operator+(a, b): the C++ spelling of a vector add
			op := p.next()
			if op.Kind != tPunct || !strings.Contains("+-*", op.Text) || len(op.Text) != 1 {
				p.fail(op.Pos, "operator%s is not supported (only operator+, operator-, operator*)", op.Text)
			}
			name += op.Text
			if !p.is("(") {
				p.fail(p.peek().Pos, "expected '(' after %s", name)
			}
		}
		if p.is("(") {
			p.next()
			c := &Call{Pos: t.Pos, Fun: name}
			for !p.is(")") {
				c.Args = append(c.Args, p.parseAssign())
				if !p.accept(",") {
					break
				}
			}
			c.Rpar = p.expect(")", "to close the argument list of "+name).Pos
			return c
		}
		return &Ident{Pos: t.Pos, Name: name}
	case tPunct:
		if t.Text == "(" {
			x := p.parseExpr()
			p.expect(")", "to close the parenthesis")
			return &Paren{Pos: t.Pos, X: x}
		}
	case tString:
		p.fail(t.Pos, "string literals are not supported in the AIE kernel subset")
	}
	p.fail(t.Pos, "expected an expression, found %s", t)
	return nil
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
	if strings.ContainsAny(s, ".") || (!strings.HasPrefix(s, "0x") && strings.ContainsAny(s, "e")) {
		p.fail(t.Pos, "floating-point literal %s is not supported in the AIE kernel subset", t.Text)
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
