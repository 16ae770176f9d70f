package backend

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// TestPromoteArrays: once its loops are flattened, loop_array_init.cc's local array best[4]
// is only accessed at constant indices, so the promoted variant replaces it by four scalars
// that start from its initializer; its loads and stores become moves. (Its results are
// checked against the interpreter by the harness's ADF tests.)
func TestPromoteArrays(t *testing.T) {
	k := kerneltest.Parse(t, "adf/loop_array_init.cc")
	f := flattenKernel(k)
	if f == nil {
		t.Fatal("loop_array_init.cc: nothing flattened")
	}
	p := promoteArrays(f)
	if p == nil {
		t.Fatal("best[4] not promoted")
	}
	for _, v := range p.Vars {
		if strings.HasPrefix(v.Name, "best") && v.Storage != nil {
			t.Errorf("%s still has storage", v.Name)
		}
	}
	kernel.Walk(p.Body, func(s kernel.Stmt, _ int) {
		if in, ok := s.(*kernel.Instr); ok && (in.Op == kernel.OpLoad || in.Op == kernel.OpStore) && strings.HasPrefix(in.Args[0].Var.Name, "best") {
			t.Errorf("%v: an access of best remains", in.Op)
		}
	})
	if promoteArrays(k) != nil {
		t.Error("the array indexed by a loop counter was promoted")
	}
	prog, err := Compile(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d static cycles, notes %v", prog.StaticCycles(), prog.Notes)
}
