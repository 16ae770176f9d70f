package x86gen

import (
	"bytes"
	"fmt"
	"strings"
)

// asm accumulates the text of one Go assembly file. It is a deliberately thin layer:
// the kernels are small and fully register-allocated by hand in kernel.go, so an
// instruction is one formatted line and a label is a line ending in ':'.
type asm struct {
	buf bytes.Buffer
}

// ins emits one instruction: op followed by its operands in Go assembler order
// (sources first, destination last).
func (a *asm) ins(op string, operands ...string) {
	a.buf.WriteByte('\t')
	a.buf.WriteString(op)
	if len(operands) > 0 {
		a.buf.WriteByte(' ')
		a.buf.WriteString(strings.Join(operands, ", "))
	}
	a.buf.WriteByte('\n')
}

func (a *asm) label(name string) { fmt.Fprintf(&a.buf, "%s:\n", name) }

func (a *asm) comment(format string, args ...any) {
	fmt.Fprintf(&a.buf, "\t// "+format+"\n", args...)
}

func (a *asm) line(format string, args ...any) { fmt.Fprintf(&a.buf, format+"\n", args...) }

func (a *asm) blank() { a.buf.WriteByte('\n') }

// y names vector register i.
func y(i int) string { return fmt.Sprintf("Y%d", i) }

// xreg names the 128-bit half of ymm register r ("Y14" -> "X14").
func xreg(r string) string { return "X" + strings.TrimPrefix(r, "Y") }

// mem formats a memory operand disp(base), leaving out a zero displacement.
func mem(disp int, base string) string {
	if disp == 0 {
		return "(" + base + ")"
	}
	return fmt.Sprintf("%d(%s)", disp, base)
}

// memIdx formats disp(base)(index*scale).
func memIdx(disp int, base, index string, scale int) string {
	return fmt.Sprintf("%s(%s*%d)", mem(disp, base), index, scale)
}

// imm formats an immediate operand.
func imm(v int) string { return fmt.Sprintf("$%d", v) }

// log2 returns the base-2 logarithm of a power of two.
func log2(v int) int {
	n := 0
	for v > 1 {
		if v&1 != 0 {
			panic(fmt.Sprintf("x86gen: %d is not a power of two", v))
		}
		v >>= 1
		n++
	}
	return n
}
