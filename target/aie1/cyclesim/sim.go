// Package cyclesim executes AIE1 VLIW bundles (from package backend) cycle by cycle.
//
// Every instruction reads each operand in the cycle its itinerary says and its result
// becomes visible in the cycle after the one it is written in (target/aie1 timing.go). There
// are no interlocks: if a read would not see the value the sequential program means (a
// producer's result has not landed yet, or a later instruction's has already landed), the
// simulation stops with a latency-violation error naming both instructions. Two memory
// accesses of one bundle to the same single bank cost a stall cycle (UG1079 "AI Engine
// Memory", UG1076 "Memory Stalls"). Functional results come from the kernel IR's semantic
// functions (package target/aie1/kernel), the same ones the interpreter uses.
package cyclesim

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Config gives the data of a run.
type Config struct {
	// Data is the initial contents of each window/pointer parameter's region (by name);
	// Sizes the region sizes (default: len(Data[name])).
	Data  map[string][]byte
	Sizes map[string]int
	// Round and Sat are the SRS modes (zero values: num.Floor, num.Saturate, as interp).
	Round num.Round
	Sat   num.Sat
	// MaxCycles bounds the run (0: 1e9).
	MaxCycles int64
	// PLIO gives the stream parameters (by name) connected straight to a PLIO; the others
	// move a word a cycle (a kernel-to-kernel stream). Timing only: the data are the same.
	PLIO map[string]PLIO
}

// Result reports a run.
type Result struct {
	Cycles       int64 // issued bundles plus stall cycles
	Stalls       int64 // bank-conflict stall cycles
	MACs         int64
	MACsPerCycle float64
	Spills       int64 // spill stores executed
	Fills        int64 // fill loads executed
	SlotUse      [aie1.NumSlots]int64
	Narrowed     int64
	Saturated    int64
	// Data is the final contents of every region by parameter name. A region that no store
	// of the run touched and whose Config.Data slice covers it whole is that slice itself
	// (not a copy): treat the results as read-only, like the inputs. Streams: what the run
	// read (inputs) or wrote (outputs); arrays with storage of their own by variable name.
	Data map[string][]byte
	// StreamStalls are the cycles the core waited on its stream ports (included in Cycles).
	StreamStalls int64
	// CycleReads are the values the kernel's reads of the cycle counter returned.
	CycleReads []int64
}

// Error is a simulation error (latency violation, out-of-region access, lock misuse).
type Error struct {
	Cycle int64
	Msg   string
}

func (e *Error) Error() string { return fmt.Sprintf("cycle %d: %s", e.Cycle, e.Msg) }

// unit is one allocation unit of a register file with the bookkeeping for hazard checks.
type unit struct {
	// val holds the visible value (val[cur]) and the one before it (val[cur^1]): a landing
	// write fills the older slot and flips cur, so the previous value is never copied.
	val [2]regVal
	cur uint8
	vis int64 // cycle from which val[cur] is visible
	// top holds the largest writer seqs issued so far, descending (-1: none): the reference
	// engine's fallback for the write a read must see when the program has no trace (want).
	// It must hold the wanted writer and every write issued ahead of the read that comes
	// later in program order; in a legal program those are still in flight, so within the
	// longest latency (8 cycles, aie1.ItinLoad) of the read. Eight entries were too few: the
	// allocator pipelines fills, one per cycle into one register, each landing as its reader
	// reads (the flattened conv2d of testdata/adf/conv_fills.cc has 9 writes of one register
	// issued ahead of the read of the first).
	top [topWriters]int64
	// kinds has bit k set once a write of kind k (pendingWrite.kind) has landed
	kinds uint8
	file  backend.File
	idx   int
}

// topWriters is the length of unit.top: a few writes a cycle for the 8 cycles a write can be
// in flight (aie1.ItinLoad), with room to spare.
const topWriters = 32

// regVal is the contents of a unit with its writer (dynamic sequence number; -1 reset).
type regVal struct {
	vec [16]byte
	acc [8]num.Acc
	s   int64
	seq int64
}

// name renders the unit for error messages (only then: it allocates).
func (u *unit) name() string {
	return backend.Reg{File: u.file, Units: []int{u.idx}}.String()
}

func (u *unit) noteWriter(seq int64) {
	i := 0
	for i < len(u.top) && u.top[i] > seq {
		i++
	}
	if i == len(u.top) || u.top[i] == seq {
		return
	}
	copy(u.top[i+1:], u.top[i:len(u.top)-1])
	u.top[i] = seq
}

// expected returns the latest issued writer before seq (-1: the reset value). Writers are
// issued mostly in seq order, so this is usually the first or second entry.
func (u *unit) expected(seq int64) int64 {
	for _, w := range u.top {
		if w < seq {
			return w
		}
	}
	return -1
}

// pendingWrite and deferred hold no pointers (unit and instruction by index), so queueing
// them costs no GC write barriers.
type pendingWrite struct {
	seq  int64
	s    int64
	by   int32 // Instr.ID
	file uint8
	idx  uint8
	kind uint8 // 0 vec, 1 acc, 2 scalar
	mask uint8 // acc lanes written (0: all)
	vec  [16]byte
	acc  [8]num.Acc
}

type deferred struct {
	id  int32 // Instr.ID
	seq int64
	t   int64
	x   kernel.Vec
	z   kernel.Vec
}

// runState is what every Run starts afresh.
type runState struct {
	p      *backend.Program
	pi     *progInfo
	cfg    *Config
	res    *Result
	cycle  int64
	dec    []*decoded       // by Instr.ID
	kind   []uint8          // by Instr.ID
	instrs []*backend.Instr // by Instr.ID
	region []int32          // by Instr.ID: index in regions of its memory space (-1: none)
	locks  lockSet
	accMem map[int][8]num.Acc // spilled accumulator units by address (made when first written)
	// writers: the reference engine's writer lists (progInfo.unitWriters)
	writers *[numUnits][]int64
	// imm: pass 2 (trace.go) is running: registers are read and written at once (in r).
	imm bool
	// cur is pass 2's current trace index
	cur  int32
	fops []fInstr
	// adf: streams, circular windows, cycle counter reads (adf.go)
	adf adfState
}

// regs are pass 2's registers, by global unit index (unitBase): the value of every unit of
// each kind side by side, so that an operand of consecutive units is one contiguous run and
// the registers a kernel uses share few cache lines (the reference engine keeps its own, with
// the values in flight, in files).
type regs struct {
	vec [numUnits][16]byte
	acc [numUnits][8]num.Acc
	s   [numUnits]int64
}

// sim is a simulator: a run's state and the buffers kept between runs (sync.Pool).
type sim struct {
	runState
	files [backend.NumFiles][]unit
	r     regs
	mem   []byte
	// ring of pending writes and deferred reads by cycle
	ring    [64][]pendingWrite
	defers  [64][]deferred
	regions [][2]int // [base, size] by parameter index (size -1: not a region)
	inputs  [][]byte // Config.Data's slice by parameter index
	// dirty marks the 256-byte pages of mem written by this run (cleared by the next, so
	// that a run clears what the previous one wrote rather than the whole 128 KB); stored
	// those written by its stores (a region none of whose pages is stored to is unchanged)
	dirty, stored pages
	// addrs holds the address of each traced memory access (pass 2 for pass 3)
	addrs  []int32
	tm     *timer
	steady steady
	// memAccs and memOrder are pass 3's scratch
	memAccs  []memAcc
	memOrder memOrder
	// scratch receives a MAC's lanes in pass 2 (large: kept out of the stack frame), and so
	// do fastMAC's operands and results; every use writes what it reads
	scratch  pendingWrite
	x16, z16 [64]int16
	x8, z8   kernel.Vec
	macRes   [2][8]num.Acc
	msc      macScratch
	srsAcc   kernel.AccVal
}

// lockSet holds which locks are acquired: IDs 0..63 in a bit set (AIE1 tiles have 16 locks,
// UG1079), any other in a map made when first needed.
type lockSet struct {
	low  uint64
	high map[int]bool
}

func (l *lockSet) held(id int) bool {
	if id >= 0 && id < 64 {
		return l.low&(1<<uint(id)) != 0
	}
	return l.high[id]
}

func (l *lockSet) set(id int, v bool) {
	if id >= 0 && id < 64 {
		if v {
			l.low |= 1 << uint(id)
		} else {
			l.low &^= 1 << uint(id)
		}
		return
	}
	if l.high == nil {
		l.high = map[int]bool{}
	}
	l.high[id] = v
}

// useReference makes Run use the single-pass engine (run) that carries values through the
// cycles; tests compare the two.
var useReference = false

// decoded caches per-instruction constant facts.
type decoded struct {
	sel      kernel.MACSel
	lay      kernel.MACLayout
	form     kernel.MACForm
	kind     kernel.MACKind
	xe, ze   kernel.Elem
	xLen     int
	zLen     int
	shift    int
	isMAC    bool
	accLanes int
	tab      macTable
	// xo, zo, acco index the X, Z and accumulator operands in Instr.Uses (-1: none)
	xo, zo, acco int
}

// paramInfo is a kernel parameter as a run places it: a region (window or pointer) at base,
// a window's descriptor at desc.
type paramInfo struct {
	name           string
	region, window bool
	base, desc     int
	// storage: an array with memory of its own, which starts as its initializer
	storage *kernel.Storage
}

// progInfo caches what a program's execution needs per instruction (decoded MAC operand
// selections, instruction classes); programs are immutable once compiled.
type progInfo struct {
	dec    []*decoded
	kind   []uint8
	instrs []*backend.Instr
	region []int32
	used   []int32 // global indices of the register units the instructions name
	params []paramInfo
	// sysStart is where the layout's window descriptors and spill stack begin: a load outside
	// its region may not read from there on (readOutside)
	sysStart int
	err      error

	// the trace and the timing operands, built on the first run that uses them
	traceOnce sync.Once
	tr        *trace
	tops      []tInstr
	fops      []fInstr
	// writers: for the reference engine, the sequence numbers of each unit's writes in
	// program order (from the trace; nil without one)
	writersOnce sync.Once
	writers     *[numUnits][]int64
}

// unitWriters returns the writer lists (nil when the program has no trace).
func (pi *progInfo) unitWriters(p *backend.Program) *[numUnits][]int64 {
	pi.writersOnce.Do(func() {
		tr := pi.traced(p)
		if tr.err != nil {
			return
		}
		w := new([numUnits][]int64)
		for _, k := range tr.order {
			d := &tr.issue[k]
			in := pi.instrs[d.id]
			if in == nil {
				continue
			}
			for _, def := range in.Defs {
				for _, n := range def.Reg.Units {
					if g := gunit(def.Reg.File, n); g >= 0 && g < numUnits {
						w[g] = append(w[g], d.seq)
					}
				}
			}
		}
		pi.writers = w
	})
	return pi.writers
}

func (pi *progInfo) traced(p *backend.Program) *trace {
	pi.traceOnce.Do(func() {
		noop := make([]bool, len(pi.instrs))
		for id, in := range pi.instrs {
			noop[id] = in == nil || pi.kind[id] == kNop && len(in.Defs) == 0 && len(in.Uses) == 0
		}
		pi.tr = buildTrace(p, noop)
		pi.tops = make([]tInstr, len(pi.instrs))
		pi.fops = make([]fInstr, len(pi.instrs))
		for id, in := range pi.instrs {
			if in != nil {
				pi.tops[id] = timingOps(p, in, pi.kind[id], pi.dec[id])
				pi.fops[id] = prepareF(p, in, pi.kind[id], pi.dec[id])
				pi.fops[id].region = pi.region[id]
			}
		}
		mergeTwins(pi.tops)
		pi.tr.setUnits(pi.tops)
		pi.tr.setWants(pi.tops)
		for k, d := range pi.tr.issue {
			if in := pi.instrs[d.id]; in != nil && in.Mem != nil {
				pi.tr.mems = append(pi.tr.mems, traceMem{k: int32(k), bytes: int32(in.Mem.Bytes), store: in.Mem.Store})
			}
		}
		markReordered(pi.tr)
		markHot(pi.tr)
	})
	return pi.tr
}

func prepare(p *backend.Program) *progInfo {
	return p.Cached(func() any { return buildInfo(p) }).(*progInfo)
}

func buildInfo(p *backend.Program) *progInfo {
	pi := &progInfo{dec: make([]*decoded, p.NumInstrs), kind: make([]uint8, p.NumInstrs),
		instrs: make([]*backend.Instr, p.NumInstrs), region: make([]int32, p.NumInstrs)}
	var shared macTables
	params := map[string]int32{}
	for i, prm := range p.Kernel.Params {
		pi.params = append(pi.params, paramInfo{name: prm.Name, region: prm.Type.IsWindow() || prm.Type.IsPointer(),
			window: prm.Type.IsWindow(), base: p.Layout.Base[prm.Name], desc: p.Layout.Desc[prm.Name]})
		params[prm.Name] = int32(i)
	}
	for _, a := range arrayParams(p) {
		params[a.name] = int32(len(pi.params))
		pi.params = append(pi.params, a)
	}
	pi.sysStart = p.Layout.Stack
	for _, d := range p.Layout.Desc {
		pi.sysStart = min(pi.sysStart, d)
	}
	for _, b := range p.Bundles {
		for _, in := range b.Instrs {
			if in.ID < 0 || in.ID >= len(pi.kind) {
				pi.err = fmt.Errorf("instruction %s has no valid ID", in.Name)
				continue
			}
			pi.instrs[in.ID] = in
			pi.region[in.ID] = -1
			if in.Mem != nil {
				if r, ok := params[in.Mem.Space]; ok {
					pi.region[in.ID] = r
				}
			}
			pi.kind[in.ID] = classify(in)
			if pi.kind[in.ID] == kMAC {
				d, err := decodeMAC(p, in)
				if err != nil && pi.err == nil {
					pi.err = fmt.Errorf("%s: %v", instrName(in), err)
				}
				if d != nil {
					shared.intern(&d.tab)
				}
				pi.dec[in.ID] = d
			}
		}
	}
	// the register units the program names: the only ones a run reads or writes
	var seen [numUnits]bool
	for _, in := range pi.instrs {
		if in == nil {
			continue
		}
		for _, list := range [][]backend.Operand{in.Defs, in.Uses} {
			for _, o := range list {
				for _, n := range o.Reg.Units {
					if g := gunit(o.Reg.File, n); g >= 0 && g < unitBase[backend.NumFiles] && n < backend.FileUnits[o.Reg.File] {
						seen[g] = true
					}
				}
			}
		}
	}
	for g := range seen {
		if seen[g] {
			pi.used = append(pi.used, int32(g))
		}
	}
	return pi
}

// simPool keeps simulators (their 128 KB memory and event rings) between runs.
var simPool = sync.Pool{New: func() any { return new(sim) }}

// Run executes the program.
func Run(p *backend.Program, cfg Config) (*Result, error) {
	pi := prepare(p)
	if pi.err != nil {
		return nil, pi.err
	}
	s := simPool.Get().(*sim)
	defer func() {
		clear(s.inputs) // the pool keeps no reference to the caller's data
		simPool.Put(s)
	}()
	s.runState = runState{p: p, cfg: &cfg, res: &Result{}, dec: pi.dec, kind: pi.kind, instrs: pi.instrs, region: pi.region, pi: pi}
	dirty := s.dirty
	s.dirty, s.stored = [len(s.dirty)]uint64{}, [len(s.stored)]uint64{}
	s.regions = s.regions[:0]
	s.steady = steady{prev: s.steady.prev[:0], cur: s.steady.cur[:0]}
	for i := range s.ring {
		s.ring[i] = s.ring[i][:0]
		s.defers[i] = s.defers[i][:0]
	}
	for f := range s.files {
		if len(s.files[f]) != backend.FileUnits[f] {
			s.files[f] = make([]unit, backend.FileUnits[f])
			for n := range s.files[f] {
				s.files[f][n].file, s.files[f][n].idx = backend.File(f), n
			}
		}
	}
	// Only the units the program names are reset: no instruction reaches the others, which
	// may still hold a previous run's values. The trace engine's pass 2 uses only its own
	// registers (r).
	tr := pi.traced(p)
	traced := tr.err == nil && !useReference
	for _, g := range pi.used {
		if traced {
			s.r.vec[g], s.r.acc[g], s.r.s[g] = [16]byte{}, [8]num.Acc{}, 0
			continue
		}
		f := fileOf(g)
		i := int(g - unitBase[f])
		u := &s.files[f][i]
		*u = unit{file: f, idx: i}
		for j := range u.top {
			u.top[j] = -1
		}
		u.vis = -1 << 40
		u.val[0].seq = -1
		u.val[1].seq = -1
	}
	if len(s.mem) != aie1.ReachBytes {
		s.mem = make([]byte, aie1.ReachBytes)
	} else {
		for w, m := range dirty { // the rest is still zero from the previous run
			for m != 0 {
				pg := 64*w + bits.TrailingZeros64(m)
				m &= m - 1
				clear(s.mem[256*pg : 256*pg+256])
			}
		}
	}
	s.inputs = s.inputs[:0]
	for _, prm := range pi.params {
		s.regions = append(s.regions, [2]int{0, -1})
		s.inputs = append(s.inputs, nil)
		if !prm.region {
			continue
		}
		in := cfg.Data[prm.name]
		size := len(in)
		if n, ok := cfg.Sizes[prm.name]; ok {
			size = n
		}
		if st := prm.storage; st != nil {
			in, size = st.Init, st.Bytes
		}
		base := prm.base
		if base < 0 || base+size > aie1.ReachBytes {
			return nil, fmt.Errorf("region %s (%d bytes at %#x) outside the 128 KB data memory", prm.name, size, base)
		}
		copy(s.mem[base:base+size], in)
		s.markDirty(base, size)
		s.regions[len(s.regions)-1] = [2]int{base, size}
		s.inputs[len(s.inputs)-1] = in
		if prm.window {
			d := prm.desc
			if d < 0 || d+8 > len(s.mem) {
				return nil, fmt.Errorf("window descriptor of %s at %#x outside the data memory", prm.name, d)
			}
			binary.LittleEndian.PutUint32(s.mem[d+4:], uint32(base))
			s.markDirty(d+4, 4)
		}
	}
	s.initADF(pi, &cfg)
	if traced {
		if err := s.timing(tr, pi.tops); err != nil {
			return s.res, err
		}
		if cap(s.addrs) < len(tr.issue) {
			s.addrs = make([]int32, len(tr.issue))
		}
		s.addrs = s.addrs[:len(tr.issue)]
		s.fops = pi.fops
		if err := s.functional(tr); err != nil {
			return s.res, err
		}
		if err := s.memoryPass(tr); err != nil {
			return s.res, err
		}
		s.res.Cycles = tr.bundles + s.res.Stalls
		s.res.SlotUse = tr.slotUse
	} else {
		s.writers = pi.unitWriters(p)
		if err := s.run(); err != nil {
			return s.res, err
		}
	}
	// the regions' final bytes: the input itself where nothing was stored, else copies in one
	// allocation
	total, nreg := 0, 0
	for i, r := range s.regions {
		if r[1] < 0 {
			continue
		}
		nreg++
		if s.unchanged(i) {
			r[1] = -2 // returned as is (regions is rebuilt by every run)
			s.regions[i] = r
		} else {
			total += r[1]
		}
	}
	s.res.Data = make(map[string][]byte, nreg)
	all := make([]byte, total)
	for i, r := range s.regions {
		switch name := pi.params[i].name; {
		case r[1] == -2:
			s.res.Data[name] = s.inputs[i]
		case r[1] >= 0:
			s.res.Data[name] = all[:r[1]:r[1]]
			all = all[copy(all, s.mem[r[0]:r[0]+r[1]]):]
		}
	}
	s.finishADF()
	if s.res.Cycles > 0 {
		s.res.MACsPerCycle = float64(s.res.MACs) / float64(s.res.Cycles)
	}
	return s.res, nil
}

// markStored is markDirty for a store of the program.
func (s *sim) markStored(a, n int) {
	markPages(&s.dirty, a, n)
	markPages(&s.stored, a, n)
}

// unchanged reports whether the region of parameter i still holds exactly the input: no
// store touched its pages and the input covers it whole.
func (s *sim) unchanged(i int) bool {
	r := s.regions[i]
	if len(s.inputs[i]) != r[1] || r[1] <= 0 {
		return false
	}
	for pg := r[0] >> 8; pg <= (r[0]+r[1]-1)>>8; pg++ {
		if s.stored[pg>>6]&(1<<(pg&63)) != 0 {
			return false
		}
	}
	return true
}

// markDirty notes that bytes [a, a+n) of mem were written (a, n inside mem, n > 0).
func (s *sim) markDirty(a, n int) { markPages(&s.dirty, a, n) }

// pages is a set of the 256-byte pages of the data memory.
type pages = [aie1.ReachBytes / 256 / 64]uint64

// markPages adds the pages of bytes [a, a+n) (inside the memory) to p.
func markPages(p *pages, a, n int) {
	for pg := a >> 8; pg <= (a+n-1)>>8 && n > 0; pg++ {
		p[pg>>6] |= 1 << (pg & 63)
	}
}

func (s *sim) fail(in *backend.Instr, format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if in != nil {
		msg = instrName(in) + ": " + msg
	}
	return &Error{Cycle: s.cycle, Msg: msg}
}

func instrName(in *backend.Instr) string {
	n := in.Name
	if in.Text != "" {
		t := in.Text
		if i := strings.Index(t, "; "); i >= 0 {
			t = t[:i]
		}
		n += " " + strings.TrimRight(t, ", ")
	}
	if in.Src != nil && in.Src.Pos.IsValid() {
		n += " (" + in.Src.Pos.String() + ")"
	}
	return n
}

func (s *sim) run() error {
	maxC := s.cfg.MaxCycles
	if maxC <= 0 {
		maxC = 1e9
	}
	var stack loopStack
	loops := s.p.Loops
	bundles := s.p.Bundles
	pc := 0
	var t int64
	for pc < len(bundles) || s.pending() {
		if t > maxC {
			return &Error{Cycle: t, Msg: fmt.Sprintf("more than %d cycles", maxC)}
		}
		s.cycle = t
		// enter loops starting here (outer first: loops are sorted that way)
		for i := range loops {
			l := &loops[i]
			if l.Start != pc {
				continue
			}
			stack.enter(l)
		}
		seqOff := stack.seqOff()
		if pc < len(bundles) {
			if err := s.issue(&bundles[pc], t, seqOff); err != nil {
				return err
			}
			s.res.Cycles++
		} else {
			// drain: results still in flight after the last bundle
			if err := s.retire(t); err != nil {
				return err
			}
		}
		if err := s.late(t); err != nil {
			return err
		}
		t++
		if pc < len(bundles) {
			pc = stack.next(pc)
		}
	}
	s.res.Cycles += s.res.Stalls
	return nil
}

func (s *sim) pending() bool {
	for i := range s.ring {
		if len(s.ring[i]) > 0 || len(s.defers[i]) > 0 {
			return true
		}
	}
	return false
}

// retire applies the writes that become visible at cycle t.
func (s *sim) retire(t int64) error {
	slot := &s.ring[t&63]
	for i := range *slot {
		w := &(*slot)[i]
		u := &s.files[w.file][w.idx]
		c, n := &u.val[u.cur&1], &u.val[(u.cur^1)&1]
		if w.seq < c.seq {
			return s.fail(s.instrs[w.by], "write to %s lands after a later instruction's write (out-of-order write-back)", u.name())
		}
		// n (the value before c) becomes the visible value: carry over from c the parts this
		// write does not replace, only those ever written (the others are zero in both)
		u.kinds |= 1 << w.kind
		if w.kind != 0 && u.kinds&1 != 0 {
			n.vec = c.vec
		}
		if (w.kind != 1 || w.mask != 0) && u.kinds&2 != 0 {
			n.acc = c.acc
		}
		if w.kind != 2 {
			n.s = c.s
		}
		switch w.kind {
		case 0:
			n.vec = w.vec
		case 1:
			if w.mask == 0 {
				n.acc = w.acc
			} else {
				for l := 0; l < 8; l++ {
					if w.mask&(1<<uint(l)) != 0 {
						n.acc[l] = w.acc[l]
					}
				}
			}
		case 2:
			n.s = w.s
		}
		n.seq = w.seq
		u.cur ^= 1
		u.vis = t
	}
	*slot = (*slot)[:0]
	return nil
}

// late performs the deferred (late) operand reads scheduled for cycle t.
func (s *sim) late(t int64) error {
	slot := &s.defers[t&63]
	for i := range *slot {
		d := &(*slot)[i]
		in := s.instrs[d.id]
		if in.Src != nil && !in.Src.Op.IsMAC() { // fpadd/fpmax/...: adf.go
			if err := s.execLane(in, d.seq, d.t, &d.x); err != nil {
				return err
			}
			continue
		}
		if err := s.execMAC(in, d.seq, d.t, &d.x, &d.z); err != nil {
			return err
		}
	}
	*slot = (*slot)[:0]
	return nil
}

// want returns the write a read of u by the instruction of sequence number seq must see:
// the last write to u before it in program order, from the trace's writer lists; without a
// trace (a run too long to keep one), the last write issued so far, which misses a reader
// issued before its writer.
func (s *sim) want(u *unit, seq int64) int64 {
	if s.writers == nil {
		return u.expected(seq)
	}
	ws := s.writers[gunit(u.file, u.idx)]
	i, _ := slices.BinarySearch(ws, seq)
	if i == 0 {
		return -1
	}
	return ws[i-1]
}

// read checks and returns the unit's value as seen in cycle rc by the instruction of dynamic
// sequence number seq.
func (s *sim) readUnit(in *backend.Instr, u *unit, seq, rc, t int64) (vec *[16]byte, acc *[8]num.Acc, sc int64, err error) {
	if s.imm {
		g := gunit(u.file, u.idx)
		return &s.r.vec[g], &s.r.acc[g], s.r.s[g], nil
	}
	want := s.want(u, seq)
	if u.vis <= rc {
		c := &u.val[u.cur&1]
		if c.seq > want {
			return nil, nil, 0, s.fail(in, "latency violation: reads %s in cycle %d but a write issued later in program order has already landed", u.name(), rc)
		}
		if c.seq != want {
			return nil, nil, 0, s.fail(in, "latency violation: reads %s in cycle %d before its producer's result lands", u.name(), rc)
		}
		return &c.vec, &c.acc, c.s, nil
	}
	// The current value landed after the read cycle: the read sees the previous one.
	p := &u.val[(u.cur^1)&1]
	if p.seq != want {
		return nil, nil, 0, s.fail(in, "latency violation: reads %s in cycle %d before its producer's result lands (cycle %d)", u.name(), rc, u.vis)
	}
	return &p.vec, &p.acc, p.s, nil
}

// readVec assembles a vector operand into v.
func (s *sim) readVec(in *backend.Instr, op backend.Operand, seq, t int64, v *kernel.Vec) error {
	rc := t + int64(op.Cycle) - 1
	for i, n := range op.Reg.Units {
		u := &s.files[op.Reg.File][n]
		b, _, _, err := s.readUnit(in, u, seq, rc, t)
		if err != nil {
			return err
		}
		copy(v[16*i:16*i+16], b[:])
	}
	return nil
}

func (s *sim) readAcc(in *backend.Instr, op backend.Operand, seq, t int64, lanesPerUnit int, a *kernel.AccVal) error {
	rc := t + int64(op.Cycle) - 1
	for i, n := range op.Reg.Units {
		u := &s.files[op.Reg.File][n]
		_, ac, _, err := s.readUnit(in, u, seq, rc, t)
		if err != nil {
			return err
		}
		copy(a[i*lanesPerUnit:(i+1)*lanesPerUnit], ac[:lanesPerUnit])
	}
	return nil
}

func (s *sim) readScalar(in *backend.Instr, op backend.Operand, seq, t int64) (int64, error) {
	u := &s.files[op.Reg.File][op.Reg.Units[0]]
	_, _, v, err := s.readUnit(in, u, seq, t+int64(op.Cycle)-1, t)
	return v, err
}

// write schedules a write of op's register to become visible at t + cycle.
// push adds a pending write landing at cycle vis and returns it, to be filled in place (a
// pending write is large: copying or clearing it shows in profiles). Only the header is set:
// the caller writes the whole payload field of its kind (retire reads no other).
func (s *sim) push(vis int64, in *backend.Instr, f backend.File, n int, seq int64, kind uint8) *pendingWrite {
	q := &s.ring[vis&63]
	if len(*q) < cap(*q) {
		*q = (*q)[:len(*q)+1]
	} else {
		*q = append(*q, pendingWrite{})
	}
	w := &(*q)[len(*q)-1]
	w.file, w.idx, w.seq, w.kind, w.mask, w.by = uint8(f), uint8(n), seq, kind, 0, int32(in.ID)
	return w
}

func (s *sim) writeVec(in *backend.Instr, op backend.Operand, seq, t int64, v *kernel.Vec) {
	if s.imm {
		for i, n := range op.Reg.Units {
			s.r.vec[gunit(op.Reg.File, n)] = [16]byte(v[16*i:])
		}
		return
	}
	vis := t + int64(op.Cycle)
	for i, n := range op.Reg.Units {
		w := s.push(vis, in, op.Reg.File, n, seq, 0)
		copy(w.vec[:], v[16*i:16*i+16])
	}
}

func (s *sim) writeAcc(in *backend.Instr, op backend.Operand, seq, t int64, a *kernel.AccVal, lanesPerUnit int) {
	if s.imm {
		for i, n := range op.Reg.Units {
			a8 := &s.r.acc[gunit(op.Reg.File, n)]
			copy(a8[:lanesPerUnit], a[i*lanesPerUnit:(i+1)*lanesPerUnit])
			clear(a8[lanesPerUnit:])
		}
		return
	}
	vis := t + int64(op.Cycle)
	for i, n := range op.Reg.Units {
		w := s.push(vis, in, op.Reg.File, n, seq, 1)
		copy(w.acc[:lanesPerUnit], a[i*lanesPerUnit:(i+1)*lanesPerUnit])
		clear(w.acc[lanesPerUnit:])
	}
}

func (s *sim) writeScalar(in *backend.Instr, op backend.Operand, seq, t int64, v int64) {
	if s.imm {
		s.r.s[gunit(op.Reg.File, op.Reg.Units[0])] = v
		return
	}
	w := s.push(t+int64(op.Cycle), in, op.Reg.File, op.Reg.Units[0], seq, 2)
	w.s = v
}

func (s *sim) noteWrites(in *backend.Instr, seq int64) {
	for _, d := range in.Defs {
		for _, n := range d.Reg.Units {
			s.files[d.Reg.File][n].noteWriter(seq)
		}
	}
}
