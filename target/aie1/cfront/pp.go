package cfront

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// macro is a #define. Params is nil for an object-like macro.
type macro struct {
	Name     string
	FuncLike bool
	Params   []string
	Variadic bool // the last parameter is "...", named __VA_ARGS__
	Body     []Token
	Pos      Pos
}

// preprocessor runs the C preprocessor's directives and macro expansion over lexed lines:
// object- and function-like #define (variadic too), # and ##, #undef,
// #ifdef/#ifndef/#if/#elif/#else/#endif with constant expressions and defined(), #include of
// the kernel's own headers (read and preprocessed in place, relative to the including file,
// then the include directories) and of the AMD and C++ standard headers (which are ignored:
// their types and intrinsics are built into the front end), #pragma once, and other pragmas
// (ignored with a note).
type preprocessor struct {
	macros map[string]*macro
	out    []Token
	// expanded counts tokens produced by macro replacement; nested macros can grow the text
	// exponentially (#define F(a) a a), so expansion stops with an error past maxExpanded.
	expanded int
	cfg      *Config
	files    []string        // local files read, in order (the main file excluded)
	once     map[string]bool // files with #pragma once already read
	depth    int             // #include nesting
	notes    []string        // ignored directives
}

const maxExpanded = 1 << 20

// knownHeaders are the headers a kernel may include without sumac reading them: the AMD
// headers, whose types and intrinsics are built into the front end, and the C and C++
// standard headers kernels include for types, asserts and limits.
var knownHeaders = map[string]bool{
	"adf.h": true, "aie_api/aie.hpp": true, "aie_api/aie_adf.hpp": true, "aie_api/utils.hpp": true,
	"adf/window/types.h": true, "adf/stream/types.h": true, "adf/io_buffer/io_buffer.h": true,
	"aie_api/operators.hpp": true, "adf/x86sim/x86simDebug.h": true,
	"stdint.h": true, "cstdint": true, "limits": true, "type_traits": true, "assert.h": true, "cassert": true,
	"stdio.h": true, "cstdio": true, "stdlib.h": true, "cstdlib": true, "string.h": true, "cstring": true,
	"math.h": true, "cmath": true, "limits.h": true, "climits": true, "float.h": true, "cfloat": true,
	"stddef.h": true, "cstddef": true, "iostream": true, "array": true, "utility": true, "algorithm": true,
}

// maxIncludeDepth bounds #include nesting (a header that includes itself without a guard).
const maxIncludeDepth = 64

// parseDefine reads one -D option: NAME or NAME=VALUE (VALUE defaults to 1, as for a C
// compiler).
func parseDefine(d string) (*macro, error) {
	name, val, ok := strings.Cut(d, "=")
	if !ok {
		val = "1"
	}
	pos := Pos{File: "<command line>", Line: 1, Col: 1}
	if name == "" || !isIdentStart(name[0]) || strings.IndexFunc(name, func(r rune) bool { return r > 127 || !isIdentChar(byte(r)) }) >= 0 {
		return nil, fmt.Errorf("-D %s: %q is not a macro name", d, name)
	}
	toks, err := lex("<command line>", []byte(val))
	if err != nil {
		return nil, fmt.Errorf("-D %s: %v", d, err.(*Error).Msg)
	}
	var body []Token
	for _, t := range toks {
		if t.Kind != tNewline && t.Kind != tEOF {
			if t.Kind == tHash {
				t.Kind = tPunct
			}
			body = append(body, t)
		}
	}
	return &macro{Name: name, Body: body, Pos: pos}, nil
}

// Preprocess lexes src and returns the token stream after preprocessing (no tNewline or tHash
// tokens; ends with tEOF). defines are -D options, applied before the first line.
func Preprocess(file string, src []byte, defines []string) ([]Token, error) {
	toks, _, _, err := preprocess(file, src, &Config{Defines: defines})
	return toks, err
}

// preprocess runs the preprocessor with cfg; it also returns the local files read and the
// notes about ignored directives.
func preprocess(file string, src []byte, cfg *Config) ([]Token, []string, []string, error) {
	toks, err := lex(file, src)
	if err != nil {
		return nil, nil, nil, err
	}
	pp := &preprocessor{macros: map[string]*macro{}, cfg: cfg, once: map[string]bool{}}
	for _, d := range cfg.Defines {
		m, err := parseDefine(d)
		if err != nil {
			return nil, nil, nil, err
		}
		pp.macros[m.Name] = m
	}
	pp.once[filepath.Clean(file)] = false
	if err := pp.run(toks); err != nil {
		return nil, nil, nil, err
	}
	pp.out = append(pp.out, toks[len(toks)-1]) // tEOF
	return pp.out, pp.files, pp.notes, nil
}

// cond is one level of #if nesting.
type cond struct {
	pos       Pos
	active    bool // the current branch is being emitted
	taken     bool // some branch of this #if was taken
	sawElse   bool
	parentOff bool // an enclosing #if is inactive
}

func (pp *preprocessor) run(toks []Token) error {
	var conds []cond
	active := func() bool { return len(conds) == 0 || conds[len(conds)-1].active }
	var text []Token // pending text tokens, expanded at the next directive or at the end
	flush := func() error {
		exp, err := pp.expandList(text, nil)
		if err != nil {
			return err
		}
		pp.out = append(pp.out, exp...)
		text = text[:0]
		return nil
	}
	for i := 0; i < len(toks); {
		// one line: toks[i:j] up to the tNewline
		j := i
		for toks[j].Kind != tNewline && toks[j].Kind != tEOF {
			j++
		}
		line := toks[i:j]
		next := j + 1
		if toks[j].Kind == tEOF {
			next = j
		}
		if len(line) > 0 && line[0].Kind == tHash {
			if err := flush(); err != nil {
				return err
			}
			if len(line) == 1 { // null directive
				i = next
				if toks[j].Kind == tEOF {
					break
				}
				continue
			}
			d := line[1]
			args := line[2:]
			switch d.Text {
			case "ifdef", "ifndef":
				if len(args) != 1 || args[0].Kind != tIdent {
					return errorf(d.Pos, "#%s takes one macro name", d.Text)
				}
				_, def := pp.macros[args[0].Text]
				on := def == (d.Text == "ifdef")
				conds = append(conds, cond{pos: d.Pos, active: active() && on, taken: on, parentOff: !active()})
			case "if":
				on := false
				if active() {
					v, err := pp.evalIf(d, args)
					if err != nil {
						return err
					}
					on = v != 0
				}
				conds = append(conds, cond{pos: d.Pos, active: active() && on, taken: on, parentOff: !active()})
			case "elif":
				if len(conds) == 0 {
					return errorf(d.Pos, "#elif without #if")
				}
				c := &conds[len(conds)-1]
				if c.sawElse {
					return errorf(d.Pos, "#elif after #else")
				}
				on := false
				if !c.parentOff && !c.taken {
					v, err := pp.evalIf(d, args)
					if err != nil {
						return err
					}
					on = v != 0
				}
				c.active = !c.parentOff && on
				c.taken = c.taken || on
			case "else":
				if len(conds) == 0 {
					return errorf(d.Pos, "#else without #if")
				}
				c := &conds[len(conds)-1]
				if c.sawElse {
					return errorf(d.Pos, "second #else")
				}
				c.sawElse = true
				c.active = !c.parentOff && !c.taken
				c.taken = true
			case "endif":
				if len(conds) == 0 {
					return errorf(d.Pos, "#endif without #if")
				}
				conds = conds[:len(conds)-1]
			default:
				if !active() {
					break // other directives in skipped branches are not checked
				}
				if err := pp.directive(d, args); err != nil {
					return err
				}
			}
		} else if active() {
			text = append(text, line...)
		}
		i = next
		if toks[j].Kind == tEOF {
			break
		}
	}
	if len(conds) > 0 {
		return errorf(conds[len(conds)-1].pos, "#if without #endif")
	}
	return flush()
}

func (pp *preprocessor) directive(d Token, args []Token) error {
	switch d.Text {
	case "define":
		return pp.define(d, args)
	case "undef":
		if len(args) != 1 || args[0].Kind != tIdent {
			return errorf(d.Pos, "#undef takes one macro name")
		}
		delete(pp.macros, args[0].Text)
		return nil
	case "include":
		if len(args) == 0 {
			return errorf(d.Pos, "#include without a file name")
		}
		var name string
		if args[0].Kind == tString {
			name = strings.Trim(args[0].Text, `"`)
		} else if args[0].Text == "<" {
			var b strings.Builder
			k := 1
			for ; k < len(args) && args[k].Text != ">"; k++ {
				b.WriteString(args[k].Text)
			}
			if k == len(args) {
				return errorf(args[0].Pos, "#include <...> without '>'")
			}
			name = b.String()
		} else {
			return errorf(args[0].Pos, "#include expects \"file\" or <file>")
		}
		return pp.include(d, args[0], name, args[0].Kind == tString)
	case "pragma":
		if len(args) == 1 && args[0].Text == "once" {
			pp.once[filepath.Clean(d.Pos.File)] = true
			return nil
		}
		var parts []string
		for _, a := range args {
			parts = append(parts, a.Text)
		}
		pp.notes = append(pp.notes, fmt.Sprintf("%v: #pragma %s ignored", d.Pos, strings.Join(parts, " ")))
		return nil
	case "warning":
		pp.notes = append(pp.notes, fmt.Sprintf("%v: #warning ignored", d.Pos))
		return nil
	case "error":
		var parts []string
		for _, a := range args {
			parts = append(parts, a.Text)
		}
		return errorf(d.Pos, "#error %s", strings.Join(parts, " "))
	case "line":
		return nil
	}
	return errorf(d.Pos, "preprocessor directive #%s is not supported in the AIE kernel subset", d.Text)
}

// include reads a kernel's own header in place. A quoted name is looked up next to the
// including file, then in the include directories; an angled one in the include directories.
// The AMD and standard headers are not read (their contents are built in).
func (pp *preprocessor) include(d, at Token, name string, quoted bool) error {
	var dirs []string
	if quoted {
		dirs = append(dirs, filepath.Dir(d.Pos.File))
	}
	dirs = append(dirs, pp.cfg.IncludeDirs...)
	read := pp.cfg.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	if !knownHeaders[name] && !strings.HasPrefix(name, "aie_api/") && !strings.HasPrefix(name, "adf/") {
		for _, dir := range dirs {
			path := filepath.Join(dir, name)
			src, err := read(path)
			if err != nil {
				continue
			}
			clean := filepath.Clean(path)
			if pp.once[clean] {
				return nil
			}
			if pp.depth >= maxIncludeDepth {
				return errorf(at.Pos, "#include %q: nested more than %d deep", name, maxIncludeDepth)
			}
			if _, seen := pp.once[clean]; !seen {
				pp.files = append(pp.files, path)
				pp.once[clean] = false
			}
			toks, err := lex(path, src)
			if err != nil {
				return err
			}
			pp.depth++
			defer func() { pp.depth-- }()
			return pp.run(toks)
		}
	}
	if knownHeaders[name] || strings.HasPrefix(name, "aie_api/") || strings.HasPrefix(name, "adf/") {
		return nil
	}
	return errorf(at.Pos, "#include %q: no such file next to %s or in the include directories (the AMD headers %s are built in)", name, filepath.Base(d.Pos.File), strings.Join(sortedKeys(knownHeaders)[:4], ", "))
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (pp *preprocessor) define(d Token, args []Token) error {
	if len(args) == 0 || args[0].Kind != tIdent {
		return errorf(d.Pos, "#define needs a macro name")
	}
	name := args[0]
	if name.Text == "defined" {
		return errorf(name.Pos, "\"defined\" cannot be a macro name")
	}
	m := &macro{Name: name.Text, Pos: name.Pos}
	body := args[1:]
	if len(body) > 0 && body[0].Text == "(" && !body[0].Space {
		m.FuncLike = true
		k := 1
		m.Params = []string{}
		for {
			if k >= len(body) {
				return errorf(body[0].Pos, "unterminated parameter list of macro %s", name.Text)
			}
			t := body[k]
			if t.Text == ")" && len(m.Params) == 0 {
				k++
				break
			}
			if t.Text == "..." {
				m.Params = append(m.Params, "__VA_ARGS__")
				m.Variadic = true
				k++
				if k >= len(body) || body[k].Text != ")" {
					return errorf(t.Pos, "... must be the last parameter of macro %s", name.Text)
				}
				k++
				break
			}
			if t.Kind != tIdent {
				return errorf(t.Pos, "expected a parameter name in macro %s, found %s", name.Text, t)
			}
			for _, p := range m.Params {
				if p == t.Text {
					return errorf(t.Pos, "duplicate macro parameter %s", t.Text)
				}
			}
			m.Params = append(m.Params, t.Text)
			k++
			if k >= len(body) {
				return errorf(t.Pos, "unterminated parameter list of macro %s", name.Text)
			}
			if body[k].Text == "," {
				k++
				continue
			}
			if body[k].Text == ")" {
				k++
				break
			}
			return errorf(body[k].Pos, "expected ',' or ')' in the parameter list of macro %s, found %s", name.Text, body[k])
		}
		body = body[k:]
	}
	for k, t := range body {
		if t.Kind == tHash {
			t.Kind = tPunct
			body[k] = t
		}
		if t.Text == "##" && (k == 0 || k == len(body)-1) {
			return errorf(t.Pos, "## cannot be at either end of the body of macro %s", name.Text)
		}
		if t.Text == "#" && m.FuncLike && (k+1 >= len(body) || body[k+1].Kind != tIdent || indexOf(m.Params, body[k+1].Text) < 0) {
			return errorf(t.Pos, "# in macro %s must be followed by a parameter name", name.Text)
		}
	}
	m.Body = append([]Token(nil), body...)
	pp.macros[m.Name] = m
	return nil
}

// expandList macro-expands toks. disabled holds the macros being expanded (C 6.10.3.4: a macro
// is not replaced inside its own replacement).
func (pp *preprocessor) expandList(toks []Token, disabled map[string]bool) ([]Token, error) {
	p := pp
	var out []Token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		m, ok := pp.macros[t.Text]
		if t.Kind != tIdent || !ok {
			out = append(out, t)
			continue
		}
		if disabled[t.Text] {
			out = append(out, t)
			continue
		}
		var repl []Token
		if m.FuncLike {
			if i+1 >= len(toks) || toks[i+1].Text != "(" {
				out = append(out, t) // a function-like macro name without '(' is not a call
				continue
			}
			args, end, err := collectArgs(toks, i+1, m)
			if err != nil {
				return nil, err
			}
			if len(m.Params) == 0 && len(args) == 1 && len(args[0]) == 0 {
				args = nil
			}
			if m.Variadic && len(args) >= len(m.Params)-1 {
				// the variable arguments, commas included, are the last argument
				fixed := len(m.Params) - 1
				var rest []Token
				for k := fixed; k < len(args); k++ {
					if k > fixed {
						rest = append(rest, Token{Kind: tPunct, Text: ",", Pos: t.Pos})
					}
					rest = append(rest, args[k]...)
				}
				args = append(args[:fixed:fixed], rest)
			}
			if len(args) != len(m.Params) {
				return nil, errorf(t.Pos, "macro %s takes %d arguments, %d given", m.Name, len(m.Params), len(args))
			}
			// arguments are fully expanded before substitution (C 6.10.3.1), except next to
			// # and ## where they are used as written
			exp := make([][]Token, len(args))
			for k, a := range args {
				if exp[k], err = pp.expandList(a, disabled); err != nil {
					return nil, err
				}
			}
			body := m.Body
			for bi := 0; bi < len(body); bi++ {
				b := body[bi]
				if b.Text == "#" && b.Kind == tPunct && bi+1 < len(body) {
					if k := indexOf(m.Params, body[bi+1].Text); k >= 0 {
						repl = append(repl, Token{Kind: tString, Text: stringize(args[k]), Pos: t.Pos})
						bi++
						continue
					}
				}
				if b.Kind == tIdent {
					if k := indexOf(m.Params, b.Text); k >= 0 {
						raw := (bi > 0 && body[bi-1].Text == "##") || (bi+1 < len(body) && body[bi+1].Text == "##")
						if raw {
							repl = append(repl, args[k]...)
						} else {
							repl = append(repl, exp[k]...)
						}
						continue
					}
				}
				repl = append(repl, relocate(b, t))
			}
			if repl, err = paste(repl); err != nil {
				return nil, err
			}
			i = end
		} else {
			for _, b := range m.Body {
				repl = append(repl, relocate(b, t))
			}
			var err error
			if repl, err = paste(repl); err != nil {
				return nil, err
			}
		}
		p.expanded += len(repl)
		if p.expanded > maxExpanded {
			return nil, errorf(t.Pos, "macro expansion produces more than %d tokens", maxExpanded)
		}
		d := map[string]bool{m.Name: true}
		for k := range disabled {
			d[k] = true
		}
		res, err := pp.expandList(repl, d)
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
	}
	return out, nil
}

// stringize is the # operator: the argument's spelling as a string literal.
func stringize(toks []Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t.Space {
			b.WriteByte(' ')
		}
		b.WriteString(t.Text)
	}
	return strconv.Quote(b.String())
}

// paste applies the ## operators of a replacement list: the tokens on both sides are joined
// and lexed again; the result must be one token.
func paste(toks []Token) ([]Token, error) {
	var out []Token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Text != "##" || t.Kind != tPunct || len(out) == 0 || i+1 >= len(toks) {
			out = append(out, t)
			continue
		}
		left := out[len(out)-1]
		right := toks[i+1]
		i++
		text := left.Text + right.Text
		lt, err := lex(left.Pos.File, []byte(text))
		if err != nil || len(lt) != 3 { // token, newline, EOF
			return nil, errorf(left.Pos, "pasting %q and %q does not give a token", left.Text, right.Text)
		}
		nt := lt[0]
		nt.Pos, nt.From, nt.Space = left.Pos, left.From, left.Space
		out[len(out)-1] = nt
	}
	return out, nil
}

// relocate gives a token from a macro body the position of the expansion site, remembering
// where it was written.
func relocate(b, site Token) Token {
	from := b.Pos
	if b.From != nil {
		from = *b.From
	}
	b.From = &from
	b.Pos = site.Pos
	return b
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// collectArgs reads the parenthesized, comma-separated arguments of a macro call starting at
// toks[open] == "(" and returns them and the index of the closing ")".
func collectArgs(toks []Token, open int, m *macro) ([][]Token, int, error) {
	depth := 0
	var args [][]Token
	var cur []Token
	for k := open; k < len(toks); k++ {
		t := toks[k]
		switch t.Text {
		case "(":
			depth++
			if depth == 1 {
				continue
			}
		case ")":
			depth--
			if depth == 0 {
				args = append(args, cur)
				return args, k, nil
			}
		case ",":
			if depth == 1 {
				args = append(args, cur)
				cur = nil
				continue
			}
		}
		if t.Kind == tEOF {
			break
		}
		cur = append(cur, t)
	}
	return nil, 0, errorf(toks[open].Pos, "unterminated call of macro %s", m.Name)
}

// evalIf evaluates the controlling expression of #if/#elif.
func (pp *preprocessor) evalIf(d Token, args []Token) (int64, error) {
	if len(args) == 0 {
		return 0, errorf(d.Pos, "#%s with no expression", d.Text)
	}
	// defined NAME and defined(NAME) are replaced before expansion (C 6.10.1)
	var pre []Token
	for k := 0; k < len(args); k++ {
		t := args[k]
		if t.Kind == tIdent && t.Text == "defined" {
			var name Token
			switch {
			case k+1 < len(args) && args[k+1].Kind == tIdent:
				name = args[k+1]
				k++
			case k+3 < len(args) && args[k+1].Text == "(" && args[k+2].Kind == tIdent && args[k+3].Text == ")":
				name = args[k+2]
				k += 3
			default:
				return 0, errorf(t.Pos, "defined needs a macro name")
			}
			v := "0"
			if _, ok := pp.macros[name.Text]; ok {
				v = "1"
			}
			pre = append(pre, Token{Kind: tNumber, Text: v, Pos: t.Pos})
			continue
		}
		pre = append(pre, t)
	}
	exp, err := pp.expandList(pre, nil)
	if err != nil {
		return 0, err
	}
	for k, t := range exp { // identifiers left after expansion are 0 (C 6.10.1p4)
		if t.Kind == tIdent {
			exp[k] = Token{Kind: tNumber, Text: "0", Pos: t.Pos}
		}
	}
	exp = append(exp, Token{Kind: tEOF, Pos: d.Pos})
	p := &parser{toks: exp}
	e, err := p.parseExprOnly()
	if err != nil {
		return 0, err
	}
	v, err := constEval(e, nil)
	if err != nil {
		return 0, err
	}
	return v, nil
}
