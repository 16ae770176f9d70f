package op

import (
	"strings"
	"testing"
)

func TestKinds(t *testing.T) {
	cases := []struct {
		spec string
		kind Kind
		macs int64
	}{
		{"conv2d x=256 y=16 r=3 s=3 dtype=int16", Kind2D, 36864},
		{"conv2d x=128 y=2 k=16 c=16 groups=16 r=3 s=3 dtype=int32", KindDS, 36864},
		{"conv2d x=1 y=1 c=8 k=4096 r=1 s=1 dtype=int16", KindFC, 32768},
		{"conv2d x=1 y=1 c=8 k=16 r=3 s=3 dtype=fp32", KindFC, 16 * 8 * 9},
		{"conv2d x=128 y=2 c=8 k=16 r=1 s=1 xin=144 yin=2 dtype=int16", KindPW, 32768},
		{"conv2d x=128 y=2 c=8 k=16 r=1 s=3 dtype=int16", KindSS, 98304},
		{"conv2d x=128 y=2 c=8 k=16 r=3 s=1 dtype=int16", KindSS, 98304},
		{"conv2d x=128 y=2 c=8 k=16 r=3 s=3 dtype=int16", KindREG, 294912},
		{"conv2d x=112 y=112 k=64 c=3 r=7 s=7 stride=2 pad=3 xin=224 yin=224 dtype=fp32", KindREG, 118013952},
		{"gemm m=16 n=4 k=256 dtype=int16", KindGEMM, 16384},
		{"einsum [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] m2=4 k1=12 m1=2 m0=8 k0=8 n2=4 n1=2 n0=8 dtype=bfp16", KindEinsum, 64 * 96 * 64},
		{"maxpool x=12 y=12 c=64 size=2 dtype=fp32", KindPool, 0},
	}
	for _, c := range cases {
		s, err := Parse(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if s.Kind() != c.kind || s.MACs() != c.macs {
			t.Errorf("%s: kind %s macs %d, want %s %d", c.spec, s.Kind(), s.MACs(), c.kind, c.macs)
		}
		// The normalized form parses back to the same spec.
		s2, err := Parse(s.String())
		if err != nil || s2.String() != s.String() {
			t.Errorf("round trip of %q: %v / %q", s.String(), err, s2)
		}
	}
}

func TestDefaults(t *testing.T) {
	s := MustParse("conv2d x=4 y=3 r=3 s=2 dtype=int16")
	c := s.Conv
	if c.K != 1 || c.C != 1 || c.N != 1 || c.Stride != 1 || c.Dilation != 1 || c.Groups != 1 || c.Pad != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	if c.XIn != 6 || c.YIn != 4 {
		t.Fatalf("smallest input: %dx%d, want 6x4", c.XIn, c.YIn)
	}
	c = MustParse("conv2d x=5 y=5 r=3 s=3 stride=2 dilation=2 pad=1 dtype=fp32").Conv
	// (5-1)*2 + (3-1)*2+1 - 2 = 11
	if c.XIn != 11 || c.YIn != 11 {
		t.Fatalf("strided dilated input %dx%d, want 11x11", c.XIn, c.YIn)
	}
	ty := MustParse("gemm m=1 n=1 k=1 dtype=int16").Types
	if ty.Acc != Acc48 || ty.Out != Int16 || ty.Shift != 0 || ty.Round.String() != "floor" || ty.Sat.String() != "saturate" {
		t.Fatalf("int16 defaults: %+v", ty)
	}
	if ty := MustParse("gemm m=1 n=1 k=1 dtype=int32").Types; ty.Acc != Acc80 || ty.Out != Int32 {
		t.Fatalf("int32 defaults: %+v", ty)
	}
	if ty := MustParse("gemm m=1 n=1 k=1 atype=uint8 btype=int8").Types; ty.Acc != Acc48 || ty.Out != UInt8 {
		t.Fatalf("u8 x s8 defaults: %+v", ty)
	}
	if ty := MustParse("gemm m=1 n=1 k=1 dtype=bfp16").Types; ty.Acc != AccF32 || ty.Out != FP32 {
		t.Fatalf("bfp16 defaults: %+v", ty)
	}
	ty = MustParse("gemm m=1 n=1 k=1 atype=uint8 btype=int8 acc=int32 out=int32 shift=4 round=conv_even sat=symmetric").Types
	if ty.Acc != AccI32 || ty.Out != Int32 || ty.Shift != 4 || ty.Round.String() != "conv_even" || ty.Sat.String() != "symmetric" {
		t.Fatalf("explicit types: %+v", ty)
	}
	if r, err := Retype(MustParse("gemm m=2 n=3 k=4 dtype=fp32"), "dtype=int16"); err != nil || r.GEMM.N != 3 || r.Types.A != Int16 {
		t.Fatalf("Retype: %v %v", r, err)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"conv2d x=-1 r=3", "x=-1"},
		{"conv2d x=4 y=4 r=3 s=3 dtype=int12", "int12"},
		{"conv2d x=4 y=4 r=3 s=3", "dtype"},
		{"conv2d x=4 y=4 r=5 s=5 xin=3 yin=8 dtype=int16", "larger than the input"},
		{"conv2d x=4 y=4 r=3 s=3 xin=5 dtype=int16", "xin"},
		{"conv2d x=4 y=4 r=3 s=3 c=6 k=4 groups=4 dtype=int16", "groups"},
		{"conv2d x=4 y=4 r=3 dtype=int16", "missing s="},
		{"conv2d x=4 y=4 r=3 s=3 q=1 dtype=int16", "unknown parameter \"q\""},
		{"conv2d x=4 y=4 r=3 s=3 x=5 dtype=int16", "twice"},
		{"conv2d x=4 y=4 r=3 s=3 dtype=int16 shift=99", "shift"},
		{"conv2d x=4 y=4 r=3 s=3 dtype=int16 round=up", "rounding"},
		{"conv2d x=4 y=4 r=3 s=3 dtype=int16 out=fp32", "narrow"},
		{"conv2d x=4 y=4 r=3 s=3 dtype=int16 acc=int64 out=int8 sat=clip", "saturation"},
		{"conv2d x=4 y=4 r=3 s=3 atype=int16 btype=fp32", "mixed"},
		{"conv2d x=4 y=4 r=3 s=3 dtype=int32 acc=int32 out=int32 acc=acc80", "twice"},
		{"conv2d x=99999999 y=4 r=3 s=3 dtype=fp32", "larger than the supported"},
		{"conv2d x=16777216 y=16777216 r=3 s=3 dtype=fp32", "supported"},
		{"conv2d x=4 y=4 r=3 s=3 dtype", "key=value"},
		{"gemm m=4 n=4 dtype=fp32", "missing k="},
		{"gemm m=4 n=4 k=4 ta=maybe dtype=fp32", "ta=maybe"},
		{"einsum [m,k],[k,n]->[m,n,q] m=2 k=2 n=2 q=2 dtype=fp32", "only in the output"},
		{"einsum [m,k,j],[k,n]->[m,n] m=2 k=2 n=2 j=2 dtype=fp32", "one side only"},
		{"einsum [m,k],[k,n]->[m,n] m=2 k=2 dtype=fp32", "missing n="},
		{"einsum [m,m],[k,n]->[m,n] m=2 k=2 n=2 dtype=fp32", "twice"},
		{"einsum [m,k][k,n]->[m,n] m=2 k=2 n=2 dtype=fp32", "two inputs"},
		{"einsum [m,k],[k,n] m=2 k=2 n=2 dtype=fp32", "->"},
		{"einsum m=2 dtype=fp32", "expression"},
		{"einsum [m,1k],[1k,n]->[m,n] m=2 n=2 dtype=fp32", "index name"},
		{"einsum [m,dtype],[dtype,n]->[m,n] m=2 n=2 dtype=fp32", "reserved"},
		{"einsum [m,k],[k,n]->[m,n] m=2 k=2 n=2 z=3 dtype=fp32", "unknown parameter"},
		{"maxpool x=4 y=4 size=3 xin=5 dtype=fp32", "too small"},
		{"fft n=8 dtype=fp32", "unknown op"},
		{"", "empty"},
		{"gemm m=1 n=1 k=1 atype=bfp16 btype=bf16", "bfp16"},
	}
	for _, c := range cases {
		_, err := Parse(c.spec)
		if err == nil {
			t.Errorf("%q: accepted", c.spec)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q does not mention %q", c.spec, err, c.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is not one line: %q", c.spec, err)
		}
	}
}

func TestEinsumStrides(t *testing.T) {
	e := MustParse("einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=4 m0=4 k0=8 n1=8 n0=4 dtype=bf16").Einsum
	st := e.Strides(e.In[0])
	if st["k0"] != 1 || st["m0"] != 8 || st["k1"] != 32 || st["m1"] != 128 || st["n0"] != 0 {
		t.Fatalf("strides %v", st)
	}
	if got := strings.Join(e.Contracted(), ","); got != "k1,k0" {
		t.Fatalf("contracted %s", got)
	}
	if e.Len(e.Out) != 32*32 {
		t.Fatalf("output len %d", e.Len(e.Out))
	}
}

func TestDTypes(t *testing.T) {
	for d := Int8; d < numDTypes; d++ {
		p, err := ParseDType(d.String())
		if err != nil || p != d {
			t.Fatalf("%v: %v %v", d, p, err)
		}
		if d.Bits() == 0 {
			t.Fatalf("%v has no width", d)
		}
	}
	for a := Acc48; a < numAccTypes; a++ {
		if p, err := ParseAccType(a.String()); err != nil || p != a {
			t.Fatalf("%v: %v %v", a, p, err)
		}
	}
	if lo, hi := UInt8.Range(); lo != 0 || hi != 255 {
		t.Fatal("uint8 range")
	}
}

// FuzzParse checks that no input panics and that every accepted spec round-trips through its
// normalized form.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"conv2d x=256 y=16 r=3 s=3 dtype=int16",
		"conv2d x=7 y=7 k=512 c=512 r=3 s=3 pad=1 dtype=fp32 groups=2",
		"gemm m=16 n=4 k=290 ta=1 dtype=int16 shift=3 round=conv_even",
		"einsum [m,k],[k,n]->[m,n] m=2 k=3 n=4 dtype=bf16",
		"maxpool x=12 y=12 c=64 dtype=fp32",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
			return
		}
		s2, err := Parse(s.String())
		if err != nil {
			t.Fatalf("normalized %q does not parse: %v", s.String(), err)
		}
		if s2.String() != s.String() || s2.MACs() != s.MACs() || s2.Kind() != s.Kind() {
			t.Fatalf("round trip changed %q to %q", s.String(), s2.String())
		}
	})
}
