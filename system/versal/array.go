package versal

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/device"
)

// Array is the VC1902's AI Engine array above the tiles: the device model's tile facts (rows,
// columns, kinds, locks, DMA channels, the memory modules each core reaches, the cascade width)
// and the Machine's interface, stream-switch and off-chip parameters. A design placed on it
// (ArrayDesign) moves data by these mechanisms:
//
//   - PLIO: a stream from the PL through a PL interface tile (64-bit channels, a 128-bit PLIO
//     takes two) and up a column's stream switches (ColumnUpStreams per column) to tile DMA S2MM
//     channels, at min(PLIO width x PLIO clock, 32 bits x AIE clock) (AM009, UG1079).
//   - Broadcast: a circuit-switched stream delivered to several tiles at once: the switches copy
//     it, so it costs the stream's time once, and every destination's S2MM channel is held for
//     it; it starts when every destination has a free buffer (AM009 "AXI4-Stream Interconnect").
//   - Packet switching: several windows share one PLIO in turn, each behind a header word
//     (PacketHeaderWords); the switches route each packet by its header (AM009).
//   - Cascade: a core passes its accumulators to the horizontal neighbour, CascadeBits per cycle
//     (AM009 "AI Engine Interfaces"); a chain reduces a K split without any DMA.
//   - Neighbour memory: a core reads the memory modules of its north, south and one horizontal
//     neighbour (device.Model.Neighbours), so an adder tile sums its neighbours' outputs in place.
//   - Tile DMA: a window moved between tiles that share no module goes MM2S -> stream -> S2MM at
//     one 32-bit word per cycle, paying a lock acquire and release (LockCycles).
//   - DDR through the NoC to PL buffers (PLRAMBytes), at DDRGBps aggregate.
type Array struct {
	M     *Machine
	Dev   device.Model
	cores []device.Coord
	rows  int
}

// NewArray is the VC1902 array with the machine's parameters.
func NewArray(m *Machine) *Array {
	a := &Array{M: m, Dev: aie1.VC1902{}}
	for c := 0; c < a.Dev.Columns(); c++ {
		for r := 0; r < a.Dev.Rows(); r++ {
			if a.Dev.Kind(device.Coord{Col: c, Row: r}) == device.Core {
				a.cores = append(a.cores, device.Coord{Col: c, Row: r})
			}
		}
	}
	for r := 0; r < a.Dev.Rows(); r++ {
		if a.Dev.Kind(device.Coord{Col: 0, Row: r}) == device.Core {
			a.rows++
		}
	}
	return a
}

// Cores lists the compute tiles, column-major from the interface row up (the order the
// placements below fill). The slice is shared: do not modify it.
func (a *Array) Cores() []device.Coord { return a.cores }

// NumCores is the number of compute tiles (400 on the VC1902).
func (a *Array) NumCores() int { return len(a.cores) }

// CoreRows is the number of rows of compute tiles.
func (a *Array) CoreRows() int { return a.rows }

// Reach lists the memory modules the core at c reads and writes directly: its own and its
// neighbours' (device.Model.Neighbours).
func (a *Array) Reach(c device.Coord) []device.Coord {
	return append([]device.Coord{c}, a.Dev.Neighbours(c)...)
}

// SharedModule reports a memory module both cores reach (the first in t's address order), if
// any: one can write a buffer there that the other reads in place.
func (a *Array) SharedModule(t, u device.Coord) (device.Coord, bool) {
	ru := map[device.Coord]bool{}
	for _, m := range a.Reach(u) {
		ru[m] = true
	}
	for _, m := range a.Reach(t) {
		if ru[m] {
			return m, true
		}
	}
	return device.Coord{}, false
}

// CascadeRate is bytes per AIE cycle over a cascade link (device CascadeBits per cycle).
func (a *Array) CascadeRate() float64 { return float64(a.Dev.CascadeBits()) / 8 }

// CascadeNeighbours reports whether t's cascade output reaches u: horizontal neighbours in a
// row (AM009 "AI Engine Interfaces": the accumulator goes to the horizontal neighbour; the
// direction alternates by row).
func (a *Array) CascadeNeighbours(t, u device.Coord) bool {
	return t.Row == u.Row && (t.Col-u.Col == 1 || u.Col-t.Col == 1)
}

// DMAChannels is a compute tile's S2MM and MM2S channels (device DMA).
func (a *Array) DMAChannels() (s2mm, mm2s int) {
	d := a.Dev.DMA(device.Core)
	return d.S2MM, d.MM2S
}

// TileBytes is one tile's data memory (device DataMemBytes).
func (a *Array) TileBytes() int { return a.Dev.DataMemBytes(device.Core) }

// UsableBytes is a tile's memory less the compiler's stack, heap and sync buffer (UG1076).
func (a *Array) UsableBytes() int {
	return a.TileBytes() - a.M.StackBytes - a.M.HeapBytes - a.M.SyncBytes
}

// PLIO is one stream between the outside and the array: a PLIO (width and clock on the PL
// side), or with GMIO set a GMIO channel (a shim DMA channel of a NoC interface tile, fed from DDR
// through the NoC; no PL buffer in between).
type PLIO struct {
	Bits int     `json:"bits"`
	MHz  float64 `json:"mhz"`
	GMIO bool    `json:"gmio,omitempty"`
}

func (p PLIO) String() string {
	if p.GMIO {
		return "GMIO"
	}
	return fmt.Sprintf("PLIO %d-bit at %g MHz", p.Bits, p.MHz)
}

// Rate is bytes per AIE cycle: the PL side (width x clock, the clock capped at PLIOMaxMHz) or
// the array's 32-bit stream at the AIE clock, whichever is slower; a GMIO channel moves at the
// Machine's GMIORate (shim DMA channel, NoC port, stream).
func (a *Array) Rate(p PLIO) float64 {
	if p.GMIO {
		return a.M.GMIORate()
	}
	mhz := math.Min(p.MHz, a.M.PLIOMaxMHz)
	pl := float64(p.Bits) / 8 * mhz / (a.M.AIEClockGHz * 1000)
	return math.Min(pl, a.M.StreamRate())
}

// Channels is the number of 64-bit interface channels one PLIO of p's width takes (AM009: a
// 128-bit PLIO joins two 64-bit streams; 32- and 64-bit take one).
func (p PLIO) Channels() int { return max(1, ceilDiv(p.Bits, 64)) }

// PLIOCapacity is the number of input and output PLIOs of p's width the interface admits: the
// PL tiles' 64-bit channels, and the columns' up and down streams (one 32-bit stream each).
func (a *Array) PLIOCapacity(p PLIO) (in, out int) {
	m := a.M
	if p.GMIO {
		// one shim DMA channel per GMIO: the NoC interface tiles' MM2S (in) and S2MM (out)
		// channels (device DMA; AM009, XD100 "AI Engine GMIO Performance Profile": 16 NMUs,
		// at most 32 GMIO in and 32 out)
		noc := 0
		for c := 0; c < a.Dev.Columns(); c++ {
			if a.Dev.Kind(device.Coord{Col: c, Row: 0}) == device.ShimNoC {
				noc++
			}
		}
		d := a.Dev.DMA(device.ShimNoC)
		return noc * d.MM2S, noc * d.S2MM
	}
	in = min(m.PLIOColumns*m.PLInChannels/p.Channels(), m.PLIOColumns*m.ColumnUpStreams)
	out = min(m.PLIOColumns*m.PLOutChannels/p.Channels(), m.PLIOColumns*m.ColumnDownStreams)
	return in, out
}

// Placement is where a design's tiles sit: groups of compute tiles that reduce one output
// (a cascade chain, an adder group, or a single tile), each with its adder tile if any.
type Placement struct {
	Groups []PlacedGroup
}

// PlacedGroup is one reduction group.
type PlacedGroup struct {
	Tiles []device.Coord // compute tiles in reduction order (a chain: cascade order)
	Adder *device.Coord  // the adder tile (adder-tree reduction)
	// Shared[i]: tile i writes its output into a module the adder reads in place; otherwise
	// the output moves by tile DMA.
	Shared []bool
}

// Used is the number of tiles the placement occupies.
func (p *Placement) Used() int {
	n := 0
	for _, g := range p.Groups {
		n += len(g.Tiles)
		if g.Adder != nil {
			n++
		}
	}
	return n
}

// PlaceChains places n cascade chains of length y: each chain in one row, horizontally
// adjacent tiles, rows filled left to right (a chain never wraps a row). It fails if the array
// has room for fewer.
func (a *Array) PlaceChains(n, y int) (*Placement, error) {
	rows, cols := a.CoreRows(), a.Dev.Columns()
	per := cols / y
	if n > rows*per {
		return nil, fmt.Errorf("%d cascade chains of %d tiles: the array has room for %d (%d per row of %d columns)", n, y, rows*per, per, cols)
	}
	p := &Placement{}
	first := a.firstCoreRow()
	for i := 0; i < n; i++ {
		r, k := i%rows, i/rows
		g := PlacedGroup{}
		for j := 0; j < y; j++ {
			g.Tiles = append(g.Tiles, device.Coord{Col: k*y + j, Row: first + r})
		}
		p.Groups = append(p.Groups, g)
	}
	return p, nil
}

func (a *Array) firstCoreRow() int {
	for r := 0; r < a.Dev.Rows(); r++ {
		if a.Dev.Kind(device.Coord{Col: 0, Row: r}) == device.Core {
			return r
		}
	}
	return 0
}

// PlaceSingles places n groups of one tile.
func (a *Array) PlaceSingles(n int) (*Placement, error) {
	cores := a.Cores()
	if n > len(cores) {
		return nil, fmt.Errorf("%d tiles: the array has %d", n, len(cores))
	}
	p := &Placement{}
	for i := 0; i < n; i++ {
		p.Groups = append(p.Groups, PlacedGroup{Tiles: []device.Coord{cores[i]}})
	}
	return p, nil
}

// PlaceAdderGroups places n groups of y compute tiles and one adder tile so that, where the
// device allows it, every compute tile shares a memory module with its adder (the adder then
// reads the partial sums in place, MaxEVA's placement goal). Greedy: tiles are taken in pairs of
// columns from the interface row up; each group must contain the first free tile (the anchor)
// and tries every free tile near it as the adder, keeping the choice with the most compute
// tiles that share a module with the adder, then the most compact; members that share no
// module move their outputs by tile DMA. It fails if fewer than n groups fit.
func (a *Array) PlaceAdderGroups(n, y int) (*Placement, error) {
	key := fmt.Sprintf("%s|adder|%d|%d", a.Dev.Device(), n, y)
	if v, ok := placeCache.Load(key); ok {
		pe := v.(placeEntry)
		return pe.p, pe.err
	}
	p, err := a.placeAdder(n, y)
	placeCache.Store(key, placeEntry{p, err})
	return p, err
}

// placeCache keeps adder placements (the greedy search is quadratic in the tiles; a design
// search asks for the same ones many times). Placements are not modified after they are made.
var placeCache sync.Map

type placeEntry struct {
	p   *Placement
	err error
}

func (a *Array) placeAdder(n, y int) (*Placement, error) {
	g, gerr := a.placeAdderGreedy(n, y)
	b, berr := a.placeAdderBlocks(n, y)
	switch {
	case gerr != nil && berr != nil:
		return nil, gerr
	case gerr != nil:
		return b, nil
	case berr != nil:
		return g, nil
	}
	if b.SharedFraction() >= g.SharedFraction() {
		return b, nil
	}
	return g, nil
}

// placeAdderBlocks tiles the array with blocks of 2 columns x (y+1)/2 rows (y + 1 = 2, 4 or
// 8), the adder in each block at the position that shares a module with most of the others.
func (a *Array) placeAdderBlocks(n, y int) (*Placement, error) {
	rows := a.CoreRows()
	h := (y + 1) / 2
	if (y+1)%2 != 0 || rows%h != 0 {
		return nil, fmt.Errorf("no block tiling for groups of %d", y+1)
	}
	first := a.firstCoreRow()
	p := &Placement{}
	for c := 0; c+1 < a.Dev.Columns() && len(p.Groups) < n; c += 2 {
		for r := 0; r < rows && len(p.Groups) < n; r += h {
			var block []device.Coord
			for dr := 0; dr < h; dr++ {
				for dc := 0; dc < 2; dc++ {
					block = append(block, device.Coord{Col: c + dc, Row: first + r + dr})
				}
			}
			var best PlacedGroup
			bestShared := -1
			for i, ad := range block {
				g := PlacedGroup{}
				adder := ad
				g.Adder = &adder
				shared := 0
				for j, t := range block {
					if j == i {
						continue
					}
					_, sh := a.SharedModule(t, ad)
					g.Tiles, g.Shared = append(g.Tiles, t), append(g.Shared, sh)
					if sh {
						shared++
					}
				}
				if shared > bestShared {
					best, bestShared = g, shared
				}
			}
			p.Groups = append(p.Groups, best)
		}
	}
	if len(p.Groups) < n {
		return nil, fmt.Errorf("%d adder groups of %d + 1 tiles: only %d blocks fit", n, y, len(p.Groups))
	}
	return p, nil
}

func (a *Array) placeAdderGreedy(n, y int) (*Placement, error) {
	cores := a.Cores()
	if n*(y+1) > len(cores) {
		return nil, fmt.Errorf("%d adder groups of %d + 1 tiles: the array has %d tiles", n, y, len(cores))
	}
	free := map[device.Coord]bool{}
	for _, c := range cores {
		free[c] = true
	}
	order := append([]device.Coord(nil), cores...)
	sort.SliceStable(order, func(i, j int) bool {
		ci, cj := order[i].Col/2, order[j].Col/2
		if ci != cj {
			return ci < cj
		}
		if order[i].Row != order[j].Row {
			return order[i].Row < order[j].Row
		}
		return order[i].Col < order[j].Col
	})
	rank := map[device.Coord]int{}
	for i, c := range order {
		rank[c] = i
	}
	dist := func(u, v device.Coord) int {
		dc, dr := u.Col-v.Col, u.Row-v.Row
		return max(dc, -dc) + max(dr, -dr)
	}
	p := &Placement{}
	skipped := map[device.Coord]bool{}
	for len(p.Groups) < n {
		anchor, ok := device.Coord{}, false
		for _, c := range order {
			if free[c] && !skipped[c] {
				anchor, ok = c, true
				break
			}
		}
		if !ok {
			break
		}
		var best *PlacedGroup
		bestShared, bestSpread := -1, 0
		for _, ad := range order {
			if !free[ad] || dist(ad, anchor) > 2 {
				continue
			}
			// members: the anchor (unless it is the adder), then free tiles near the anchor,
			// those sharing a module with the adder first
			type cand struct {
				c      device.Coord
				shared bool
			}
			var cs []cand
			for _, t := range order {
				if !free[t] || t == ad || t == anchor || dist(t, anchor) > 3 {
					continue
				}
				_, sh := a.SharedModule(t, ad)
				cs = append(cs, cand{t, sh})
			}
			sort.SliceStable(cs, func(i, j int) bool {
				if cs[i].shared != cs[j].shared {
					return cs[i].shared
				}
				pi, pj := cs[i].c.Col/2 == anchor.Col/2, cs[j].c.Col/2 == anchor.Col/2
				if pi != pj {
					return pi
				}
				di, dj := dist(cs[i].c, anchor), dist(cs[j].c, anchor)
				if di != dj {
					return di < dj
				}
				return rank[cs[i].c] < rank[cs[j].c]
			})
			g := PlacedGroup{}
			adder := ad
			g.Adder = &adder
			if ad != anchor {
				_, sh := a.SharedModule(anchor, ad)
				g.Tiles, g.Shared = append(g.Tiles, anchor), append(g.Shared, sh)
			}
			for _, c := range cs {
				if len(g.Tiles) == y {
					break
				}
				g.Tiles, g.Shared = append(g.Tiles, c.c), append(g.Shared, c.shared)
			}
			if len(g.Tiles) < y {
				continue
			}
			shared, spread := 0, dist(ad, anchor)
			for i, t := range g.Tiles {
				if g.Shared[i] {
					shared++
				}
				spread += dist(t, anchor)
			}
			if ad.Col/2 != anchor.Col/2 {
				spread++ // prefer an adder in the anchor's pair of columns
			}
			if shared > bestShared || shared == bestShared && spread < bestSpread {
				gg := g
				best, bestShared, bestSpread = &gg, shared, spread
			}
		}
		if best == nil {
			skipped[anchor] = true // no group fits around it: leave it unused
			continue
		}
		free[*best.Adder] = false
		for _, t := range best.Tiles {
			free[t] = false
		}
		p.Groups = append(p.Groups, *best)
	}
	if len(p.Groups) < n {
		return nil, fmt.Errorf("%d adder groups of %d + 1 tiles: only %d fit", n, y, len(p.Groups))
	}
	return p, nil
}

// SharedFraction is the share of compute tiles of adder groups whose output the adder reads in
// place.
func (p *Placement) SharedFraction() float64 {
	n, s := 0, 0
	for _, g := range p.Groups {
		for _, sh := range g.Shared {
			n++
			if sh {
				s++
			}
		}
	}
	if n == 0 {
		return 1
	}
	return float64(s) / float64(n)
}
