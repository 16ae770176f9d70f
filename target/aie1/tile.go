package aie1

import (
	"fmt"

	"github.com/sumacdev/sumac/target/device"
)

// The AIE1 device and tile model (device.Model) for the Versal VC1902, the part of the VCK190.
// Sources, besides those of aie1.go:
//
//	[mlir-aie-tm] Xilinx/mlir-aie include/aie/Dialect/AIE/IR/AIETargetModel.h: AIE1TargetModel
//	              (getNumLocks 16, getNumBDs 16, getLocalMemorySize 0x8000) and VC1902TargetModel
//	              (50 columns, 9 rows = one shim row and 8 core rows, NoC columns
//	              2,3,6,7,10,11,18,19,26,27,34,35,42,43,46,47); lib/Dialect/AIE/IR/AIETargetModel.cpp
//	              getMemWest/East/North/South (the checkerboard of memory modules)
//	[AM009-mm]    AM009 "AI Engine Memory Module" (tile DMA 2 S2MM + 2 MM2S, 32-bit, 2D
//	              addressing; banks with a round-robin arbiter, a losing request stalls a cycle)
//	[AM009-if]    AM009 "AI Engine Interfaces" (cascade 384 bits to the horizontal neighbour)
//	[AM009-pl]    AM009 "AI Engine to Programmable Logic Interface" (50 interface tiles, 16 with
//	              a NoC connection)
//	[UG1079-dma]  UG1079 "Memory and DMA Programming"; XD100 "Buffer Descriptors overview" (shim
//	              DMA 2 MM2S + 2 S2MM, 16 BDs)
//	[UG1078-lock] AI Engine intrinsics reference, group "locks" (a lock holds 0 or 1)

// VC1902 is the AIE1 array of the Versal VC1902.
type VC1902 struct{}

var _ device.Model = VC1902{}

// nocColumns are the interface tiles with a NoC connection ([mlir-aie-tm] VC1902TargetModel; [AM009-pl]).
var nocColumns = map[int]bool{2: true, 3: true, 6: true, 7: true, 10: true, 11: true, 18: true, 19: true,
	26: true, 27: true, 34: true, 35: true, 42: true, 43: true, 46: true, 47: true}

func (VC1902) Generation() string { return Name }
func (VC1902) Device() string     { return "VC1902" }
func (VC1902) Columns() int       { return 50 } // [mlir-aie-tm]
func (VC1902) Rows() int          { return 9 }  // one shim row and 8 core rows [mlir-aie-tm]

// Kind: row 0 is the interface row, every other row holds compute tiles ([mlir-aie-tm]
// isCoreTile row > 0; AIE1 has no memory tiles).
func (m VC1902) Kind(c device.Coord) device.Kind {
	switch {
	case c.Col < 0 || c.Col >= m.Columns() || c.Row < 0 || c.Row >= m.Rows():
		return device.None
	case c.Row > 0:
		return device.Core
	case nocColumns[c.Col]:
		return device.ShimNoC
	}
	return device.ShimPL
}

// DataMemBytes: 32 KB in a compute tile ([UG1079-mem]; [mlir-aie-tm] getLocalMemorySize); the
// interface tiles have none.
func (VC1902) DataMemBytes(k device.Kind) int {
	if k == device.Core {
		return DataMemBytes
	}
	return 0
}

func (VC1902) ProgMemBytes() int { return ProgMemBytes }

// MemBanks: 8 banks of 256 x 128 bits, a 256-bit port spanning an even and an odd bank
// ([UG1079-mem]; [AM009-mm]).
func (VC1902) MemBanks(k device.Kind) device.Banks {
	if k != device.Core {
		return device.Banks{}
	}
	return device.Banks{Count: Banks, WordBits: BankWordBits, Words: BankWords, PortBits: LoadBits,
		Arbitrate: "round-robin per bank; a losing request stalls one cycle"}
}

// Locks: 16 in every tile of AIE1 ([mlir-aie-tm] getNumLocks), each holding 0 or 1 ([UG1078-lock]).
func (m VC1902) Locks(k device.Kind) int {
	if k == device.None {
		return 0
	}
	return 16
}

func (VC1902) MaxLockValue() int { return 1 }

// DMA: a compute tile's DMA has 2 S2MM and 2 MM2S channels of 32 bits with 2D addressing
// ([AM009-mm]); the shim DMA of a NoC tile 2 + 2 channels ([UG1079-dma]); 16 buffer descriptors
// each ([mlir-aie-tm] getNumBDs). PL-only interface tiles have no DMA.
func (VC1902) DMA(k device.Kind) device.DMA {
	switch k {
	case device.Core:
		return device.DMA{S2MM: 2, MM2S: 2, ChannelBits: 32, BDs: 16, Dims: 2}
	case device.ShimNoC:
		return device.DMA{S2MM: 2, MM2S: 2, ChannelBits: 32, BDs: 16}
	}
	return device.DMA{}
}

// Neighbours: the memory modules a core reaches, in its address order south, west, north,
// east (Neighbours). The module of tile (c, r) lies to the west of its core on even rows and
// to the east on odd rows, so the west module of an odd-row core is the tile's west
// neighbour's and the east module of an even-row core its east neighbour's; the interface row
// has no memory ([mlir-aie-tm] getMemWest, getMemEast, getMemNorth, getMemSouth).
func (m VC1902) Neighbours(c device.Coord) []device.Coord {
	if m.Kind(c) != device.Core {
		return nil
	}
	west, east := c, device.Coord{Col: c.Col + 1, Row: c.Row}
	if c.Row%2 == 1 {
		west, east = device.Coord{Col: c.Col - 1, Row: c.Row}, c
	}
	var out []device.Coord
	for _, t := range []device.Coord{{Col: c.Col, Row: c.Row - 1}, west, {Col: c.Col, Row: c.Row + 1}, east} {
		if m.Kind(t) == device.Core {
			out = append(out, t)
		}
	}
	return out
}

// CascadeBits: one 384-bit accumulator per cycle to the horizontal neighbour ([AM009-if]).
func (VC1902) CascadeBits() int { return 384 }

// Datapaths lists the MAC datapaths (MACShapes) for `sumac help targets`.
func Datapaths() []device.Datapath {
	var out []device.Datapath
	for _, s := range MACShapes {
		acc := fmt.Sprintf("acc%d", s.AccBits)
		if s.X == "float" {
			acc = "fp32"
		}
		out = append(out, device.Datapath{Type: s.X + " x " + s.Z, Lanes: s.Lanes, Cols: s.Cols,
			MACsPerCycle: s.MACsPerCycle(), Accumulator: acc, Note: s.Intrinsic})
	}
	return out
}

// Memories lists what one tile's kernels use: the data memory of the tile, the memory the core
// reaches, the program memory, and the register files (aie1.go for the sources).
func Memories() []device.Memory {
	return []device.Memory{
		{Name: "data memory", Bytes: DataMemBytes, Note: fmt.Sprintf("%d banks of %d x %d bits; loads %d x %d bits, stores %d x %d bits per cycle",
			Banks, BankWords, BankWordBits, LoadUnits, LoadBits, StoreUnits, StoreBits)},
		{Name: "reach", Bytes: ReachBytes, Note: "own module and three neighbours' (south, west, north, east)"},
		{Name: "program memory", Bytes: ProgMemBytes, Note: fmt.Sprintf("%d instructions of %d bits", ProgMemInstrs, InstrBits)},
		{Name: "vector registers", Bytes: VectorRegs.Count * VectorRegs.Bits / 8, Note: fmt.Sprintf("%d x %d bits", VectorRegs.Count, VectorRegs.Bits)},
		{Name: "accumulators", Bytes: AccRegs.Count * AccRegs.Bits / 8, Note: fmt.Sprintf("%d x %d bits", AccRegs.Count, AccRegs.Bits)},
	}
}
