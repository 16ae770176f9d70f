// Package aie1 is the machine description of the first-generation AMD/Xilinx AI Engine
// (AIE1, as in the Versal VC1902) as data: datapath shapes per type, register files,
// memory organization and ports, program memory and peak rates. Every number cites its
// public source. VLIW slots and latencies live in timing*.go (owned by the timing work).
//
// Sources, abbreviated in comments:
//
//	[UG1079-mem]  UG1079 "AI Engine Memory"
//	[UG1079-vpu]  UG1079 "Vector Processing Unit" / "MAC Intrinsics" / "MAC on 16x16 bits" / "MAC on 8x8 bits"
//	[UG1079-tile] UG1079 "AI Engine Tile Interface"
//	[AM009-reg]   AM009 "Register Files"
//	[AM009-lsu]   AM009 "Load and Store Unit"
//	[AM009-su]    AM009 "Scalar Unit"
//	[intr]        AI Engine intrinsics reference (UG1078), groups vect_mult_16x16, vect_mult_8x8,
//	              vect_mult_32x32 (signatures: lanes, X and Z buffer types)
//	[mlir-aie]    Xilinx/mlir-aie include/aie/Dialect/AIE/IR/AIETargetModel.h (AIE1 address map)
//	[XD100]       Vitis Tutorials AI Engine Development, "Interfaces" (lock cost, bandwidth, clock)
//	[UG1079-cons] UG1079 "Reserved Memory Constraint", "Buffer Location Constraints" (4 x 8 KB
//	              256-bit banks per tile in the compiler's view)
package aie1

import "fmt"

// Name is the target's name in sumac commands (--target aie1).
const Name = "aie1"

// ClockHz is the AI Engine clock the bandwidth figures of [XD100] assume (1.25 GHz); cycles
// are the model's unit, the clock only converts them to time.
const ClockHz = 1.25e9

// MACShape is one datapath configuration of the vector MAC unit.
type MACShape struct {
	X, Z        string // operand element types ("int16", "int8", "uint8", "int32", "float")
	Intrinsic   string // the intrinsic family that fills the datapath
	Lanes, Cols int    // output lanes x columns (multiplications per lane per call)
	AccBits     int    // accumulator lane width; 32 for the fp32 accumulator (a v8float)
	XBits       int    // widest X buffer (bits)
	ZBits       int    // Z buffer (bits)
}

// MACsPerCycle is lanes x columns: one vector MAC issues per cycle ([UG1079-vpu]).
func (s MACShape) MACsPerCycle() int { return s.Lanes * s.Cols }

// MACShapes are the shapes sumac uses, from [UG1079-vpu] (lanes x columns of the main
// intrinsics) and [intr] (buffer types). The peaks match [UG1079-vpu]'s table of MACs per
// cycle: int8 128, int16 32, int32 8, fp32 8.
var MACShapes = []MACShape{
	{X: "int16", Z: "int16", Intrinsic: "mac16", Lanes: 16, Cols: 2, AccBits: 48, XBits: 1024, ZBits: 256},
	{X: "int16", Z: "int16", Intrinsic: "mac8", Lanes: 8, Cols: 4, AccBits: 48, XBits: 1024, ZBits: 256},
	{X: "int8", Z: "int8", Intrinsic: "mac16", Lanes: 16, Cols: 8, AccBits: 48, XBits: 1024, ZBits: 256},
	{X: "uint8", Z: "uint8", Intrinsic: "mac16", Lanes: 16, Cols: 8, AccBits: 48, XBits: 1024, ZBits: 256},
	{X: "int32", Z: "int32", Intrinsic: "lmac8", Lanes: 8, Cols: 1, AccBits: 80, XBits: 1024, ZBits: 256},
	{X: "float", Z: "float", Intrinsic: "fpmac", Lanes: 8, Cols: 1, AccBits: 32, XBits: 1024, ZBits: 256},
}

// PeakMACsPerCycle by operand types "X x Z" ([UG1079-vpu]).
var PeakMACsPerCycle = map[string]int{
	"int8 x int8":   128,
	"uint8 x uint8": 128,
	"int16 x int8":  64,
	"int16 x int16": 32,
	"int32 x int16": 16,
	"int32 x int32": 8,
	"float x float": 8,
}

// Peak returns the peak MACs per cycle of a dtype as the op package names it (int8, uint8,
// int16, int32, fp32), both operands of that type.
func Peak(dtype string) (int, error) {
	key := dtype
	if dtype == "fp32" {
		key = "float"
	}
	if p, ok := PeakMACsPerCycle[key+" x "+key]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("aie1: no MAC datapath for %s x %s", dtype, dtype)
}

// RegClass is one register file.
type RegClass struct {
	Name  string
	Count int
	Bits  int
	Names []string // hardware names, in order
	Note  string
}

// VectorRegs: 16 x 128-bit registers ([AM009-reg]).
var VectorRegs = RegClass{Name: "v", Count: 16, Bits: 128, Names: []string{
	"vrl0", "vrl1", "vrl2", "vrl3", "vrh0", "vrh1", "vrh2", "vrh3",
	"vcl0", "vcl1", "vch0", "vch1", "vdl0", "vdl1", "vdh0", "vdh1"}}

// VectorView is a wider register formed from 128-bit registers.
type VectorView struct {
	Name  string
	Bits  int
	Parts []string // the 128-bit (or narrower view) registers it consists of, low part first
}

// VectorViews: 256-bit W registers pair two V registers (low, high); 512-bit X registers pair
// two W registers; 1024-bit Y registers ya = xa:xb and yd = xd:xb share xb ([AM009-reg]).
var VectorViews = []VectorView{
	{"wr0", 256, []string{"vrl0", "vrh0"}}, {"wr1", 256, []string{"vrl1", "vrh1"}},
	{"wr2", 256, []string{"vrl2", "vrh2"}}, {"wr3", 256, []string{"vrl3", "vrh3"}},
	{"wc0", 256, []string{"vcl0", "vch0"}}, {"wc1", 256, []string{"vcl1", "vch1"}},
	{"wd0", 256, []string{"vdl0", "vdh0"}}, {"wd1", 256, []string{"vdl1", "vdh1"}},
	{"xa", 512, []string{"wr0", "wr1"}}, {"xb", 512, []string{"wr2", "wr3"}},
	{"xc", 512, []string{"wc0", "wc1"}}, {"xd", 512, []string{"wd0", "wd1"}},
	{"ya", 1024, []string{"xa", "xb"}}, {"yd", 1024, []string{"xd", "xb"}},
}

// AccRegs: 8 x 384-bit accumulator registers (8 lanes x 48 bits) aml0-3/amh0-3, pairing into
// 4 x 768-bit bm0-3 (16 x 48-bit lanes or 8 x 80-bit lanes) ([AM009-reg]).
var AccRegs = RegClass{Name: "am", Count: 8, Bits: 384,
	Names: []string{"aml0", "aml1", "aml2", "aml3", "amh0", "amh1", "amh2", "amh3"},
	Note:  "bm0..bm3 (768 bits) = amlN:amhN"}

// AccWide is the number of 768-bit accumulators (bm0..bm3).
const AccWide = 4

// Scalar register files ([AM009-reg] Table "Scalar Registers" and "Special Registers").
var (
	ScalarRegs   = RegClass{Name: "r", Count: 16, Bits: 32, Note: "general purpose r0..r15"}
	PointerRegs  = RegClass{Name: "p", Count: 8, Bits: 20, Note: "pointers p0..p7 (20-bit byte addresses)"}
	ModifierRegs = RegClass{Name: "m", Count: 8, Bits: 20, Note: "modifiers m0..m7 (pointer increments)"}
	ConfigRegs   = RegClass{Name: "cl", Count: 8, Bits: 32, Note: "configuration cl0..cl7/ch0..ch7, paired as 64-bit c0..c7 (MAC offsets)"}
	ShiftRegs    = RegClass{Name: "s", Count: 8, Bits: 8, Note: "shift control s0..s7 (SRS/UPS shifts)"}
)

// Memory organization.
const (
	// DataMemBytes: 32 KB data memory per tile in 8 banks of 256 x 128 bits ([UG1079-mem]).
	DataMemBytes = 32 << 10
	Banks        = 8
	BankWords    = 256
	BankWordBits = 128
	// DoubleBankBytes: "one even bank and one odd bank are interleaved to comprise a double
	// bank" ([UG1079-mem]): 4 double banks of 8 KB per 32 KB block.
	DoubleBankBytes = 8 << 10
	// ReachBytes: the tile's own memory plus three neighbours' = 128 KB, addresses
	// 0x00000..0x1FFFF as the AGUs generate them ([AM009-lsu]; [UG1079-mem]).
	ReachBytes = 128 << 10
	// ProgMemBytes: 16 KB program memory = 1024 instructions of 128 bits ([UG1079-mem]).
	ProgMemBytes     = 16 << 10
	ProgMemInstrs    = 1024
	InstrBits        = 128
	AddressBits      = 20 // pointer and modifier registers ([AM009-reg])
	StackBytes       = 1 << 10
	HeapBytes        = 1 << 10 // default stack and heap sizes ([UG1079-mem])
	LoadUnits        = 2       // AGUA, AGUB ([AM009-lsu])
	StoreUnits       = 1       // AGUS ([AM009-lsu])
	LoadBits         = 256     // each load/store 128 or 256 bits, 128-bit aligned ([UG1079-tile])
	StoreBits        = 256
	AccessAlignBytes = 16 // "128-bit alignment" ([UG1079-tile])
	// LockCycles: acquiring plus releasing a buffer lock costs at least 7 cycles ([XD100]).
	LockCycles = 7
)

// Neighbour is one of the four 32 KB memory modules a core reaches.
type Neighbour struct {
	Dir  string // south, west, north, east
	Base uint32 // base in the core's local address map ([mlir-aie]: 0x20000, 0x28000, 0x30000, 0x38000)
}

// Neighbours in address order. The core's own memory module is the west one on even rows and
// the east one on odd rows ([mlir-aie] getMemInternalBaseAddress: the memory modules alternate
// sides row by row). The AGU view starts at 0 ([AM009-lsu] "0x0000 to 0x1FFFF"): address
// a in 0..0x1FFFF is local-map address 0x20000 + a. Each module has its own 8 banks and
// its own ports, so accesses to different modules never conflict with each other; within a
// module, BankOf gives the bank.
var Neighbours = []Neighbour{
	{"south", 0x20000}, {"west", 0x28000}, {"north", 0x30000}, {"east", 0x38000},
}

// OwnModule returns the direction of a core's own memory module for a row of the array.
func OwnModule(row int) string {
	if row%2 == 0 {
		return "west"
	}
	return "east"
}

// BankOf maps a byte address in the 128 KB AGU view (0..0x1FFFF) to its memory module
// (0..3, the order of Neighbours) and bank (0..7) within the module.
//
// Within a 32 KB module: the 256-bit port is formed by an even and an odd bank, an even and
// an odd bank are interleaved to form a double bank ([UG1079-mem]), so consecutive 128-bit
// words alternate between the even and the odd bank of a double bank (address bit 4), and
// the four 8 KB double banks are the four quarters of the module (address bits 13-14):
//
//	bank = 2*((addr >> 13) & 3) + ((addr >> 4) & 1)
//
// The quarter split follows UG1079 "Reserved Memory Constraint": the compiler's view of a tile's
// memory is "four banks of 256-bit width data" (bankId 0..3) and an address is a bankId plus an
// offset of 0..8192 bytes, so each 8 KB quarter is one double bank; UG1079 "Buffer Location
// Constraints" places a ping-pong pair at 0x0 and 0x2000 for that reason.
func BankOf(addr uint32) (module, bank int) {
	module = int(addr>>15) & 3
	bank = 2*int((addr>>13)&3) + int((addr>>4)&1)
	return module, bank
}

// Conflict reports whether two accesses in the same cycle collide: same module and bank
// ("concurrent operation of all three ports is supported if each port is accessing a
// different bank", [UG1079-mem]). A 256-bit access occupies both banks of its double bank.
func Conflict(a uint32, aBits int, b uint32, bBits int) bool {
	ma, ba := BankOf(a)
	mb, bb := BankOf(b)
	if ma != mb || ba/2 != bb/2 {
		return false
	}
	return aBits > 128 || bBits > 128 || ba == bb
}

// ScalarLatency: integer add/sub/compare/shift 1 cycle, integer multiply 3 ([AM009-su]).
// (The VLIW latencies of vector ops are in timing*.go.)
const (
	ScalarALUCycles = 1
	ScalarMulCycles = 3
	AGUCycles       = 1 // "The AGU has a one cycle latency" ([AM009-lsu])
)
