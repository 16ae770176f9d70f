package backend

import (
	"errors"
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/target/aie1"
)

// This file holds the two schedulers: a list scheduler for straight-line code and an
// iterative modulo scheduler (Rau, "Iterative Modulo Scheduling", MICRO 1994) for innermost
// loops. Both work on a small dependence graph whose nodes only know which issue slots they
// may use; the rest of the backend builds the graphs.

// SNode is a node of a dependence graph: an operation needing one issue slot set per cycle it
// issues in (Alts: alternative slot masks, e.g. a load may use LDA or LDB).
type SNode struct {
	Alts []uint16
	// Lock: the node is a lock instruction (requires the LOCK unit for LockBusyCycles).
	Lock bool
	// Mem: the node accesses data memory (reserves the LOCK unit for MemLockReserveCycles).
	Mem bool
}

// Edge says To may issue no earlier than Lat cycles after From issued, Dist iterations later
// (Dist 0 inside one iteration or straight-line code). Lat may be negative: a write that
// lands after an earlier read may issue before it (exposed pipeline, no interlocks).
type Edge struct{ From, To, Lat, Dist int }

// numRes counts the scheduled resources below the per-area memory bits: the eight issue slots
// and ResStackBank. Bits numRes..15 are memory areas (see spaceBit); resource tables cover all 16.
const numRes = int(aie1.NumSlots) + 1

const allRes = 16

// ResStackBank is a resource bit for accesses to the stack (spill code), whose addresses
// the compiler knows: at most one per cycle, so spill code never causes a bank conflict
// (the stack sits in one double bank; UG1079 "AI Engine Memory").
const ResStackBank uint16 = 1 << aie1.NumSlots

// SlotMask returns the mask of one slot.
func SlotMask(s aie1.Slot) uint16 { return 1 << uint(s) }

// Schedule is a scheduler's result: issue cycle and chosen alternative per node; II is the
// initiation interval of a modulo schedule (0 for straight-line code).
type Schedule struct {
	Time []int
	Alt  []int
	II   int
}

// Length returns the number of cycles from the first issue to the last (inclusive).
func (s *Schedule) Length() int {
	if len(s.Time) == 0 {
		return 0
	}
	lo, hi := s.Time[0], s.Time[0]
	for _, t := range s.Time {
		lo, hi = min(lo, t), max(hi, t)
	}
	return hi - lo + 1
}

// ResMII is the resource-bound lower limit of the initiation interval: per slot, the number of
// nodes that can only use it, and overall the slot demand spread over the alternatives.
func ResMII(nodes []SNode) int {
	var need [allRes]int
	flexible := 0
	for _, n := range nodes {
		if len(n.Alts) == 1 {
			for s := 0; s < allRes; s++ {
				if n.Alts[0]&(1<<uint(s)) != 0 {
					need[s]++
				}
			}
		} else {
			flexible++
		}
	}
	mii := 1
	for _, c := range need {
		mii = max(mii, c)
	}
	// Loads may use either load slot: both load slots together serve every load.
	lds := need[aie1.SlotLDA] + need[aie1.SlotLDB] + flexible
	mii = max(mii, (lds+1)/2)
	return mii
}

// RecMII is the recurrence-bound lower limit: the least II for which no dependence cycle
// requires more than II*Dist cycles (checked with longest paths, Bellman-Ford style).
func RecMII(n int, edges []Edge, maxII int) int {
	// Feasibility is monotone in II: binary search.
	if !feasibleII(n, edges, maxII) {
		return maxII + 1
	}
	lo, hi := 1, maxII
	for lo < hi {
		mid := (lo + hi) / 2
		if feasibleII(n, edges, mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// feasibleII reports whether the graph has no positive cycle with weights Lat - ii*Dist.
func feasibleII(n int, edges []Edge, ii int) bool {
	d := make([]int, n)
	for iter := 0; iter <= n; iter++ {
		changed := false
		for _, e := range edges {
			if v := d[e.From] + e.Lat - ii*e.Dist; v > d[e.To] {
				d[e.To] = v
				changed = true
			}
		}
		if !changed {
			return true
		}
	}
	return false
}

// mrt is a modulo reservation table: per cycle mod II, the slots in use and by which node.
type mrt struct {
	ii  int
	use [][allRes]int // node+1 using the slot, 0 free
}

func newMRT(ii int) *mrt { return &mrt{ii: ii, use: make([][allRes]int, ii)} }

func (m *mrt) row(t int) int { return ((t % m.ii) + m.ii) % m.ii }

func (m *mrt) free(t int, mask uint16) bool {
	r := &m.use[m.row(t)]
	for s := 0; s < allRes; s++ {
		if mask&(1<<uint(s)) != 0 && r[s] != 0 {
			return false
		}
	}
	return true
}

func (m *mrt) set(t int, mask uint16, node int) {
	r := &m.use[m.row(t)]
	for s := 0; s < allRes; s++ {
		if mask&(1<<uint(s)) != 0 {
			r[s] = node + 1
		}
	}
}

func (m *mrt) clear(t int, mask uint16) {
	r := &m.use[m.row(t)]
	for s := 0; s < allRes; s++ {
		if mask&(1<<uint(s)) != 0 {
			r[s] = 0
		}
	}
}

// ErrNoSchedule is returned when no modulo schedule exists within the limits.
var ErrNoSchedule = errors.New("no modulo schedule within the limits")

// ModuloSchedule finds a modulo schedule with the smallest II it can (starting from
// max(ResMII, RecMII)) such that the schedule spans at most maxStages stages (maxStages <= 0:
// no limit). Node times are normalized so that the earliest is 0.
func ModuloSchedule(nodes []SNode, edges []Edge, maxII, maxStages int) (*Schedule, error) {
	n := len(nodes)
	if n == 0 {
		return &Schedule{II: 1}, nil
	}
	for i, nd := range nodes {
		if len(nd.Alts) == 0 {
			return nil, fmt.Errorf("node %d has no slot", i)
		}
	}
	mii := max(ResMII(nodes), RecMII(n, edges, maxII))
	succ := make([][]Edge, n)
	pred := make([][]Edge, n)
	for _, e := range edges {
		succ[e.From] = append(succ[e.From], e)
		pred[e.To] = append(pred[e.To], e)
	}
	for ii := mii; ii <= maxII; ii++ {
		if !feasibleII(n, edges, ii) {
			continue
		}
		s := imsAttempt(nodes, succ, pred, ii, 8*n+64)
		if s == nil {
			continue
		}
		if maxStages > 0 && (s.Length()+ii-1)/ii > maxStages {
			continue
		}
		if err := CheckModulo(nodes, edges, s); err != nil {
			return nil, fmt.Errorf("internal error: modulo schedule invalid: %v", err)
		}
		return s, nil
	}
	return nil, ErrNoSchedule
}

// heights gives each node the longest latency path to any node (weights Lat - ii*Dist),
// the priority of iterative modulo scheduling.
func heights(n int, succ [][]Edge, ii int) []int {
	h := make([]int, n)
	for iter := 0; iter <= n; iter++ {
		changed := false
		// Successors mostly come later in the body: visiting the nodes backwards settles an
		// acyclic stretch in one pass instead of one pass per edge of it.
		for v := n - 1; v >= 0; v-- {
			for _, e := range succ[v] {
				if x := h[e.To] + e.Lat - ii*e.Dist; x > h[v] {
					h[v] = x
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	return h
}

func imsAttempt(nodes []SNode, succ, pred [][]Edge, ii, budget int) *Schedule {
	n := len(nodes)
	h := heights(n, succ, ii)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return h[order[a]] > h[order[b]] })
	rank := make([]int, n)
	for r, v := range order {
		rank[v] = r
	}
	const unset = -1 << 30
	time := make([]int, n)
	alt := make([]int, n)
	last := make([]int, n)
	for i := range time {
		time[i] = unset
		last[i] = unset
	}
	tab := newMRT(ii)
	unsched := n
	unschedule := func(v int) {
		if time[v] == unset {
			return
		}
		tab.clear(time[v], nodes[v].Alts[alt[v]])
		time[v] = unset
		unsched++
	}
	for unsched > 0 && budget > 0 {
		budget--
		// Highest-priority unscheduled node.
		v := -1
		for _, c := range order {
			if time[c] == unset {
				v = c
				break
			}
		}
		est := 0
		for _, e := range pred[v] {
			if time[e.From] != unset {
				est = max(est, time[e.From]+e.Lat-ii*e.Dist)
			}
		}
		lst := est + ii - 1
		for _, e := range succ[v] {
			if time[e.To] != unset && e.To != v {
				lst = min(lst, time[e.To]-e.Lat+ii*e.Dist)
			}
		}
		placed := false
		for t := est; t <= lst && !placed; t++ {
			for a, mask := range nodes[v].Alts {
				if tab.free(t, mask) {
					time[v], alt[v] = t, a
					tab.set(t, mask, v)
					unsched--
					placed = true
					break
				}
			}
		}
		if placed {
			last[v] = time[v]
			continue
		}
		// Force: place at est (or one past the last try), evicting conflicts.
		t := est
		if last[v] != unset && last[v] >= est {
			t = last[v] + 1
		}
		a := 0
		mask := nodes[v].Alts[a]
		r := &tab.use[tab.row(t)]
		for s := 0; s < allRes; s++ {
			if mask&(1<<uint(s)) != 0 && r[s] != 0 {
				unschedule(r[s] - 1)
			}
		}
		time[v], alt[v] = t, a
		tab.set(t, mask, v)
		unsched--
		last[v] = t
		for _, e := range succ[v] {
			if e.To != v && time[e.To] != unset && time[e.To] < t+e.Lat-ii*e.Dist {
				unschedule(e.To)
			}
		}
		for _, e := range pred[v] {
			if e.From != v && time[e.From] != unset && t < time[e.From]+e.Lat-ii*e.Dist {
				unschedule(e.From)
			}
		}
	}
	if unsched > 0 {
		return nil
	}
	lo := time[0]
	for _, t := range time {
		lo = min(lo, t)
	}
	for i := range time {
		time[i] -= lo
	}
	return &Schedule{Time: time, Alt: alt, II: ii}
}

// CheckModulo verifies a modulo schedule: every dependence and no two nodes on one slot in
// the same cycle modulo II.
func CheckModulo(nodes []SNode, edges []Edge, s *Schedule) error {
	for _, e := range edges {
		if s.Time[e.To] < s.Time[e.From]+e.Lat-s.II*e.Dist {
			return fmt.Errorf("edge %d->%d (lat %d, dist %d) violated: %d -> %d at II %d", e.From, e.To, e.Lat, e.Dist, s.Time[e.From], s.Time[e.To], s.II)
		}
	}
	tab := newMRT(s.II)
	for i, nd := range nodes {
		mask := nd.Alts[s.Alt[i]]
		if !tab.free(s.Time[i], mask) {
			return fmt.Errorf("node %d: slot conflict at cycle %d mod %d", i, s.Time[i], s.II)
		}
		tab.set(s.Time[i], mask, i)
	}
	return nil
}

// Reservation is a growable (non-modulo) reservation table for straight-line code, with the
// LOCK-unit rule of AIE1Schedule.td: a lock instruction requires the unit for LockBusyCycles
// cycles; loads and stores reserve it for MemLockReserveCycles; requirements exclude each other
// and reservations, reservations do not exclude each other.
type Reservation struct {
	slots    [][allRes]bool
	lockReq  []bool
	lockResv []bool
}

func (r *Reservation) grow(t int) {
	for len(r.slots) <= t {
		r.slots = append(r.slots, [allRes]bool{})
		r.lockReq = append(r.lockReq, false)
		r.lockResv = append(r.lockResv, false)
	}
}

// Free reports whether node nd can issue at t with slot mask.
func (r *Reservation) Free(t int, mask uint16, nd SNode) bool {
	if t < 0 {
		return false
	}
	r.grow(t + aie1.LockBusyCycles)
	for s := 0; s < allRes; s++ {
		if mask&(1<<uint(s)) != 0 && r.slots[t][s] {
			return false
		}
	}
	if nd.Lock {
		for c := t; c < t+aie1.LockBusyCycles; c++ {
			if r.lockReq[c] || r.lockResv[c] {
				return false
			}
		}
	}
	if nd.Mem {
		for c := t; c < t+aie1.MemLockReserveCycles; c++ {
			if r.lockReq[c] {
				return false
			}
		}
	}
	return true
}

// Take books node nd at t with slot mask.
func (r *Reservation) Take(t int, mask uint16, nd SNode) {
	r.grow(t + aie1.LockBusyCycles)
	for s := 0; s < allRes; s++ {
		if mask&(1<<uint(s)) != 0 {
			r.slots[t][s] = true
		}
	}
	if nd.Lock {
		for c := t; c < t+aie1.LockBusyCycles; c++ {
			r.lockReq[c] = true
		}
	}
	if nd.Mem {
		for c := t; c < t+aie1.MemLockReserveCycles; c++ {
			r.lockResv[c] = true
		}
	}
}

// Len is the number of cycles with anything booked.
func (r *Reservation) Len() int {
	for t := len(r.slots) - 1; t >= 0; t-- {
		for _, b := range r.slots[t] {
			if b {
				return t + 1
			}
		}
	}
	return 0
}

// ListSchedule schedules a DAG (edges with Dist 0, From before To in node order) into res,
// each node no earlier than its earliest[i] (if earliest != nil), by critical-path priority.
// It returns the issue cycle and alternative of every node.
func ListSchedule(nodes []SNode, edges []Edge, earliest []int, res *Reservation) (*Schedule, error) {
	n := len(nodes)
	succ := make([][]Edge, n)
	npred := make([]int, n)
	for _, e := range edges {
		if e.Dist != 0 {
			return nil, fmt.Errorf("list schedule: loop-carried edge %d->%d", e.From, e.To)
		}
		if e.From >= e.To {
			return nil, fmt.Errorf("list schedule: edge %d->%d against node order", e.From, e.To)
		}
		succ[e.From] = append(succ[e.From], e)
		npred[e.To]++
	}
	h := make([]int, n)
	for v := n - 1; v >= 0; v-- {
		for _, e := range succ[v] {
			h[v] = max(h[v], h[e.To]+max(e.Lat, 0))
		}
	}
	est := make([]int, n)
	if earliest != nil {
		copy(est, earliest)
	}
	time := make([]int, n)
	alt := make([]int, n)
	done := 0
	ready := []int{}
	for v := 0; v < n; v++ {
		if npred[v] == 0 {
			ready = append(ready, v)
		}
	}
	for done < n {
		if len(ready) == 0 {
			return nil, errors.New("list schedule: cycle in dependence graph")
		}
		// Highest first; ties in program order.
		sort.Slice(ready, func(a, b int) bool {
			if h[ready[a]] != h[ready[b]] {
				return h[ready[a]] > h[ready[b]]
			}
			return ready[a] < ready[b]
		})
		v := ready[0]
		ready = ready[1:]
		t := max(est[v], 0)
		for {
			ok := false
			for a, mask := range nodes[v].Alts {
				if res.Free(t, mask, nodes[v]) {
					time[v], alt[v] = t, a
					res.Take(t, mask, nodes[v])
					ok = true
					break
				}
			}
			if ok {
				break
			}
			t++
		}
		done++
		for _, e := range succ[v] {
			est[e.To] = max(est[e.To], time[v]+e.Lat)
			npred[e.To]--
			if npred[e.To] == 0 {
				ready = append(ready, e.To)
			}
		}
	}
	return &Schedule{Time: time, Alt: alt}, nil
}
