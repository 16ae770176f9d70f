package cfront

import (
	"fmt"
	"strings"
)

// Pos is a position in a source file: 1-based line and column (columns count bytes).
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is a diagnostic with its position. Its text is "file:line:col: message", the form
// compilers print, so editors can jump to it.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(p Pos, format string, a ...any) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, a...)}
}

// Kind is the lexical class of a token.
type Kind uint8

const (
	tEOF Kind = iota
	tIdent
	tNumber
	tPunct
	tString  // "..." (only in #include and pragmas; an error elsewhere)
	tNewline // end of a source line; seen only by the preprocessor
	tHash    // '#' at the start of a line (a directive)
)

var kindNames = [...]string{"end of file", "identifier", "number", "punctuator", "string", "newline", "#"}

func (k Kind) String() string { return kindNames[k] }

// Token is one lexical token. Pos is where it was written; for a token that came out of a
// macro expansion Pos is the expansion site (where the user wrote the macro name) and From is
// where the token was written in the macro's definition.
type Token struct {
	Kind Kind
	Text string
	Pos  Pos
	From *Pos
	// Space reports whitespace before the token (to tell "f (" from "f(" after a #define name).
	Space bool
}

func (t Token) String() string {
	if t.Kind == tEOF {
		return "end of file"
	}
	return fmt.Sprintf("%q", t.Text)
}

// punctuators longest first, so that maximal munch picks "<<=" before "<<" before "<".
var puncts = []string{
	"<<=", ">>=", "...",
	"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "##",
	"+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^",
	"(", ")", "[", "]", "{", "}", ",", ";", ":", "?", ".", "#",
}

// lex splits src into tokens, one tNewline token per physical line end that is not spliced by a
// backslash. Comments become whitespace. A '#' that is the first token of a line is a tHash.
func lex(file string, src []byte) ([]Token, error) {
	var toks []Token
	line, col := 1, 1
	i := 0
	space := true
	lineStart := true
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line++
				col = 1
			} else {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		// line splice: backslash-newline is removed (C phase 2)
		if c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || (src[i+1] == '\r' && i+2 < len(src) && src[i+2] == '\n')) {
			if src[i+1] == '\r' {
				adv(3)
			} else {
				adv(2)
			}
			space = true
			continue
		}
		switch {
		case c == '\n':
			toks = append(toks, Token{Kind: tNewline, Text: "\n", Pos: Pos{file, line, col}})
			adv(1)
			space, lineStart = true, true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			adv(1)
			space = true
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' { // a spliced // comment continues
					adv(2)
					continue
				}
				adv(1)
			}
			space = true
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			start := Pos{file, line, col}
			adv(2)
			for {
				if i+1 >= len(src) {
					return nil, errorf(start, "unterminated /* comment")
				}
				if src[i] == '*' && src[i+1] == '/' {
					adv(2)
					break
				}
				adv(1)
			}
			space = true
			continue
		}
		p := Pos{file, line, col}
		start := i
		var t Token
		switch {
		case isIdentStart(c):
			for i < len(src) && isIdentChar(src[i]) {
				adv(1)
			}
			t = Token{Kind: tIdent, Text: string(src[start:i])}
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			// a pp-number: digits, letters, '.', and exponent signs (C 6.4.8)
			for i < len(src) {
				d := src[i]
				if isIdentChar(d) || d == '.' {
					adv(1)
					continue
				}
				if (d == '+' || d == '-') && i > start && strings.ContainsRune("eEpP", rune(src[i-1])) && !isHexPrefix(src[start:i]) {
					adv(1)
					continue
				}
				break
			}
			t = Token{Kind: tNumber, Text: string(src[start:i])}
		case c == '"':
			adv(1)
			for i < len(src) && src[i] != '"' {
				if src[i] == '\n' {
					return nil, errorf(p, "unterminated string literal")
				}
				if src[i] == '\\' && i+1 < len(src) {
					adv(1)
				}
				adv(1)
			}
			if i >= len(src) {
				return nil, errorf(p, "unterminated string literal")
			}
			adv(1)
			t = Token{Kind: tString, Text: string(src[start:i])}
		case c == '\'':
			// a character literal: kept as a number token ('a', '\n'); the parser gives its value
			adv(1)
			for i < len(src) && src[i] != '\'' && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) {
					adv(1)
				}
				adv(1)
			}
			if i >= len(src) || src[i] != '\'' {
				return nil, errorf(p, "unterminated character literal")
			}
			adv(1)
			t = Token{Kind: tNumber, Text: string(src[start:i])}
		default:
			found := ""
			for _, q := range puncts {
				if strings.HasPrefix(string(src[i:min(i+3, len(src))]), q) {
					found = q
					break
				}
			}
			if found == "" {
				if c >= 0x80 {
					return nil, errorf(p, "non-ASCII character in source (byte 0x%02x)", c)
				}
				return nil, errorf(p, "unexpected character %q", rune(c))
			}
			adv(len(found))
			t = Token{Kind: tPunct, Text: found}
			if found == "#" && lineStart {
				t.Kind = tHash
			}
		}
		t.Pos = p
		t.Space = space
		toks = append(toks, t)
		space, lineStart = false, false
	}
	toks = append(toks, Token{Kind: tNewline, Text: "\n", Pos: Pos{file, line, col}})
	toks = append(toks, Token{Kind: tEOF, Pos: Pos{file, line, col}})
	return toks, nil
}

func isHexPrefix(b []byte) bool { return len(b) >= 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool  { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdentChar(c byte) bool   { return isIdentStart(c) || isDigit(c) }
