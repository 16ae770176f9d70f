package tune

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/op"
)

// gemmCount is a stand-in cost for the contraction path (not a performance model): one cycle
// per vector MAC, plus one per tile.
type gemmCount struct{}

func (gemmCount) Version() string { return "gemm-count-1" }
func (gemmCount) Evaluate(p compiler.Program) (Eval, error) {
	v, _ := p.MACCounts()
	return Eval{Cycles: v + int64(p.OuterIterations())}, nil
}

// A list of a convolution and contractions tunes each by its path, in order; every
// contraction's winner is verified, carries pct_peak, and the refusals name their rule.
func TestRunContractions(t *testing.T) {
	ws := []Workload{
		{Name: "g", Spec: op.MustParse("gemm m=16 n=8 k=32 beta=1 dtype=int16")},
		{Name: "c", Spec: op.MustParse("conv2d x=16 y=2 r=3 s=3 dtype=int16")},
		{Name: "e", Spec: op.MustParse("einsum [b,m,k],[b,k,n]->[b,m,n] b=2 m=8 k=16 n=8 dtype=uint8")},
	}
	rs, err := Run(ws, Options{Target: aie1, Eval: gemmCountOrConv{}, Workers: 2, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if r.Name != ws[i].Name || !r.Verified || r.PctPeak <= 0 || r.Legal == 0 {
			t.Errorf("%s: %+v", ws[i].Name, r)
		}
	}
	for _, i := range []int{0, 2} {
		r := rs[i]
		if r.GEMM == nil || !strings.Contains(r.Schedule, "mr=") || len(r.Refused) == 0 || r.Kind != string(ws[i].Spec.Kind()) {
			t.Errorf("%s: schedule %q, refused %v, kind %s", r.Name, r.Schedule, r.Refused, r.Kind)
		}
		for _, f := range r.Refused {
			if f.Candidates <= 0 || f.Reason == "" {
				t.Errorf("%s: refusal %+v", r.Name, f)
			}
		}
	}
}

// gemmCountOrConv costs contractions with gemmCount and convolutions with countEval.
type gemmCountOrConv struct{}

func (gemmCountOrConv) Version() string { return "mixed-count-1" }
func (gemmCountOrConv) Evaluate(p compiler.Program) (Eval, error) {
	if _, ok := p.(compiler.ContractionProgram); ok {
		return gemmCount{}.Evaluate(p)
	}
	return (&countEval{}).Evaluate(p)
}

// A GEMM too large for the memory is tuned as equal calls over columns of C.
func TestSplitContraction(t *testing.T) {
	s := op.MustParse("gemm m=128 n=128 k=256 dtype=int16")
	sub, n, err := splitContraction(s, 120<<10)
	if err != nil || n != 2 || sub.GEMM.N != 64 || sub.GEMM.M != 128 {
		t.Fatalf("%v: %d calls of %v", err, n, sub)
	}
	if _, _, err := splitContraction(op.MustParse("einsum [m,k],[k,n]->[m,n] m=512 k=512 n=512 dtype=int16"), 120<<10); err == nil {
		t.Error("a large einsum was split")
	}
}
