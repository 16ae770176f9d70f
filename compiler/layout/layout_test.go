package layout

import (
	"strings"
	"testing"
)

func TestParsePrint(t *testing.T) {
	cases := []struct{ in, out string }{
		{"XYK", "XYK"},
		{"KCSR", "KCSR"},
		{"CY'X'", "CY'X'"},
		{"(C/2)Y'X'(2)", "(C/2)Y'X'(2)"},
		{"K(C/2)SR(2)", "K(C/2)SR(2)"},
		{"(K/16)SR(C/2)(16)(2)", "(K/16)SR(C/2)(16)(2)"},
		{"(K/8)(C/8)SR(8)(8)", "(K/8)(C/8)SR(8)(8)"},
		{"(K/8)(C/8)SR(C%8)(K%8)", "(K/8)(C/8)SR(C%8)(K%8)"},
		{"(K/8)(C/8)SR(K%8)(C%8)", "(K/8)(C/8)SR(8)(8)"},
		{"y'x'c", "Y'X'C"},
	}
	for _, c := range cases {
		l, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if got := l.String(); got != c.out {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got, c.out)
		}
	}
	// The bare inner factors bind to split dimensions in order: (16) is K, (2) is C.
	l := MustParse("(K/16)SR(C/2)(16)(2)")
	if f := l.Factors[4]; f.Dim != "K" || f.Inner != 16 {
		t.Errorf("factor 4 = %+v, want K%%16", f)
	}
	if f := l.Factors[5]; f.Dim != "C" || f.Inner != 2 {
		t.Errorf("factor 5 = %+v, want C%%2", f)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"", "XX", "(C/2)Y'X'", "X(2)", "(C/2)X(3)", "(C/2", "X?", "(C/1)(1)", "C(C/2)(2)", "(C/2)(C/2)(2)(2)", "(2)(C/2)(3)"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", in)
		}
	}
}

func TestOffsetsChannelPairs(t *testing.T) {
	// (C/2)Y'X'(2) for an input of 3 x 2 x 4 (X' x Y' x C): I(x, y, c) at
	// ((c/2)*2 + y)*3*2 + x*2 + c%2.
	m, err := Bind(MustParse("(C/2)Y'X'(2)"), Tensor{Dims: []string{"X'", "Y'", "C"}, Extent: []int{3, 2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Size() != 24 {
		t.Fatalf("size %d", m.Size())
	}
	seen := map[int]bool{}
	for x := 0; x < 3; x++ {
		for y := 0; y < 2; y++ {
			for c := 0; c < 4; c++ {
				want := ((c/2)*2+y)*6 + x*2 + c%2
				if got := m.Offset([]int{x, y, c}); got != want {
					t.Errorf("I(%d,%d,%d) at %d, want %d", x, y, c, got, want)
				}
				seen[want] = true
			}
		}
	}
	if len(seen) != 24 {
		t.Errorf("offsets not a bijection")
	}
	if s, ok := m.Stride("X'"); !ok || s != 2 {
		t.Errorf("stride X' = %d %v", s, ok)
	}
	if _, ok := m.Stride("C"); ok {
		t.Errorf("split C has no uniform stride")
	}
}

func TestPadding(t *testing.T) {
	m, err := Bind(MustParse("(C/4)X(4)"), Tensor{Dims: []string{"X", "C"}, Extent: []int{2, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Size() != 2*2*4 {
		t.Errorf("padded size %d, want 16", m.Size())
	}
	src, _ := Bind(MustParse("XC"), m.Tensor)
	data := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	packed, err := Pack(m, src, data)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 2, 3, 4, 6, 7, 8, 9, 5, 0, 0, 0, 10, 0, 0, 0}
	for i := range want {
		if packed[i] != want[i] {
			t.Fatalf("packed %v, want %v", packed, want)
		}
	}
	back, err := Pack(src, m, packed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		if back[i] != data[i] {
			t.Fatalf("unpacked %v, want %v", back, data)
		}
	}
}

func TestBindErrors(t *testing.T) {
	tn := Tensor{Dims: []string{"X", "Y"}, Extent: []int{4, 3}}
	if _, err := Bind(MustParse("X"), tn); err == nil || !strings.Contains(err.Error(), "leaves out") {
		t.Errorf("missing Y: %v", err)
	}
	if _, err := Bind(MustParse("XYK"), tn); err == nil {
		t.Errorf("extra K accepted")
	}
	// A dimension of extent 1 may be left out.
	if _, err := Bind(MustParse("X"), Tensor{Dims: []string{"X", "N"}, Extent: []int{4, 1}}); err != nil {
		t.Errorf("N=1 left out: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"XYK", "(C/2)Y'X'(2)", "(K/16)SR(C/2)(16)(2)", "(K/8)(C/8)SR(C%8)(K%8)", "((", "(X/99999999999)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		// Printing and parsing again gives the same layout.
		l2, err := Parse(l.String())
		if err != nil {
			t.Fatalf("Parse(%q) ok but its print %q fails: %v", s, l.String(), err)
		}
		if l2.String() != l.String() {
			t.Fatalf("print not stable: %q -> %q", l.String(), l2.String())
		}
		// Binding to a small tensor of its own dimensions gives a bijection onto unpadded cells.
		dims := l.Dims()
		if len(dims) > 5 {
			return
		}
		ext := make([]int, len(dims))
		for i := range ext {
			ext[i] = 3
		}
		m, err := Bind(l, Tensor{Dims: dims, Extent: ext})
		if err != nil {
			return // e.g. block sizes too large for the size bound
		}
		if m.Size() > 1<<16 {
			return
		}
		seen := map[int]bool{}
		m.Tensor.ForEach(func(idx []int) {
			o := m.Offset(idx)
			if o < 0 || o >= m.Size() || seen[o] {
				t.Fatalf("%v: offset %d of %v out of range or repeated", l, o, idx)
			}
			seen[o] = true
		})
	})
}

func TestAlignStride(t *testing.T) {
	// KCSR weights of a 3x3 filter, one channel: 9 elements per k. Padding k's stride to a
	// multiple of 8 keeps 128-bit alignment of every k's weights (int16).
	m, err := Bind(MustParse("KCSR"), Tensor{Dims: []string{"R", "S", "C", "K"}, Extent: []int{3, 3, 1, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AlignStride("K", 1, 8); err != nil {
		t.Fatal(err)
	}
	if got := m.Offset([]int{0, 0, 0, 1}); got != 16 {
		t.Errorf("W(0,0,0,1) at %d, want 16", got)
	}
	if m.Size() != 64 {
		t.Errorf("size %d, want 64", m.Size())
	}
	// A step of 16 along a stride-1 dimension is already aligned: nothing changes.
	m2, _ := Bind(MustParse("YX"), Tensor{Dims: []string{"X", "Y"}, Extent: []int{20, 2}})
	m2.AlignStride("X", 16, 8)
	if m2.Size() != 40 {
		t.Errorf("size %d, want 40", m2.Size())
	}
	m2.AlignStride("Y", 1, 8)
	if m2.Size() != 48 || m2.Offset([]int{0, 1}) != 24 {
		t.Errorf("padded rows: size %d, row 1 at %d", m2.Size(), m2.Offset([]int{0, 1}))
	}
}
