package tune

import (
	"testing"

	"github.com/sumacdev/sumac/op"
)

// Explore sees the same space as Run and ranks first the schedule Run chooses.
func TestExploreAgreesWithRun(t *testing.T) {
	w := Workload{Name: "a", Spec: op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16")}
	opt := Options{Target: aie1, Workers: 2}
	rs, err := Run([]Workload{w}, opt)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Explore(w, opt)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if sp.Best < 0 {
		t.Fatal("no best candidate")
	}
	b := sp.Candidates[sp.Best]
	if b.Schedule != r.Schedule || b.Cycles != r.Cycles {
		t.Errorf("Explore's best %s (%d cycles), Run chose %s (%d)", b.Schedule, b.Cycles, r.Schedule, r.Cycles)
	}
	n := map[string]int{}
	for _, c := range sp.Candidates {
		n[c.Stage]++
		if c.Stage != StageEvaluated && c.Reason == "" {
			t.Errorf("%s %s without a reason", c.Stage, c.Schedule)
		}
	}
	if n[StageEvaluated] != r.Legal || n[StageEvaluated]+n[StageRefused] != r.Candidates {
		t.Errorf("stages %v; Run: %d candidates, %d legal", n, r.Candidates, r.Legal)
	}
	if n[StagePruned] == 0 {
		t.Errorf("no pruned candidate counted: %v", n)
	}
	if sp.Roofline != r.Roofline || sp.Peak != r.Peak || sp.MACs != r.MACs {
		t.Errorf("space roofline/peak/MACs %v/%d/%d, result %v/%d/%d", sp.Roofline, sp.Peak, sp.MACs, r.Roofline, r.Peak, r.MACs)
	}
}
