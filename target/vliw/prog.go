package vliw

import (
	"fmt"
	"strconv"
	"strings"
)

// ArgKind is the kind of an operation's operand.
type ArgKind uint8

const (
	ArgReg ArgKind = iota + 1 // a register
	ArgImm                    // #immediate (a number or a label)
	ArgMem                    // a memory operand: [p, #off], [p], #inc, [p], m, [p, lf, r]
)

// Arg is one operand as written in assembly.
type Arg struct {
	Kind ArgKind
	Reg  *Reg
	Imm  int64  // ArgImm value (labels resolved by Link)
	Sym  string // ArgImm: the label it names, if any
	Text string // ArgImm: the expression as written (printed back unchanged)

	Base    *Reg  // ArgMem pointer
	Off     int64 // [p, #off]
	Post    bool  // post-modify form: [p], #inc or [p], m
	PostImm int64
	PostReg *Reg // modifier register of [p], m
	Fifo    *Reg // [p, lf, r]: the load FIFO register
	Pos     *Reg // [p, lf, r]: the FIFO position register
}

// R is a register operand.
func R(r *Reg) Arg { return Arg{Kind: ArgReg, Reg: r} }

// Imm is an immediate operand.
func Imm(v int64) Arg { return Arg{Kind: ArgImm, Imm: v} }

// Label is an immediate naming a label.
func Label(name string) Arg { return Arg{Kind: ArgImm, Sym: name} }

// MemOff is [p, #off].
func MemOff(p *Reg, off int64) Arg { return Arg{Kind: ArgMem, Base: p, Off: off} }

// MemPost is [p], #inc.
func MemPost(p *Reg, inc int64) Arg { return Arg{Kind: ArgMem, Base: p, Post: true, PostImm: inc} }

// MemPostReg is [p], m.
func MemPostReg(p, m *Reg) Arg { return Arg{Kind: ArgMem, Base: p, Post: true, PostReg: m} }

// MemFifo is [p, lf, r].
func MemFifo(p, lf, pos *Reg) Arg { return Arg{Kind: ArgMem, Base: p, Fifo: lf, Pos: pos} }

func (a Arg) String() string {
	switch a.Kind {
	case ArgReg:
		return a.Reg.Name
	case ArgImm:
		if a.Text != "" {
			return "#" + a.Text
		}
		if a.Sym != "" {
			return "#" + a.Sym
		}
		return "#" + strconv.FormatInt(a.Imm, 10)
	case ArgMem:
		switch {
		case a.Fifo != nil:
			return fmt.Sprintf("[%s, %s, %s]", a.Base.Name, a.Fifo.Name, a.Pos.Name)
		case a.Post && a.PostReg != nil:
			return fmt.Sprintf("[%s], %s", a.Base.Name, a.PostReg.Name)
		case a.Post:
			return fmt.Sprintf("[%s], #%d", a.Base.Name, a.PostImm)
		default:
			return fmt.Sprintf("[%s, #%d]", a.Base.Name, a.Off)
		}
	}
	return "?"
}

// Use names the value an operand is meant to read: value V of iteration (the reading
// instruction's iteration + Delta). Generators attach them so the engine can tell a read that
// comes before its producing write has landed from one that is meant to see older data.
type Use struct {
	Arg   int   // operand index
	V     int32 // value id
	Delta int32
}

// Ann is a generator's annotation of an instruction: the value it defines and the values its
// register operands are meant to read. Iteration = Iter + (loop trips completed) * IterStep.
type Ann struct {
	Iter, IterStep int32
	Def            int32 // value id written by the instruction's destinations (-1: none)
	Uses           []Use
}

// Key is the identity of a value: (value id, iteration).
type Key struct{ V, It int32 }

// Inst is one operation in a bundle.
type Inst struct {
	Op      string // mnemonic, lower case
	Slot    string // the slot it occupies
	Args    []Arg
	Line    int // source line (assembly input) or 0
	Comment string
	Ann     *Ann
	// Defs are the registers the operation writes (set by the ISA); the engine uses them for
	// the hardware-loop set-up rule.
	Defs []*Reg
	// Exec is the operation's semantics (set by the ISA).
	Exec func(c *Ctx)
}

func (in *Inst) String() string {
	var b strings.Builder
	b.WriteString(in.Op)
	for i, a := range in.Args {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

// IsNop reports whether the operation is a no-op (nop, nopa, nopxm, ...).
func (in *Inst) IsNop() bool { return strings.HasPrefix(in.Op, "nop") }

// Bundle is one VLIW instruction.
type Bundle struct {
	Insts   []*Inst // operations (no-ops included when read from assembly)
	Labels  []string
	Align   int // p2align before the bundle, in bytes (0: none)
	Comment string
	Line    int
}

// Slots returns the slots the bundle's operations occupy, no-ops excluded.
func (b *Bundle) Slots() []string {
	var s []string
	for _, in := range b.Insts {
		if !in.IsNop() {
			s = append(s, in.Slot)
		}
	}
	return s
}

// Program is a straight-line list of bundles with labels.
type Program struct {
	Name    string
	Bundles []*Bundle
	Labels  map[string]int // label -> bundle index
	Addr    []int          // byte address of each bundle (set by Link)
	Size    []int          // encoded size of each bundle (set by Link)
	Bytes   int            // program size (set by Link)
	// LoopStart/LoopEnd: bundle indices of the hardware loop's first and last bundles
	// (-1: none), found by Link from the writes of ls and le.
	LoopStart, LoopEnd int
}
