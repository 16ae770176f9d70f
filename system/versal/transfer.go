package versal

import (
	"fmt"
	"math"
)

// The mechanisms that move data between the memory levels, each with its cost from the
// Machine's parameters: set-up (what must happen before the first byte moves) and data (the
// bytes at the slowest rate on the path).

// PLIO is a stream from PL RAM through one PLIO and the array's stream switch into tile
// memory through a tile DMA S2MM channel whose buffer descriptors were chained at
// configuration: per transfer the DMA acquires the buffer's lock and releases it
// (LockCycles); the data moves at PLIORate. plio and s2mm name the stream and the channel.
func (m *Machine) PLIO(name, mech string, bytes int, plio, s2mm string) *Transfer {
	return &Transfer{Name: name, Mech: mech, Bytes: bytes,
		Setup: float64(m.LockCycles), Data: float64(bytes) / m.PLIORate(),
		Uses: []Use{{Res: plio}, {Res: s2mm}}}
}

// GMIOIn is a DDR -> tile memory transfer through a shim DMA MM2S channel, the NoC, the
// stream switch and a tile DMA S2MM channel. The PS issues it: it writes the shim buffer
// descriptor (ShimBDWords) and the channel's queue register over the AXI4-MM path, one
// 32-bit write each; then the first data arrives after DDRLatencyNs; the tile DMA takes the
// buffer's lock. The data moves at GMIORate; DDR is held for bytes / DDRRate (shared by all
// GMIO traffic).
func (m *Machine) GMIOIn(name, mech string, bytes int, shim, s2mm string) *Transfer {
	ps := float64(m.ShimBDWords+1) * m.AXIMMWordCycles()
	setup := ps + m.nsCycles(m.DDRLatencyNs) + float64(m.LockCycles)
	data := float64(bytes) / m.GMIORate()
	return &Transfer{Name: name, Mech: mech, Bytes: bytes, Setup: setup, Data: data,
		Uses: []Use{{Res: "ps", Busy: ps}, {Res: shim}, {Res: s2mm}, {Res: "ddr", Busy: setup + float64(bytes)/m.DDRRate()}}}
}

// GMIOOut is a tile memory -> DDR transfer (tile DMA MM2S, stream, shim DMA S2MM, NoC), issued
// by the PS like GMIOIn.
func (m *Machine) GMIOOut(name, mech string, bytes int, mm2s, shim string) *Transfer {
	x := m.GMIOIn(name, mech, bytes, shim, mm2s)
	return x
}

// ARMCopy is the ARM-orchestrated copy of seeds 001 and 004: the ARM reads the packed panel
// from DDR and stores it word by word into tile memory over the PS's 32-bit AXI4-MM path
// (AM009: designed max 1.5 GB/s). It acquires and releases the buffer's lock with two
// register accesses over the same path. Each 32-bit store takes ARMWordCycles (the path's
// rate, or ARMStoreNs if that is longer).
func (m *Machine) ARMCopy(name, mech string, bytes int) *Transfer {
	words := (bytes + 3) / 4
	return &Transfer{Name: name, Mech: mech, Bytes: bytes,
		Setup: 2 * m.AXIMMWordCycles(), Data: float64(words) * m.ARMWordCycles(),
		Uses: []Use{{Res: "arm"}, {Res: "axi_mm"}}}
}

// Split divides bytes into n parts of whole 32-bit words (the first parts take the rest).
func Split(bytes, n int) []int {
	words := (bytes + 3) / 4
	parts := make([]int, n)
	for i := range parts {
		parts[i] = words / n * 4
		if i < words%n {
			parts[i] += 4
		}
	}
	// the last word may be partial
	total := 0
	for _, p := range parts {
		total += p
	}
	for i := n - 1; i >= 0 && total > bytes; i-- {
		d := min(parts[i], total-bytes)
		parts[i] -= d
		total -= d
	}
	return parts
}

// Capacity checks that buffers fit the tile memory a placement may use; it returns the
// bytes used and an error naming the buffers when they do not fit.
type Buffer struct {
	Name   string
	Bytes  int
	Copies int
}

// CheckFit reports an error if the buffers (each Bytes x Copies) exceed limit.
func CheckFit(what string, limit int, bufs []Buffer) (int, error) {
	used := 0
	for _, b := range bufs {
		used += b.Bytes * max(b.Copies, 1)
	}
	if used > limit {
		s := ""
		for i, b := range bufs {
			if i > 0 {
				s += " + "
			}
			s += fmt.Sprintf("%s %d", b.Name, b.Bytes)
			if b.Copies > 1 {
				s += fmt.Sprintf("x%d", b.Copies)
			}
		}
		return used, fmt.Errorf("%s: %s = %d bytes do not fit the %d bytes of tile memory available", what, s, used, limit)
	}
	return used, nil
}

// ceilDiv is the number of blocks of b covering a.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// roundUp rounds a up to a multiple of b.
func roundUp(a, b int) int { return ceilDiv(a, b) * b }

func pct(x float64) float64 { return math.Round(x*1000) / 10 }
