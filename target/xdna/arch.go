// Package xdna is what the two AIE2-family tiles (AIE-ML = XDNA1, AIE2P = XDNA2) share on top
// of the generation-neutral VLIW layer: the operations their kernels use and what each does at
// which pipeline stage (the ISA the cycle engine executes), the einsum kernel generator
// (register blocking, accumulation chains, fill/pop or plain vector loads, modulo-scheduled
// hardware loop) and the compile-and-verify driver. The numbers live in the two machine
// descriptions, packages aieml and aie2p; nothing here is specific to one of them except
// through an Arch.
package xdna

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/vliw"
)

// Gen is the AIE2-family generation.
type Gen int

const (
	AIE2  Gen = iota // AIE-ML, XDNA1 (Phoenix/Hawk Point NPU)
	AIE2P            // AIE-ML v2 as shipped in XDNA2 (Strix/Krackan NPU)
)

// Latencies are operand stages in the convention of llvm-aie's itineraries: stage 1 is the
// issue cycle; a result "written in stage D" lands at the end of cycle issue+D-1 and is seen
// by reads in later cycles; an operand "read in stage U" is read in cycle issue+U-1. A
// dependent instruction therefore issues at least D-U+1 cycles after its producer.
type Latencies struct {
	MACSrc    int // VMAC.F/VMUL.F vector operands and configuration register read
	MACAcc    int // VMAC.F accumulator input read
	MACDst    int // VMAC.F/VMUL.F accumulator result written
	VLDDst    int // VLDA/VLDB vector or accumulator destination written
	Mem       int // stage in which loads read and stores write data memory
	PopDst    int // VLDA/VLDB.POP.576 EX destination written
	FifoReg   int // load-FIFO register read and written by FILL/POP
	VSTSrc    int // VST data register read
	VMOVDst   int // VMOV destination written (source read in stage 1)
	ALUDst    int // scalar ALU result (add, sub, mov, compare, select, padd) written
	MulDst    int // scalar multiply result written
	PtrUpdate int // post-modified pointer written by loads, stores and padd
}

// MACMode is one matrix-multiply mode of the vector unit: C[MxN] += A[MxK] B[KxN].
type MACMode struct {
	DType   string // operand type as sumac names it (bf16, bfp16, int8)
	M, K, N int
	Config  int64  // value of the configuration register VMAC.F reads (0: not modelled)
	Native  bool   // one instruction (not emulated with several)
	Source  string // where the shape comes from
	Modeled bool   // the simulator executes it
}

// Arch is one AIE2-family machine: the neutral description plus the family's parameters.
type Arch struct {
	Name string // target name in sumac commands (aieml, aie2p)
	Gen  Gen
	M    *vliw.Machine
	Lat  Latencies

	LoadBytes  int // bytes per VLDA/VLDB of a vector or accumulator part
	StoreBytes int // bytes per VST
	// AccRegs is how many accumulator registers of the MAC mode's size the generator may use.
	AccRegs int
	// VecRegs is how many vector registers (x, or ex on AIE2P) hold MAC operands.
	VecRegs int
	Modes   []MACMode
	// Mode is the floating-point mode the einsum kernels use (bf16 on AIE2, bfp16 on AIE2P).
	Mode MACMode
	// NoLoadAfterPop: a standard vector load may not directly follow a POP on the same unit.
	NoLoadAfterPop bool
	// DataMemBytes is one tile's own data memory (the machine addresses its neighbours' too).
	DataMemBytes int
	// TileDType is the operand element type of the einsum kernels.
	TileDType op.DType
	// ArgPointers are the pointer registers the kernel's caller sets (kernel arguments).
	ArgPointers []string
}

// MACsPerInstr is the MAC count of the kernel mode's VMAC.F.
func (a *Arch) MACsPerInstr() int { return a.Mode.M * a.Mode.K * a.Mode.N }

// Validate checks a description's internal consistency (a bug there is a programming error,
// but a clear message helps whoever edits the data).
func (a *Arch) Validate() error {
	if a.M == nil {
		return fmt.Errorf("%s: no machine", a.Name)
	}
	for _, s := range []string{"lda", "ldb", "st", "alu", "mv", "lng", "vec"} {
		if _, ok := a.M.SlotByName(s); !ok {
			return fmt.Errorf("%s: slot %s missing", a.Name, s)
		}
	}
	if a.Lat.MACDst < a.Lat.MACAcc || a.Lat.VLDDst < a.Lat.Mem {
		return fmt.Errorf("%s: latencies out of order: %+v", a.Name, a.Lat)
	}
	if a.M.BankBytes <= 0 || a.M.MemBytes%a.M.BankBytes != 0 {
		return fmt.Errorf("%s: memory %d not a whole number of %d-byte banks", a.Name, a.M.MemBytes, a.M.BankBytes)
	}
	return nil
}
