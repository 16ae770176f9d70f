package vliw

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// ISA is what the assembly reader and the engine need from an instruction set: the slots a
// mnemonic may occupy and, per operation, its operand check and semantics.
type ISA interface {
	// Slots returns the slots an operation may occupy, in order of preference.
	Slots(op string) ([]string, bool)
	// Bind checks an operation's operands and sets its Defs and Exec.
	Bind(in *Inst) error
}

// Hazard is a rule violation found statically (Link) or while executing (the engine).
type Hazard struct {
	Rule   string // slot, format, loop, raw, waw, uninit, fifo, align, bounds, config, branch
	Cycle  int64  // issue cycle of the offending bundle (-1: found before running)
	Bundle int    // bundle index
	Line   int    // assembly line (0: generated)
	Msg    string
}

func (h *Hazard) Error() string {
	where := fmt.Sprintf("bundle %d", h.Bundle)
	if h.Line > 0 {
		where += fmt.Sprintf(" (line %d)", h.Line)
	}
	if h.Cycle >= 0 {
		where += fmt.Sprintf(", cycle %d", h.Cycle)
	}
	return fmt.Sprintf("%s hazard at %s: %s", h.Rule, where, h.Msg)
}

// Parse reads an assembly listing in the syntax of the public hand-written XDNA kernels: one
// bundle per line, its operations separated by ';', comments after '//', labels "name:", the
// directive .p2align N (others such as .globl, .type and .size are accepted and ignored).
// Immediates are '#' followed by an integer expression (+ - * / % and parentheses, C integer
// semantics) or a label. Each operation goes to the first free slot its mnemonic allows.
func Parse(m *Machine, isa ISA, name, src string) (*Program, error) {
	p := &Program{Name: name, Labels: map[string]int{}}
	var labels []string
	align := 0
	for ln, line := range strings.Split(src, "\n") {
		lineNo := ln + 1
		comment := ""
		if i := strings.Index(line, "//"); i >= 0 {
			comment = strings.TrimSpace(line[i+2:])
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasSuffix(line, ":") && !strings.ContainsAny(line[:len(line)-1], " \t;,[") {
			labels = append(labels, line[:len(line)-1])
			continue
		}
		if strings.HasPrefix(line, ".") {
			f := strings.Fields(line)
			if f[0] == ".p2align" {
				if len(f) < 2 {
					return nil, fmt.Errorf("line %d: .p2align needs an exponent", lineNo)
				}
				n, err := strconv.Atoi(strings.TrimSuffix(f[1], ","))
				if err != nil || n < 0 || n > 12 {
					return nil, fmt.Errorf("line %d: bad .p2align %q", lineNo, f[1])
				}
				align = 1 << n
			}
			continue
		}
		b := &Bundle{Labels: labels, Align: align, Comment: comment, Line: lineNo}
		labels, align = nil, 0
		for _, opText := range strings.Split(line, ";") {
			opText = strings.TrimSpace(opText)
			if opText == "" {
				continue
			}
			in, err := parseInst(m, opText)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", lineNo, err)
			}
			in.Line = lineNo
			if err := placeInst(m, isa, b, in); err != nil {
				return nil, &Hazard{Rule: "slot", Cycle: -1, Bundle: len(p.Bundles), Line: lineNo, Msg: err.Error()}
			}
			if err := isa.Bind(in); err != nil {
				return nil, fmt.Errorf("line %d: %s: %v", lineNo, opText, err)
			}
		}
		for _, l := range b.Labels {
			if _, dup := p.Labels[l]; dup {
				return nil, fmt.Errorf("line %d: label %s defined twice", lineNo, l)
			}
			p.Labels[l] = len(p.Bundles)
		}
		p.Bundles = append(p.Bundles, b)
	}
	if len(labels) > 0 {
		// trailing labels (e.g. .Lfunc_end) name the end of the program
		for _, l := range labels {
			p.Labels[l] = len(p.Bundles)
		}
	}
	return p, nil
}

// placeInst assigns an operation the first slot its mnemonic allows that the bundle has free.
func placeInst(m *Machine, isa ISA, b *Bundle, in *Inst) error {
	slots, ok := isa.Slots(in.Op)
	if !ok {
		return fmt.Errorf("unknown operation %q", in.Op)
	}
	for _, s := range slots {
		if slotFree(m, b, s) {
			in.Slot = s
			b.Insts = append(b.Insts, in)
			return nil
		}
	}
	return fmt.Errorf("%s: slot %s over-subscribed (the bundle already uses it)", in.Op, strings.Join(slots, "/"))
}

// occupied returns the base slots a slot name uses (lng: alu and mv).
func occupied(m *Machine, s string) []string {
	if sl, ok := m.SlotByName(s); ok && len(sl.Covers) > 0 {
		return sl.Covers
	}
	return []string{s}
}

func slotFree(m *Machine, b *Bundle, s string) bool {
	for _, in := range b.Insts {
		for _, u := range occupied(m, in.Slot) {
			for _, w := range occupied(m, s) {
				if u == w {
					return false
				}
			}
		}
	}
	return true
}

// CheckSlots reports two operations of a bundle in one slot (generated bundles are built
// without placeInst).
func CheckSlots(m *Machine, b *Bundle) error {
	seen := map[string]*Inst{}
	for _, in := range b.Insts {
		for _, u := range occupied(m, in.Slot) {
			if o, dup := seen[u]; dup {
				return fmt.Errorf("slot %s over-subscribed by %q and %q", u, o.String(), in.String())
			}
			seen[u] = in
		}
	}
	return nil
}

func parseInst(m *Machine, text string) (*Inst, error) {
	mn, rest, _ := strings.Cut(text, " ")
	in := &Inst{Op: strings.ToLower(strings.TrimSpace(mn))}
	toks, err := splitOperands(strings.TrimSpace(rest))
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case strings.HasPrefix(t, "["):
			a, err := parseMem(m, t)
			if err != nil {
				return nil, err
			}
			if i+1 < len(toks) && a.Fifo == nil && a.Off == 0 && !strings.Contains(t, ",") {
				nx := toks[i+1]
				if strings.HasPrefix(nx, "#") {
					v, sym, err := evalExpr(nx[1:])
					if err != nil || sym != "" {
						return nil, fmt.Errorf("post-modify %q: %v", nx, err)
					}
					a.Post, a.PostImm = true, v
					i++
				} else if r, ok := m.Reg(nx); ok && r.Class == "m" {
					a.Post, a.PostReg = true, r
					i++
				}
			}
			in.Args = append(in.Args, a)
		case strings.HasPrefix(t, "#"):
			v, sym, err := evalExpr(t[1:])
			if err != nil {
				return nil, fmt.Errorf("immediate %q: %v", t, err)
			}
			in.Args = append(in.Args, Arg{Kind: ArgImm, Imm: v, Sym: sym, Text: strings.TrimSpace(t[1:])})
		default:
			r, ok := m.Reg(t)
			if !ok {
				return nil, fmt.Errorf("%s: unknown register or operand %q", in.Op, t)
			}
			in.Args = append(in.Args, R(r))
		}
	}
	return in, nil
}

// splitOperands splits at commas outside brackets.
func splitOperands(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced ']' in %q", s)
			}
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced '[' in %q", s)
	}
	out = append(out, strings.TrimSpace(s[start:]))
	for _, t := range out {
		if t == "" {
			return nil, fmt.Errorf("empty operand in %q", s)
		}
	}
	return out, nil
}

func parseMem(m *Machine, t string) (Arg, error) {
	if !strings.HasSuffix(t, "]") {
		return Arg{}, fmt.Errorf("memory operand %q: missing ']'", t)
	}
	parts := strings.Split(t[1:len(t)-1], ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	base, ok := m.Reg(parts[0])
	if !ok || base.Class != "p" {
		return Arg{}, fmt.Errorf("memory operand %q: %q is not a pointer register", t, parts[0])
	}
	a := Arg{Kind: ArgMem, Base: base}
	switch len(parts) {
	case 1:
	case 2:
		if !strings.HasPrefix(parts[1], "#") {
			return Arg{}, fmt.Errorf("memory operand %q: only [p, #imm] offsets are modelled", t)
		}
		v, sym, err := evalExpr(parts[1][1:])
		if err != nil || sym != "" {
			return Arg{}, fmt.Errorf("memory operand %q: bad offset", t)
		}
		a.Off = v
	case 3:
		lf, ok1 := m.Reg(parts[1])
		pos, ok2 := m.Reg(parts[2])
		if !ok1 || !ok2 || lf.Class != "lf" || pos.Class != "r" {
			return Arg{}, fmt.Errorf("memory operand %q: want [p, lf, r]", t)
		}
		a.Fifo, a.Pos = lf, pos
	default:
		return Arg{}, fmt.Errorf("memory operand %q not understood", t)
	}
	return a, nil
}

// evalExpr evaluates an integer expression; a lone label returns its name in sym.
func evalExpr(s string) (v int64, sym string, err error) {
	s = strings.TrimSpace(s)
	if isLabelName(s) {
		return 0, s, nil
	}
	e := exprParser{s: s}
	v, err = e.sum()
	if err == nil {
		e.skip()
		if e.i != len(e.s) {
			err = fmt.Errorf("unexpected %q", e.s[e.i:])
		}
	}
	return v, "", err
}

func isLabelName(s string) bool {
	if s == "" || !(s[0] == '.' || s[0] == '_' || unicode.IsLetter(rune(s[0]))) {
		return false
	}
	for _, c := range s {
		if !(c == '.' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c)) {
			return false
		}
	}
	return true
}

type exprParser struct {
	s string
	i int
}

func (e *exprParser) skip() {
	for e.i < len(e.s) && (e.s[e.i] == ' ' || e.s[e.i] == '\t') {
		e.i++
	}
}

func (e *exprParser) sum() (int64, error) {
	v, err := e.product()
	for err == nil {
		e.skip()
		if e.i >= len(e.s) || (e.s[e.i] != '+' && e.s[e.i] != '-') {
			break
		}
		op := e.s[e.i]
		e.i++
		var w int64
		if w, err = e.product(); err == nil {
			if op == '+' {
				v += w
			} else {
				v -= w
			}
		}
	}
	return v, err
}

func (e *exprParser) product() (int64, error) {
	v, err := e.unary()
	for err == nil {
		e.skip()
		if e.i >= len(e.s) || !strings.ContainsRune("*/%", rune(e.s[e.i])) {
			break
		}
		op := e.s[e.i]
		e.i++
		var w int64
		if w, err = e.unary(); err == nil {
			switch op {
			case '*':
				v *= w
			default:
				if w == 0 {
					return 0, fmt.Errorf("division by zero")
				}
				if op == '/' {
					v /= w
				} else {
					v %= w
				}
			}
		}
	}
	return v, err
}

func (e *exprParser) unary() (int64, error) {
	e.skip()
	if e.i >= len(e.s) {
		return 0, fmt.Errorf("expression ends early")
	}
	switch e.s[e.i] {
	case '-':
		e.i++
		v, err := e.unary()
		return -v, err
	case '+':
		e.i++
		return e.unary()
	case '(':
		e.i++
		v, err := e.sum()
		e.skip()
		if err == nil && (e.i >= len(e.s) || e.s[e.i] != ')') {
			err = fmt.Errorf("missing ')'")
		}
		e.i++
		return v, err
	}
	j := e.i
	for j < len(e.s) && (unicode.IsDigit(rune(e.s[j])) || unicode.IsLetter(rune(e.s[j]))) {
		j++
	}
	v, err := strconv.ParseInt(e.s[e.i:j], 0, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", e.s[e.i:j])
	}
	e.i = j
	return v, nil
}

// Link resolves label immediates to byte addresses, sizes and places every bundle, finds the
// hardware loop, and checks the static rules: every bundle has a format, no slot holds two
// operations, and the loop set-up keeps the machine's distance.
func Link(m *Machine, p *Program) error {
	if p.Labels == nil {
		p.Labels = map[string]int{}
	}
	p.LoopStart, p.LoopEnd = -1, -1
	for bi, b := range p.Bundles {
		if err := CheckSlots(m, b); err != nil {
			return &Hazard{Rule: "slot", Cycle: -1, Bundle: bi, Line: b.Line, Msg: err.Error()}
		}
		for _, in := range b.Insts {
			for _, a := range in.Args {
				if a.Kind != ArgImm || a.Sym == "" {
					continue
				}
				if _, ok := p.Labels[a.Sym]; !ok {
					return fmt.Errorf("bundle %d (line %d): undefined label %s", bi, b.Line, a.Sym)
				}
				for _, d := range in.Defs {
					switch d.Name {
					case "ls":
						p.LoopStart = p.Labels[a.Sym]
					case "le":
						p.LoopEnd = p.Labels[a.Sym]
					}
				}
			}
		}
	}
	if (p.LoopStart < 0) != (p.LoopEnd < 0) || p.LoopEnd >= 0 && (p.LoopEnd < p.LoopStart || p.LoopEnd >= len(p.Bundles)) {
		return &Hazard{Rule: "loop", Cycle: -1, Msg: fmt.Sprintf("hardware loop start bundle %d and end bundle %d do not form a loop", p.LoopStart, p.LoopEnd)}
	}
	p.Addr = make([]int, len(p.Bundles))
	p.Size = make([]int, len(p.Bundles))
	addr := 0
	for bi, b := range p.Bundles {
		sz, err := m.FormatBytes(b.Slots())
		if err != nil {
			return &Hazard{Rule: "format", Cycle: -1, Bundle: bi, Line: b.Line, Msg: err.Error()}
		}
		al := b.Align
		if bi == p.LoopStart || bi == p.LoopEnd {
			al = max(al, m.LoopAlign)
			if bi == p.LoopEnd {
				sz = max(sz, m.LoopEndBytes)
			}
		}
		if al > 1 {
			addr = (addr + al - 1) / al * al
		}
		p.Addr[bi], p.Size[bi] = addr, sz
		addr += sz
	}
	p.Bytes = addr
	addrOf := func(label string) int64 {
		i := p.Labels[label]
		if i >= len(p.Bundles) {
			return int64(p.Bytes)
		}
		return int64(p.Addr[i])
	}
	for _, b := range p.Bundles {
		for _, in := range b.Insts {
			for i := range in.Args {
				if a := &in.Args[i]; a.Kind == ArgImm && a.Sym != "" {
					a.Imm = addrOf(a.Sym)
				}
			}
		}
	}
	if p.LoopStart >= 0 {
		for bi := 0; bi < p.LoopStart; bi++ {
			for _, in := range p.Bundles[bi].Insts {
				for _, d := range in.Defs {
					if d.Name != "ls" && d.Name != "le" && d.Name != "lc" {
						continue
					}
					toStart := p.Addr[p.LoopStart] - p.Addr[bi]
					toEnd := p.Addr[p.LoopEnd] - p.Addr[bi]
					if toStart < m.Loop.MinBytesToStart || toEnd < m.Loop.MinBytesToEnd {
						return &Hazard{Rule: "loop", Cycle: -1, Bundle: bi, Line: p.Bundles[bi].Line, Msg: fmt.Sprintf(
							"%s written %d bytes before the loop start and %d before its end; the set-up must come at least %d bytes before the start and %d before the end (%s)",
							d.Name, toStart, toEnd, m.Loop.MinBytesToStart, m.Loop.MinBytesToEnd, m.Loop.Source)}
					}
				}
			}
		}
	}
	return nil
}

// Listing prints a program in the syntax Parse reads, one bundle per line with the slots in
// the machine's order and a no-op in every idle slot.
func Listing(m *Machine, p *Program) string {
	var b strings.Builder
	if p.Name != "" {
		fmt.Fprintf(&b, "  .globl %s\n", p.Name)
		if i, ok := p.Labels[p.Name]; !ok || i != 0 {
			fmt.Fprintf(&b, ".p2align 4\n%s:\n", p.Name)
		}
	}
	for bi, bun := range p.Bundles {
		if bun.Comment != "" && strings.HasPrefix(bun.Comment, "//") {
			fmt.Fprintf(&b, "%s\n", bun.Comment)
		}
		if bun.Align > 0 || bi == p.LoopStart || bi == p.LoopEnd {
			al := max(bun.Align, m.LoopAlign)
			n := 0
			for al > 1 {
				al >>= 1
				n++
			}
			fmt.Fprintf(&b, ".p2align %d\n", n)
		}
		for _, l := range bun.Labels {
			fmt.Fprintf(&b, "%s:\n", l)
		}
		b.WriteString("  ")
		b.WriteString(FormatBundle(m, bun))
		if bun.Comment != "" && !strings.HasPrefix(bun.Comment, "//") {
			b.WriteString(" // " + bun.Comment)
		}
		b.WriteByte('\n')
	}
	for l, i := range p.Labels {
		if i == len(p.Bundles) {
			fmt.Fprintf(&b, "%s:\n", l)
		}
	}
	return b.String()
}

// column widths of the printed slots (vec, lda, ldb, st, alu), as in the seed's listings.
var colWidth = map[string]int{"vec": 32, "lda": 36, "ldb": 36, "st": 22, "alu": 16}

// FormatBundle prints one bundle.
func FormatBundle(m *Machine, bun *Bundle) string {
	bySlot := map[string]*Inst{}
	for _, in := range bun.Insts {
		if !in.IsNop() {
			bySlot[in.Slot] = in
		}
	}
	var cols []string
	for _, s := range []string{"vec", "lda", "ldb", "st"} {
		sl, _ := m.SlotByName(s)
		txt := sl.Nop
		if in := bySlot[s]; in != nil {
			txt = in.String()
		}
		cols = append(cols, pad(txt, colWidth[s]))
	}
	switch {
	case bySlot["lng"] != nil:
		cols = append(cols, bySlot["lng"].String())
	case bySlot["alu"] == nil && bySlot["mv"] == nil:
		cols = append(cols, "nopxm")
	default:
		x, mv := "nopx", "nopm"
		if in := bySlot["alu"]; in != nil {
			x = in.String()
		}
		if in := bySlot["mv"]; in != nil {
			mv = in.String()
		}
		cols = append(cols, pad(x, colWidth["alu"]), mv)
	}
	return strings.TrimRight(strings.Join(cols, "; "), " ")
}

func pad(s string, w int) string {
	if len(s) >= w {
		return s + " "
	}
	return s + strings.Repeat(" ", w-len(s))
}
