// Package device holds what every target describes about itself, as plain data and one
// interface: the vector datapaths and memories `sumac help targets` lists, and the tile model
// of an AI Engine generation (in the style of mlir-aie's AIETargetModel: one abstract device,
// one implementation per generation) that a system model above the tile asks for capacities,
// memory banks, locks, DMA channels and neighbours.
//
// The package is a leaf: a generation's folder (target/aie1, ...) implements Model without
// importing the registry, and the registry (package target) imports both.
package device

// Datapath is one configuration of a target's vector multiply-accumulate unit.
type Datapath struct {
	Type         string // operand types, e.g. "int16 x int16"
	Lanes, Cols  int    // output lanes x columns (multiplications per lane per instruction)
	MACsPerCycle int    // peak multiply-accumulates per cycle
	Accumulator  string // accumulator lane type, e.g. "acc48"
	Note         string // the intrinsic or kernel that fills it
}

// Memory is one memory a target's kernels use.
type Memory struct {
	Name  string
	Bytes int
	Note  string
}

// Kind is the kind of a tile of the array.
type Kind int

const (
	None    Kind = iota // no tile at these coordinates
	Core                // a compute tile: core, data memory, DMA, locks
	MemTile             // a memory tile (AIE-ML and later)
	ShimNoC             // an interface tile with a DMA to the NoC
	ShimPL              // an interface tile to the programmable logic only
)

func (k Kind) String() string {
	switch k {
	case Core:
		return "core"
	case MemTile:
		return "memtile"
	case ShimNoC:
		return "shim-noc"
	case ShimPL:
		return "shim-pl"
	}
	return "none"
}

// Coord names a tile: column and row of the array (row 0 is the interface row).
type Coord struct{ Col, Row int }

// Banks is the bank structure of a data memory.
type Banks struct {
	Count     int // banks
	WordBits  int // width of one bank word
	Words     int // words per bank
	PortBits  int // widest access of one port (a wider access spans banks)
	Arbitrate string
}

// DMA is the DMA engine of one kind of tile.
type DMA struct {
	S2MM, MM2S  int // stream-to-memory and memory-to-stream channels
	ChannelBits int // stream width of one channel
	BDs         int // buffer descriptors
	Dims        int // address dimensions of one descriptor
}

// Model is one AI Engine generation's device: the geometry of an array and the facts of each
// kind of tile. Every value cites its source in the implementation.
type Model interface {
	// Generation names the generation ("aie1", "aieml", ...); Device the array it describes.
	Generation() string
	Device() string
	Columns() int
	Rows() int
	// Kind says what tile lies at c (None outside the array).
	Kind(c Coord) Kind
	// DataMemBytes is the data memory of one tile of kind k (0 if it has none); ProgMemBytes
	// the program memory of a core.
	DataMemBytes(k Kind) int
	ProgMemBytes() int
	MemBanks(k Kind) Banks
	// Locks of one tile of kind k and the largest value a lock holds.
	Locks(k Kind) int
	MaxLockValue() int
	DMA(k Kind) DMA
	// Neighbours lists the tiles whose memory modules the core at c reaches, in the core's
	// address order (south, west, north, east); a direction without a memory is left out.
	Neighbours(c Coord) []Coord
	// CascadeBits is the width of the accumulator cascade between neighbouring cores.
	CascadeBits() int
}
