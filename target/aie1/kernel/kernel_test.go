package kernel

import (
	"strings"
	"testing"
)

func TestParseTypeRoundTrip(t *testing.T) {
	for _, s := range []string{
		"int", "unsigned", "int16", "uint8", "int8", "float",
		"v16int16", "v32int16", "v64int16", "v8int16", "v64uint8", "v32int8", "v128int8", "v8int32", "v32int32", "v8float", "v32float",
		"v16acc48", "v8acc48", "v8acc80", "v4acc80",
		"int16*", "v16int16*", "uint8*",
		"input_window_int16", "output_window_int16", "input_window_uint8", "output_window_float",
	} {
		ty, err := ParseType(s)
		if err != nil {
			t.Fatalf("ParseType(%q): %v", s, err)
		}
		if ty.String() != s {
			t.Errorf("ParseType(%q).String() = %q", s, ty.String())
		}
		if !ty.Valid() {
			t.Errorf("%q not valid", s)
		}
	}
	for s, want := range map[string]string{"unsigned int": "unsigned", "int16 *": "int16*", "short": "int16", "int32": "int"} {
		ty, err := ParseType(s)
		if err != nil || ty.String() != want {
			t.Errorf("ParseType(%q) = %v, %v; want %s", s, ty, err, want)
		}
	}
	for _, s := range []string{"v3int16", "v16acc32", "v32acc48", "v128int16", "v4int8", "double", "", "*", "v16int16**x", "input_window_double", "v99999int8"} {
		if ty, err := ParseType(s); err == nil {
			t.Errorf("ParseType(%q) = %v, want error", s, ty)
		}
	}
}

func FuzzParseType(f *testing.F) {
	for _, s := range []string{"v16int16", "int16 *", "input_window_uint8", "v8acc80", "unsigned int"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ty, err := ParseType(s)
		if err != nil {
			return
		}
		if !ty.Valid() {
			t.Fatalf("ParseType(%q) = invalid %+v", s, ty)
		}
		again, err := ParseType(ty.String())
		if err != nil || again != ty {
			t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, ty, ty.String(), again, err)
		}
	})
}

func TestTripCount(t *testing.T) {
	for _, c := range []struct {
		s, lim, st int64
		cmp        Cmp
		n          int64
		ok         bool
	}{
		{0, 64, 1, Lt, 64, true}, {0, 256, 16, Lt, 16, true}, {0, 10, 3, Lt, 4, true}, {5, 5, 1, Lt, 0, true},
		{0, 10, 3, Le, 4, true}, {0, 9, 3, Le, 4, true}, {10, 0, -1, Gt, 10, true}, {10, 0, -3, Ge, 4, true},
		{0, 8, 2, Ne, 4, true}, {0, 7, 2, Ne, 0, false}, {0, 8, -1, Lt, 0, false},
	} {
		n, ok := tripCount(c.s, c.lim, c.st, c.cmp)
		if n != c.n || ok != c.ok {
			t.Errorf("tripCount(%d %v %d step %d) = %d,%v want %d,%v", c.s, c.cmp, c.lim, c.st, n, ok, c.n, c.ok)
		}
	}
}

func TestLookupCall(t *testing.T) {
	op, _, lanes, ok := LookupCall("window_readincr_v16")
	if !ok || op != OpWinReadIncr || lanes != 16 {
		t.Errorf("window_readincr_v16: %v %d %v", op, lanes, ok)
	}
	op, _, lanes, ok = LookupCall("window_readincr")
	if !ok || op != OpWinReadIncr || lanes != 1 {
		t.Errorf("window_readincr: %v %d %v", op, lanes, ok)
	}
	op, ty, _, ok := LookupCall("undef_v64uint8")
	if !ok || op != OpUndef || ty != VecOf(UInt8, 64) {
		t.Errorf("undef_v64uint8: %v %v %v", op, ty, ok)
	}
	for _, n := range []string{"mac16", "upd_w", "concat", "ubsrs", "srs", "fpmac", "lmac8", "window_writeincr"} {
		if op, _, _, ok := LookupCall(n); !ok || op.Info().Name != n {
			t.Errorf("LookupCall(%q) = %v, %v", n, op, ok)
		}
	}
	for _, n := range []string{"mac17", "undef_v3int16", "window_readincr_vx", "null_int"} {
		if _, _, _, ok := LookupCall(n); ok {
			t.Errorf("LookupCall(%q) accepted", n)
		}
	}
}

// leiGEMM builds seed 001 Fig. 4 (the 16x4 int16 micro-kernel) with the builder.
func leiGEMM(kc int64) (*Kernel, error) {
	k := New("micro_kernel")
	b := NewBuilder(k)
	ddr := b.Param("DDR_IN", InWindow(Int16))
	pl := b.Param("PL_IN", InWindow(Int16))
	br := b.Param("Br", PtrTo(Int16, 1))
	out := b.Param("out", OutWindow(Int16))
	ar0, ar1 := b.Decl("ar0", VecOf(Int16, 32)), b.Decl("ar1", VecOf(Int16, 32))
	brv := b.Decl("br", VecOf(Int16, 16))
	var acc [4]*Var
	for j := range acc {
		acc[j] = b.Decl("Cacc"+string(rune('0'+j)), AccOf(Acc48, 16))
	}
	i := b.Decl("i", ScalarOf(UInt32))
	loop, lb := b.For(i, Imm(0), Imm(kc/4), 1)
	loop.Pipelined, loop.HasRange, loop.RangeMin = true, true, kc/4
	idx := lb.Op(OpMul, V(i), Imm(16))
	lb.Set(brv, OpLoad, V(br), V(idx))
	for n, a := range []*Var{ar0, ar0, ar1, ar1} {
		w := lb.OpT(OpWinReadIncr, VecOf(Int16, 16), V(pl))
		lb.Set(a, OpUpdW, V(a), Imm(int64(n%2)), V(w))
	}
	for h, a := range []*Var{ar0, ar1} {
		for j := range acc {
			lb.MAC(acc[j], OpMac16, acc[j], a, brv, MACArgs{
				XStart: Imm(0), XOffs: Imm(0x73727170), XOffsHi: Imm(0x77767574), XSquare: Imm(0x3120),
				ZStart: Imm(int64(8*h + j)), ZOffs: Imm(0), ZOffsHi: Imm(0), ZStep: Imm(4),
			})
		}
	}
	for j := range acc {
		c := b.OpT(OpWinReadIncr, VecOf(Int16, 16), V(ddr))
		s := b.Op(OpSRS, V(acc[j]), Imm(0))
		sum := b.Op(OpVAdd, V(s), V(c))
		b.Emit(OpWinWriteIncr, nil, V(out), V(sum))
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return k, k.Validate()
}

func TestBuildLeiGEMM(t *testing.T) {
	k, err := leiGEMM(256)
	if err != nil {
		t.Fatal(err)
	}
	s := k.String()
	for _, want := range []string{"mac16(Cacc0, ar0, 0, 0x73727170, 0x77767574, 0x3120, br, 0, 0, 0, 4)", "chess_loop_range(64,)", "window_writeincr(out,"} {
		if !strings.Contains(s, want) {
			t.Errorf("printed kernel lacks %q:\n%s", want, s)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	k := New("bad")
	b := NewBuilder(k)
	acc := b.Decl("acc", AccOf(Acc48, 16))
	x := b.Decl("x", VecOf(Int16, 16)) // too small for an X buffer
	z := b.Decl("z", VecOf(Int16, 16))
	b.MAC(acc, OpMac16, acc, x, z, MACArgs{})
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "X buffer") {
		t.Errorf("bad X buffer: err = %v", err)
	}
	k = New("bad2")
	b = NewBuilder(k)
	v := b.Decl("v", VecOf(Int16, 32))
	w := b.Decl("w", VecOf(Int16, 8))
	b.Set(v, OpUpdW, V(v), Imm(2), V(w))
	if err := b.Err(); err == nil {
		t.Error("upd_w with index 2 of a 512-bit vector and a 128-bit part accepted")
	}
	k = New("bad3")
	b = NewBuilder(k)
	a := b.Decl("a", AccOf(Acc80, 8))
	s := b.Decl("s", VecOf(Int16, 16))
	b.Set(s, OpSRS, V(a), Imm(0))
	if err := b.Err(); err == nil {
		t.Error("srs of v8acc80 into v16int16 accepted")
	}
}
