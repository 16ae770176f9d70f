package cyclesim

import (
	"encoding/binary"
	"fmt"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// issue executes one bundle at cycle t.
func (s *sim) issue(b *backend.Bundle, t, seqOff int64) error {
	if err := s.retire(t); err != nil {
		return err
	}
	var banks cycleBanks
	for _, in := range b.Instrs {
		seq := in.Seq + seqOff
		s.res.SlotUse[in.Slot]++
		if in.Mem != nil {
			addr, err := s.addr(in, seq, t)
			if err != nil {
				return err
			}
			if banks.add(aie1.AccessBanks(addr, in.Mem.Bytes)) {
				s.res.Stalls += aie1.BankConflictStallCycles
			}
		}
		if err := s.exec(in, seq, t); err != nil {
			return err
		}
		s.noteWrites(in, seq)
	}
	return nil
}

func (s *sim) addr(in *backend.Instr, seq, t int64) (int, error) {
	for _, u := range in.Uses {
		if u.Kind == aie1.OpndPtr {
			p, err := s.readScalar(in, u, seq, t)
			if err != nil {
				return 0, err
			}
			a := int(p) + in.Mem.Offset
			if a < 0 || a+in.Mem.Bytes > aie1.ReachBytes {
				return 0, s.fail(in, "address %#x outside the 128 KB data memory", a)
			}
			if s.imm {
				s.addrs[s.cur] = int32(a)
			}
			if ri := s.region[in.ID]; s.outsideRegion(ri, a, in.Mem.Bytes) {
				r := s.regions[ri]
				why := "a store"
				if !in.Mem.Store {
					if why = s.readOutside(ri, a, in.Mem.Bytes); why == "" {
						return a, nil // the memory image's bytes, as the interpreter reads them
					}
				}
				return 0, s.fail(in, "access of %d bytes at element offset %d is outside window/buffer %s (%d bytes): %s", in.Mem.Bytes, a-r[0], in.Mem.Space, r[1], why)
			}
			return a, nil
		}
	}
	return 0, s.fail(in, "memory access without a pointer operand")
}

func (s *sim) postInc(in *backend.Instr, seq, t int64) error {
	if in.Mem.PostInc == 0 {
		return nil
	}
	for _, u := range in.Uses {
		if u.Kind == aie1.OpndPtr {
			p, err := s.readScalar(in, u, seq, t)
			if err != nil {
				return err
			}
			for _, d := range in.Defs {
				if d.Reg.File == backend.FilePtr && d.Reg.Units[0] == u.Reg.Units[0] {
					s.writeScalar(in, d, seq, t, s.wrap(in, p+int64(in.Mem.PostInc)))
				}
			}
		}
	}
	return nil
}

// Instruction classes, decided once per program (prepare) so that execution does not
// compare names.
const (
	kGeneric uint8 = iota
	kAcq
	kRel
	kNop
	kMovImm
	kPadd
	kMem
	kRaw
	kMAC
)

func classify(in *backend.Instr) uint8 {
	switch in.Name {
	case "acq":
		return kAcq
	case "rel":
		return kRel
	case "jal", "ret", "mov lc", "mov le", "mov ls":
		return kNop
	case "mov.u20", "mov.cl", "mov.ch":
		return kMovImm
	case "padd":
		return kPadd
	case "lda", "st", "vld", "vst", "vst.srs", "fill", "spill":
		return kMem
	}
	src := in.Src
	if src == nil || in.Name == "vmov" && src.Op != kernel.OpExtV && src.Op != kernel.OpExtW && src.Op != kernel.OpExtX && src.Op != kernel.OpConcat {
		return kRaw
	}
	if in.Name == "mov" || in.Name == "vzero" {
		return kRaw // vzero (null_*): a move of zeros
	}
	if src.Op.IsMAC() {
		return kMAC
	}
	return kGeneric
}

func (s *sim) exec(in *backend.Instr, seq, t int64) error {
	if ok, err := s.execADF(in, seq, t); ok {
		return err
	}
	switch s.kind[in.ID] {
	case kMAC:
		return s.issueMAC(in, seq, t)
	case kMem:
		return s.memOp(in, seq, t)
	case kRaw:
		return s.rawMove(in, seq, t)
	}
	switch in.Name {
	case "acq":
		if s.locks.held(in.Lock.ID) {
			return s.fail(in, "acquire of lock %d, already held", in.Lock.ID)
		}
		s.locks.set(in.Lock.ID, true)
		return nil
	case "rel":
		if !s.locks.held(in.Lock.ID) {
			return s.fail(in, "release of lock %d, not held", in.Lock.ID)
		}
		s.locks.set(in.Lock.ID, false)
		return nil
	case "jal", "ret", "mov lc", "mov le", "mov ls":
		return nil
	case "mov.u20", "mov.cl", "mov.ch":
		s.writeScalar(in, in.Defs[0], seq, t, in.Imm)
		return nil
	case "padd":
		v, err := s.readScalar(in, in.Uses[0], seq, t)
		if err != nil {
			return err
		}
		if len(in.Uses) > 1 { // padd p, m: a modifier register (a run-time amount)
			m, err := s.readScalar(in, in.Uses[1], seq, t)
			if err != nil {
				return err
			}
			v += int64(int32(m))
		}
		s.writeScalar(in, in.Defs[0], seq, t, s.wrap(in, v+in.Imm))
		return nil
	case "lda", "st", "vld", "vst", "vst.srs", "fill", "spill":
		return s.memOp(in, seq, t)
	}
	src := in.Src
	if src == nil || in.Name == "vmov" && src.Op != kernel.OpExtV && src.Op != kernel.OpExtW && src.Op != kernel.OpExtX && src.Op != kernel.OpConcat {
		return s.rawMove(in, seq, t)
	}
	if in.Name == "mov" || in.Name == "vzero" || in.Name == "add" && src == nil {
		return s.rawMove(in, seq, t)
	}
	op := src.Op
	switch {
	case op == kernel.OpSetRnd:
		s.cfg.Round = num.Round(in.Imm) // every later srs rounds so (the run's own copy of Config)
	case op == kernel.OpSetSat:
		s.cfg.Sat = num.Sat(in.Imm)
	case op.IsMAC():
		return s.issueMAC(in, seq, t)
	case op == kernel.OpSRS || op == kernel.OpLSRS || op == kernel.OpBSRS || op == kernel.OpUBSRS:
		lanes := src.Args[0].Var.Type.Lanes
		var accVal kernel.AccVal
		if err := s.readAcc(in, in.Uses[0], seq, t, lanes/len(in.Uses[0].Reg.Units), &accVal); err != nil {
			return err
		}
		acc := &accVal
		shift, _ := s.p.ConstArg(src, 1)
		var out kernel.Vec
		n := kernel.SRS(acc, lanes, int(shift), src.Dst.Type.Elem, s.cfg.Round, s.cfg.Sat, &out)
		s.res.Narrowed += int64(lanes)
		s.res.Saturated += int64(n)
		s.writeVec(in, in.Defs[0], seq, t, &out)
	case op == kernel.OpUPS || op == kernel.OpLUPS:
		var vVal kernel.Vec
		if err := s.readVec(in, in.Uses[0], seq, t, &vVal); err != nil {
			return err
		}
		v := &vVal
		shift, _ := s.p.ConstArg(src, 1)
		ty := src.Args[0].Var.Type
		var out kernel.AccVal
		kernel.UPS(v, ty.Elem, ty.Lanes, int(shift), src.Dst.Type.Elem.Bits(), &out)
		s.writeAcc(in, in.Defs[0], seq, t, &out, src.Dst.Type.Lanes/len(in.Defs[0].Reg.Units))
	case (op == kernel.OpVAdd || op == kernel.OpVSub) && src.Args[0].Var.Type.IsAcc():
		// accumulator plus accumulator, or plus a vector's lanes (kernel.AccAdd, AccAddVec)
		ty, bt := src.Args[0].Var.Type, src.Args[1].Var.Type
		var a, out kernel.AccVal
		if err := s.readAcc(in, in.Uses[0], seq, t, ty.Lanes/len(in.Uses[0].Reg.Units), &a); err != nil {
			return err
		}
		if bt.IsAcc() {
			var b kernel.AccVal
			if err := s.readAcc(in, in.Uses[1], seq, t, bt.Lanes/len(in.Uses[1].Reg.Units), &b); err != nil {
				return err
			}
			kernel.AccAdd(op == kernel.OpVSub, ty.Lanes, ty.Elem.Bits(), &a, &b, &out)
		} else {
			var v kernel.Vec
			if err := s.readVec(in, in.Uses[1], seq, t, &v); err != nil {
				return err
			}
			kernel.AccAddVec(op == kernel.OpVSub, ty.Lanes, ty.Elem.Bits(), &a, &v, bt.Elem, &out)
		}
		s.writeAcc(in, in.Defs[0], seq, t, &out, ty.Lanes/len(in.Defs[0].Reg.Units))
	case op == kernel.OpVAdd || op == kernel.OpVSub:
		var aVal kernel.Vec
		if err := s.readVec(in, in.Uses[0], seq, t, &aVal); err != nil {
			return err
		}
		a := &aVal
		var bVal kernel.Vec
		if err := s.readVec(in, in.Uses[1], seq, t, &bVal); err != nil {
			return err
		}
		b := &bVal
		ty := src.Args[0].Var.Type
		if !ty.IsVector() {
			return s.fail(in, "accumulator add is not supported by the simulator yet")
		}
		var out kernel.Vec
		kernel.VAdd(op == kernel.OpVSub, ty.Elem, ty.Lanes, a, b, &out)
		s.writeVec(in, in.Defs[0], seq, t, &out)
	case op == kernel.OpExtV || op == kernel.OpExtW || op == kernel.OpExtX:
		var bufVal kernel.Vec
		if err := s.readVec(in, in.Uses[0], seq, t, &bufVal); err != nil {
			return err
		}
		buf := &bufVal
		idx, _ := s.p.ConstArg(src, 1)
		var out kernel.Vec
		if err := kernel.Ext(buf, src.Args[0].Var.Type.Bytes(), op.PartBits(), int(idx), &out); err != nil {
			return s.fail(in, "%v", err)
		}
		s.writeVec(in, in.Defs[0], seq, t, &out)
	case op == kernel.OpConcat:
		var parts [4]*kernel.Vec
		for i := range in.Uses {
			parts[i] = new(kernel.Vec)
			if err := s.readVec(in, in.Uses[i], seq, t, parts[i]); err != nil {
				return err
			}
		}
		var out kernel.Vec
		kernel.Concat(&out, src.Args[0].Var.Type.Bytes(), parts[:len(in.Uses)]...)
		s.writeVec(in, in.Defs[0], seq, t, &out)
	case op.IsScalarArith():
		return s.scalarOp(in, seq, t)
	case op == kernel.OpNull:
		return s.rawMove(in, seq, t) // vzero: no uses, the destination zeroed
	default:
		return s.fail(in, "the simulator does not execute %v", op)
	}
	return nil
}

// rawMove copies register contents unit by unit (moves, sub-register updates, MAC set-up
// copies) or zeroes them.
func (s *sim) rawMove(in *backend.Instr, seq, t int64) error {
	if len(in.Defs) == 0 {
		return nil
	}
	d := in.Defs[0]
	if in.Name == "add" {
		v, err := s.readScalar(in, in.Uses[0], seq, t)
		if err != nil {
			return err
		}
		s.writeScalar(in, d, seq, t, int64(int32(v+in.Imm)))
		return nil
	}
	if len(in.Uses) == 0 {
		switch d.Reg.File {
		case backend.FileVec:
			s.writeVec(in, d, seq, t, &kernel.Vec{})
		case backend.FileAcc:
			s.writeAcc(in, d, seq, t, &kernel.AccVal{}, 8)
		default:
			s.writeScalar(in, d, seq, t, in.Imm)
		}
		return nil
	}
	u := in.Uses[0]
	switch d.Reg.File {
	case backend.FileVec:
		var vVal kernel.Vec
		if err := s.readVec(in, u, seq, t, &vVal); err != nil {
			return err
		}
		v := &vVal
		s.writeVec(in, d, seq, t, v)
	case backend.FileAcc:
		var aVal kernel.AccVal
		if err := s.readAcc(in, u, seq, t, 8, &aVal); err != nil {
			return err
		}
		a := &aVal
		s.writeAcc(in, d, seq, t, a, 8)
	default:
		v, err := s.readScalar(in, u, seq, t)
		if err != nil {
			return err
		}
		s.writeScalar(in, d, seq, t, v)
	}
	return nil
}

func (s *sim) memOp(in *backend.Instr, seq, t int64) error {
	a, err := s.addr(in, seq, t)
	if err != nil {
		return err
	}
	m := in.Mem
	if m.Store && in.Name == "vst.srs" {
		// the accumulator through the shift-round-saturate path into memory (Src is the
		// narrowing: its lanes, shift and element type; backend/stsrs.go)
		src := in.Src
		lanes := src.Args[0].Var.Type.Lanes
		var accVal kernel.AccVal
		if err := s.readAcc(in, in.Uses[0], seq, t, lanes/len(in.Uses[0].Reg.Units), &accVal); err != nil {
			return err
		}
		shift, _ := s.p.ConstArg(src, 1)
		var out kernel.Vec
		n := kernel.SRS(&accVal, lanes, int(shift), src.Dst.Type.Elem, s.cfg.Round, s.cfg.Sat, &out)
		s.res.Narrowed += int64(lanes)
		s.res.Saturated += int64(n)
		copy(s.mem[a:a+m.Bytes], out[:m.Bytes])
		s.markStored(a, m.Bytes)
		return s.postInc(in, seq, t)
	}
	if m.Store {
		data := in.Uses[0]
		switch data.Reg.File {
		case backend.FileVec:
			var vVal kernel.Vec
			if err := s.readVec(in, data, seq, t, &vVal); err != nil {
				return err
			}
			v := &vVal
			copy(s.mem[a:a+m.Bytes], v[:m.Bytes])
			s.markStored(a, m.Bytes)
		case backend.FileAcc:
			// one 32-byte half of a 384-bit unit (four lanes) per instruction
			var accVal kernel.AccVal
			if err := s.readAcc(in, data, seq, t, 8, &accVal); err != nil {
				return err
			}
			acc := &accVal
			h := (a / 32) % 2
			var lanes [8]num.Acc
			copy(lanes[:4], acc[4*h:4*h+4])
			if s.accMem == nil {
				s.accMem = map[int][8]num.Acc{}
			}
			s.accMem[a] = lanes
		default:
			if m.Bytes > 8 {
				return s.fail(in, "a %d-byte store from scalar register %s (the backend gave a vector value a scalar register)", m.Bytes, data.Reg)
			}
			v, err := s.readScalar(in, data, seq, t)
			if err != nil {
				return err
			}
			var buf [8]byte
			binary.LittleEndian.PutUint64(buf[:], uint64(v))
			copy(s.mem[a:a+m.Bytes], buf[:m.Bytes])
			s.markStored(a, m.Bytes)
		}
		if in.Spill {
			s.res.Spills++
		}
		return s.postInc(in, seq, t)
	}
	d := in.Defs[0]
	switch d.Reg.File {
	case backend.FileVec:
		var v kernel.Vec
		copy(v[:m.Bytes], s.mem[a:a+m.Bytes])
		s.writeVec(in, d, seq, t, &v)
	case backend.FileAcc:
		h := (a / 32) % 2
		lanes := s.accMem[a]
		var acc kernel.AccVal
		copy(acc[4*h:4*h+4], lanes[:4])
		if s.imm {
			u := &s.r.acc[gunit(d.Reg.File, d.Reg.Units[0])]
			copy(u[4*h:4*h+4], lanes[:4])
			break
		}
		vis := t + int64(d.Cycle)
		w := pendingWrite{file: uint8(d.Reg.File), idx: uint8(d.Reg.Units[0]), seq: seq, kind: 1, mask: 0xF << uint(4*h), by: int32(in.ID)}
		copy(w.acc[:], acc[:8])
		s.ring[vis&63] = append(s.ring[vis&63], w)
	default:
		var buf [8]byte
		copy(buf[:], s.mem[a:a+m.Bytes])
		v := int64(binary.LittleEndian.Uint64(buf[:]))
		if m.Bytes == 4 {
			v = int64(int32(uint32(v)))
		}
		s.writeScalar(in, d, seq, t, v)
	}
	if in.Spill {
		s.res.Fills++
	}
	return s.postInc(in, seq, t)
}

func decodeMAC(prog *backend.Program, in *backend.Instr) (*decoded, error) {
	src := in.Src
	f, err := kernel.FormOf(src.Op, src.Args)
	if err != nil {
		return nil, err
	}
	d := &decoded{form: f, kind: kernel.KindOf(src.Op), isMAC: true, xo: -1, zo: -1, acco: -1}
	for i, u := range in.Uses {
		switch u.Kind {
		case aie1.OpndVecX:
			d.xo = i
		case aie1.OpndVecZ:
			d.zo = i
		case aie1.OpndAcc:
			d.acco = i
		}
	}
	if len(in.Defs) == 0 {
		return nil, fmt.Errorf("MAC without a result register")
	}
	d.lay = kernel.Layout(f, src.Op.Info().Acc)
	x, z := src.Args[d.lay.X].Type(), src.Args[d.lay.Z].Type()
	d.xe, d.ze, d.xLen, d.zLen = x.Elem, z.Elem, x.Lanes, z.Lanes
	var p kernel.MACParams
	get := func(i int) int64 {
		if i < 0 {
			return 0
		}
		v, _ := prog.ConstArg(src, i)
		return v
	}
	l := d.lay
	p = kernel.MACParams{XStart: get(l.XStart), XOffs: get(l.XOffs), XOffsHi: get(l.XOffsHi), XStep: get(l.XStep), XSquare: get(l.XSquare),
		ZStart: get(l.ZStart), ZOffs: get(l.ZOffs), ZOffsHi: get(l.ZOffsHi), ZStep: get(l.ZStep), ZSquare: get(l.ZSquare)}
	if err := kernel.DecodeMAC(f, d.xLen, d.zLen, p, &d.sel); err != nil {
		return nil, err
	}
	if src.Dst != nil {
		d.accLanes = src.Dst.Type.Lanes
	}
	buildMACTable(d)
	return d, nil
}

// issueMAC reads X and Z now and the accumulator in its (late) read cycle.
func (s *sim) issueMAC(in *backend.Instr, seq, t int64) error {
	dc := s.dec[in.ID]
	if dc.xo < 0 || dc.zo < 0 {
		return s.fail(in, "MAC without X or Z operand")
	}
	s.res.MACs += int64(in.MACs)
	if s.imm || dc.acco < 0 || in.Uses[dc.acco].Cycle <= 1 {
		var x, z kernel.Vec
		if err := s.readVec(in, in.Uses[dc.xo], seq, t, &x); err != nil {
			return err
		}
		if err := s.readVec(in, in.Uses[dc.zo], seq, t, &z); err != nil {
			return err
		}
		return s.execMAC(in, seq, t, &x, &z)
	}
	// queue the deferred part and read X and Z straight into its slot
	rc := t + int64(in.Uses[dc.acco].Cycle) - 1
	q := &s.defers[rc&63]
	*q = append(*q, deferred{id: int32(in.ID), seq: seq, t: t})
	d := &(*q)[len(*q)-1]
	if err := s.readVec(in, in.Uses[dc.xo], seq, t, &d.x); err != nil {
		return err
	}
	return s.readVec(in, in.Uses[dc.zo], seq, t, &d.z)
}

func (s *sim) execMAC(in *backend.Instr, seq, t int64, x, z *kernel.Vec) error {
	d := s.dec[in.ID]
	var acco *backend.Operand
	if d.acco >= 0 {
		acco = &in.Uses[d.acco]
	}
	out := in.Defs[0]
	if d.form == kernel.FormFloat {
		acc := &kernel.Vec{}
		if acco != nil {
			var aVal kernel.Vec
			if err := s.readVec(in, *acco, seq, t, &aVal); err != nil {
				return err
			}
			a := &aVal
			acc = a
		}
		var res kernel.Vec
		kernel.MACFloat(d.kind, &d.sel, acc, x, z, &res)
		s.writeVec(in, out, seq, t, &res)
		return nil
	}
	lpu := d.accLanes / len(out.Reg.Units)
	if d.tab.ok && lpu <= 8 && (acco == nil || len(acco.Reg.Units) == len(out.Reg.Units)) {
		return s.execMAC48(in, d, acco, out, lpu, seq, t, x, z)
	}
	acc := &kernel.AccVal{}
	if acco != nil {
		var aVal kernel.AccVal
		if err := s.readAcc(in, *acco, seq, t, lpu, &aVal); err != nil {
			return err
		}
		a := &aVal
		acc = a
	}
	var res kernel.AccVal
	if !fastMACInt(d, acc, x, z, &s.msc, &res) {
		kernel.MACInt(d.kind, &d.sel, acc, x, d.xe, d.xLen, z, d.ze, d.zLen, &res)
	}
	s.writeAcc(in, out, seq, t, &res, lpu)
	return nil
}

// execMAC48 is execMAC for the forms of fastMACInt, fused: the products' sums are added to
// the accumulator lanes straight from the registers into the pending writes, unit by unit,
// without assembling the whole accumulator value twice. Same arithmetic as fastMACInt
// (macSums, macLane), which TestFastMACMatchesKernel checks against kernel.MACInt.
func (s *sim) execMAC48(in *backend.Instr, d *decoded, acco *backend.Operand, out backend.Operand, lpu int, seq, t int64, x, z *kernel.Vec) error {
	var sums [16]int64
	lanes := macSumsAny(&d.tab, x, z, &s.msc, &sums)
	vis := t + int64(out.Cycle)
	var rc int64
	if acco != nil {
		rc = t + int64(acco.Cycle) - 1
	}
	var res [4][8]num.Acc // pass 2 writes after all reads (an output unit may be an input)
	for i, n := range out.Reg.Units {
		var src *[8]num.Acc
		if acco != nil {
			u := &s.files[acco.Reg.File][acco.Reg.Units[i]]
			_, a, _, err := s.readUnit(in, u, seq, rc, t)
			if err != nil {
				return err
			}
			src = a
		}
		var w *pendingWrite
		if s.imm {
			w = &s.scratch
		} else {
			w = s.push(vis, in, out.Reg.File, n, seq, 1)
		}
		for j := range w.acc {
			l := i*lpu + j
			if j >= lpu || l >= lanes {
				w.acc[j] = num.Acc{} // lanes past the MAC's (or the unit's share) are zero
				continue
			}
			var a int64 // no accumulator operand: zero, as kernel.MACInt's
			if src != nil {
				a = int64(src[j].Lo)
			}
			w.acc[j] = macLane(d.kind, a, sums[l&15])
		}
		if s.imm {
			res[i&3] = w.acc
		}
	}
	if s.imm {
		for i, n := range out.Reg.Units {
			s.r.acc[gunit(out.Reg.File, n)] = res[i&3]
		}
	}
	return nil
}

// scalarOp executes scalar arithmetic and comparisons with the interpreter's semantics
// (kernel.Arith). A scalar register holds its value's low 32 bits (an int sign-extended, as
// loads and the other ALU ops leave it); the operands are read as their source variables'
// types and converted as C does.
func (s *sim) scalarOp(in *backend.Instr, seq, t int64) error {
	src := in.Src
	var vals [2]int64
	var elems [2]kernel.Elem
	n := min(len(src.Args), 2)
	ui := 0
	for i := 0; i < n; i++ {
		a := src.Args[i]
		elems[i] = a.Type().Elem
		if c, ok := s.p.ConstArg(src, i); ok {
			vals[i] = c
		} else {
			if ui >= len(in.Uses) {
				return s.fail(in, "missing operand")
			}
			v, err := s.readScalar(in, in.Uses[ui], seq, t)
			if err != nil {
				return err
			}
			ui++
			vals[i] = v
		}
		if a.Var != nil {
			vals[i] = elems[i].Wrap(vals[i]) // the register's low bits as the variable's type
		}
	}
	if n == 1 {
		elems[1] = elems[0]
	}
	ct, yt := kernel.ArithTypes(src.Op, elems[0], elems[1])
	x := kernel.Convert(vals[0], elems[0], ct)
	y := kernel.Convert(vals[1], elems[1], yt)
	r, rt, err := kernel.Arith(src.Op, ct, x, y)
	if err != nil {
		return s.fail(in, "%v", err)
	}
	if src.Dst != nil {
		r = kernel.Convert(r, rt, src.Dst.Type.Elem)
	}
	s.writeScalar(in, in.Defs[0], seq, t, int64(int32(r)))
	return nil
}
