package cfront

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testdataKernels(t testing.TB) []string {
	files, err := filepath.Glob("../testdata/*.cc")
	if err != nil || len(files) == 0 {
		t.Fatalf("no kernels in ../testdata: %v", err)
	}
	return files
}

func TestParseTestdata(t *testing.T) {
	for _, f := range testdataKernels(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := Parse(filepath.Base(f), src, nil)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(file.Funcs) != 1 {
			t.Errorf("%s: %d functions, want 1", f, len(file.Funcs))
		}
	}
}

func TestParseErrorsHavePositions(t *testing.T) {
	cases := []struct{ src, want string }{
		{"void f() {\n  if (1) {} else else;\n}\n", "k.cc:2:18: else without if"},
		{"void f() {\n  v16int16 a;\n  a = ;\n}\n", "k.cc:3:7: expected an expression"},
		{"void f() {\n  while (1) ;\n}", "k.cc:2:3: while loops"},
		{"#define M(a) a\nvoid f() { int x = M(1, 2); }\n", "k.cc:2:20: macro M takes 1 arguments, 2 given"},
		{"#pragma once\n#ident x\nvoid f() {}\n", "k.cc:2:2: preprocessor directive #ident"},
		{"#if 1\nvoid f() {}\n", "k.cc:1:2: #if without #endif"},
		{"void f() {\n  int x = 'ab';\n}\n", "k.cc:2:11: unsupported character literal"},
		{"void f() { x.y(1)(2); }", "k.cc:1:18: only named functions"},
		{"void f() {\n  /* never closed\n", "k.cc:2:3: unterminated /* comment"},
	}
	for _, c := range cases {
		_, err := Parse("k.cc", []byte(c.src), nil)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %q\nwant %q...", c.src, err, c.want)
		}
	}
}

func TestPreprocessor(t *testing.T) {
	src := `#define N 4
#define SQ(x) ((x)*(x))
#define CALL(f, a) f(a, N)
#ifndef K
#define K 7
#endif
#if defined(K) && K > 5
int big = K;
#else
int small = K;
#endif
#undef N
#define N 9
int y = SQ(N) + CALL(g, 1);
`
	toks, err := Preprocess("p.cc", []byte(src), []string{"K=6"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks {
		if tk.Kind != tEOF {
			got = append(got, tk.Text)
		}
	}
	want := "int big = 6 ; int y = ( ( 9 ) * ( 9 ) ) + g ( 1 , 9 ) ;"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	// positions: tokens of a macro body carry the expansion site
	// and remember where they were written; arguments keep their own positions
	for k, tk := range toks {
		if tk.Text == "g" {
			if tk.Pos.Line != 14 || tk.Pos.Col != 22 || tk.From != nil {
				t.Errorf("argument g at %v from %v, want 14:22 from nowhere", tk.Pos, tk.From)
			}
			if lp := toks[k+1]; lp.Pos.Line != 14 || lp.Pos.Col != 17 || lp.From == nil || lp.From.Line != 3 {
				t.Errorf("body token ( at %v from %v, want 14:17 from line 3", lp.Pos, lp.From)
			}
		}
	}
	// a self-referential macro is not expanded again (C 6.10.3.4)
	toks, err = Preprocess("p.cc", []byte("#define x x + 1\nint a = x;\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, tk := range toks {
		got = append(got, tk.Text)
	}
	if s := strings.Join(got, " "); s != "int a = x + 1 ; " {
		t.Errorf("self-reference: got %q", s)
	}
}

func TestLowerTestdata(t *testing.T) {
	for _, f := range testdataKernels(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ParseKernel(filepath.Base(f), src, nil)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if testing.Verbose() {
			t.Logf("%s", k)
		}
	}
}
