package triplet

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
)

var update = flag.Bool("update", false, "rewrite golden files")

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

func TestTableI(t *testing.T) {
	c, s := runningExample(t, sched.FuseTaps)
	b, err := Build(c, s, int16Shape)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Triplets) != 12 {
		t.Fatalf("%d triplets, want 12", len(b.Triplets))
	}
	want := [][3]string{
		{"O(x:x+15, y)", "W(0, 0)", "I(x:x+15, y)"},
		{"O(x:x+15, y)", "W(1, 0)", "I(x+1:x+16, y)"},
		{"O(x:x+15, y)", "W(2, 0)", "I(x+2:x+17, y)"},
		{"O(x:x+15, y)", "W(3, 0)", "I(x+3:x+18, y)"},
	}
	for i, w := range want {
		tr := b.Triplets[i]
		got := [3]string{tr.Update.String(), tr.Op1.String(), tr.Op2.String()}
		if got != w {
			t.Errorf("triplet %d = %v, want %v (seed 000 Table I)", i, got, w)
		}
	}
	if got := b.Triplets[11].String(); got != "O(x:x+15, y) += W(3, 2) * I(x+3:x+18, y+2)" {
		t.Errorf("last triplet %q", got)
	}
	golden(t, "running_example.triplets", b.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n%s\nwant:\n%s", name, got, want)
	}
}

// The reuse graph of Table I's input loads is seed 000 Fig. 5: the four loads of each filter
// row are connected (a 4-clique: every two overlap) and form one component; rows do not
// share elements.
func TestReuseGraphFig5(t *testing.T) {
	c, s := runningExample(t, sched.FuseTaps)
	b, _ := Build(c, s, int16Shape)
	p, err := NewPlan(b, int16Shape)
	if err != nil {
		t.Fatal(err)
	}
	var ins, ws []Access
	for _, tr := range b.Triplets {
		ins = append(ins, tr.Op2)
		ws = append(ws, tr.Op1)
	}
	g := NewGraph(p, In, ins)
	if len(g.Nodes) != 12 || len(g.Edges) != 3*6 {
		t.Fatalf("input graph: %d nodes, %d edges; want 12 and 18", len(g.Nodes), len(g.Edges))
	}
	comps := g.Components()
	if len(comps) != 3 {
		t.Fatalf("%d components, want 3 (one per filter row)", len(comps))
	}
	bufs, err := g.Buffers(16, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	// I(x:x+18, y) is covered by the aligned load I(x:x+31, y): two 256-bit loads.
	if len(bufs) != 3 || len(bufs[0].Starts) != 2 || bufs[0].Starts[0] != 0 {
		t.Errorf("buffers %v", bufs)
	}
	// Scalar graph: W(0..3, s) are adjacent in memory, and rows follow each other (KCSR, R=4):
	// one component of 12 scalars, loaded as one 256-bit Z register.
	gw := NewGraph(p, W, ws)
	if len(gw.Components()) != 1 || len(gw.Edges) != 11 {
		t.Errorf("weight graph: %d components, %d edges; want 1 and 11", len(gw.Components()), len(gw.Edges))
	}
	zb, err := gw.Buffers(16, 8, 1)
	if err != nil || len(zb) != 1 {
		t.Errorf("weight buffers %v %v", zb, err)
	}
}

// Fig. 6: the four MACs of each filter row become two fused mac16 operations with the
// documented parameters (mlir-aie conv2d_i16: xoffsets 0x03020100/0x07060504, xsquare 0x2110,
// zstep 1, at (xstart, zstart) = (0,0) and (2,2)).
func TestFusionFig6(t *testing.T) {
	c, s := runningExample(t, sched.FuseTaps)
	b, _ := Build(c, s, int16Shape)
	p, err := NewPlan(b, int16Shape)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Fuse(p, Sel16)
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
		if r.Ops[i].Params != want {
			t.Errorf("op %d: %v, want %v", i, r.Ops[i].Params, want)
		}
	}
}

func TestPaddingOddFilter(t *testing.T) {
	s := op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16")
	for _, f := range []sched.Fusion{sched.FuseTaps, sched.FuseRows} {
		o, w, in, padR := sched.Layouts(s.Conv, "x", f, int16Shape)
		sc := sched.Schedule{Vec: "x", Order: "kyx", UX: 1, UY: 1, UK: 1, Fusion: f, Out: o, W: w, In: in, PadR: padR}
		b, err := Build(s.Conv, sc, int16Shape)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(b, int16Shape)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Fuse(p, Sel16)
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
func checkCoverage(t *testing.T, r *Result) {
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
		b, err := Build(s.Conv, sc, int16Shape)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(b, int16Shape)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Fuse(p, Sel16)
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
		b, err := Build(s.Conv, sc, int32Shape)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(b, int32Shape)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Fuse(p, Sel32)
		if err != nil {
			t.Fatalf("vec %s: %v", vec, err)
		}
		if len(r.Ops) != 2*72 {
			t.Errorf("vec %s: %d ops", vec, len(r.Ops))
		}
		checkCoverage(t, r)
	}
	_ = strings.TrimSpace
}
