package vliw

import (
	"fmt"
	"sort"
)

// Modulo scheduling support shared by the kernel generators: a modulo reservation table over a
// machine's slots and a modulo register allocator. An iteration issues its operations at times
// relative to its start; iteration i issues them i*II cycles later, so a slot is taken at time t
// for every t' = t (mod II).

// ModuloTable is a modulo reservation table of period II over a machine's slots. Taking a slot
// that covers others (the long slot covers the ALU and move slots) takes them too.
type ModuloTable struct {
	M    *Machine
	II   int
	rows map[string][]bool
}

// NewModuloTable returns an empty table.
func NewModuloTable(m *Machine, ii int) *ModuloTable {
	return &ModuloTable{M: m, II: ii, rows: map[string][]bool{}}
}

// Mod is a mod b in [0, b).
func Mod(a, b int) int { return ((a % b) + b) % b }

// Taken reports whether slot itself is taken at t (modulo II).
func (mt *ModuloTable) Taken(slot string, t int) bool {
	row := mt.rows[slot]
	return row != nil && row[Mod(t, mt.II)]
}

// Free reports whether slot and every slot it covers are free at t.
func (mt *ModuloTable) Free(slot string, t int) bool {
	if mt.Taken(slot, t) {
		return false
	}
	sl, _ := mt.M.SlotByName(slot)
	for _, c := range sl.Covers {
		if mt.Taken(c, t) {
			return false
		}
	}
	return true
}

// Take books slot (and the slots it covers) at t; taking a taken slot is an error.
func (mt *ModuloTable) Take(slot string, t int) error {
	if mt.rows[slot] == nil {
		mt.rows[slot] = make([]bool, mt.II)
	}
	if mt.rows[slot][Mod(t, mt.II)] {
		return fmt.Errorf("modulo slot %s at %d taken twice", slot, t)
	}
	mt.rows[slot][Mod(t, mt.II)] = true
	if sl, ok := mt.M.SlotByName(slot); ok {
		for _, c := range sl.Covers {
			if err := mt.Take(c, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// ALAP is the latest time <= t at which slot is free (t - II when none is).
func (mt *ModuloTable) ALAP(slot string, t int) int {
	for i := 0; i < mt.II; i++ {
		if mt.Free(slot, t-i) {
			return t - i
		}
	}
	return t - mt.II
}

// ASAP is the earliest time >= t at which slot is free (t + II when none is).
func (mt *ModuloTable) ASAP(slot string, t int) int {
	for i := 0; i < mt.II; i++ {
		if mt.Free(slot, t+i) {
			return t + i
		}
	}
	return t + mt.II
}

// Snapshot saves the rows of some slots, for Restore.
func (mt *ModuloTable) Snapshot(slots ...string) map[string][]bool {
	s := map[string][]bool{}
	for _, u := range slots {
		s[u] = append([]bool(nil), mt.rows[u]...)
	}
	return s
}

// Restore puts back rows saved by Snapshot.
func (mt *ModuloTable) Restore(s map[string][]bool) {
	for u, row := range s {
		if len(row) == 0 {
			mt.rows[u] = nil
		} else {
			mt.rows[u] = append([]bool(nil), row...)
		}
	}
}

// Occupancy is when a value holds its register in a modulo schedule: part p of the register
// (a quarter of an accumulator, say) is occupied over [Land[p], Last[p]) — from the cycle its
// write lands to the cycle of its last read; a part with Last < Land is not used. A value whose
// parts all match occupies the whole register.
type Occupancy struct {
	Land, Last []int
}

// Span is the occupancy's extent: the earliest landing and the latest read over its parts.
func (o Occupancy) Span() (land, last int) {
	land, last = 1<<30, -1<<30
	for p := range o.Land {
		if o.Last[p] >= o.Land[p] {
			land, last = min(land, o.Land[p]), max(last, o.Last[p])
		}
	}
	return land, last
}

// ModuloOverlap reports whether two occupancies meet, in any part, on the circle of length II.
func ModuloOverlap(ii int, v, w Occupancy) bool {
	for p := range v.Land {
		if overlapSpan(ii, v.Land[p], v.Last[p], w.Land[p], w.Last[p]) {
			return true
		}
	}
	return false
}

func overlapSpan(ii, vl, vr, wl, wr int) bool {
	if vr < vl || wr < wl {
		return false // the part is not used by one of them
	}
	for d := -2; d <= 2; d++ {
		a0, a1 := vl, vr
		b0, b1 := wl+d*ii, wr+d*ii
		if a0 < b1 && b0 < a1 {
			return true
		}
		// an empty interval ([land, land): read in the cycle it lands) still occupies its
		// landing cycle
		if a1 == a0 && a0 >= b0 && a0 < b1 || b1 == b0 && b0 >= a0 && b0 < a1 {
			return true
		}
	}
	return false
}

// ModuloAllocate assigns n interchangeable registers to values with the given occupancies so
// that no two values in one register meet modulo II: the longest-lived first, first fit, with
// backtracking (a bounded search). It returns each value's register, or an error naming the
// most values live in one cycle (a lower bound on the registers needed).
func ModuloAllocate(ii, n int, occ []Occupancy) ([]int, error) {
	reg := make([]int, len(occ))
	for i, o := range occ {
		land, last := o.Span()
		if last < land {
			return nil, fmt.Errorf("value %d is never read", i)
		}
		if last-land > ii {
			return nil, fmt.Errorf("value %d lives %d cycles, longer than the loop body (%d): the schedule needs more registers than modulo allocation without unrolling gives", i, last-land, ii)
		}
	}
	order := make([]int, len(occ))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		la, ra := occ[order[a]].Span()
		lb, rb := occ[order[b]].Span()
		if ra-la != rb-lb {
			return ra-la > rb-lb // longest first
		}
		return la < lb
	})
	assign := make([][]int, n)
	budget := 200000
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(order) {
			return true
		}
		if budget--; budget < 0 {
			return false
		}
		v := order[i]
		for r := 0; r < n; r++ {
			ok := true
			for _, w := range assign[r] {
				if ModuloOverlap(ii, occ[v], occ[w]) {
					ok = false
					break
				}
			}
			if ok {
				assign[r] = append(assign[r], v)
				reg[v] = r
				if try(i + 1) {
					return true
				}
				assign[r] = assign[r][:len(assign[r])-1]
			}
			if len(assign[r]) == 0 {
				break // registers are interchangeable: an empty one fails like the next
			}
		}
		return false
	}
	if try(0) {
		return reg, nil
	}
	peak := 0
	for t := 0; t < ii; t++ {
		live := 0
		for _, o := range occ {
			land, last := o.Span()
			for d := -2; d <= 2; d++ {
				if c := t + d*ii; c >= land && (c < last || c == land) {
					live++
					break
				}
			}
		}
		peak = max(peak, live)
	}
	return nil, fmt.Errorf("%d registers do not hold the schedule's %d values (modulo %d; up to %d live in one cycle)", n, len(occ), ii, peak)
}
