package cfront

import (
	"os"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

func TestLowerGEMM(t *testing.T) {
	src, err := os.ReadFile("../testdata/lei_gemm_16x4.cc")
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParseKernel("lei_gemm_16x4.cc", src, []string{"Kc=128"})
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "micro_kernel" || len(k.Params) != 4 || k.Defines["Kc"] != "128" {
		t.Fatalf("kernel %s, %d params, defines %v", k.Name, len(k.Params), k.Defines)
	}
	wantParams := []string{"input_window_int16 DDR_IN", "input_window_int16 PL_IN", "int16* Br", "output_window_int16 out"}
	for i, p := range k.Params {
		if got := p.Type.String() + " " + p.Name; got != wantParams[i] {
			t.Errorf("param %d = %s, want %s", i, got, wantParams[i])
		}
	}
	if !k.Params[0].Restrict || k.Params[2].Restrict {
		t.Errorf("__restrict not recorded as written")
	}
	// the mac16 parameters are immediates, the loop is counted with its pragmas
	var loops, macs int
	kernel.Walk(k.Body, func(s kernel.Stmt, depth int) {
		switch s := s.(type) {
		case *kernel.Loop:
			loops++
			if n, ok := s.TripCount(); !ok || n != 32 || !s.Pipelined || !s.HasRange || s.RangeMin != 32 || s.RangeMax != 0 {
				t.Errorf("loop: trip %d pipelined %v range %v %d..%d", n, s.Pipelined, s.HasRange, s.RangeMin, s.RangeMax)
			}
		case *kernel.Instr:
			if s.Op == kernel.OpMac16 {
				macs++
				if depth != 1 || s.Args[3].Imm != 0x73727170 || s.Args[4].Imm != 0x77767574 || s.Args[5].Imm != 0x3120 || s.Args[10].Imm != 4 {
					t.Errorf("mac16 %v at depth %d", s, depth)
				}
			}
			if !s.Pos.IsValid() || s.Pos.File != "lei_gemm_16x4.cc" {
				t.Errorf("instruction %v without a source position", s)
			}
		}
	})
	if loops != 1 || macs != 8 {
		t.Errorf("%d loops, %d mac16", loops, macs)
	}
	for _, name := range []string{"xoffsets", "xsquare", "zoffsets_hi"} {
		if k.Lookup(name) != nil {
			t.Errorf("constant %s became a variable", name)
		}
	}
}

func TestLowerErrors(t *testing.T) {
	head := "void k(input_window_int16 * in, int16 * p, output_window_int16 * out) {\n"
	cases := []struct{ body, want string }{
		{"    foo(1);\n", "k.cc:2:5: unknown function foo"},
		{"    v16int16 a;\n    v32int16 b;\n    a = b;\n", "k.cc:4:9: cannot assign v32int16 to a (v16int16)"},
		{"    int x = y + 1;\n", "k.cc:2:13: y is not declared"},
		{"    v16acc48 a;\n    v32int16 x;\n    v16int16 z;\n    unsigned int xo;\n    xo = 5;\n" +
			"    a = mac16(a, x, 0, xo, 0, 0x3210, z, 0, 0, 0, 1);\n", "k.cc:7:24: mac16: xoffsets must be a compile-time constant"},
		{"    v16acc48 a;\n    v16int16 z;\n    a = mac16(a, z, 0);\n", "k.cc:4:9: mac16: 3 arguments"},
		{"    for (int i = 0; i < 4; i++) { i = 2; }\n", "k.cc:2:5: the loop body modifies the counter i"},
		{"    for (int i = 0; i < 4; i++) chess_unroll(2) {}\n", "k.cc:2:33: pragma chess_unroll is not supported"},
		{"    for (int i = 0; i < 4; i *= 2) {}\n", "k.cc:2:28: the loop increment must change the counter i by a constant"},
		{"    v16int16 v = window_readincr_v16(in) + window_readincr_v16(in);\n", "k.cc:2:44: a second side effect in one statement"},
		{"    v16int16 v;\n    window_writeincr(out, window_readincr_v16(in));\n    v = operator+(window_readincr_v16(in), window_readincr_v16(in));\n",
			"k.cc:4:44: a second side effect in one statement"},
		{"    v16int16 v = *(v16int16*) &p[3] + 1;\n", "k.cc:2:37: operator+: argument 2: cannot combine int with v16int16"},
		{"    int x = 1;\n    int x = 2;\n", "k.cc:3:9: x is already declared in this scope"},
		{"    input_window_int16 * w;\n", "k.cc:2:5: a window is a kernel parameter"},
		{"    v16int16 v = upd_w(v, 0, v);\n", "k.cc:2:18: upd_w: argument 1: v16int16 is not wider than the 256-bit part"},
		{"    int a = 1 / 0;\n", "k.cc:2:15: division by zero"},
		{"    set_rnd(rnd_sideways);\n", "k.cc:2:13: rnd_sideways is not an AIE1 rounding constant"},
		{"    set_sat(1);\n", "k.cc:2:5: set_sat takes no arguments"},
	}
	for _, c := range cases {
		_, err := ParseKernel("k.cc", []byte(head+c.body+"}\n"), nil)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.body, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %q\nwant %q...", c.body, err, c.want)
		}
	}
}

func TestLowerModes(t *testing.T) {
	k, err := ParseKernel("m.cc", []byte("void m() {\n    set_rnd(rnd_conv_even);\n    clr_sat();\n    set_sat();\n}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"set_rnd(8);", "set_sat(1);", "set_sat(0);"} // num.ConvEven, num.None, num.Saturate
	if len(k.Body) != len(want) {
		t.Fatalf("%d statements, want %d", len(k.Body), len(want))
	}
	for i, s := range k.Body {
		if got := s.(*kernel.Instr).String(); got != want[i] {
			t.Errorf("statement %d = %s, want %s", i, got, want[i])
		}
	}
}
