package gemm

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/cemit"
)

// fig4 is seed 001 Fig. 4's block: A in X (16 rows along the lanes), 4 columns of B in Z,
// two k per X register, four per Z register.
var fig4 = sched.GEMM{X: "A", LX: 16, MR: 16, NR: 4, KB: 4, XK: 2, ZK: 4, Inner: "xz", Order: "nm"}

func TestFig4Plan(t *testing.T) {
	spec := op.MustParse("gemm m=16 n=4 k=256 beta=1 dtype=int16")
	p, err := Generate(spec, fig4)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p.Plan)
	src, err := cemit.Emit(p.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(src)
	ck, err := p.Verify(1)
	if err != nil || !ck.OK() {
		t.Fatalf("verify: %v %+v", err, ck)
	}
}

// TestCanonLayouts: with B in X (16 columns of B along the lanes, two k per register) and one
// row of A per Z register (16 values of k), row-major A, B and C are read and written in
// place; a block the layouts cannot serve falls back to packed panels.
func TestCanonLayouts(t *testing.T) {
	spec := op.MustParse("gemm m=16 n=16 k=32 dtype=int16")
	g := sched.GEMM{X: "B", LX: 16, MR: 2, NR: 16, KB: 16, XK: 2, ZK: 16, Inner: "xz", Order: "nm"}
	p, err := Generate(spec, g)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sched.LA != "canon" || p.Sched.LB != "canon" || p.Sched.LC != "canon" {
		t.Errorf("layouts %s %s %s, want canon", p.Sched.LA, p.Sched.LB, p.Sched.LC)
	}
	if ck, err := p.Verify(3); err != nil || !ck.OK() {
		t.Fatalf("%v %+v", err, ck)
	}
	p, err = Generate(spec, fig4)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sched.LA != "packed" || p.Sched.LC != "packed" {
		t.Errorf("fig4 layouts %s %s %s, want packed A and C", p.Sched.LA, p.Sched.LB, p.Sched.LC)
	}
	fig4canon := fig4
	fig4canon.LA = "canon"
	if _, err := Generate(spec, fig4canon); err == nil || !strings.Contains(err.Error(), "not consecutive") {
		t.Errorf("fig4 with A in place: %v, want a refusal naming non-consecutive elements", err)
	}
}
