package sched

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/op"
)

var int16Shape = Shape{Lanes: 16, Cols: 2, ElemBits: 16}
var int32Shape = Shape{Lanes: 8, Cols: 1, ElemBits: 32}

func TestSpacePrunes(t *testing.T) {
	c := op.MustParse("conv2d x=128 y=2 k=16 c=8 r=3 s=3 dtype=int16").Conv
	ss, pruned := Space(c, int16Shape, 8, 512)
	if len(ss) == 0 {
		t.Fatal("empty space")
	}
	seen := map[string]bool{}
	for _, s := range ss {
		if err := s.Check(c, int16Shape); err != nil {
			t.Errorf("%s in the space but Check says %v", s.Key(), err)
		}
		if s.UX*s.UY*s.UK > 8 {
			t.Errorf("%s: more than 8 output vectors", s.Key())
		}
		if seen[s.Key()] {
			t.Errorf("%s twice", s.Key())
		}
		seen[s.Key()] = true
		if c.Y%s.UY != 0 {
			t.Errorf("%s: UY does not divide y", s.Key())
		}
	}
	// y = 2 prunes UY = 4 and 8 with a reason.
	found := false
	for _, p := range pruned {
		if strings.Contains(p, "y=2 is not a multiple of unroll 4") {
			found = true
		}
	}
	if !found {
		t.Errorf("no pruning reason for UY=4 among %d", len(pruned))
	}
	// The program-memory bound prunes large bodies.
	_, pruned = Space(c, int16Shape, 8, 40)
	found = false
	for _, p := range pruned {
		if strings.Contains(p, "program-memory bound") {
			found = true
		}
	}
	if !found {
		t.Error("no program-memory pruning with a 40-MAC bound")
	}
}

func TestCheckRejects(t *testing.T) {
	c := op.MustParse("conv2d x=16 y=2 r=3 s=3 stride=2 dtype=int32").Conv
	s := Schedule{Vec: "x", Order: "kyx", UX: 1, UY: 1, UK: 1, Fusion: FuseNone, Out: "KYX", W: "KCSR", In: "CY'X'", Dup: 2}
	if err := s.Check(c, int32Shape); err == nil || !strings.Contains(err.Error(), "8-bit") {
		t.Errorf("dup=2 on int32: %v", err)
	}
	s.Dup = 0
	if err := s.Check(c, int32Shape); err != nil {
		t.Errorf("stride 2: %v", err)
	}
	c = op.MustParse("conv2d x=20 y=2 k=8 c=8 r=3 s=3 dtype=int32").Conv // k vectorizes: no ragged x
	if err := s.Check(c, int32Shape); err == nil || !strings.Contains(err.Error(), "multiple of 8 lanes") {
		t.Errorf("x=20: %v", err)
	}
	s.Fusion = FuseTaps
	c = op.MustParse("conv2d x=16 y=2 r=3 s=3 dtype=int32").Conv
	if err := s.Check(c, int32Shape); err == nil {
		t.Error("fusion on a 1-column datapath accepted")
	}
}

func TestParseKey(t *testing.T) {
	s := Schedule{Vec: "k", Order: "yxk", UX: 2, UY: 1, UK: 4, Fusion: FuseChannels, Out: "YXK", W: "(K/16)SR(C/2)(16)(2)", In: "Y'X'C", PadR: 3, Interleave: InterleaveOperand, Flat: true}
	got, err := Parse(s.Key(), Schedule{})
	if err != nil {
		t.Fatal(err)
	}
	if got != s {
		t.Errorf("Parse(Key()) = %+v, want %+v", got, s)
	}
	if _, err := Parse("bogus=1", s); err == nil {
		t.Error("unknown field accepted")
	}
}

func TestLayoutsPadding(t *testing.T) {
	c := op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16").Conv
	if _, _, _, padR := Layouts(c, "x", FuseTaps, int16Shape); padR != 4 {
		t.Errorf("3-tap rows padded to %d, want 4", padR)
	}
	if _, _, _, padR := Layouts(c, "x", FuseRows, int16Shape); padR != 4 {
		t.Errorf("rows fusion pads one zero tap: %d, want 4", padR)
	}
}
