package aie1

// Timing of the AIE1 core: VLIW issue slots, functional units, operand latencies, memory banks,
// locks and control flow. Every number names its source. The main sources are:
//
//   - [Sched]: Xilinx/llvm-aie, llvm/lib/Target/AIE/aie1/AIE1Schedule.td (itineraries: which
//     cycle an instruction writes its result and reads each operand, counted from EX1 = cycle 1;
//     "results will be available on the following cycle"). Operand lists follow the
//     instruction's operand order "explicit defs, explicit uses, implicit defs, implicit uses".
//   - [Instr]: Xilinx/llvm-aie, llvm/lib/Target/AIE/aie1/AIE1InstrInfo.td (operand order of
//     each instruction, hence which itinerary entry is which operand).
//   - [Fmt]: Xilinx/llvm-aie, llvm/lib/Target/AIE/AIEInstrFormats.td (which VLIW slot encodes
//     each instruction format).
//   - [InstrCpp]: Xilinx/llvm-aie, llvm/lib/Target/AIE/aie1/AIE1InstrInfo.cpp (how register
//     spills and fills expand into 32-byte memory operations).
//   - [UG1079-Mem]: UG1079 "AI Engine Memory" (8 single-port banks of 256 x 128 bit per tile;
//     an even and an odd bank interleaved form a double bank with a 256-bit port; the three
//     ports run concurrently when they access different banks).
//   - [AM009-LS]: AM009 "Load and Store Unit" (two load units and one store unit, each with
//     its own AGU; 128 KB address space 0x00000-0x1FFFF over four 32 KB blocks).
//   - [UG1076-Stall]: UG1076 "Memory Stalls" (bank conflicts stall the core).
//   - [XD100]: Vitis Tutorials XD100 "Interfaces" ("Lock acquisition and release takes a
//     minimum of seven cycles per lock").
//   - [UG1079-Loops]: UG1079 "Loops" (zero-overhead hardware loops; pre-amble and post-amble of
//     pipelined loops shaped by chess_loop_range's minimum).
//   - [mlir-aie TM]: Xilinx/mlir-aie, AIETargetModel (AIE1 getNumBanks = 4 double banks per
//     32 KB block).

import "fmt"

// Slot is a VLIW issue slot of an AIE1 instruction bundle. [Sched] models exactly these eight
// (SLOT_ALU ... SLOT_VEC); UG1079 "AI Engine Architecture Overview": one VLIW instruction holds
// at most two loads, one store, one scalar operation, one vector operation and two moves.
type Slot uint8

const (
	SlotALU Slot = iota // scalar ALU, scalar multiply, lock acquire/release ([Fmt] AIE_alu_format, AIE_lock_*)
	SlotLNG             // long-immediate moves, jumps/calls/returns, spill loads and stores ([Fmt] AIE_lng)
	SlotMV0             // register moves, vector/accumulator moves, upd into vector lanes, stream reads "mov0" ([Fmt] AIE_mv0_base)
	SlotMV1             // srs1, element extract, stream reads and writes "mov1" ([Fmt] AIE_mv1_base, AIE_mv1ssb_base)
	SlotLDA             // load unit A, padda ([Fmt] AIE_i32_lda)
	SlotLDB             // load unit B, paddb ([Fmt] AIE_ldb_base)
	SlotST              // store unit; also shift-round-saturate to a vector (vmovs.srs, [Fmt] AIE_mv_w_srs0 is an AIE_st_base) and stream writes "movs" (AIE_mv_scl2msa)
	SlotVEC             // vector unit: MAC/MUL, pre-adder add/sub/compare/select ([Fmt] vecm/veca slots)
	NumSlots
)

var slotNames = [NumSlots]string{"alu", "lng", "mv0", "mv1", "lda", "ldb", "st", "vec"}

func (s Slot) String() string {
	if s < NumSlots {
		return slotNames[s]
	}
	return fmt.Sprintf("Slot(%d)", uint8(s))
}

// Itin is an itinerary class: when an instruction of the class writes its result and reads
// each kind of operand, counted as in [Sched] (cycle 1 = EX1; a result written in cycle D is
// readable from the next cycle; an operand "read in cycle 0" is read in the decode stage).
// The latency from a producer P to a consumer C reading operand kind k is
// Def(P) - Use(C, k) + 1 cycles, the formula LLVM applies to these itineraries
// (InstrItineraryData::getOperandLatency).
type Itin struct {
	Name string
	// Def is the cycle the (first) result is written.
	Def int
	// Use gives the read cycle per operand kind.
	Use [NumOperandKinds]int
	// PtrDef is the cycle a post-modified pointer is written (loads and stores that advance
	// their pointer); 0 if the class does not update a pointer.
	PtrDef int
}

// OperandKind says which role an operand plays, because [Sched] gives each role its own
// read cycle (the accumulator of a MAC is read late, its X operand early, ...).
type OperandKind uint8

const (
	OpndScalar    OperandKind = iota // GPR source (also MAC xstart)
	OpndPtr                          // pointer register used for an address
	OpndMod                          // modifier register
	OpndVecX                         // vector operand (MAC X buffer, vector add sources, moves)
	OpndVecZ                         // MAC Z buffer
	OpndAcc                          // accumulator input (MAC chain, srs source)
	OpndStoreData                    // value being stored
	NumOperandKinds
)

// The itinerary classes used by the backend, with the [Sched] line each comes from.
var (
	// II_ALU: [1, 1, 1, 1]. Scalar ALU ops write in cycle 1 and read in cycle 1.
	ItinALU = Itin{Name: "alu", Def: 1, Use: uses(1)}
	// II_MUL: [3, 1, 1] "Multiply with 3 cycle latency".
	ItinMUL = Itin{Name: "mul", Def: 3, Use: uses(1)}
	// II_MOVI: [1, 1]: move immediate (mov.u20, movt.s12).
	ItinMOVI = Itin{Name: "movi", Def: 1, Use: uses(1)}
	// II_MOV / II_VMOV: [1, 1]: register moves, vector moves (vmov wr/xr), accumulator moves.
	// upd_w/upd_x/ext_w/concat of values already in registers lower to such sub-register moves
	// ([Instr]: int_aie_upd_w/ext_w/concat are INSERT_SUBREG/EXTRACT_SUBREG/REG_SEQUENCE).
	ItinMOV = Itin{Name: "mov", Def: 1, Use: uses(1)}
	// II_LDA / II_LDB: [8, 1, 0]: "8 cycle loads"; the pointer is read in cycle 1.
	// The post-modify pointer update follows II_PADDA ("2 cycles to update a pointer") and
	// II_LDASP_RW ("StackPointerWriteLatency=2"): written in cycle 2.
	ItinLoad = Itin{Name: "load", Def: 8, Use: uses(1), PtrDef: 2}
	// II_VSTS: [1, 1, 0]: the stored value and the pointer are read in cycle 1; memory writes
	// happen in program order ([Sched] header comment), so no memory latency appears here.
	ItinStore = Itin{Name: "store", Def: 1, Use: uses(1), PtrDef: 2}
	// II_PADDA / II_PADDB: [2 /*Write PTR*/, 1 /*Read PTR*/, 1 /*Read mod*/].
	ItinPADD = Itin{Name: "padd", Def: 2, Use: uses(1)}
	// II_VMAC: [6, 6, 1, 0, 0, 1, 0, 0, 0, 0] over VMAC48_S16_S32_BM's operands
	// (sd, sdin, pmx, xstart, xoffs, ystart, ipm, zstart, zoffs, conf) [Instr]: result in
	// cycle 6, accumulator input read in cycle 6 (so dependent integer MACs into one
	// accumulator issue back to back: 6-6+1 = 1), X buffer (pmx) in cycle 1, xstart and the
	// Z buffer (ipm) in cycle 0. The comment in [Sched] reads "Multiply with 6 cycle latency".
	ItinVMAC = Itin{Name: "vmac", Def: 6, Use: [NumOperandKinds]int{OpndScalar: 0, OpndPtr: 1, OpndMod: 1, OpndVecX: 1, OpndVecZ: 0, OpndAcc: 6, OpndStoreData: 1}}
	// II_VMUL: the same list as II_VMAC without an accumulator input.
	ItinVMUL = Itin{Name: "vmul", Def: 6, Use: [NumOperandKinds]int{OpndScalar: 0, OpndPtr: 1, OpndMod: 1, OpndVecX: 1, OpndVecZ: 0, OpndAcc: 6, OpndStoreData: 1}}
	// II_VFMAC: [6, 6, 4, 1, 0, 0, 1, 0, 0, 0, 0] over VFPMAC's operands (d0, d1, acc, sx,
	// fpxstart, fpxoffs, sc, ...): "MAC with 6 cycle latency, accumulator read in cycle 4",
	// which would put dependent fpmacs into one accumulator 6-4+1 = 3 cycles apart. The
	// hardware evidence says 2 (FPAccChainCycles), so the accumulator is read in cycle
	// Def - FPAccChainCycles + 1 = 5: the result cycle is the itinerary's, the chaining
	// distance the documented one.
	ItinVFMAC = Itin{Name: "vfmac", Def: 6, Use: [NumOperandKinds]int{OpndScalar: 0, OpndPtr: 1, OpndMod: 1, OpndVecX: 1, OpndVecZ: 0, OpndAcc: 6 - FPAccChainCycles + 1, OpndStoreData: 1}}
	// II_VFMUL: [6, 6, 1, 0, 0, 1, 0, 0, 0, 0].
	ItinVFMUL = Itin{Name: "vfmul", Def: 6, Use: [NumOperandKinds]int{OpndScalar: 0, OpndPtr: 1, OpndMod: 1, OpndVecX: 1, OpndVecZ: 0, OpndAcc: 4, OpndStoreData: 1}}
	// II_SRS: [3, 3, 1, 1, 2] over MV_W_SRS0_80_srsl (dst, modc, src, shift, mod): the vector
	// result in cycle 3, the accumulator read in cycle 1. ([LLVM-AIE] AIE1Schedule.td: SRS 3.)
	ItinSRS = Itin{Name: "srs", Def: 3, Use: uses(1)}
	// II_STSRS: [3, 1, 1, 1, 2] over VST_SRSS_idx / VST_SRSU_idx ("vst.48.srsb/srsbu": sd,
	// shft, ptr, cs, md0) [Instr]: a 16-lane accumulator stored to memory as 16 bytes through
	// the shift-round-saturate path in one store-unit instruction, the accumulator read in
	// cycle 3, the pointer in cycle 1; post-modify as a store. Simplification: the cycle
	// simulator reads a store's operands when it issues (only MACs have late reads), so the
	// accumulator is taken as read in cycle 1, which schedules the store at most two cycles
	// later after the MAC that produces it than the itinerary allows.
	ItinSTSRS = Itin{Name: "stsrs", Def: 1, Use: uses(1), PtrDef: 2}
	// II_VCMP: [2, 2, 1, 0, ...]: "Vector compare through pre-adder"; vector add and subtract
	// are VCMP with add_conf/sub_conf ([Instr] pat_vec_add_v16i32).
	ItinVCMP = Itin{Name: "vcmp", Def: 2, Use: uses(1)}
	// UPS (vector -> accumulator) goes through the multiplier path like a VMUL with a unit
	// operand; no itinerary of its own exists in [Sched], so it takes II_VMUL's result cycle.
	ItinUPS = Itin{Name: "ups", Def: 6, Use: uses(1)}
	// II_VUPDATE: [1, 1, 1, 1] (scalar into vector lane), II_VEXTRACT: [1, 1, 1].
	ItinVUPD = Itin{Name: "vupd", Def: 1, Use: uses(1)}
	ItinVEXT = Itin{Name: "vext", Def: 1, Use: uses(1)}
	// II_LOCK: [1, 1] with RequireLocks<5, 0>.
	ItinLock = Itin{Name: "lock", Def: 1, Use: uses(1)}
	// II_RET: [/*LR*/ 1, /*r0*/ 5]; jumps have 5 delay slots (BranchDelaySlots).
	ItinBranch = Itin{Name: "branch", Def: 1, Use: uses(1)}
	// II_VSEL: [2, 1, 0, 0, 0, 0, 0, 2]: "Vector select through pre-adder"; the permute
	// network's shuffles (broadcast) take the same path.
	ItinVSEL = Itin{Name: "vsel", Def: 2, Use: uses(1)}
	// II_SS2SCL: [1, 1, 0]: a stream word into a register. II_SCL2MS: [2, 1, 2, 2]: a
	// register onto an output stream.
	ItinSS2SCL = Itin{Name: "ss2scl", Def: 1, Use: uses(1)}
	ItinSCL2MS = Itin{Name: "scl2ms", Def: 2, Use: uses(1)}
)

// FPAccChainCycles is the distance between two dependent floating-point MACs into one
// accumulator. [Sched]'s II_VFMAC reads the accumulator in cycle 4 and writes in cycle 6,
// which gives 3; the hardware evidence gives 2, and the model follows it:
//   - UG1079 "Floating-Point Operations": "Floating-point MACs have a latency of two-cycles,
//     thus, using two accumulators in a ping-pong manner ... allow[s] the compiler to
//     schedule a MAC on each clock cycle";
//   - Vitis Tutorials, Feature_Tutorials/14-implementing-iir-filter Part 2a (the chess
//     compiler's listing of 12 chained aie::mac): "there is a NOP (no operation) between each
//     VFPMAC to account for the two-cycle floating-point accumulation latency", and Part 2b:
//     "This NOP is unavoidable as a floating-point accumulation requires two cycles";
//   - AM009 "Floating-Point Vector Unit": the accumulation stage (FPACC) spans two stages.
//
// The integer MACs need no such gap: [Sched]'s II_VMAC reads the accumulator in the cycle it
// writes it (6, 6: back to back), which the published figures agree with (seed 001's
// 16x4 GEMM issues two dependent mac16 per accumulator per 8-cycle iteration at its measured
// 85.9% of peak; Vitis Tutorials Design_Tutorials/02-super_sampling_rate_fir SingleKernel
// reaches 295.6 of the 312.5 Msps that one chained MAC per cycle allows).
const FPAccChainCycles = 2

// StreamPorts is the number of 32-bit input and of output stream ports of an AIE1 tile;
// StreamWordBits the bits one moves per cycle (AM009 "AI Engine Interfaces": two input and
// two output streams, 32 bits per cycle each, a 128-bit access every 4 cycles).
const (
	StreamPorts    = 2
	StreamWordBits = 32
)

func uses(c int) (u [NumOperandKinds]int) {
	for i := range u {
		u[i] = c
	}
	return
}

// Latency is the number of cycles from issuing producer p to issuing a consumer c that reads
// p's result as operand kind k: Def(p) - Use(c, k) + 1 (see Itin). Integer MAC -> MAC through
// the accumulator is 1, fpmac -> fpmac 3, load -> MAC X operand 8, MAC -> srs 6.
func Latency(p, c *Itin, k OperandKind) int { return p.Def - c.Use[k] + 1 }

// Functional-unit and hazard parameters.
const (
	// BranchDelaySlots: "Reads in E1, 5 branch delay slots" ([Instr] ba_instr); jal and ret
	// behave the same way (II_RET reads r0 in cycle 5).
	BranchDelaySlots = 5

	// LockBusyCycles: a lock instruction requires the LOCK unit for 5 cycles
	// (II_LOCK = RequireLocks<5, 0>; [Sched]: "The 'LOCK' instructions are defined to take 5
	// cycles in order to avoid contention for locks").
	LockBusyCycles = 5
	// MemLockReserveCycles: every load and store reserves the LOCK unit for 5 cycles from its
	// issue (II_LDA: ReserveLocks<5, 7>; II_VSTS: ReserveLocks<5, 0>), so a lock instruction
	// cannot issue within 5 cycles of a memory access and vice versa; memory accesses do not
	// exclude one another ("reserved" vs "required" in the [Sched] comment).
	MemLockReserveCycles = 5
	// LockAcqRelMinCycles is the documented minimum cost of acquiring and releasing one lock
	// ([XD100]). The model does not add it as a constant: it checks (in tests) that the
	// LOCK-unit mechanism above costs at least this much per lock.
	LockAcqRelMinCycles = 7

	// PortBytes: each load/store port moves 256 bits (LoadBits, StoreBits in aie1.go).
	PortBytes = 32
)

// Spill and fill costs per register size, from [InstrCpp] getSpillPseudoExpandInfo:
// I384 (aml/amh) -> two 32-byte vst.spil.48 (lo, hi); I768 (bm) -> two I384; 512-bit -> two
// 256-bit vst.spil; 1024-bit -> two 512-bit. Fills mirror them with vlda.spil. The spill
// store itinerary is II_VST_SPIL (store unit) and the fill II_LDASP_R (load unit A, 8-cycle
// result); both spill encodings are long-format instructions (AIE_lng: the LNG slot).
// SpillOps returns how many 32-byte memory operations a spill (or a fill) of a register of
// the given size takes.
func SpillOps(bits int) int {
	switch {
	case bits <= 256:
		return 1
	case bits == 384:
		return 2
	case bits == 512:
		return 2
	case bits == 768:
		return 4
	default:
		return (bits + 255) / 256
	}
}

// AccessBanks returns the set of single banks (bit 8*module + bank, see BankOf) that an access
// of size bytes at AGU address addr touches. A 256-bit access touches the even and the odd
// bank of one double bank ([UG1079-Mem]: "The 256-bit port is created by an even and odd
// pairing of the memory banks").
func AccessBanks(addr, size int) uint32 {
	if size <= 0 {
		size = 1
	}
	var m uint32
	for a := addr &^ (AccessAlignBytes - 1); a < addr+size; a += AccessAlignBytes {
		mod, bank := BankOf(uint32(a) % ReachBytes)
		m |= 1 << uint(mod*Banks+bank)
	}
	return m
}

// BankConflictStallCycles: when two ports access the same single bank in one cycle, one of
// them waits a cycle and the whole core stalls ([UG1079-Mem] concurrency rule;
// [UG1076-Stall] "memory stalls"). Each extra access to a busy bank costs one stall cycle.
const BankConflictStallCycles = 1

// Hardware loops ([UG1079-Loops]; AIE1RegisterInfo.td has the loop registers LS, LE, LC).
const (
	// LoopSetupMoves: a zero-overhead loop is set up by writing the loop start, loop end and
	// loop count registers (three moves: mov ls, mov le, mov lc).
	LoopSetupMoves = 3
	// LoopSetupLead: the loop registers are used by instruction fetch, which runs ahead of
	// EX1 by the branch delay (5 slots), so the set-up moves must issue at least
	// BranchDelaySlots+1 cycles before the last bundle of the loop's first iteration is
	// fetched for the end-of-loop jump to be taken. The iteration itself costs nothing.
	LoopSetupLead = BranchDelaySlots + 1
)
