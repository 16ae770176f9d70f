// Package aie2p is the machine description of the XDNA2 compute tile (AIE2P, "AIE-ML v2" as
// shipped in the Strix and Krackan NPUs) as data, every number with its source, and the entry
// points that compile an einsum for it and simulate assembly listings on it (through package
// xdna).
//
// Sources, abbreviated in comments:
//
//	[LLVM-Slots]   Xilinx/llvm-aie llvm/lib/Target/AIE/aie2p/AIE2PSlots.td and
//	               AIE2PCompositeFormats.td (slot widths; the composite formats I32_* ... I128_*)
//	[LLVM-Regs]    Xilinx/llvm-aie llvm/lib/Target/AIE/aie2p/AIE2PRegisterInfo.td
//	[LLVM-Sched]   Xilinx/llvm-aie llvm/lib/Target/AIE/aie2p/AIE2PGenSchedule.td (operand
//	               cycles: II_VMAC_f_vmac_bfp... dst 6, acc1 4, sources 1; VLDA/VLDB dst 7,
//	               MemoryCycles 5; VLDA_FILL_512 fifo_reg 7, pos 1; VLDA_POP_576 dst 8, fifo_reg
//	               7, pos 1; VMOV x->bm dst 2, src 1; VST src 1, MemoryCycles 5; ptr_out 1)
//	[LLVM-MC]      Xilinx/llvm-aie MC layer: "AIE branches have 5 delay slots"
//	[XD-isa]       scalable-analyses/xdna docs/source/isa.rst (XDNA2 operation table, EX
//	               register layout, the fill/pop load pipeline)
//	[XD1]          scalable-analyses/xdna docs/source/xdna1_kernel.rst (hardware-loop rules)
//	[seed]         seed 002, the XDNA2 kernel chapter of the same documentation
//	[MA-TM]        Xilinx/mlir-aie AIETargetModel (AIE2TargetModel, used for NPU2: 64 KB data
//	               memory in 4 banks)
//	[MA-mm]        Xilinx/mlir-aie aie_kernels/aie2p/mm.cc and mm_bfp.cc (mmul shapes)
//	[UG1603]       AMD UG1603 "AI Engine-ML Kernel and Graph Programming Guide"
package aie2p

import (
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/vliw"
	"github.com/sumacdev/sumac/target/xdna"
)

// Name is the target's name in sumac commands (--target aie2p).
const Name = "aie2p"

// Arch is the XDNA2 tile.
var Arch = newArch()

func newArch() *xdna.Arch {
	m := vliw.NewMachine(Name)
	// Slot widths [LLVM-Slots]: lda 20, ldb 17, st 20, alu 20, mv 22, lng 42 (= alu + mv),
	// vec 26. Assembly names [XD-isa] "NOP(V|A|B|S|X|M|XM)".
	m.AddSlot(vliw.Slot{Name: "vec", Bits: 26, Nop: "nopv"})
	m.AddSlot(vliw.Slot{Name: "lda", Bits: 20, Nop: "nopa"})
	m.AddSlot(vliw.Slot{Name: "ldb", Bits: 17, Nop: "nopb"})
	m.AddSlot(vliw.Slot{Name: "st", Bits: 20, Nop: "nops"})
	m.AddSlot(vliw.Slot{Name: "alu", Bits: 20, Nop: "nopx"})
	m.AddSlot(vliw.Slot{Name: "mv", Bits: 22, Nop: "nopm"})
	m.AddSlot(vliw.Slot{Name: "lng", Bits: 42, Nop: "nopxm", Covers: []string{"alu", "mv"}})
	m.Formats = formats
	// AIE2PCompositeFormats has no 16-bit format (its smallest is instr32), so a bundle
	// without operations is taken to be a 32-bit one holding a single no-op [LLVM-Slots].
	m.NopBytes = 4

	// Register files [LLVM-Regs].
	m.AddFile("r", 32, 4)
	m.AddRegs("r", "r", "r")
	m.AddFile("p", 8, 4)
	m.AddRegs("p", "p", "p")
	m.AddFile("m", 8, 4)
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
	rf := m.File("r")
	for i := 0; i < 16; i++ { // l0-l15 pair r0..r31 [LLVM-Regs]
		m.AddReg("l"+strconv.Itoa(i), "l", vliw.Loc{File: rf, Off: 8 * i, Len: 8})
	}
	// Vector registers x0-x11 (512 bit), halves wl/wh, pairs y0-y5 [LLVM-Regs]; exponent
	// registers e0-e11 (64 bit, halves el/eh) [LLVM-Regs], [XD-isa]; ex0-ex11 (576 bit) =
	// x_i + e_i interleaved: byte 9j of ex_i is e_i[j], bytes 9j+1..9j+8 are x_i[8j..8j+7]
	// [XD-isa] "The data layout of EX0".
	m.AddFile("x", 12, 64)
	m.AddRegs("x", "x", "x")
	m.AddParts("x", "w", []string{"wl", "wh"})
	xf := m.File("x")
	for i := 0; i < 6; i++ {
		m.AddReg("y"+strconv.Itoa(i), "y", vliw.Loc{File: xf, Off: 128 * i, Len: 128})
	}
	m.AddFile("e", 12, 8)
	m.AddRegs("e", "e", "e")
	m.AddParts("e", "eh", []string{"el", "eh"})
	ef := m.File("e")
	for i := 0; i < 12; i++ {
		var locs []vliw.Loc
		for j := 0; j < 8; j++ {
			locs = append(locs, vliw.Loc{File: ef, Off: 8*i + j, Len: 1}, vliw.Loc{File: xf, Off: 64*i + 8*j, Len: 8})
		}
		m.AddReg("ex"+strconv.Itoa(i), "ex", locs...)
	}
	// Accumulators dm0-dm4 (2048 bit) = cml/cmh (1024) = bmll/bmlh/bmhl/bmhh (512) [LLVM-Regs];
	// [XD-isa] "five 2048-bit accumulator registers (DM0-DM4)". UG1603 lists dm0-dm7 for
	// AIE-ML v2: XDNA2 exposes 1.6x fewer [XD-isa]; the five are modelled.
	m.AddFile("dm", 5, 256)
	m.AddRegs("dm", "dm", "dm")
	m.AddParts("dm", "cm", []string{"cml", "cmh"})
	m.AddParts("dm", "bm", []string{"bmll", "bmlh", "bmhl", "bmhh"})
	// Load FIFOs lf0/lf1 (1024 bit, halves lfl/lfh) [LLVM-Regs], [XD-isa] "Load and store files".
	m.AddFile("lf", 2, 128)
	m.AddRegs("lf", "lf", "lf")

	// Hardware loop: as on AIE-ML [XD1] (the XDNA2 chapter "follows the procedure outlined in
	// the XDNA1 kernel" [seed]); see package aieml for the llvm-aie alternative.
	m.Loop = vliw.LoopRule{MinBytesToStart: 64, Source: "XD xdna1_kernel.rst, seed 002"}
	m.LoopEndBytes = 16
	m.LoopAlign = 16
	m.BranchDelay = 5 // [XD-isa] J/JZ/JNZ/RET latency 6; [LLVM-MC]
	// Data memory: 64 KB in 4 banks [MA-TM]; [seed] "XDNA2 has a total of four logical memory
	// banks"; 16 KB each. Physical bank width and the conflict penalty are not published
	// (reference "Open questions" 5): a conflict stalls one cycle per extra requester, as on
	// AIE-ML. Neighbours' memories are addressable as on AIE-ML: 256 KB.
	m.MemBytes = 256 << 10
	m.BankBytes = 16 << 10
	m.ClockGHz = 1.8 // [seed] "a compute tile running at 1.8 GHz" (turbo, xrt-smi --pmode turbo)

	return &xdna.Arch{
		Name: Name,
		Gen:  xdna.AIE2P,
		M:    m,
		Lat: xdna.Latencies{
			MACSrc:    1, // [LLVM-Sched] s1, s2, acc(conf) 1
			MACAcc:    4, // [LLVM-Sched] acc1 4; [XD-isa] "<DMm> is read in fourth cycle"
			MACDst:    6, // [LLVM-Sched] dst 6; [seed] "latency of six cycles"
			VLDDst:    7, // [LLVM-Sched] dst 7; [seed] "Each load has a latency of seven cycles"
			Mem:       5, // [LLVM-Sched] MemoryCycles<[5]>
			PopDst:    8, // [LLVM-Sched] VLDA_POP_576 dst 8; [seed] "8-cycle latency"
			FifoReg:   7, // [LLVM-Sched] fifo_reg 7 (FILL writes it, POP reads it)
			VSTSrc:    1, // [LLVM-Sched] VST src 1
			VMOVDst:   2, // [LLVM-Sched] VMOV dst 2; [seed] "latency of two cycles"
			ALUDst:    1, // [XD-isa] ADD, MOV, PADD, comparisons, SEL: 1
			MulDst:    2, // [XD-isa] MUL: 2
			PtrUpdate: 1, // [LLVM-Sched] ptr_out 1
		},
		LoadBytes:  64, // [seed] "four 64-byte loads"; [XD-isa] "64 byte loads"
		StoreBytes: 64, // [XD-isa] "64 byte store"
		AccRegs:    5,
		VecRegs:    12, // ex0-ex11
		Modes: []xdna.MACMode{
			// [XD-isa] BFP16 8x8x8 runs natively on XDNA2, configuration 780; [MA-mm] mm_bfp.cc.
			{DType: "bfp16", M: 8, K: 8, N: 8, Config: 780, Native: true, Source: "XD isa.rst; MA aie2p/mm_bfp.cc", Modeled: true},
			// [MA-mm] int8 8x8x8 = 512 MACs; configuration not published.
			{DType: "int8", M: 8, K: 8, N: 8, Native: true, Source: "MA aie2p/mm.cc"},
			// [XD-isa] bf16 4x8x8 and 8x8x8 are emulated (the latter through bfp16).
			{DType: "bf16", M: 4, K: 8, N: 8, Native: false, Source: "XD isa.rst (emulated)"},
		},
		Mode:           xdna.MACMode{DType: "bfp16", M: 8, K: 8, N: 8, Config: 780, Native: true, Source: "XD isa.rst", Modeled: true},
		NoLoadAfterPop: true, // [XD-isa] POP "Cannot be followed by a standard (non-pipeline) load operation"
		DataMemBytes:   64 << 10,
		TileDType:      op.BFP16,
		ArgPointers:    []string{"p0", "p1", "p2", "p3"},
	}
}

// formats are AIE2P's composite bundle formats [LLVM-Slots] (I32_* ... I128_*).
var formats = func() []vliw.Format {
	spec := map[int][]string{
		4: {"lda", "ldb", "alu", "mv", "st", "vec"},
		6: {"lda ldb", "lda st", "lda alu", "lda mv", "ldb st", "ldb alu", "ldb mv", "lng", "alu mv", "st alu"},
		8: {"lda vec", "ldb vec", "st mv", "st vec", "alu vec", "mv vec", "lda ldb st", "lda ldb alu", "st ldb alu"},
		10: {"lda ldb mv", "lda ldb vec", "lda st alu", "lda st mv", "lda st vec", "lda lng", "lda alu mv",
			"lda alu vec", "lda mv vec", "st ldb mv", "st ldb vec", "ldb lng", "ldb alu mv", "ldb alu vec",
			"ldb mv vec", "st lng", "st alu mv", "st alu vec", "st mv vec", "lng vec", "alu mv vec"},
		12: {"lda ldb alu st", "lda ldb st mv", "lda ldb st vec", "lda ldb lng", "lda ldb alu mv",
			"lda ldb alu vec", "lda ldb mv vec", "lda st lng", "lda st alu mv", "lda st alu vec", "lda lng vec",
			"lda alu mv vec", "st ldb lng", "st ldb alu mv", "st ldb alu vec", "st ldb mv vec", "ldb lng vec",
			"ldb alu mv vec", "st lng vec", "st alu mv vec"},
		14: {"lda st mv vec", "lda ldb lng st", "lda ldb alu mv st", "lda ldb alu st vec", "st ldb lng vec",
			"st ldb alu mv vec", "lda ldb lng vec", "lda ldb alu mv vec"},
		16: {"lda ldb st lng vec", "lda ldb st alu mv vec"},
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
