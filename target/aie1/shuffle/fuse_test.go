package shuffle

import (
	"testing"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
)

// Fusion (package triplet) under the AIE1 network on seed 000's examples.

var int16Shape = sched.Shape{Lanes: 16, Cols: 2, ElemBits: 16}
var int32Shape = sched.Shape{Lanes: 8, Cols: 1, ElemBits: 32}

// runningExample is seed 000 Fig. 3: a 4x3 filter, x vectorized by 16, filter loops unrolled.
func runningExample(t *testing.T, f sched.Fusion) (*op.Conv2D, sched.Schedule) {
	t.Helper()
	s, err := op.Parse("conv2d x=16 y=1 r=4 s=3 dtype=int16")
	if err != nil {
		t.Fatal(err)
	}
	o, w, in, padR := sched.Layouts(s.Conv, "x", f, int16Shape)
	return s.Conv, sched.Schedule{Vec: "x", Order: "kyx", UX: 1, UY: 1, UK: 1, Fusion: f, Out: o, W: w, In: in, PadR: padR}
}

// fuse builds, plans and fuses a schedule on the AIE1 datapath of kind k.
func fuse(t *testing.T, c *op.Conv2D, s sched.Schedule, k Kind, sh sched.Shape) (*triplet.Result, error) {
	t.Helper()
	b, err := triplet.Build(c, s, sh)
	if err != nil {
		t.Fatal(err)
	}
	dp := Datapath(k, sh)
	p, err := triplet.NewPlan(b, dp)
	if err != nil {
		t.Fatal(err)
	}
	return triplet.Fuse(p, dp)
}

// Fig. 6: the four MACs of each filter row become two fused mac16 operations with the
// documented parameters (mlir-aie conv2d_i16: xoffsets 0x03020100/0x07060504, xsquare 0x2110,
// zstep 1, at (xstart, zstart) = (0,0) and (2,2)).
func TestFusionFig6(t *testing.T) {
	c, s := runningExample(t, sched.FuseTaps)
	r, err := fuse(t, c, s, Sel16, int16Shape)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Ops) != 6 {
		t.Fatalf("%d fused ops, want 6", len(r.Ops))
	}
	for i, want := range []Params{
		{XStart: 0, XOffs: 0x03020100, XOffsHi: 0x07060504, XSquare: 0x2110, ZStart: 0, ZStep: 1},
		{XStart: 2, XOffs: 0x03020100, XOffsHi: 0x07060504, XSquare: 0x2110, ZStart: 2, ZStep: 1},
		{XStart: 0, XOffs: 0x03020100, XOffsHi: 0x07060504, XSquare: 0x2110, ZStart: 4, ZStep: 1},
	} {
		if Of(r.Ops[i].Params) != want {
			t.Errorf("op %d: %v, want %v", i, r.Ops[i].Params, want)
		}
	}
}

func TestPaddingOddFilter(t *testing.T) {
	s := op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16")
	for _, f := range []sched.Fusion{sched.FuseTaps, sched.FuseRows} {
		o, w, in, padR := sched.Layouts(s.Conv, "x", f, int16Shape)
		sc := sched.Schedule{Vec: "x", Order: "kyx", UX: 1, UY: 1, UK: 1, Fusion: f, Out: o, W: w, In: in, PadR: padR}
		r, err := fuse(t, s.Conv, sc, Sel16, int16Shape)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want := map[sched.Fusion]int{sched.FuseTaps: 6, sched.FuseRows: 5}[f]
		if len(r.Ops) != want {
			t.Errorf("%s: %d fused ops for a 3x3 filter, want %d", f, len(r.Ops), want)
		}
		checkCoverage(t, r)
	}
}

// checkCoverage: every real statement appears in exactly one fused op.
func checkCoverage(t *testing.T, r *triplet.Result) {
	t.Helper()
	n := map[string]int{}
	for _, o := range r.Ops {
		for _, m := range o.Members {
			if !m.Pad {
				n[m.String()]++
			}
		}
	}
	for _, tr := range r.Plan.Body.Triplets {
		if n[tr.String()] != 1 {
			t.Errorf("%v fused %d times", tr, n[tr.String()])
		}
	}
}

func TestChannelsAndKVec(t *testing.T) {
	s := op.MustParse("conv2d x=32 y=2 k=16 c=8 r=3 s=3 dtype=int16")
	for _, vec := range []string{"x", "k"} {
		o, w, in, padR := sched.Layouts(s.Conv, vec, sched.FuseChannels, int16Shape)
		order := "kyx"
		if vec == "k" {
			order = "yxk"
		}
		sc := sched.Schedule{Vec: vec, Order: order, UX: 1, UY: 1, UK: 1, Fusion: sched.FuseChannels, Out: o, W: w, In: in, PadR: padR}
		r, err := fuse(t, s.Conv, sc, Sel16, int16Shape)
		if err != nil {
			t.Fatalf("vec %s: %v", vec, err)
		}
		if len(r.Ops) != 36 {
			t.Errorf("vec %s: %d ops, want 36 (72 taps in pairs)", vec, len(r.Ops))
		}
		checkCoverage(t, r)
	}
}

func TestInt32(t *testing.T) {
	s := op.MustParse("conv2d x=16 y=2 k=8 c=8 r=3 s=3 dtype=int32")
	for _, vec := range []string{"x", "k"} {
		o, w, in, padR := sched.Layouts(s.Conv, vec, sched.FuseNone, int32Shape)
		sc := sched.Schedule{Vec: vec, Order: "kyx", UX: 1, UY: 2, UK: 1, Fusion: sched.FuseNone, Out: o, W: w, In: in, PadR: padR}
		r, err := fuse(t, s.Conv, sc, Sel32, int32Shape)
		if err != nil {
			t.Fatalf("vec %s: %v", vec, err)
		}
		if len(r.Ops) != 2*72 {
			t.Errorf("vec %s: %d ops", vec, len(r.Ops))
		}
		checkCoverage(t, r)
	}
}
