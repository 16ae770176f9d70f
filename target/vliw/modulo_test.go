package vliw

import (
	"strings"
	"testing"
)

func TestModuloTable(t *testing.T) {
	m := NewMachine("t")
	m.AddSlot(Slot{Name: "alu"})
	m.AddSlot(Slot{Name: "mv"})
	m.AddSlot(Slot{Name: "lng", Covers: []string{"alu", "mv"}})
	mt := NewModuloTable(m, 4)
	if err := mt.Take("mv", 5); err != nil {
		t.Fatal(err)
	}
	if mt.Free("lng", 1) || !mt.Free("alu", 1) || mt.Free("mv", -3) {
		t.Fatal("mv at 5 = 1 = -3 (mod 4) must block mv and lng, not alu")
	}
	if got := mt.ALAP("lng", 5); got != 4 {
		t.Fatalf("ALAP lng from 5: %d, want 4", got)
	}
	s := mt.Snapshot("alu", "mv")
	if err := mt.Take("lng", 2); err != nil || mt.Free("alu", 6) {
		t.Fatalf("lng takes alu: %v", err)
	}
	mt.Restore(s)
	if !mt.Free("alu", 2) || mt.Take("mv", 1) == nil {
		t.Fatal("restore, or a second take of mv at 1")
	}
}

// TestModuloAllocate: two values whose occupancies interleave quarter by quarter share one
// register (a tile stored a quarter at a time while the next is loaded into the quarters
// already stored); overlapping whole-register values need two; the error names the peak.
func TestModuloAllocate(t *testing.T) {
	q := func(land, last []int) Occupancy { return Occupancy{Land: land, Last: last} }
	out := q([]int{0, 0, 0, 0}, []int{1, 2, 3, 4})   // stored at 1, 2, 3, 4
	in := q([]int{2, 3, 4, 5}, []int{8, 8, 8, 8})    // loaded after each store
	whole := q([]int{2, 2, 2, 2}, []int{8, 8, 8, 8}) // loaded at once
	if r, err := ModuloAllocate(16, 1, []Occupancy{out, in}); err != nil || r[0] != r[1] {
		t.Fatalf("quarter sharing: %v %v", r, err)
	}
	if _, err := ModuloAllocate(16, 1, []Occupancy{out, whole}); err == nil || !strings.Contains(err.Error(), "up to 2 live") {
		t.Fatalf("whole-register overlap in one register: %v", err)
	}
	if _, err := ModuloAllocate(4, 2, []Occupancy{q([]int{0}, []int{9})}); err == nil {
		t.Fatal("a value living longer than II accepted")
	}
	// modulo: [6, 9) and [1, 3) + II 8 = [9, 11) do not meet; [6, 10) and [1, 3) do
	if ModuloOverlap(8, q([]int{6}, []int{9}), q([]int{1}, []int{3})) || !ModuloOverlap(8, q([]int{6}, []int{10}), q([]int{1}, []int{3})) {
		t.Fatal("overlap on the circle")
	}
}
