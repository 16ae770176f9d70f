package cfront

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

func parseWith(t *testing.T, files map[string]string, instance string) (*kernel.Kernel, error) {
	t.Helper()
	cfg := &Config{Instance: instance, ReadFile: func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("no file %s", p)
	}}
	return ParseKernelConfig("k.cc", []byte(files["k.cc"]), cfg)
}

func TestADFPortTypes(t *testing.T) {
	src := `#include <adf.h>
void k(input_window<int16> * a, input_window_int16 * b, output_window<float> * c,
       input_stream<int32> * d, output_stream_int32 * e, input_cascade<acc48> * f, output_stream_acc80 * g,
       adf::input_buffer<int16, adf::extents<32>> & h, adf::output_buffer<float> & i, const int32 (&j)[8], int8 * k) {}
`
	k, err := parseWith(t, map[string]string{"k.cc": src}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"input_window_int16 a", "input_window_int16 b", "output_window_float c", "input_stream_int32 d",
		"output_stream_int32 e", "input_stream_acc48 f", "output_stream_acc80 g", "int16* h", "float* i", "int* j", "int8* k"}
	for i, p := range k.Params {
		if got := p.Type.String() + " " + p.Name; got != want[i] {
			t.Errorf("param %d: %s, want %s", i, got, want[i])
		}
	}
	if p := k.Params[7]; p.Port != kernel.PortInBuffer || p.Array != 32 {
		t.Errorf("buffer h: port %v, %d elements", p.Port, p.Array)
	}
	if p := k.Params[9]; p.Port != kernel.PortArrayRef || p.Array != 8 {
		t.Errorf("array j: port %v, %d elements", p.Port, p.Array)
	}
}

func TestADFClassTemplate(t *testing.T) {
	files := map[string]string{
		"k.h": `#pragma once
#include <adf.h>
template <typename TT, int W, int SHIFT = 2>
class Mac {
    alignas(32) TT (&weights)[W];
    float scale;
    TT state[4];
  public:
    Mac(TT (&w)[W], float s) : weights(w), scale(s) {}
    void filter(input_window<TT>* in, output_window<TT>* out);
    static void registerKernelClass() { REGISTER_FUNCTION(Mac::filter); REGISTER_PARAMETER(weights); }
};
`,
		"k.cc": `#include "k.h"
#include "k.h"
template <typename TT, int W, int SHIFT>
void Mac<TT, W, SHIFT>::filter(input_window<TT>* in, output_window<TT>* out) {
    for (int w = 0; w < W; w++) {
        TT a = window_readincr(in);
        window_writeincr(out, a * weights[w] * scale);
    }
    state[0] = scale;
}
`}
	k, err := parseWith(t, files, "Mac<float, 16>(0.5f)")
	if err != nil {
		t.Fatal(err)
	}
	if k.Entry == nil || k.Entry.Name != "Mac<float, 16, 2>" || k.Entry.Method != "filter" || len(k.Entry.Ctor) != 2 {
		t.Fatalf("entry %+v", k.Entry)
	}
	if c := k.Entry.Ctor; c[0].Param != 2 || c[1].Param != -1 || c[1].Value != "0.5f" {
		t.Errorf("constructor arguments %+v", c)
	}
	if len(k.Params) != 3 || !k.Params[2].Member || k.Params[2].Name != "weights" || k.Params[2].Array != 16 {
		t.Errorf("params %v", k.Params)
	}
	if v := k.Lookup("state"); v == nil || v.Storage == nil || v.Storage.Kind != kernel.MemberArray || v.Storage.Bytes != 16 {
		t.Errorf("state: %+v", v)
	}
	if len(k.Includes) != 1 || k.Includes[0] != "k.h" {
		t.Errorf("includes %v (the second #include is skipped by #pragma once)", k.Includes)
	}
	for _, c := range []struct{ inst, want string }{
		{"", "kernels here are templates (Mac<...>): pass --instance"},
		{"Mac<float>", "Mac needs template argument W"},
		{"Mac<float, 16>", "Mac<float, 16, 2>'s constructor needs a value for s"},
		{"Nope<1>", "no kernel function or class Nope"},
		{"Mac<float, 16, 2, 9>(1)", "Mac takes 3 template arguments, 4 given"},
	} {
		_, err := parseWith(t, files, c.inst)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--instance %q: %v, want %q", c.inst, err, c.want)
		}
	}
}

func TestADFStatements(t *testing.T) {
	src := `#include <adf.h>
#include <limits>
#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)
static const int N = 4;
const float kMin = std::numeric_limits<float>::lowest();
static const int16 table[N] = {1, -2, 3};
enum { A = 2, B };
template <int M>
void k(input_window<int16> * in, output_window<int16> * out, int n) {
    int16 acc[2] = {0};
    if (M > 1) { window_incr(in, B); } else { window_incr(in, 100); }
    [[chess::prepare_for_pipelining]] [[chess::min_loop_count(2)]]
    for (int i = 0; i < N; i++) chess_unroll_loop(2) chess_pipeline_adjust_preamble(1) {
        int16 x = window_readincr(in);
        if (x > table[i]) { acc[0] += x; } else { acc[1] = x > 0 ? x : -x; }
        LOG("%d %s\n", x, "x");
    }
    chess_separator_scheduler(2);
    for (int j = 0; j < 2; j++) chess_flatten_loop { window_writeincr(out, acc[j]); }
    return;
}
`
	k, err := parseWith(t, map[string]string{"k.cc": src}, "k<3>")
	if err != nil {
		t.Fatal(err)
	}
	var ifs, loops, barriers, selects, writes int
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.If:
			ifs++
		case *kernel.Loop:
			loops++
			if loops == 1 && (!s.Pipelined || !s.HasRange || s.RangeMin != 2 || s.Unroll != 2) {
				t.Errorf("first loop: %+v", s)
			}
			if loops == 2 {
				t.Errorf("the chess_flatten_loop loop of constant trip count was not unrolled")
			}
		case *kernel.Instr:
			switch s.Op {
			case kernel.OpBarrier:
				barriers++
			case kernel.OpWinWriteIncr:
				writes++
			case kernel.OpSelect:
				selects++
			case kernel.OpWinIncr:
				if s.Args[1].Imm != 3 {
					t.Errorf("the compile-time if took the wrong branch: %v", s)
				}
			}
		}
	})
	if ifs != 1 || loops != 1 || barriers != 1 || selects != 1 || writes != 2 {
		t.Errorf("%d ifs, %d loops, %d barriers, %d selects, %d writes (the flattened loop unrolled: 2)", ifs, loops, barriers, selects, writes)
	}
	if v := k.Lookup("table"); v == nil || v.Storage == nil || !v.Storage.Const || len(v.Storage.Init) != 8 {
		t.Errorf("table: %+v", v)
	}
	notes := strings.Join(k.Notes, "\n")
	for _, want := range []string{"chess_pipeline_adjust_preamble ignored", "printf(...) ignored"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestADFErrors: constructs outside the subset are named in a one-line error.
func TestADFErrors(t *testing.T) {
	head := "#include <adf.h>\nvoid k(input_window<int16> * in, output_window<int16> * out) {\n"
	cases := []struct{ body, want string }{
		{"    while (1) {}\n", "k.cc:3:5: while loops are not supported"},
		{"    long long x = 1;\n", "64-bit integers (long long) are not supported"},
		{"    cint16 c;\n", "complex types (cint16) are not supported"},
		{"    int x = 1;\n    if (x) return;\n    x = 2;\n", "k.cc:4:12: return before the end of the function is not supported"},
		{"    v8float v = aie::nosuch<float, 8>();\n", "aie::nosuch is not supported"},
		{"    goto end;\n", "goto are not supported"},
		{"    for (int i = 0; i < 4; i++) chess_mystery {}\n", "pragma chess_mystery is not supported"},
		{"    int16 a[4];\n    a = 0;\n", "cannot assign to array a"},
		{"    double d = 1;\n", "double (the AIE1 has no double-precision arithmetic) are not supported"},
		{"    aie::mmul<4, 4, 4, int32, int16> m;\n", "aie::mmul<4, 4, 4, int32, int16>: sumac lowers int16 x int16"},
		{"    aie::mmul<8, 8, 1, int16, int16> m;\n", "sumac lowers int16 x int16 shapes with 16 or 32 outputs"},
		{"    aie::accum<acc48, 32> a;\n", "aie::accum<acc48, 32> is not an AIE1 register type"},
		{"    auto it = aie::begin_vector_circular<8>(in);\n", "circular iterators are not supported yet"},
		{"    aie::vector<int8, 32> v;\n    auto a = aie::mul(v, v);\n", "element-wise products of v32int8 are not supported"},
	}
	for _, c := range cases {
		_, err := parseWith(t, map[string]string{"k.cc": head + c.body + "}\n"}, "")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"void k(adf::input_circular_buffer<int16> & b) {}\n", "adf::input_circular_buffer ports are not supported yet"},
		{"void a() {}\nvoid b() {}\n", "2 kernels defined (a, b): pass --instance NAME"},
		{"#include \"missing.h\"\nvoid a() {}\n", "#include \"missing.h\": no such file"},
		{"class C { public: C() { for (int i = 0; i < 2; i++) x = i; } int x; void f(input_window<int16> * w);\n static void registerKernelClass() { REGISTER_FUNCTION(C::f); } };\nvoid C::f(input_window<int16> * w) {}\n", "C's constructor: only assignments of constants to scalar members"},
	} {
		_, err := parseWith(t, map[string]string{"k.cc": c.src}, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	// stream moves by port number: the port must exist, a float stream's raw word only moves
	for _, c := range []struct{ body, want string }{
		{"void k(input_stream<float> *a, output_stream<float> *b) { put_ms(1, 0); }\n", "put_ms(1, ...): the kernel has 1 output stream parameters"},
		{"void k(input_stream<float> *a, output_stream<float> *b) { float x = get_ss(0) + 1; putf_ms(0, x); }\n", "get_ss on a float stream returns the raw word as an int"},
		{"void k(input_stream<float> *a, output_stream<float> *b) { float x = readincr(a); put_ms(0, x); }\n", "put_ms on a float stream writes an int's bits"},
		{"void k(input_stream<int16> *a, output_stream<int16> *b) { put_ms(0, get_ss(0)); }\n", "put_ms writes a 32-bit word: port 0 carries int16"},
	} {
		_, err := parseWith(t, map[string]string{"k.cc": "#include <adf.h>\n" + c.body}, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	// a constructor defined outside its class, its body evaluated for the instance C(1)
	class := "class C { public: C(int a); int x; void f(input_window<int16> * w);\n static void registerKernelClass() { REGISTER_FUNCTION(C::f); } };\nvoid C::f(input_window<int16> * w) { window_writeincr(w, x); }\n"
	for _, c := range []struct{ ctor, want string }{
		{"C::C(int a) { x = a * w; }\n", "the value assigned to x is not a compile-time number"},
		{"C::C(int a) { x = a; assert(x > 2); }\n", "assert(x > 2) fails for this instance"},
		{"C::C(int a) { x = a; x++; }\n", "only assignments of constants to scalar members"},
		{"C::C(int a) { y = a; }\n", "only assignments (=) to scalar members"},
	} {
		_, err := parseWith(t, map[string]string{"k.cc": class + c.ctor}, "C(1)")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.ctor, err, c.want)
		}
	}
}

// TestPostIncrementAccess: *p++ reads or writes through p and moves p after the access (a
// post-incremented load or store), without a copy of the pointer; &C[0] of a reference-to-array
// parameter is C; a flattened loop of constant trip count is unrolled with its counter a
// constant (so it may select MAC lanes); sizeof of a vector type is a constant; an int16
// stream read into an int converts.
func TestPostIncrementAccess(t *testing.T) {
	src := `#include <adf.h>
void k(adf::output_buffer<float> & out, const float (&C)[32], input_stream<int16> * s, output_stream<int32> * o) {
    const v8float * pc = (const v8float *) &C[0];
    v8float * po = (v8float *) out.data();
    v16float x = concat(*pc++, *(pc + 1));
    v8float acc = null_v8float();
    for (int k = 0; k < 2; k++) chess_flatten_loop {
        acc = fpmac(acc, x, 4 * k, 0, *pc++, 0, 0x76543210);
    }
    *po++ = acc;
    int v = readincr(s);
    writeincr(o, v + (int) sizeof(v8float));
}
`
	k, err := parseWith(t, map[string]string{"k.cc": src}, "")
	if err != nil {
		t.Fatal(err)
	}
	var ptrMovs, loads, ptrAdds, fpmacs, loops int
	var xstarts []int64
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.Loop:
			loops++
		case *kernel.Instr:
			switch s.Op {
			case kernel.OpMov:
				if a := s.Args[0].Var; a != nil && (a.Name == "pc" || a.Name == "po") {
					ptrMovs++
				}
			case kernel.OpLoad:
				loads++
			case kernel.OpPtrAdd:
				ptrAdds++
			case kernel.OpFPMac:
				fpmacs++
				xstarts = append(xstarts, s.Args[2].Imm)
			case kernel.OpStreamWrite:
				if s.Args[1].Var == nil || s.Args[1].Var.Type.Elem != kernel.Int32 {
					t.Errorf("stream write of %v", s.Args[1].Type())
				}
			}
		}
	})
	if ptrMovs != 0 {
		t.Errorf("%d pointer copies: *p++ should not copy p\n%s", ptrMovs, k)
	}
	if loops != 0 || fpmacs != 2 || len(xstarts) != 2 || xstarts[0] != 0 || xstarts[1] != 4 {
		t.Errorf("flattened loop: %d loops, %d fpmacs, xstarts %v", loops, fpmacs, xstarts)
	}
	if loads < 4 || ptrAdds < 3 {
		t.Errorf("%d loads, %d pointer increments", loads, ptrAdds)
	}
}

// TestOutOfClassConstructor: a class whose constructor is defined outside it (with a member
// initializer list and a run-time body) is skipped when another kernel of the file is
// selected; when it is the one selected, the body's run-time statement is named.
func TestOutOfClassConstructor(t *testing.T) {
	src := `#include <adf.h>
template <int N> class Scaled {
    int s; int q;
  public:
    Scaled(int a);
    void filter(input_window<int32> * in, output_window<int32> * out);
    static void registerKernelClass() { REGISTER_FUNCTION(Scaled::filter); }
};
template <int N> Scaled<N>::Scaled(int a) : s(a), q{a + 1} { if (a > 2) { q = a * (a - 1); } }
template <int N> void Scaled<N>::filter(input_window<int32> * in, output_window<int32> * out) {
    for (int i = 0; i < N; i++) window_writeincr(out, window_readincr(in) * s + q);
}
template <int N> class Plain {
  public:
    void filter(input_window<int32> * in, output_window<int32> * out);
    static void registerKernelClass() { REGISTER_FUNCTION(Plain::filter); }
};
template <int N> void Plain<N>::filter(input_window<int32> * in, output_window<int32> * out) {
    for (int i = 0; i < N; i++) window_writeincr(out, window_readincr(in));
}
`
	if _, err := parseWith(t, map[string]string{"k.cc": src}, "Plain<8>"); err != nil {
		t.Errorf("Plain<8>: %v", err)
	}
	_, err := parseWith(t, map[string]string{"k.cc": src}, "Scaled<8>(3)")
	if err == nil || !strings.Contains(err.Error(), "Scaled<8>'s constructor: only assignments of constants") {
		t.Errorf("Scaled<8>(3): %v", err)
	}
}
