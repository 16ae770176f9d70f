package compile

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/shuffle"
)

// What AIE1 tells the middle and the tuner comes from its description (target/aie1).
func TestTargetFacts(t *testing.T) {
	var tg Target
	if l, s := tg.Bandwidth(); l != 64 || s != 32 {
		t.Errorf("bandwidth %d/%d B per cycle, want 64/32 (two 256-bit loads, one 256-bit store)", l, s)
	}
	if m := tg.MemLimit(); m != 120<<10 {
		t.Errorf("memory limit %d, want 120 KB", m)
	}
	dp, peak, err := tg.Datapath(op.MustParse("conv2d x=16 y=1 r=4 s=3 dtype=int16").Types)
	if err != nil {
		t.Fatal(err)
	}
	if dp.Shape != (sched.Shape{Lanes: 16, Cols: 2, ElemBits: 16}) || peak != 32 || dp.LoadBits != 256 || dp.AlignBits != 128 ||
		dp.XBits != 1024 || dp.ZBits != 256 || dp.JoinAdjacent || dp.Net != shuffle.Sel16 {
		t.Errorf("int16 datapath %+v, peak %d", dp, peak)
	}
	dp8, _, _ := tg.Datapath(op.MustParse("conv2d x=4 y=2 k=32 c=16 r=1 s=1 dtype=int8").Types)
	if !dp8.JoinAdjacent || dp8.Net != shuffle.Sel8 {
		t.Errorf("int8 datapath %+v", dp8)
	}
	p, err := tg.Generate(op.MustParse("conv2d x=16 y=1 r=4 s=3 dtype=int16"), mustDefault(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Emit("nope", p); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Emit(nope): %v", err)
	}
	ev, err := tg.Evaluate(p)
	if err != nil || ev.Cycles <= 0 {
		t.Errorf("Evaluate: %+v %v", ev, err)
	}
	ck, err := tg.Verify(p, 1)
	if err != nil || !ck.OK || !ck.Interpreted {
		t.Errorf("Verify: %+v %v", ck, err)
	}
}

func mustDefault(t *testing.T) sched.Schedule {
	s, err := Target{}.DefaultSchedule(op.MustParse("conv2d x=16 y=1 r=4 s=3 dtype=int16"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
