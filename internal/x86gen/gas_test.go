package x86gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gasBytes assembles each line (AT&T syntax) with GNU as and returns each instruction's bytes
// as objdump -d prints them, or skips the test with a message when the tools are missing (or
// too old for the mnemonics).
func gasBytes(t *testing.T, lines []string) [][]byte {
	t.Helper()
	as, err1 := exec.LookPath("as")
	od, err2 := exec.LookPath("objdump")
	if err1 != nil || err2 != nil {
		t.Skip("GNU as or objdump not found: the encodings are checked against the table only")
	}
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "t.s"), filepath.Join(dir, "t.o")
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "--64", src, "-o", obj).CombinedOutput(); err != nil {
		t.Skipf("GNU as cannot assemble the instructions (too old?): %v\n%s", err, out)
	}
	out, err := exec.Command(od, "-d", "-w", obj).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	var res [][]byte
	for _, l := range strings.Split(string(out), "\n") {
		// "   0:\t62 f2 6e 48 52 cb    \tvdpbf16ps ..."
		f := strings.Split(l, "\t")
		if len(f) < 3 || !strings.HasSuffix(strings.TrimSpace(f[0]), ":") {
			continue
		}
		var b []byte
		for _, h := range strings.Fields(f[1]) {
			v, err := strconv.ParseUint(h, 16, 8)
			if err != nil {
				t.Fatalf("objdump line %q: %v", l, err)
			}
			b = append(b, byte(v))
		}
		res = append(res, b)
	}
	if len(res) != len(lines) {
		t.Fatalf("objdump printed %d instructions for %d lines:\n%s", len(res), len(lines), out)
	}
	return res
}

// TestEVEXDPBF16PS checks VDPBF16PS's encoding against GNU as for every register of each
// operand position (with the others fixed) and a few mixed triples.
func TestEVEXDPBF16PS(t *testing.T) {
	type tri struct{ d, s1, s2 int }
	var cs []tri
	for r := 0; r < 32; r++ {
		cs = append(cs, tri{r, 5, 9}, tri{3, r, 17}, tri{30, 12, r})
	}
	cs = append(cs, tri{1, 2, 3}, tri{25, 18, 31}, tri{16, 8, 24})
	var lines []string
	for _, c := range cs {
		lines = append(lines, "vdpbf16ps %zmm"+strconv.Itoa(c.s2)+",%zmm"+strconv.Itoa(c.s1)+",%zmm"+strconv.Itoa(c.d))
	}
	want := gasBytes(t, lines)
	for i, c := range cs {
		if got := evexDPBF16PS(c.d, c.s1, c.s2); !bytes.Equal(got, want[i]) {
			t.Errorf("VDPBF16PS Z%d, Z%d, Z%d: % x, GNU as % x", c.d, c.s1, c.s2, got, want[i])
		}
	}
}

// TestAMXEncodings checks every AMX instruction the kernels use, over every tile register
// and the memory operands of the kernels (and the awkward bases: SP, BP, R12, R13; disp 0,
// 8 and 32 bits), against GNU as.
func TestAMXEncodings(t *testing.T) {
	type c struct {
		gas               string
		op                string
		tile, t1, t2      int
		base, index, disp int
	}
	reg := func(n int) string {
		return []string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}[n]
	}
	mem := func(base, index, disp int) string {
		s := ""
		if disp != 0 {
			s = strconv.Itoa(disp)
		}
		if index < 0 {
			return s + "(%" + reg(base) + ")"
		}
		return s + "(%" + reg(base) + ",%" + reg(index) + ",1)"
	}
	var cs []c
	for _, b := range []int{0, 4, 5, 7, 12, 13} {
		cs = append(cs, c{"ldtilecfg " + mem(b, -1, 0), "LDTILECFG", 0, 0, 0, b, -1, 0},
			c{"sttilecfg " + mem(b, -1, 64), "STTILECFG", 0, 0, 0, b, -1, 64})
	}
	for tile := 0; tile < 8; tile++ {
		for _, m := range [][3]int{{6, 11, 0}, {6, 11, 1024}, {7, 11, 1024}, {8, 9, 64}, {12, 9, 0}, {12, 9, 64}, {13, 2, 0}, {5, 0, -8}, {0, 11, 0}, {13, 11, 0}, {7, 10, 0}, {7, 10, 1024}} {
			cs = append(cs, c{"tileloadd " + mem(m[0], m[1], m[2]) + ", %tmm" + strconv.Itoa(tile), "TILELOADD", tile, 0, 0, m[0], m[1], m[2]},
				c{"tilestored %tmm" + strconv.Itoa(tile) + ", " + mem(m[0], m[1], m[2]), "TILESTORED", tile, 0, 0, m[0], m[1], m[2]})
		}
		cs = append(cs, c{"tilezero %tmm" + strconv.Itoa(tile), "TILEZERO", tile, 0, 0, 0, -1, 0})
		for _, op := range []string{"TDPBUSD", "TDPBSSD", "TDPBF16PS"} {
			t1, t2 := (tile+3)%8, (tile+5)%8
			cs = append(cs, c{strings.ToLower(op) + " %tmm" + strconv.Itoa(t2) + ", %tmm" + strconv.Itoa(t1) + ", %tmm" + strconv.Itoa(tile), op, tile, t1, t2, 0, -1, 0})
		}
	}
	cs = append(cs, c{"tilerelease", "TILERELEASE", 0, 0, 0, 0, -1, 0})
	var lines []string
	for _, x := range cs {
		lines = append(lines, x.gas)
	}
	want := gasBytes(t, lines)
	for i, x := range cs {
		if got := amxBytes(x.op, x.tile, x.t1, x.t2, x.base, x.index, x.disp); !bytes.Equal(got, want[i]) {
			t.Errorf("%s: % x, GNU as % x", x.gas, got, want[i])
		}
	}
}
