package aie1

import (
	"reflect"
	"testing"

	"github.com/sumacdev/sumac/target/device"
)

func TestVC1902Tiles(t *testing.T) {
	m := VC1902{}
	count := map[device.Kind]int{}
	for c := 0; c < m.Columns(); c++ {
		for r := 0; r < m.Rows(); r++ {
			count[m.Kind(device.Coord{Col: c, Row: r})]++
		}
	}
	// 400 compute tiles = 50 x 8; 50 interface tiles, 16 of them on the NoC (AM009; mlir-aie).
	if count[device.Core] != 400 || count[device.ShimNoC] != 16 || count[device.ShimPL] != 34 || count[device.MemTile] != 0 {
		t.Errorf("tile kinds %v", count)
	}
	if k := m.Kind(device.Coord{Col: 50, Row: 1}); k != device.None {
		t.Errorf("outside the array: %v", k)
	}
	core := device.Core
	if m.DataMemBytes(core) != 32<<10 || m.DataMemBytes(device.ShimNoC) != 0 || m.ProgMemBytes() != 16<<10 {
		t.Error("memory sizes")
	}
	b := m.MemBanks(core)
	if b.Count*b.Words*b.WordBits/8 != m.DataMemBytes(core) {
		t.Errorf("banks %+v do not make up the %d bytes", b, m.DataMemBytes(core))
	}
	if m.Locks(core) != 16 || m.Locks(device.ShimNoC) != 16 || m.MaxLockValue() != 1 {
		t.Error("locks")
	}
	if d := m.DMA(core); d.S2MM != 2 || d.MM2S != 2 || d.ChannelBits != 32 || d.BDs != 16 {
		t.Errorf("tile DMA %+v", d)
	}
	if d := m.DMA(device.ShimPL); d != (device.DMA{}) {
		t.Errorf("a PL interface tile has no DMA, got %+v", d)
	}
}

// The checkerboard: an odd-row core owns the east module (its own tile's) and reaches the west
// neighbour's; an even-row core the other way round; the first core row has no memory south.
func TestVC1902Neighbours(t *testing.T) {
	m := VC1902{}
	c := func(col, row int) device.Coord { return device.Coord{Col: col, Row: row} }
	for _, tc := range []struct {
		at   device.Coord
		want []device.Coord
	}{
		{c(5, 1), []device.Coord{c(4, 1), c(5, 2), c(5, 1)}},          // row 1: no south, west = (4,1), east = own
		{c(5, 2), []device.Coord{c(5, 1), c(5, 2), c(5, 3), c(6, 2)}}, // even row: west = own, east = (6,2)
		{c(0, 3), []device.Coord{c(0, 2), c(0, 4), c(0, 3)}},          // column 0: no west neighbour
		{c(49, 8), []device.Coord{c(49, 7), c(49, 8)}},                // top right: no north, no east
		{c(3, 0), nil}, // interface tile
	} {
		if got := m.Neighbours(tc.at); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Neighbours(%v) = %v, want %v", tc.at, got, tc.want)
		}
	}
	// The tile's own module sits where OwnModule says for its row (rows numbered as here).
	if OwnModule(1) != "east" || OwnModule(2) != "west" {
		t.Errorf("OwnModule(1) = %s, OwnModule(2) = %s: disagrees with the table above", OwnModule(1), OwnModule(2))
	}
}
