package compiler

import (
	"strings"
	"testing"
)

func TestStageTable(t *testing.T) {
	if err := checkStages(Stages, order); err != nil {
		t.Fatal(err)
	}
	want := []string{"spec", "loops", "schedule", "triplets", "graphs", "fused", "kernel", "bundles", "cycles", "cpp"}
	if got := strings.Join(Names(), " "); got != strings.Join(want, " ") {
		t.Errorf("stages %s, want %s", got, strings.Join(want, " "))
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "triplets") {
		t.Errorf("Lookup(nope) = %v, want an error listing the stages", err)
	}
	for _, name := range Names() {
		if !strings.Contains(Table(), name) {
			t.Errorf("the table lacks %s", name)
		}
	}
}

// The checks at init catch a table out of order, a middle stage after the seam and a
// duplicate.
func TestStageTableChecks(t *testing.T) {
	swap := append([]Stage(nil), Stages...)
	swap[3], swap[4] = swap[4], swap[3] // graphs before triplets
	if err := checkStages(swap, order); err == nil {
		t.Error("graphs before triplets accepted")
	}
	late := append(append([]Stage(nil), Stages...), Stage{Name: "late", Explain: "x", Print: printSpec, NeedsProgram: true})
	if err := checkStages(late, order); err == nil || !strings.Contains(err.Error(), "after the target") {
		t.Errorf("middle stage after the seam: %v", err)
	}
	dup := append(append([]Stage(nil), Stages...), Stages[0])
	if err := checkStages(dup, order); err == nil {
		t.Error("duplicate stage accepted")
	}
	if err := checkStages(Stages, append(order, constraint{"cpp", "spec"})); err == nil {
		t.Error("a violated constraint accepted")
	}
}
