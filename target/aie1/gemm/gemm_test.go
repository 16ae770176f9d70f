package gemm

import (
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
