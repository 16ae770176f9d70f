package x86gen

import (
	"bytes"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var wordLine = regexp.MustCompile(`WORD \$0x([0-9a-f]{8}) // (.*)`)

// neonWords returns every distinct encoded instruction of the generated arm64 kernels,
// text -> encoding.
func neonWords(t *testing.T) map[string]uint32 {
	t.Helper()
	files, err := Generate("kernels", Catalog())
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]uint32{}
	for _, m := range wordLine.FindAllStringSubmatch(string(files["zkernels_arm64.s"]), -1) {
		w, _ := strconv.ParseUint(m[1], 16, 32)
		if old, ok := words[m[2]]; ok && old != uint32(w) {
			t.Fatalf("%s encoded as %08x and %08x", m[2], old, w)
		}
		words[m[2]] = uint32(w)
	}
	if len(words) < 100 {
		t.Fatalf("only %d encoded instructions", len(words))
	}
	return words
}

// Encodings checked once with llvm-mc 14 (-triple=aarch64 -mattr=+dotprod -show-encoding),
// one of each kind and element size, kept so the test checks something where llvm-mc is
// not installed.
var knownEncodings = map[string]uint32{
	"fmla v8.4s, v24.4s, v0.s[1]":    0x4fa01308,
	"fmla v31.4s, v7.4s, v2.s[3]":    0x4fa218ff,
	"fmul v8.4s, v8.4s, v0.s[0]":     0x4f809108,
	"fmla v9.2d, v5.2d, v1.d[1]":     0x4fc118a9,
	"fmul v8.2d, v8.2d, v0.d[0]":     0x4fc09108,
	"smlal2 v8.4s, v24.8h, v15.h[7]": 0x4f7f2b08,
	"smlal v12.4s, v6.4h, v2.h[5]":   0x0f5228cc,
	"sdot v8.4s, v24.16b, v0.4b[3]":  0x4fa0eb08,
	"udot v30.4s, v6.16b, v5.4b[2]":  0x6f85e8de,
	"sdot v8.4s, v4.16b, v3.16b":     0x4e839488,
	"udot v11.4s, v7.16b, v3.16b":    0x6e8394eb,
	"sxtl v4.8h, v4.8b":              0x0f08a484,
	"uxtl2 v1.8h, v0.16b":            0x6f08a401,
	"mla v8.4s, v4.4s, v1.4s":        0x4ea19488,
	"mul v31.4s, v31.4s, v0.4s":      0x4ea09fff,
	"add v8.4s, v8.4s, v4.4s":        0x4ea48508,
	"sub v31.4s, v31.4s, v7.4s":      0x6ea787ff,
	"dup v1.4s, w17":                 0x4e040e21,
}

func TestNEONKnownEncodings(t *testing.T) {
	enc := map[string]neonInst{}
	for _, i := range []neonInst{
		fmlaS(8, 24, 0, 1), fmlaS(31, 7, 2, 3), fmulS(8, 8, 0, 0), fmlaD(9, 5, 1, 1), fmulD(8, 8, 0, 0),
		smlalH(8, 24, 15, 7, true), smlalH(12, 6, 2, 5, false), dotElem(false, 8, 24, 0, 3),
		dotElem(true, 30, 6, 5, 2), dotVec(false, 8, 4, 3), dotVec(true, 11, 7, 3),
		xtl(false, false, 4, 4), xtl(true, true, 1, 0), vec4S("mla", 8, 4, 1), vec4S("mul", 31, 31, 0),
		vec4S("add", 8, 8, 4), vec4S("sub", 31, 31, 7), dupW(1, 17),
	} {
		enc[i.text] = i
	}
	for text, want := range knownEncodings {
		i, ok := enc[text]
		if !ok {
			t.Errorf("%s: not produced by the encoder (texts: %v)", text, enc)
			continue
		}
		if i.word != want {
			t.Errorf("%s: %08x, want %08x", text, i.word, want)
		}
	}
}

// TestNEONEncodingsLLVM assembles every instruction the arm64 kernels encode by hand with
// llvm-mc and compares the encodings (skipped where llvm-mc is not installed).
func TestNEONEncodingsLLVM(t *testing.T) {
	mc, err := exec.LookPath("llvm-mc")
	if err != nil {
		t.Skip("llvm-mc not installed")
	}
	words := neonWords(t)
	var texts []string
	var src bytes.Buffer
	for text := range words {
		texts = append(texts, text)
		src.WriteString(text + "\n")
	}
	cmd := exec.Command(mc, "-triple=aarch64", "-mattr=+dotprod", "-show-encoding")
	cmd.Stdin = &src
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, out)
	}
	enc := regexp.MustCompile(`^\s*(\S.*?)\s*// encoding: \[0x(..),0x(..),0x(..),0x(..)\]`)
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := enc.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var w uint32
		for b := 0; b < 4; b++ {
			v, _ := strconv.ParseUint(m[2+b], 16, 8)
			w |= uint32(v) << (8 * b)
		}
		// llvm-mc answers line by line, in order (printing SXTL as its SSHLL #0 alias).
		if got, want := strings.Fields(m[1])[0], strings.Fields(texts[n])[0]; got != want && !strings.HasPrefix(want, "sxtl") && !strings.HasPrefix(want, "uxtl") {
			t.Fatalf("llvm-mc line %d: %q, expected %q", n, m[1], texts[n])
		}
		if w != words[texts[n]] {
			t.Errorf("%s: generated %08x, llvm-mc %08x", texts[n], words[texts[n]], w)
		}
		n++
	}
	if n != len(texts) {
		t.Fatalf("llvm-mc encoded %d of %d instructions:\n%s", n, len(texts), out)
	}
	t.Logf("%d distinct encodings checked", n)
}

// TestNEONKernelsFit: every catalog kernel has an arm64 form that fits the register plan,
// the int8 kernels two, and the rejected shapes are rejected.
func TestNEONKernelsFit(t *testing.T) {
	ns := neonKernels(Catalog())
	n8 := 0
	for _, k := range ns {
		if err := k.validate(); err != nil {
			t.Error(err)
		}
		if k.dot {
			n8++
		}
	}
	for _, bad := range []neon{
		{Kernel: Kernel{Elem: F32, MR: 7, NR: 16, Unroll: 4}},                // 28 accumulators
		{Kernel: Kernel{Elem: F32, MR: 6, NR: 16, Unroll: 4, AVX512: true}},  // no arm64 form
		{Kernel: Kernel{Elem: F32, MR: 3, NR: 16, Unroll: 4}},                // 12-byte packed A group
		{Kernel: Kernel{Elem: I16, MR: 6, NR: 4, Unroll: 4, Strided: true}},  // half of an LD2 pair
		{Kernel: Kernel{Elem: U8S8, MR: 6, NR: 24, Unroll: 4}, dot: false},   // 6 vectors per row
		{Kernel: Kernel{Elem: F64, MR: 6, NR: 12, Unroll: 4, Strided: true}}, // 36 accumulators
	} {
		if err := bad.validate(); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	if n8 == 0 {
		t.Error("no dot-product kernels")
	}
	// The 6x16 float32 kernel does 24 FMLA per k step and loads each 16 bytes of packed A once.
	var a asm
	neon{Kernel: Kernel{Elem: F32, MR: 6, NR: 16, Unroll: 4}}.emit(&a)
	body := a.buf.String()
	loop := body[strings.Index(body, "\nloop:"):strings.Index(body, "\ntail:")]
	if n := strings.Count(loop, "// fmla"); n != 4*24 {
		t.Errorf("6x16 float32 unroll 4: %d FMLA in the loop, want %d", n, 4*24)
	}
	if n := strings.Count(loop, "(R1), [V0.B16, V1.B16, V2.B16]"); n != 2 {
		t.Errorf("6x16 float32: %d loads of 48 bytes of A per 4 k, want 2:\n%s", n, loop)
	}
}
