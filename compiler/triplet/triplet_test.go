package triplet

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
)

var update = flag.Bool("update", false, "rewrite golden files")

var int16Shape = sched.Shape{Lanes: 16, Cols: 2, ElemBits: 16}

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
	p, err := NewPlan(b, Datapath{Shape: int16Shape, AlignBits: 128})
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
