package interp

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Run executes the program on cfg.
func (p *Program) Run(cfg Config) (*Result, error) {
	k := p.k
	regs, err := regionsOf(k, cfg.Sizes, cfg.Data, 0)
	if err != nil {
		return nil, err
	}
	if err := Place(regs, cfg.limit); err != nil {
		return nil, err
	}
	end := 0
	for _, r := range regs {
		if e := int(r.Addr) + r.Size; e > end {
			end = e
		}
	}
	m := &machine{p: p, cfg: &cfg, ints: make([]int64, p.nInts), ptrReg: make([]int32, p.nInts),
		vecs: make([]kernel.Vec, p.nVecs), accs: make([]kernel.AccVal, p.nAccs), written: make([]bool, len(k.Vars)),
		mem: make([]byte, max(end, memLimit(cfg.limit))), regs: regs, extent: make([]int, len(regs)), round: cfg.Round, sat: cfg.Sat,
		res: &Result{Regions: regs}}
	for i := range m.ptrReg {
		m.ptrReg[i] = -1
	}
	ri := 0
	for _, prm := range k.Params {
		slot := p.slotOf[prm.ID]
		switch {
		case prm.Type.IsStream():
			st := stream{name: prm.Name, out: prm.Type.Out}
			if !st.out {
				st.data = cfg.Data[prm.Name]
				if n, ok := cfg.Sizes[prm.Name]; ok && n > len(st.data) {
					st.data = append(append([]byte(nil), st.data...), make([]byte, n-len(st.data))...)
				}
			}
			m.ints[slot] = int64(len(m.streams))
			m.streams = append(m.streams, st)
		case prm.Type.IsWindow() || prm.Type.IsPointer():
			r := &regs[ri]
			copy(m.mem[r.Addr:], cfg.Data[prm.Name])
			if prm.Type.IsPointer() {
				m.ints[slot] = int64(r.Addr)
			} else {
				m.ints[slot] = 0 // window position (byte offset)
			}
			m.ptrReg[slot] = int32(ri)
			ri++
		default:
			v, ok := cfg.Scalars[prm.Name]
			if !ok {
				return nil, fmt.Errorf("no value for scalar parameter %s (%v)", prm.Name, prm.Type)
			}
			m.ints[slot] = v
		}
		m.written[prm.ID] = true
	}
	for _, v := range k.Vars {
		if v.Storage == nil {
			continue
		}
		for ; ri < len(regs) && regs[ri].Name != v.Name; ri++ {
		}
		if ri == len(regs) {
			return nil, fmt.Errorf("internal: no region for array %s", v.Name)
		}
		r := &regs[ri]
		copy(m.mem[r.Addr:int(r.Addr)+r.Size], v.Storage.Init)
		slot := p.slotOf[v.ID]
		m.ints[slot] = int64(r.Addr)
		m.ptrReg[slot] = int32(ri)
		m.written[v.ID] = true
		ri++
	}
	if err := m.exec(); err != nil {
		return nil, err
	}
	res := m.res
	res.Data = map[string][]byte{}
	res.Extent = map[string]int{}
	for i, r := range regs {
		res.Data[r.Name] = append([]byte(nil), m.mem[r.Addr:int(r.Addr)+r.Size]...)
		res.Extent[r.Name] = m.extent[i]
	}
	for _, st := range m.streams {
		if st.out {
			res.Data[st.name] = st.data
			res.Extent[st.name] = len(st.data)
		} else {
			res.Data[st.name] = st.data
			res.Extent[st.name] = st.pos
		}
	}
	res.CycleReads = m.cycles
	for _, prm := range k.Params {
		if m.wrapped[prm.Name] {
			res.Wrapped = append(res.Wrapped, prm.Name)
		}
	}
	res.Accs = map[string][]num.Acc{}
	res.Vectors = map[string][]byte{}
	for _, v := range k.Vars {
		if !m.written[v.ID] {
			continue
		}
		switch v.Type.Class {
		case kernel.Accum:
			a := m.accs[p.slotOf[v.ID]]
			res.Accs[v.Name] = append([]num.Acc(nil), a[:v.Type.Lanes]...)
		case kernel.Vector:
			b := m.vecs[p.slotOf[v.ID]]
			res.Vectors[v.Name] = append([]byte(nil), b[:v.Type.Bytes()]...)
		}
	}
	return res, nil
}

func cmpHolds(c kernel.Cmp, a, b int64) bool {
	switch c {
	case kernel.Lt:
		return a < b
	case kernel.Le:
		return a <= b
	case kernel.Gt:
		return a > b
	case kernel.Ge:
		return a >= b
	}
	return a != b
}

func (m *machine) exec() error {
	maxSteps := m.cfg.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 2e9
	}
	code := m.p.code
	steps := int64(0)
	for pc := 0; pc < len(code); {
		ci := &code[pc]
		steps++
		if steps > maxSteps {
			m.res.Steps = steps
			return m.fail(ci, "more than %d instructions executed (a loop that does not end?)", maxSteps)
		}
		switch ci.code {
		case cLoopInit:
			start := m.numAs(&ci.args[0], ci.ctr.elem, ci)
			lim := m.numAs(&ci.args[1], ci.ctr.elem, ci)
			m.ints[ci.lim] = lim
			m.ints[ci.ctr.slot] = start
			if ci.ctr.id >= 0 {
				m.written[ci.ctr.id] = true
			}
			if !cmpHolds(ci.loop.Cmp, start, lim) {
				pc = ci.jump
				continue
			}
			pc++
		case cLoopNext:
			v := ci.ctr.elem.Wrap(m.ints[ci.ctr.slot] + ci.loop.Step.Imm)
			m.ints[ci.ctr.slot] = v
			if cmpHolds(ci.loop.Cmp, v, m.ints[ci.lim]) {
				pc = ci.jump
			} else {
				pc++
			}
		case cIf:
			if m.scalar(&ci.args[0], ci) == 0 {
				pc = ci.jump
			} else {
				pc++
			}
		case cJump:
			pc = ci.jump
		default:
			if err := m.op(ci); err != nil {
				m.res.Steps = steps
				return err
			}
			if ci.has {
				m.written[ci.dst.id] = true
			}
			pc++
		}
	}
	m.res.Steps = steps
	return nil
}

// op executes one instruction.
func (m *machine) op(ci *cinstr) error {
	a := ci.args
	switch op := ci.op; {
	case op == kernel.OpMov:
		switch ci.dst.typ.Class {
		case kernel.Vector:
			m.vecs[ci.dst.slot] = *m.vec(&a[0], ci)
		case kernel.Accum:
			m.accs[ci.dst.slot] = *m.acc(&a[0], ci)
		case kernel.Pointer:
			m.ints[ci.dst.slot] = m.scalar(&a[0], ci)
			if !a[0].imm {
				m.ptrReg[ci.dst.slot] = m.ptrReg[a[0].slot]
			} else {
				m.ptrReg[ci.dst.slot] = -1
			}
		default:
			from := a[0].elem
			if a[0].imm && !a[0].isF {
				from = kernel.Int32
				if a[0].val > math.MaxInt32 || a[0].val < math.MinInt32 {
					from = kernel.UInt32 // a large literal such as 0xFFFFFFFF
				}
			}
			setScalar(&m.ints[ci.dst.slot], m.scalar(&a[0], ci), from, ci.dst.elem)
		}
	case op == kernel.OpPtrAdd:
		n := m.numAs(&a[1], kernel.Int32, ci)
		m.ints[ci.dst.slot] = m.scalar(&a[0], ci) + n*int64(a[0].typ.Pointee().Bytes())
		m.ptrReg[ci.dst.slot] = m.ptrReg[a[0].slot]
	case op.IsScalarArith():
		return m.arith(ci)
	case op == kernel.OpVAdd || op == kernel.OpVSub:
		sub := op == kernel.OpVSub
		t0, t1 := a[0].typ, a[1].typ
		switch {
		case t0.IsVector():
			kernel.VAdd(sub, t0.Elem, t0.Lanes, m.vec(&a[0], ci), m.vec(&a[1], ci), &m.vecs[ci.dst.slot])
		case t1.IsAcc():
			kernel.AccAdd(sub, t0.Lanes, t0.Elem.Bits(), m.acc(&a[0], ci), m.acc(&a[1], ci), &m.accs[ci.dst.slot])
		default:
			kernel.AccAddVec(sub, t0.Lanes, t0.Elem.Bits(), m.acc(&a[0], ci), m.vec(&a[1], ci), t1.Elem, &m.accs[ci.dst.slot])
		}
	case op == kernel.OpUpdV || op == kernel.OpUpdW || op == kernel.OpUpdX:
		idx := int(m.numAs(&a[1], kernel.Int32, ci))
		if err := kernel.Upd(m.vec(&a[0], ci), a[0].typ.Bytes(), op.PartBits(), idx, m.vec(&a[2], ci), &m.vecs[ci.dst.slot]); err != nil {
			return m.fail(ci, "%v: %v", op, err)
		}
	case op == kernel.OpExtV || op == kernel.OpExtW || op == kernel.OpExtX:
		idx := int(m.numAs(&a[1], kernel.Int32, ci))
		if err := kernel.Ext(m.vec(&a[0], ci), a[0].typ.Bytes(), op.PartBits(), idx, &m.vecs[ci.dst.slot]); err != nil {
			return m.fail(ci, "%v: %v", op, err)
		}
	case op == kernel.OpConcat:
		if a[0].typ.IsAcc() {
			var parts [4]*kernel.AccVal
			for i := range a {
				parts[i] = m.acc(&a[i], ci)
			}
			kernel.ConcatAcc(&m.accs[ci.dst.slot], a[0].typ.Lanes, parts[:len(a)]...)
		} else {
			var parts [4]*kernel.Vec
			for i := range a {
				parts[i] = m.vec(&a[i], ci)
			}
			kernel.Concat(&m.vecs[ci.dst.slot], a[0].typ.Bytes(), parts[:len(a)]...)
		}
	case op == kernel.OpExtElem:
		idx := int(m.numAs(&a[1], kernel.Int32, ci))
		t := a[0].typ
		if idx < 0 || idx >= t.Lanes {
			return m.fail(ci, "ext_elem: lane %d out of range for %v", idx, t)
		}
		setScalar(&m.ints[ci.dst.slot], m.vec(&a[0], ci).Lane(t.Elem, idx), t.Elem, ci.dst.elem)
	case op == kernel.OpUpdElem:
		idx := int(m.numAs(&a[1], kernel.Int32, ci))
		t := a[0].typ
		if idx < 0 || idx >= t.Lanes {
			return m.fail(ci, "upd_elem: lane %d out of range for %v", idx, t)
		}
		v := *m.vec(&a[0], ci)
		var s int64
		setScalar(&s, m.numAs(&a[2], ctype(a[2:3]), ci), ctype(a[2:3]), t.Elem)
		v.SetLane(t.Elem, idx, s)
		m.vecs[ci.dst.slot] = v
	case op == kernel.OpUndef || op == kernel.OpNull:
		// undef_* has no defined contents; sumac gives zeros (as null_*), and the g++
		// emulation header does the same, so results never depend on stale registers.
		if ci.dst.typ.IsAcc() {
			m.accs[ci.dst.slot] = kernel.AccVal{}
		} else {
			m.vecs[ci.dst.slot] = kernel.Vec{}
		}
	case op == kernel.OpSRS || op == kernel.OpLSRS || op == kernel.OpBSRS || op == kernel.OpUBSRS:
		acc := m.acc(&a[0], ci)
		lanes := a[0].typ.Lanes
		if m.cfg.OnNarrow != nil {
			copy(m.narrow[:lanes], acc[:lanes])
			m.cfg.OnNarrow(ci.src, m.narrow[:lanes])
		}
		shift := int(m.numAs(&a[1], kernel.Int32, ci))
		if shift < 0 || shift > num.MaxShift {
			return m.fail(ci, "%v: shift %d out of range 0..%d", op, shift, num.MaxShift)
		}
		n := kernel.SRS(acc, lanes, shift, ci.dst.elem, m.round, m.sat, &m.vecs[ci.dst.slot])
		m.res.Narrowed += int64(lanes)
		m.res.Saturated += int64(n)
	case op == kernel.OpUPS || op == kernel.OpLUPS:
		shift := int(m.numAs(&a[1], kernel.Int32, ci))
		if shift < 0 || shift > num.MaxShift {
			return m.fail(ci, "%v: shift %d out of range 0..%d", op, shift, num.MaxShift)
		}
		t := a[0].typ
		kernel.UPS(m.vec(&a[0], ci), t.Elem, t.Lanes, shift, ci.dst.elem.Bits(), &m.accs[ci.dst.slot])
	case op.IsMAC():
		return m.mac(ci)
	case op == kernel.OpWinRead || op == kernel.OpWinReadIncr:
		return m.winRead(ci, op == kernel.OpWinReadIncr)
	case op == kernel.OpWinWrite || op == kernel.OpWinWriteIncr:
		return m.winWrite(ci, op == kernel.OpWinWriteIncr)
	case op == kernel.OpWinIncr:
		w := &a[0]
		n := m.numAs(&a[1], kernel.Int32, ci)
		m.move(w, n*int64(w.typ.Elem.Bytes()))
	case op == kernel.OpLoad || op == kernel.OpStore:
		return m.mem1(ci, op == kernel.OpStore)
	case op == kernel.OpSetRnd:
		m.round = num.Round(a[0].val)
	case op == kernel.OpSetSat:
		m.sat = num.Sat(a[0].val)
	case op == kernel.OpSelect:
		c := m.scalar(&a[0], ci)
		if a[0].elem == kernel.Float32 {
			c = b2iF(c)
		}
		pick := &a[2]
		if c != 0 {
			pick = &a[1]
		}
		switch ci.dst.typ.Class {
		case kernel.Vector:
			m.vecs[ci.dst.slot] = *m.vec(pick, ci)
		case kernel.Accum:
			m.accs[ci.dst.slot] = *m.acc(pick, ci)
		case kernel.Pointer:
			m.ints[ci.dst.slot] = m.scalar(pick, ci)
			m.ptrReg[ci.dst.slot] = m.ptrReg[pick.slot]
		default:
			ct := kernel.Promote(a[1].elem, a[2].elem)
			setScalar(&m.ints[ci.dst.slot], m.numAs(pick, ct, ci), ct, ci.dst.elem)
		}
	case op == kernel.OpBarrier:
	case op == kernel.OpCycles:
		var v int64
		if m.cycles < len(m.cfg.CycleReads) {
			v = m.cfg.CycleReads[m.cycles]
		}
		m.cycles++
		m.ints[ci.dst.slot] = ci.dst.elem.Wrap(v)
	case op == kernel.OpWinPtr:
		w := &a[0]
		m.accessed(w)
		m.ints[ci.dst.slot] = int64(m.regs[m.ptrReg[w.slot]].Addr) + m.ints[w.slot]
		m.ptrReg[ci.dst.slot] = m.ptrReg[w.slot]
	case op == kernel.OpUnpack:
		kernel.Unpack(m.vec(&a[0], ci), a[0].typ.Elem, a[0].typ.Lanes, &m.vecs[ci.dst.slot])
	case op == kernel.OpFPShuffle:
		xs := m.numAs(&a[1], kernel.Int32, ci)
		xo := m.numAs(&a[2], kernel.UInt32, ci)
		kernel.FPShuffle(m.vec(&a[0], ci), a[0].typ.Lanes, xs, xo, &m.vecs[ci.dst.slot])
	case op.IsFPLane():
		xs := m.numAs(&a[2], kernel.Int32, ci)
		xo := m.numAs(&a[3], kernel.UInt32, ci)
		kernel.FPLane(op, m.vec(&a[0], ci), m.vec(&a[1], ci), a[1].typ.Lanes, xs, xo, &m.vecs[ci.dst.slot])
	case op == kernel.OpVMax || op == kernel.OpVMin:
		t := a[0].typ
		kernel.VMaxMin(op == kernel.OpVMin, t.Elem, t.Lanes, m.vec(&a[0], ci), m.vec(&a[1], ci), &m.vecs[ci.dst.slot])
	case op == kernel.OpBroadcast:
		t := ci.dst.typ
		ct := ctype(a[:1])
		v := kernel.Convert(m.numAs(&a[0], ct, ci), ct, t.Elem)
		kernel.Broadcast(t.Elem, t.Lanes, v, &m.vecs[ci.dst.slot])
	case op == kernel.OpStreamRead:
		return m.streamRead(ci)
	case op == kernel.OpStreamWrite:
		return m.streamWrite(ci)
	default:
		return m.fail(ci, "the interpreter does not implement %v", op)
	}
	return nil
}

// arith executes scalar arithmetic and comparisons (kernel.Arith: C semantics on 32-bit
// int, unsigned or float), converting the result to the destination's type.
func (m *machine) arith(ci *cinstr) error {
	a := ci.args
	ct := ci.ct
	x := m.numAs(&a[0], ct, ci)
	var y int64
	if len(a) > 1 {
		y = m.numAs(&a[1], ci.yt, ci)
	}
	r, rt, err := kernel.Arith(ci.op, ct, x, y)
	if err != nil {
		return m.fail(ci, "%v", err)
	}
	setScalar(&m.ints[ci.dst.slot], r, rt, ci.dst.elem)
	return nil
}

func (m *machine) mac(ci *cinstr) error {
	a := ci.args
	l := &ci.lay
	sel := &ci.sel
	if !ci.constSel {
		var vals [10]int64
		for i, idx := range paramIdx(*l) {
			if idx >= 0 {
				vals[i] = m.numAs(&a[idx], kernel.Int32, ci)
			}
		}
		var p kernel.MACParams
		fillParams(&p, vals)
		if err := kernel.DecodeMAC(ci.form, ci.xLen, ci.zLen, p, sel); err != nil {
			return m.fail(ci, "%v: %v", ci.op, err)
		}
	}
	x, z := m.vec(&a[l.X], ci), m.vec(&a[l.Z], ci)
	if ci.form == kernel.FormFloat {
		acc := &kernel.Vec{}
		if l.Acc >= 0 {
			acc = m.vec(&a[l.Acc], ci)
		}
		kernel.MACFloat(ci.kind, sel, acc, x, z, &m.vecs[ci.dst.slot])
	} else {
		acc := &kernel.AccVal{}
		if l.Acc >= 0 {
			acc = m.acc(&a[l.Acc], ci)
		}
		kernel.MACInt(ci.kind, sel, acc, x, ci.xe, ci.xLen, z, ci.ze, ci.zLen, &m.accs[ci.dst.slot])
	}
	m.res.MACs += int64(sel.Lanes * sel.Cols)
	m.res.MACOps++
	return nil
}

// winRead reads a value of Dst's type at the window position (then advances past it).
func (m *machine) winRead(ci *cinstr, incr bool) error {
	w := &ci.args[0]
	t := ci.dst.typ
	n := t.Bytes()
	r := m.ptrReg[w.slot]
	addr := int64(m.regs[r].Addr) + m.ints[w.slot]
	pos := m.ints[w.slot]
	what := func() string {
		return fmt.Sprintf("%s(%s) at element %d", kernel.CallName(ci.op, t), m.regs[r].Name, pos/int64(w.typ.Elem.Bytes()))
	}
	// a read through the window API that straddles the window's end stays an error (the
	// g++ emulation's windows stop there too); reads past a window go through its pointer
	if err := m.access(ci, what, r, addr, n, accessAlign(t), false); err != nil {
		return err
	}
	m.accessed(w)
	m.loadValue(t, addr, ci)
	if incr {
		m.move(w, int64(n))
	}
	return nil
}

// move advances a window's position by delta bytes. ADF windows are circular: every move
// is taken modulo the window's size, window and margin included (UG1079 2023.1 "Kernel
// Conversion"; the ADF window header's cyclic_add: ptr = buffer + ((ptr - buffer + delta)
// mod size)).
func (m *machine) move(w *operand, delta int64) {
	r := &m.regs[m.ptrReg[w.slot]]
	size := int64(r.Size)
	p := m.ints[w.slot] + delta
	if size > 0 && (p < 0 || p >= size) {
		p %= size
		if p < 0 {
			p += size
		}
		if m.pending == nil {
			m.pending = map[int32]bool{}
		}
		m.pending[w.slot] = true
	}
	m.ints[w.slot] = p
}

// accessed notes an access through a window: one after its position wrapped makes the
// window listed in Result.Wrapped.
func (m *machine) accessed(w *operand) {
	if m.pending[w.slot] {
		if m.wrapped == nil {
			m.wrapped = map[string]bool{}
		}
		m.wrapped[m.regs[m.ptrReg[w.slot]].Name] = true
		delete(m.pending, w.slot)
	}
}

func (m *machine) winWrite(ci *cinstr, incr bool) error {
	w, v := &ci.args[0], &ci.args[1]
	t := v.typ
	n := t.Bytes()
	r := m.ptrReg[w.slot]
	addr := int64(m.regs[r].Addr) + m.ints[w.slot]
	pos := m.ints[w.slot]
	what := func() string {
		return fmt.Sprintf("%s(%s, %v) at element %d", ci.op, m.regs[r].Name, t, pos/int64(w.typ.Elem.Bytes()))
	}
	if err := m.access(ci, what, r, addr, n, accessAlign(t), false); err != nil {
		return err
	}
	m.accessed(w)
	m.storeValue(v, addr, ci)
	if incr {
		m.move(w, int64(n))
	}
	return nil
}

func b2iF(bits int64) int64 {
	if math.Float32frombits(uint32(bits)) != 0 {
		return 1
	}
	return 0
}

// streamWords is the bytes a value takes on a stream: its lanes packed (scalars and vectors),
// or for a cascade each accumulator lane as 8 bytes (acc48, sign-extended) or 16 (acc80).
func streamBytes(t kernel.Type) int {
	if t.IsAcc() {
		if t.Elem == kernel.Acc80 {
			return 16 * t.Lanes
		}
		return 8 * t.Lanes
	}
	return t.Bytes()
}

// streamRead takes the next value from an input stream. A read past the stream's end is an
// error: the kernel would stall forever (UG1079 "Reading and Advancing an Input Stream").
func (m *machine) streamRead(ci *cinstr) error {
	s := &m.streams[m.ints[ci.args[0].slot]]
	t := ci.dst.typ
	n := streamBytes(t)
	if s.pos+n > len(s.data) {
		return m.fail(ci, "%s(%s): %d bytes wanted at byte %d, but the stream holds %d bytes (the kernel would stall)", kernel.CallName(ci.op, t), s.name, n, s.pos, len(s.data))
	}
	b := s.data[s.pos : s.pos+n]
	s.pos += n
	switch t.Class {
	case kernel.Accum:
		var acc kernel.AccVal
		for l := 0; l < t.Lanes; l++ {
			acc[l] = kernel.StreamLane(b, l, t.Elem)
		}
		m.accs[ci.dst.slot] = acc
	case kernel.Vector:
		v := &m.vecs[ci.dst.slot]
		*v = kernel.Vec{}
		copy(v[:], b)
	default:
		var raw int64
		switch len(b) {
		case 1:
			raw = int64(b[0])
		case 2:
			raw = int64(binary.LittleEndian.Uint16(b))
		case 4:
			raw = int64(binary.LittleEndian.Uint32(b))
		}
		if t.Elem == kernel.Float32 {
			setScalar(&m.ints[ci.dst.slot], raw, kernel.Float32, ci.dst.elem)
		} else {
			setScalar(&m.ints[ci.dst.slot], t.Elem.Wrap(raw), t.Elem, ci.dst.elem)
		}
	}
	return nil
}

// streamWrite appends a value to an output stream.
func (m *machine) streamWrite(ci *cinstr) error {
	s := &m.streams[m.ints[ci.args[0].slot]]
	v := &ci.args[1]
	t := v.typ
	switch t.Class {
	case kernel.Accum:
		acc := m.acc(v, ci)
		for l := 0; l < t.Lanes; l++ {
			s.data = kernel.AppendStreamLane(s.data, acc[l], t.Elem)
		}
	case kernel.Vector:
		s.data = append(s.data, m.vec(v, ci)[:t.Bytes()]...)
	default:
		x := m.scalar(v, ci)
		var buf [4]byte
		binary.LittleEndian.PutUint32(buf[:], uint32(x))
		s.data = append(s.data, buf[:t.Bytes()]...)
	}
	if len(s.data) > 1<<26 {
		return m.fail(ci, "output stream %s grew past 64 MB", s.name)
	}
	return nil
}

// mem1 executes a pointer load or store: *(T*)&p[i].
func (m *machine) mem1(ci *cinstr, store bool) error {
	p, i := &ci.args[0], &ci.args[1]
	base := m.scalar(p, ci)
	idx := m.numAs(i, kernel.Int32, ci)
	addr := base + idx*int64(p.typ.Pointee().Bytes())
	t := ci.dst.typ
	verb := "load"
	if store {
		t = ci.args[2].typ
		verb = "store"
	}
	r := m.ptrReg[p.slot]
	what := func() string { return fmt.Sprintf("%s %v at %s[%d]", verb, t, p.name(m), idx) }
	if err := m.access(ci, what, r, addr, t.Bytes(), accessAlign(t), !store); err != nil {
		return err
	}
	if store {
		m.storeValue(&ci.args[2], addr, ci)
	} else {
		m.loadValue(t, addr, ci)
	}
	return nil
}

func (o *operand) name(m *machine) string {
	if o.imm {
		return fmt.Sprint(o.val)
	}
	return m.p.k.Vars[o.id].Name
}

// loadValue reads a value of type t at addr into the instruction's destination.
func (m *machine) loadValue(t kernel.Type, addr int64, ci *cinstr) {
	b := m.mem[addr : addr+int64(t.Bytes())]
	if t.IsVector() {
		v := &m.vecs[ci.dst.slot]
		*v = kernel.Vec{}
		copy(v[:], b)
		return
	}
	var raw int64
	switch len(b) {
	case 1:
		raw = int64(b[0])
	case 2:
		raw = int64(binary.LittleEndian.Uint16(b))
	case 4:
		raw = int64(binary.LittleEndian.Uint32(b))
	}
	if t.Elem == kernel.Float32 {
		setScalar(&m.ints[ci.dst.slot], raw, kernel.Float32, ci.dst.elem)
		return
	}
	setScalar(&m.ints[ci.dst.slot], t.Elem.Wrap(raw), t.Elem, ci.dst.elem)
}

func (m *machine) storeValue(v *operand, addr int64, ci *cinstr) {
	t := v.typ
	b := m.mem[addr : addr+int64(t.Bytes())]
	if t.IsVector() {
		copy(b, m.vec(v, ci)[:len(b)])
		return
	}
	x := m.scalar(v, ci)
	switch len(b) {
	case 1:
		b[0] = byte(x)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(x))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(x))
	}
}
