// Package aieml is the machine description of the AIE-ML compute tile (AIE2; XDNA1 in the
// Phoenix and Hawk Point NPUs) as data, every number with its source, and the entry points that
// compile an einsum for it and simulate assembly listings on it (through package xdna).
//
// Sources, abbreviated in comments:
//
//	[LLVM-Slots]   Xilinx/llvm-aie llvm/lib/Target/AIE/AIE2Slots.td and AIE2CompositeFormats.td
//	               (slot widths; the composite formats listed in I16_NOP ... I128_*)
//	[LLVM-Regs]    Xilinx/llvm-aie llvm/lib/Target/AIE/AIE2GenRegisterInfo.td
//	[LLVM-Sched]   Xilinx/llvm-aie llvm/lib/Target/AIE/AIE2Schedule.td (operand cycles:
//	               II_VMACf [6,3,1,1,1,...]; vector loads dst 7, memory cycle 5; stores read
//	               their data in cycle 1 and write memory in cycle 5)
//	[LLVM-MC]      Xilinx/llvm-aie MC layer: "AIE branches have 5 delay slots"
//	[XD-isa]       scalable-analyses/xdna docs/source/isa.rst (XDNA1 operation table, inferred
//	               from Peano output and microbenchmarks)
//	[XD1]          scalable-analyses/xdna docs/source/xdna1_kernel.rst (hardware-loop rules,
//	               NOP size, the BF16 kernel)
//	[AM020]        AMD AM020 "Versal AI Edge Series ACAP AIE-ML Architecture Manual":
//	               "Memory Module", "Register Files", "Floating-Point Vector Unit"
//	[UG1603]       AMD UG1603 "AI Engine-ML Kernel and Graph Programming Guide"
//	[MA-mm]        Xilinx/mlir-aie aie_kernels/aie2/mm.cc (the mmul shapes used on AIE2)
package aieml

import (
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/vliw"
	"github.com/sumacdev/sumac/target/xdna"
)

// Name is the target's name in sumac commands (--target aieml).
const Name = "aieml"

// Arch is the AIE-ML tile.
var Arch = newArch()

func newArch() *xdna.Arch {
	m := vliw.NewMachine(Name)
	// Slot widths [LLVM-Slots]: a full 128-bit bundle is ldb16 + lda21 + st21 + (alu20 + mv22
	// or lng42) + vec26. Assembly no-ops per slot [XD-isa] "NOP(V|A|B|S|X|M|XM)".
	m.AddSlot(vliw.Slot{Name: "vec", Bits: 26, Nop: "nopv"})
	m.AddSlot(vliw.Slot{Name: "lda", Bits: 21, Nop: "nopa"})
	m.AddSlot(vliw.Slot{Name: "ldb", Bits: 16, Nop: "nopb"})
	m.AddSlot(vliw.Slot{Name: "st", Bits: 21, Nop: "nops"})
	m.AddSlot(vliw.Slot{Name: "alu", Bits: 20, Nop: "nopx"})
	m.AddSlot(vliw.Slot{Name: "mv", Bits: 22, Nop: "nopm"})
	m.AddSlot(vliw.Slot{Name: "lng", Bits: 42, Nop: "nopxm", Covers: []string{"alu", "mv"}})
	m.Formats = formats
	m.NopBytes = 2 // I16_NOP [LLVM-Slots]; [XD1] "A NOP instruction is only two bytes wide"

	// Register files [LLVM-Regs]; [AM020] "Register Files".
	m.AddFile("r", 32, 4)
	m.AddRegs("r", "r", "r")
	m.AddFile("p", 8, 4) // 20-bit pointers, held in 4 bytes here
	m.AddRegs("p", "p", "p")
	m.AddFile("m", 8, 4) // modifiers
	m.AddRegs("m", "m", "m")
	for _, d := range []string{"dn", "dj", "dc"} {
		m.AddFile(d, 8, 4)
		m.AddRegs(d, d, d)
	}
	m.AddFile("s", 4, 4)
	m.AddRegs("s", "s", "s")
	m.AddFile("ctl", 5, 4)
	ctl := m.File("ctl")
	for i, n := range []string{"ls", "le", "lc", "lr", "sp"} {
		m.AddReg(n, n, vliw.Loc{File: ctl, Off: 4 * i, Len: 4})
	}
	// l0-l7 pair r16..r31 [LLVM-Regs].
	rf := m.File("r")
	for i := 0; i < 8; i++ {
		m.AddReg("l"+strconv.Itoa(i), "l", vliw.Loc{File: rf, Off: 4 * (16 + 2*i), Len: 8})
	}
	// Vector registers: x0-x11 of 512 bits, each the pair wl/wh of 256 bits; y2-y5 of 1024
	// bits alias x4-x11 [LLVM-Regs]; [AM020] "Vector Registers".
	m.AddFile("x", 12, 64)
	m.AddRegs("x", "x", "x")
	m.AddParts("x", "w", []string{"wl", "wh"})
	xf := m.File("x")
	for i := 2; i < 6; i++ {
		m.AddReg("y"+strconv.Itoa(i), "y", vliw.Loc{File: xf, Off: 64 * 2 * i, Len: 128})
	}
	// Accumulators: cm0-cm8 of 1024 bits = bml/bmh of 512 = amll/amlh/amhl/amhh of 256
	// [LLVM-Regs]; [UG1603] lists the same nine. [XD1] says 16 BM registers are available and
	// its kernel uses bml/bmh0-7: see AccRegs.
	m.AddFile("cm", 9, 128)
	m.AddRegs("cm", "cm", "cm")
	m.AddParts("cm", "bm", []string{"bml", "bmh"})
	m.AddParts("cm", "am", []string{"amll", "amlh", "amhl", "amhh"})

	// Hardware loop [XD1]: set-up at least 64 bytes before the loop start; first and last
	// loop bundles 16-byte aligned; the last one a full 16-byte bundle. llvm-aie keeps 7
	// bundles (112 bytes) between the set-up and the loop end instead (reference "Open
	// questions" 7); the XD rule is the default because it was validated on hardware, the
	// other is vliw.LoopRule{MinBytesToEnd: 112}.
	m.Loop = vliw.LoopRule{MinBytesToStart: 64, Source: "XD xdna1_kernel.rst"}
	m.LoopEndBytes = 16
	m.LoopAlign = 16
	m.BranchDelay = 5 // [XD-isa] J/RET latency 6: "the next 5 instructions ... delay slots"; [LLVM-MC]
	// Data memory [AM020] "Memory Module": 64 KB per tile in 8 single-port banks of 512 x 128
	// bits, which the programmer sees as 4 x 16 KB (bank pairs interleaved at 128 bits, so a
	// 256-bit access uses both banks of its pair); the core also addresses the north, south and
	// west neighbours' memories: 256 KB. A conflict is modelled on the 16 KB logical bank; the
	// arbiter stalls the losing requester one cycle [AM020].
	m.MemBytes = 256 << 10
	m.BankBytes = 16 << 10
	// Clock: [XD1] computes GFLOPS at 1.8 GHz, the NPU's turbo clock (xrt-smi configure
	// --pmode turbo); Versal AI Edge parts run the AIE-ML array at 1.0-1.3 GHz (DS958).
	m.ClockGHz = 1.8

	return &xdna.Arch{
		Name: Name,
		Gen:  xdna.AIE2,
		M:    m,
		Lat: xdna.Latencies{
			MACSrc:    1, // [LLVM-Sched] II_VMACf operands x, x, conf: 1
			MACAcc:    3, // [LLVM-Sched] acc 3; [XD-isa] "(BMLm|BMHm) are read in third cycle"
			MACDst:    6, // [LLVM-Sched] 6; [XD-isa] latency 6
			VLDDst:    7, // [LLVM-Sched] vector loads 7; [XD-isa] VLD latency 7
			Mem:       5, // [LLVM-Sched] MemoryCycles 5 ("memory in E5")
			VSTSrc:    1, // [LLVM-Sched] stores read their data in cycle 1
			VMOVDst:   2, // [LLVM-Sched] VMOV 2; [XD-isa] VSHUFFLE 2
			ALUDst:    1, // [XD-isa] ADD, MOV, PADD, comparisons, SEL: 1
			MulDst:    2, // [XD-isa] MUL: 2
			PtrUpdate: 1, // [LLVM-Sched] ptr_out written in cycle 1
		},
		LoadBytes:  32, // [AM020] two 256-bit loads per cycle; [XD-isa] "32 byte loads"
		StoreBytes: 32, // [AM020] one 256-bit store per cycle; [XD-isa] "32 byte store"
		AccRegs:    9,  // cm0-cm8 [LLVM-Regs], [UG1603]; [XD1] uses 8 of them (bml/bmh0-7)
		VecRegs:    12, // x0-x11
		Modes: []xdna.MACMode{
			// [XD-isa] BF16 4x8x4 "runs natively on XDNA1", configuration 28; [MA-mm]; [AM020]
			// 128 bf16 MACs per cycle.
			{DType: "bf16", M: 4, K: 8, N: 4, Config: 28, Native: true, Source: "XD isa.rst; MA aie2/mm.cc; AM020", Modeled: true},
			// [MA-mm] int8 4x8x8 = 256 MACs per cycle ([AM020]); configuration not published.
			{DType: "int8", M: 4, K: 8, N: 8, Native: true, Source: "MA aie2/mm.cc; AM020"},
		},
		Mode:           xdna.MACMode{DType: "bf16", M: 4, K: 8, N: 4, Config: 28, Native: true, Source: "XD isa.rst", Modeled: true},
		NoLoadAfterPop: false, // no FILL/POP pipeline on AIE2
		DataMemBytes:   64 << 10,
		TileDType:      op.BF16,
		ArgPointers:    []string{"p0", "p1", "p2", "p3"},
	}
}

// formats are AIE2's composite bundle formats [LLVM-Slots] (the defs I16_NOP ... I128_*):
// bytes and the slots each carries.
var formats = func() []vliw.Format {
	spec := map[int][]string{
		4: {"vec", "st", "mv", "ldb", "lda", "alu"},
		6: {"st alu", "lng", "ldb st", "ldb mv", "ldb alu", "lda st", "lda mv", "lda ldb", "lda alu"},
		8: {"st vec", "st mv", "mv vec", "ldb vec", "st ldb alu", "lda vec", "lda ldb st", "lda ldb alu",
			"alu vec", "lng", "alu mv"},
		10: {"st mv vec", "st alu vec", "st lng", "st alu mv", "st ldb vec", "st ldb mv", "ldb mv vec",
			"ldb alu vec", "ldb lng", "ldb alu mv", "lda st vec", "lda st mv", "lda st alu", "lda mv vec",
			"lda ldb vec", "lda ldb mv", "lda alu vec", "lda lng", "lda alu mv", "lng vec", "alu mv vec"},
		12: {"st lng vec", "st alu mv vec", "st ldb mv vec", "st ldb alu vec", "st ldb lng", "st ldb alu mv",
			"ldb lng vec", "ldb alu mv vec", "lda st alu vec", "lda st lng", "lda st alu mv", "lda ldb st vec",
			"lda ldb st mv", "lda ldb alu st", "lda ldb mv vec", "lda ldb alu vec", "lda ldb lng",
			"lda ldb alu mv", "lda lng vec", "lda alu mv vec"},
		14: {"st ldb lng vec", "st ldb alu mv vec", "lda st mv vec", "lda ldb alu st vec", "lda ldb lng st",
			"lda ldb alu mv st", "lda ldb lng vec", "lda ldb alu mv vec"},
		16: {"ldb lda st lng vec", "ldb lda st alu mv vec"},
	}
	var f []vliw.Format
	for _, b := range []int{4, 6, 8, 10, 12, 14, 16} {
		for _, s := range spec[b] {
			f = append(f, vliw.Format{Bytes: b, Slots: strings.Fields(s)})
		}
	}
	return f
}()

// Compile generates the einsum kernel of spec for this tile, runs it on the cycle engine and
// checks it against op/ref.
func Compile(spec string) (*xdna.Result, error) { return xdna.Compile(Arch, spec) }

// Simulate runs an assembly listing (the published kernels' syntax) on this tile.
func Simulate(name, src string, opt xdna.SimOptions) (*xdna.SimResult, error) {
	return xdna.SimListing(Arch, name, src, opt)
}
