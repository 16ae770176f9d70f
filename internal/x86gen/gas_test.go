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
