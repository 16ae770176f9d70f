package backend

import (
	"fmt"
	"strings"
	"sync"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// File is a register file of the AIE1 core (AIE1RegisterInfo.td in Xilinx/llvm-aie; aie1.go).
type File uint8

const (
	FileVec     File = iota // 16 x 128-bit units vl0..vl7, vh0..vh7 (w, x, y registers are views)
	FileAcc                 // 8 x 384-bit units aml0..3, amh0..3 (bm = aml:amh)
	FileScalar              // r0..r15
	FilePtr                 // p0..p7
	FileMod                 // m0..m7
	FileCfg                 // c0..c7 (64-bit MAC configuration: offsets, square, steps)
	FileSpecial             // lr, ls, le, lc, sp
	NumFiles
)

// FileUnits is the number of allocation units per file.
var FileUnits = [NumFiles]int{16, 8, 16, 8, 8, 8, 5}

// FileUnitBits is the width of one allocation unit.
var FileUnitBits = [NumFiles]int{128, 384, 32, 20, 20, 64, 20}

// Reg is a physical register: File and the units it covers (a 512-bit vector covers 4 units).
type Reg struct {
	File  File
	Units []int
}

func (r Reg) String() string { return regName(r) }

// Vector units: w-register k (wr0..wr3, wc0, wc1, wd0, wd1) is units 2k, 2k+1 (its vl and vh
// halves); x registers xa, xb, xc, xd are w pairs; ya = xa:xb, yd = xd:xb
// (AIE1RegisterInfo.td).
var wNames = [8]string{"wr0", "wr1", "wr2", "wr3", "wc0", "wc1", "wd0", "wd1"}
var xNames = [4]string{"xa", "xb", "xc", "xd"}

func regName(r Reg) string {
	if len(r.Units) == 0 {
		return "?"
	}
	u := r.Units[0]
	switch r.File {
	case FileVec:
		switch len(r.Units) {
		case 1:
			if u%2 == 0 {
				return fmt.Sprintf("vl%d", u/2)
			}
			return fmt.Sprintf("vh%d", u/2)
		case 2:
			return wNames[u/2]
		case 4:
			return xNames[u/4]
		case 8:
			if u == 0 {
				return "ya"
			}
			return "yd"
		}
	case FileAcc:
		if len(r.Units) == 2 {
			return fmt.Sprintf("bm%d", u/2)
		}
		if u%2 == 0 {
			return fmt.Sprintf("aml%d", u/2)
		}
		return fmt.Sprintf("amh%d", u/2)
	case FileScalar:
		return fmt.Sprintf("r%d", u)
	case FilePtr:
		return fmt.Sprintf("p%d", u)
	case FileMod:
		return fmt.Sprintf("m%d", u)
	case FileCfg:
		return fmt.Sprintf("c%d", u)
	case FileSpecial:
		return [...]string{"lr", "ls", "le", "lc", "sp"}[u]
	}
	return "?"
}

// Operand is a register operand of a machine instruction.
type Operand struct {
	Reg  Reg
	Kind aie1.OperandKind // read role (uses) — decides the read cycle
	// Cycle: the itinerary cycle of the access (read or write), filled in by the backend.
	Cycle int
}

// MemAccess is the data-memory access of a load or store.
type MemAccess struct {
	Store bool
	Ptr   Reg // address register
	// Offset is added to the pointer for the access; PostInc is added to the pointer after it
	// (post-modify addressing; the pointer write is one of the instruction's Defs).
	Offset, PostInc int
	Bytes           int
	// Space names what the pointer points into (a window, a buffer, the stack); accesses to
	// different spaces never alias (windows and buffers are __restrict, spill slots private).
	Space string
}

// LockOp is a lock instruction's effect.
type LockOp struct {
	Release bool
	ID      int
}

// Instr is one machine instruction of a bundle.
type Instr struct {
	Name string
	Slot aie1.Slot
	Itin *aie1.Itin
	Defs []Operand // registers written (Cycle = write cycle)
	Uses []Operand // registers read (Cycle = read cycle)
	Mem  *MemAccess
	Lock *LockOp
	// Src is the kernel instruction this implements (nil for spill code, set-up and
	// wrapper instructions). The simulator executes Src's semantics.
	Src *kernel.Instr
	// Part: for a load or move writing only a part of a wider variable (upd_w), the byte
	// offset of that part within the destination register; -1 when the whole register.
	Part int
	// Spill marks spill (store) and fill (load) code.
	Spill bool
	// MACs is the number of multiplications this instruction performs.
	MACs int
	// Seq is the instruction's position in sequential program order within one iteration of
	// its innermost loop (see Loop.SeqStride); used to decide which write a read should see.
	Seq int64
	// Imm is an immediate for the simulator (mov immediate value, ptr add amount).
	Imm int64
	// Text is the assembly-like rendering of the operands for --emit bundles.
	Text string
	// ID numbers the program's instructions 0..n-1 (for per-instruction tables).
	ID int
	// Wrap names the window whose position this instruction moves: the new position wraps
	// around the window's region (ADF windows are circular; AM009 lists cyclic addressing
	// among the AGU's modes), at no extra cost.
	Wrap string
}

// Bundle is one VLIW instruction: at most one instruction per slot, listed in sequential
// program order.
type Bundle struct {
	Instrs []*Instr
}

// Loop is a zero-overhead hardware loop over Bundles[Start:End], executed Count times.
type Loop struct {
	Start, End int
	Count      int
	// SeqStride is added to the dynamic sequence number of the body's instructions per
	// repetition.
	SeqStride int64
}

// Program is a compiled kernel call: the caller's lock acquires, the kernel's entry, body and
// exit, and the lock releases, as bundles executed from Bundles[0] to the end.
type Program struct {
	Kernel  *kernel.Kernel
	Bundles []Bundle
	Loops   []Loop // sorted by Start; nested loops lie inside their parents
	// Vars maps kernel variables to their home registers (nil for spilled ones).
	Vars map[*kernel.Var]Reg
	// SpillSlots maps spilled variables to their stack offsets.
	SpillSlots map[*kernel.Var]int
	// Stats of the compilation.
	Spills, Fills int
	// Notes: one line per decision worth reporting (II, stages, spills).
	Notes []string
	// Layout used for window descriptors, buffers and the stack.
	Layout *Layout
	// Breakdown itemizes where the static cycles go (filled by Compile).
	Breakdown []CostItem
	// NumInstrs is the number of instructions (IDs 0..NumInstrs-1).
	NumInstrs int
	// Consts are the scalar variables the backend treats as compile-time constants.
	Consts map[*kernel.Var]int64

	// reordered: clusterMACs changed the order of a loop body; grouped: groupAccs did;
	// accSpills counts the spill and fill operations of accumulators.
	reordered, grouped bool
	accSpills          int

	// cache holds a simulator's per-program tables (see Cached).
	cacheMu sync.Mutex
	cache   any
}

// Cached returns the value make builds for this program, building it on first use (the
// simulator keeps its decoded instruction tables here, so they live as long as the program).
func (p *Program) Cached(make func() any) any {
	p.cacheMu.Lock()
	defer p.cacheMu.Unlock()
	if p.cache == nil {
		p.cache = make()
	}
	return p.cache
}

// ConstArg returns the compile-time value of argument i of in (an immediate or a constant
// variable).
func (p *Program) ConstArg(in *kernel.Instr, i int) (int64, bool) {
	a := in.Args[i]
	if a.IsIntImm() {
		return a.Imm, true
	}
	if a.Var != nil {
		v, ok := p.Consts[a.Var]
		return v, ok
	}
	return 0, false
}

// CostItem is a named share of the cycle count for the report.
type CostItem struct {
	What   string
	Cycles int
	Source string
}

// String renders the bundles, one per line, with loop markers (sumac sim --emit bundles).
func (p *Program) String() string {
	var sb strings.Builder
	loopAt := map[int][]Loop{}
	endAt := map[int]int{}
	for _, l := range p.Loops {
		loopAt[l.Start] = append(loopAt[l.Start], l)
		endAt[l.End]++
	}
	for i, b := range p.Bundles {
		for _, l := range loopAt[i] {
			fmt.Fprintf(&sb, "        loop %d times {  (bundles %d..%d)\n", l.Count, l.Start, l.End-1)
		}
		fmt.Fprintf(&sb, "%6d  ", i)
		if len(b.Instrs) == 0 {
			sb.WriteString("nop")
		}
		for j, in := range b.Instrs {
			if j > 0 {
				sb.WriteString(" ; ")
			}
			fmt.Fprintf(&sb, "%s: %s", in.Slot, in.Name)
			if in.Text != "" {
				sb.WriteString(" " + in.Text)
			}
		}
		sb.WriteByte('\n')
		for k := 0; k < endAt[i+1]; k++ {
			sb.WriteString("        }\n")
		}
	}
	return sb.String()
}

// ModelVersion names the timing model (backend and simulator). It changes whenever a change
// can move cycle counts or verdicts, so caches of measured cycles (the tuner's) can be keyed
// by it (9: the simulator takes each read's writer from the program order; 10: register
// coalescing, coalesce.go).
const ModelVersion = "aie1-timing-10"
