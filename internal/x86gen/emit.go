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

// xreg names the low 128 bits of ymm or zmm register r ("Y14" -> "X14", "Z20" -> "X20").
func xreg(r string) string { return "X" + r[1:] }

// vexVNNI emits an AVX-VNNI instruction (VPDPBUSD or VPDPWSSD on ymm registers, Intel order
// dst, src1, src2 = register operands), which Go's assembler knows only in its EVEX form
// (AVX512_VNNI + AVX512VL), as the bytes of its VEX encoding: VEX.256.66.0F38.W0 50 /r
// (VPDPBUSD) and 52 /r (VPDPWSSD) (Intel SDM vol. 2C, "VPDPBUSD", "VPDPWSSD"; the 3-byte
// VEX prefix, vol. 2A section 2.3.5).
func (a *asm) vexVNNI(op, dst, src1, src2 string) {
	for _, b := range vexVNNIBytes(op, regNum(dst), regNum(src1), regNum(src2)) {
		a.ins("BYTE", fmt.Sprintf("$0x%02x", b))
	}
	a.comment("%s %s, %s, %s (VEX)", op, dst, src1, src2)
}

// vexVNNIBytes encodes the AVX-VNNI instruction op with ymm registers dst, src1, src2.
func vexVNNIBytes(op string, dst, src1, src2 int) []byte {
	opcode := map[string]byte{"VPDPBUSD": 0x50, "VPDPWSSD": 0x52}[op]
	if opcode == 0 || dst > 15 || src1 > 15 || src2 > 15 || dst < 0 || src1 < 0 || src2 < 0 {
		panic(fmt.Sprintf("x86gen: no VEX encoding of %s Y%d, Y%d, Y%d", op, dst, src1, src2))
	}
	inv := func(b int) byte { return byte(^b & 1) }
	// C4, then R̄X̄B̄ and map 0F38 (00010), then W0, v̄v̄v̄v̄ (src1), L=1 (256 bits), pp=01 (66).
	b1 := inv(dst>>3)<<7 | 1<<6 | inv(src2>>3)<<5 | 0x02
	b2 := byte(^src1&15)<<3 | 1<<2 | 0x01
	modrm := 0xC0 | byte(dst&7)<<3 | byte(src2&7)
	return []byte{0xC4, b1, b2, opcode, modrm}
}

// regNum is the number of vector register r ("Y13" -> 13).
func regNum(r string) int {
	n := 0
	if _, err := fmt.Sscanf(r[1:], "%d", &n); err != nil || len(r) < 2 {
		panic("x86gen: not a vector register: " + r)
	}
	return n
}

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
