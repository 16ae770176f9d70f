package vliw

import (
	"encoding/binary"
	"fmt"
)

// The engine executes a linked Program cycle by cycle. Each cycle it issues one bundle; an
// operation's semantics (Inst.Exec) registers what happens in which pipeline stage (Ctx.At)
// and when each result lands (Ctx.Write). Within a cycle, reads see the registers as they were
// at the start of the cycle; writes land at its end. There are no interlocks: a read sees
// whatever has landed, so a program that reads too early computes a wrong value. The engine
// rejects what it can prove wrong:
//
//   - raw:    a read of bytes no write has reached yet, or (for annotated instructions) a read
//     that finds another value than the one it is meant to read;
//   - waw:    two writes of one byte landing in the same cycle;
//   - slot, format, loop: found by Link before the run;
//   - whatever the ISA reports through Ctx.Fail (FIFO underflow, misaligned access, ...).
//
// Bank conflicts are not errors: two accesses to one bank in one cycle stall the core one
// cycle per extra access (the stall freezes the whole pipeline, so it changes no value and
// only adds cycles).

const ring = 32 // cycles an operation may look ahead (longest stage + margin)

// Stats are a run's counts.
type Stats struct {
	Bundles  int64            // bundles issued ("instructions")
	Stalls   int64            // cycles lost to bank conflicts
	Cycles   int64            // Bundles + Stalls
	Counters map[string]int64 // per-ISA counts (e.g. "vmac")
}

type writeRec struct {
	in     *Inst
	bundle int
	cycle  int64
	key    Key
	hasKey bool
}

type landing struct {
	reg  *Reg
	mem  bool
	addr int
	data []byte
	rec  int32
	in   *Inst
}

// Sim is one run of a program.
type Sim struct {
	M *Machine
	P *Program
	// MaxBundles stops a run that does not end (0: 10 million).
	MaxBundles int64

	regs  [][]byte
	tags  [][]int32
	stamp [][]int64
	mem   []byte
	memOK []bool
	memSt []int64
	recs  []writeRec

	events   [ring][]func()
	pend     [ring][]landing
	cycle    int64
	bankUse  map[int]int
	trip     int32
	err      *Hazard
	prev     []*Inst
	stats    Stats
	retAt    int64
	inflight int
}

// NewSim prepares a run. Registers start unwritten; Init* set the caller's arguments.
func NewSim(m *Machine, p *Program) *Sim {
	s := &Sim{M: m, P: p, mem: make([]byte, m.MemBytes), memOK: make([]bool, m.MemBytes), memSt: make([]int64, m.MemBytes),
		recs: []writeRec{{}, {}}, bankUse: map[int]int{}, retAt: -1}
	for _, f := range m.Files {
		s.regs = append(s.regs, make([]byte, f.Count*f.Bytes))
		s.tags = append(s.tags, make([]int32, f.Count*f.Bytes))
		s.stamp = append(s.stamp, make([]int64, f.Count*f.Bytes))
	}
	s.stats.Counters = map[string]int64{}
	for _, n := range []string{"ls", "le", "lc"} {
		if r, ok := m.Reg(n); ok {
			s.setReg(r, make([]byte, r.Bytes), 1)
		}
	}
	return s
}

// InitReg sets a register before the run (a kernel argument), little-endian.
func (s *Sim) InitReg(name string, v int64) error {
	r, ok := s.M.Reg(name)
	if !ok {
		return fmt.Errorf("no register %s", name)
	}
	b := make([]byte, r.Bytes)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	s.setReg(r, b, 1)
	return nil
}

// InitMem places data in memory; only initialized bytes may be loaded.
func (s *Sim) InitMem(addr int, data []byte) error {
	if addr < 0 || addr+len(data) > len(s.mem) {
		return fmt.Errorf("buffer [%d, %d) outside the %d-byte memory", addr, addr+len(data), len(s.mem))
	}
	copy(s.mem[addr:], data)
	for i := range data {
		s.memOK[addr+i] = true
	}
	return nil
}

// MarkMem makes bytes loadable without setting them (an output buffer read back).
func (s *Sim) MarkMem(addr, n int) {
	for i := addr; i < addr+n && i < len(s.memOK); i++ {
		s.memOK[i] = true
	}
}

// Mem returns the data memory after the run.
func (s *Sim) Mem() []byte { return s.mem }

// RegBytes returns a register's current bytes.
func (s *Sim) RegBytes(name string) []byte {
	r, ok := s.M.Reg(name)
	if !ok {
		return nil
	}
	return s.readRaw(r)
}

func (s *Sim) setReg(r *Reg, data []byte, rec int32) {
	k := 0
	for _, l := range r.Locs {
		copy(s.regs[l.File][l.Off:l.Off+l.Len], data[k:k+l.Len])
		for i := l.Off; i < l.Off+l.Len; i++ {
			s.tags[l.File][i] = rec
		}
		k += l.Len
	}
}

func (s *Sim) readRaw(r *Reg) []byte {
	out := make([]byte, 0, r.Bytes)
	for _, l := range r.Locs {
		out = append(out, s.regs[l.File][l.Off:l.Off+l.Len]...)
	}
	return out
}

func (s *Sim) fail(rule string, bundle int, in *Inst, format string, args ...any) {
	if s.err != nil {
		return
	}
	line := 0
	if in != nil {
		line = in.Line
	}
	s.err = &Hazard{Rule: rule, Cycle: s.cycle, Bundle: bundle, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Run executes the program from its first bundle until it returns (after the branch delay
// slots) or runs past its last bundle, then drains the pipeline.
func (s *Sim) Run() (Stats, error) {
	if s.MaxBundles == 0 {
		s.MaxBundles = 10_000_000
	}
	pc := 0
	halted := len(s.P.Bundles) == 0
	for {
		issued := -1
		if !halted {
			if s.stats.Bundles >= s.MaxBundles {
				return s.stats, fmt.Errorf("program did not finish within %d bundles", s.MaxBundles)
			}
			issued = pc
			s.issue(pc)
		}
		s.step()
		if s.err != nil {
			s.stats.Cycles = s.stats.Bundles + s.stats.Stalls
			return s.stats, s.err
		}
		if !halted {
			pc = s.next(issued)
			if s.retAt >= 0 && s.cycle >= s.retAt || pc >= len(s.P.Bundles) {
				halted = true
			}
		}
		s.cycle++
		if halted && s.inflight == 0 {
			break
		}
	}
	s.stats.Cycles = s.stats.Bundles + s.stats.Stalls
	return s.stats, nil
}

// issue starts every operation of bundle bi in the current cycle.
func (s *Sim) issue(bi int) {
	b := s.P.Bundles[bi]
	s.stats.Bundles++
	for _, in := range b.Insts {
		if in.Exec == nil {
			continue
		}
		c := &Ctx{S: s, In: in, Bundle: bi, Issue: s.cycle}
		if in.Ann != nil {
			c.It = in.Ann.Iter + s.trip*in.Ann.IterStep
		}
		in.Exec(c)
	}
	s.prev = b.Insts
}

// step runs the current cycle's reads, counts bank conflicts and lands its writes.
func (s *Sim) step() {
	slot := s.cycle % ring
	evs := s.events[slot]
	s.events[slot] = nil
	for _, f := range evs {
		f()
		s.inflight--
	}
	worst := 0
	for _, n := range s.bankUse {
		worst = max(worst, n)
	}
	if worst > 1 {
		s.stats.Stalls += int64(worst - 1)
	}
	clear(s.bankUse)
	lands := s.pend[slot]
	s.pend[slot] = nil
	stampV := s.cycle + 1
	for _, l := range lands {
		s.inflight--
		if l.mem {
			for i := range l.data {
				a := l.addr + i
				if s.memSt[a] == stampV {
					s.fail("waw", -1, l.in, "two stores write address %d in the same cycle", a)
				}
				s.memSt[a] = stampV
			}
			copy(s.mem[l.addr:], l.data)
			for i := range l.data {
				s.memOK[l.addr+i] = true
			}
			continue
		}
		k := 0
		for _, loc := range l.reg.Locs {
			for i := loc.Off; i < loc.Off+loc.Len; i++ {
				if s.stamp[loc.File][i] == stampV {
					o := s.recs[s.tags[loc.File][i]]
					s.fail("waw", s.recs[l.rec].bundle, l.in, "%s: two writes land in %s in the same cycle (the other from %q)", l.in, l.reg.Name, o.in)
				}
				s.stamp[loc.File][i] = stampV
				s.tags[loc.File][i] = l.rec
			}
			copy(s.regs[loc.File][loc.Off:loc.Off+loc.Len], l.data[k:k+loc.Len])
			k += loc.Len
		}
	}
}

// next returns the bundle to issue after bundle bi: the hardware loop jumps from its last
// bundle back to its first while the loop count is above one (zero overhead).
func (s *Sim) next(bi int) int {
	if s.P.LoopEnd < 0 {
		return bi + 1
	}
	le := s.u32("le")
	lc := s.u32("lc")
	if int(le) != s.P.Addr[bi] || lc == 0 {
		return bi + 1
	}
	lcReg, _ := s.M.Reg("lc")
	if lc > 1 {
		ls := int(s.u32("ls"))
		for i, a := range s.P.Addr {
			if a == ls {
				s.setReg(lcReg, le32(lc-1), 1)
				s.trip++
				return i
			}
		}
		s.fail("loop", bi, nil, "loop start register holds %d, not the address of a bundle", ls)
		return bi + 1
	}
	s.setReg(lcReg, le32(0), 1)
	return bi + 1
}

func (s *Sim) u32(name string) uint32 {
	r, _ := s.M.Reg(name)
	return binary.LittleEndian.Uint32(s.readRaw(r))
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// Ctx is one issued operation's view of the machine.
type Ctx struct {
	S      *Sim
	In     *Inst
	Bundle int
	Issue  int64 // issue cycle
	It     int32 // iteration (annotated instructions)
}

// At runs f in the operation's stage st (stage 1 = the issue cycle).
func (c *Ctx) At(st int, f func()) {
	if st < 1 || st > ring {
		panic(fmt.Sprintf("vliw: stage %d out of range", st))
	}
	cyc := c.Issue + int64(st) - 1
	c.S.events[cyc%ring] = append(c.S.events[cyc%ring], f)
	c.S.inflight++
}

// Now is the current cycle.
func (c *Ctx) Now() int64 { return c.S.cycle }

// Read returns a register's bytes at the current cycle. arg is the operand index the
// register came from (-1 if none): annotated reads are checked against the value they mean.
func (c *Ctx) Read(r *Reg, arg int) []byte {
	s := c.S
	var want *Key
	if c.In.Ann != nil && arg >= 0 {
		for _, u := range c.In.Ann.Uses {
			if u.Arg == arg {
				want = &Key{V: u.V, It: c.It + u.Delta}
			}
		}
	}
	for _, l := range r.Locs {
		for i := l.Off; i < l.Off+l.Len; i++ {
			t := s.tags[l.File][i]
			if t == 0 {
				c.rawFail(r, l.File, i, want, "reads %s before any write to it has landed", r.Name)
				return s.readRaw(r)
			}
			if want != nil {
				rec := s.recs[t]
				if !rec.hasKey || rec.key != *want {
					held := "a caller-set value"
					if rec.in != nil {
						held = fmt.Sprintf("the result of %q (bundle %d, landed in cycle %d)", rec.in, rec.bundle, rec.cycle)
					}
					c.rawFail(r, l.File, i, want, "reads %s holding %s, but needs value %d of iteration %d", r.Name, held, want.V, want.It)
					return s.readRaw(r)
				}
			}
		}
	}
	return s.readRaw(r)
}

// rawFail reports a read hazard, naming the write the read should have waited for if one is
// in flight.
func (c *Ctx) rawFail(r *Reg, file, off int, want *Key, format string, args ...any) {
	s := c.S
	msg := fmt.Sprintf(format, args...)
	for d := int64(0); d < ring; d++ {
		for _, l := range s.pend[(s.cycle+d)%ring] {
			if l.mem {
				continue
			}
			rec := s.recs[l.rec]
			if want != nil && (!rec.hasKey || rec.key != *want) {
				continue
			}
			for _, loc := range l.reg.Locs {
				if loc.File == file && off >= loc.Off && off < loc.Off+loc.Len {
					msg += fmt.Sprintf(": the read comes before the producing write of %q (bundle %d) lands in cycle %d", rec.in, rec.bundle, s.cycle+d)
					s.fail("raw", c.Bundle, c.In, "%s: %s", c.In, msg)
					return
				}
			}
		}
	}
	s.fail("raw", c.Bundle, c.In, "%s: %s", c.In, msg)
}

// ReadRaw returns a register's bytes without any check (internal state such as a FIFO).
func (c *Ctx) ReadRaw(r *Reg) []byte { return c.S.readRaw(r) }

// ReadU32 reads a 32-bit (or narrower) scalar register as a signed value.
func (c *Ctx) ReadU32(r *Reg, arg int) int64 {
	b := c.Read(r, arg)
	var v uint32
	for i := 0; i < len(b) && i < 4; i++ {
		v |= uint32(b[i]) << (8 * i)
	}
	return int64(int32(v))
}

func (c *Ctx) rec() int32 {
	s := c.S
	w := writeRec{in: c.In, bundle: c.Bundle, cycle: -1}
	if c.In.Ann != nil && c.In.Ann.Def >= 0 {
		w.key, w.hasKey = Key{V: c.In.Ann.Def, It: c.It}, true
	}
	s.recs = append(s.recs, w)
	return int32(len(s.recs) - 1)
}

// Write makes data land in register r at the end of the operation's stage st.
func (c *Ctx) Write(st int, r *Reg, data []byte) {
	if len(data) != r.Bytes {
		panic(fmt.Sprintf("vliw: %d bytes written to %s (%d)", len(data), r.Name, r.Bytes))
	}
	cyc := c.Issue + int64(st) - 1
	if cyc < c.S.cycle {
		panic("vliw: write lands in the past")
	}
	id := c.rec()
	c.S.recs[id].cycle = cyc
	c.S.pend[cyc%ring] = append(c.S.pend[cyc%ring], landing{reg: r, data: append([]byte(nil), data...), rec: id, in: c.In})
	c.S.inflight++
}

// WriteI32 writes a scalar register.
func (c *Ctx) WriteI32(st int, r *Reg, v int64) {
	b := make([]byte, r.Bytes)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	c.Write(st, r, b)
}

func (c *Ctx) bankAccess(addr, n int) {
	for b := addr / c.S.M.BankBytes; b <= (addr+n-1)/c.S.M.BankBytes; b++ {
		c.S.bankUse[b]++
	}
}

// Load reads data memory now (call it from the operation's memory stage). Every byte must
// hold data (an input, or something stored before).
func (c *Ctx) Load(addr, n int) []byte { return c.load(addr, n, true) }

// Fetch is Load for a streaming pipeline that may read past the data it will use (the
// fill/pop FIFO fetches whole 64-byte lines): bytes that hold no data are not an error.
func (c *Ctx) Fetch(addr, n int) []byte { return c.load(addr, n, false) }

func (c *Ctx) load(addr, n int, strict bool) []byte {
	s := c.S
	if addr < 0 || addr+n > len(s.mem) {
		c.Fail("bounds", "load of %d bytes at address %d outside the %d-byte memory", n, addr, len(s.mem))
		return make([]byte, n)
	}
	for i := addr; strict && i < addr+n; i++ {
		if !s.memOK[i] {
			c.Fail("bounds", "load of %d bytes at address %d reaches byte %d, which holds no data", n, addr, i)
			break
		}
	}
	c.bankAccess(addr, n)
	return append([]byte(nil), s.mem[addr:addr+n]...)
}

// Store writes data memory at the end of the current cycle (call it from the memory stage).
func (c *Ctx) Store(addr int, data []byte) {
	s := c.S
	if addr < 0 || addr+len(data) > len(s.mem) {
		c.Fail("bounds", "store of %d bytes at address %d outside the %d-byte memory", len(data), addr, len(s.mem))
		return
	}
	c.bankAccess(addr, len(data))
	cyc := s.cycle
	s.pend[cyc%ring] = append(s.pend[cyc%ring], landing{mem: true, addr: addr, data: append([]byte(nil), data...), in: c.In})
	s.inflight++
}

// Fail reports a hazard of the given rule.
func (c *Ctx) Fail(rule, format string, args ...any) {
	c.S.fail(rule, c.Bundle, c.In, "%s: %s", c.In, fmt.Sprintf(format, args...))
}

// Count adds one to a named counter.
func (c *Ctx) Count(name string) { c.S.stats.Counters[name]++ }

// Prev returns the operations of the bundle issued in the previous cycle.
func (c *Ctx) Prev() []*Inst {
	if c.Issue == 0 {
		return nil
	}
	return c.S.prevOf(c)
}

func (s *Sim) prevOf(c *Ctx) []*Inst {
	// s.prev is updated when a bundle issues: during issue it still holds the previous one
	// for the operations issued before the bundle completes (issue sets it last).
	return s.prev
}

// Return ends the program after the machine's branch delay slots.
func (c *Ctx) Return() {
	if c.S.retAt >= 0 {
		c.Fail("branch", "a return in the delay slots of another")
		return
	}
	c.S.retAt = c.Issue + int64(c.S.M.BranchDelay)
}
