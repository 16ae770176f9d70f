package cyclesim

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// What ADF kernels add to the simulator: arrays with storage of their own (regions like the
// parameters'), stream ports with their rates, circular windows, the cycle counter, and the
// ops of backend/adf.go.

// streamQ is one stream parameter during a run.
type streamQ struct {
	name    string
	data    []byte // input: the words to read; output: the words written
	pos     int    // input: bytes read
	out     bool
	cascade bool
	// next is the cycle the port is free again: an AIE1 stream port moves StreamWordBits per
	// cycle, so a 128-bit access keeps it busy 4 cycles (AM009 "AI Engine Interfaces")
	next int64
	// plio is the PL side when the port is connected to a PLIO (Config.PLIO); nil: the
	// other end keeps up with a word a cycle
	plio *plioState
}

// adfState is a run's ADF state (part of runState).
type adfState struct {
	streams      map[string]*streamQ
	streamOrder  []*streamQ
	streamStalls int64
	cycleReads   []int64
	wrapRegion   map[string]int // window name -> index in regions
}

// arrayParams lists the arrays with storage of their own as regions after the parameters
// (buildInfo): the layout placed them (backend.DefaultLayout over withArrays).
func arrayParams(p *backend.Program) []paramInfo {
	var out []paramInfo
	for _, v := range p.Kernel.Vars {
		if v.Storage != nil {
			out = append(out, paramInfo{name: v.Name, region: true, base: p.Layout.Base[v.Name], storage: v.Storage})
		}
	}
	return out
}

// initADF sets up the streams and the circular windows of a run.
func (s *sim) initADF(pi *progInfo, cfg *Config) {
	s.adf = adfState{}
	for i, prm := range pi.params {
		if prm.window {
			if s.adf.wrapRegion == nil {
				s.adf.wrapRegion = map[string]int{}
			}
			s.adf.wrapRegion[prm.name] = i
		}
	}
	for _, v := range s.p.Kernel.Params {
		if !v.Type.IsStream() {
			continue
		}
		q := &streamQ{name: v.Name, out: v.Type.Out, cascade: v.Type.IsCascade()}
		if pl, ok := cfg.PLIO[v.Name]; ok && !q.cascade {
			q.plio = &plioState{period: pl.period()}
		}
		if !q.out {
			q.data = cfg.Data[v.Name]
			if n, ok := cfg.Sizes[v.Name]; ok && n > len(q.data) {
				q.data = append(append([]byte(nil), q.data...), make([]byte, n-len(q.data))...)
			}
		}
		if s.adf.streams == nil {
			s.adf.streams = map[string]*streamQ{}
		}
		s.adf.streams[v.Name] = q
		s.adf.streamOrder = append(s.adf.streamOrder, q)
	}
}

// finishADF adds the stream stalls to the cycles and the streams to the results.
func (s *sim) finishADF() {
	s.res.StreamStalls = s.adf.streamStalls
	s.res.Cycles += s.adf.streamStalls
	s.res.CycleReads = s.adf.cycleReads
	for _, q := range s.adf.streamOrder {
		if s.res.Data == nil {
			s.res.Data = map[string][]byte{}
		}
		s.res.Data[q.name] = q.data
	}
}

// wrap brings a window position register value back into the window's region (ADF windows
// are circular: every move is taken modulo the window's size).
func (s *sim) wrap(in *backend.Instr, p int64) int64 {
	if in.Wrap == "" {
		return p
	}
	ri, ok := s.adf.wrapRegion[in.Wrap]
	if !ok {
		return p
	}
	r := s.regions[ri]
	base, size := int64(r[0]), int64(r[1])
	if size <= 0 || (p >= base && p < base+size) {
		return p
	}
	off := (p - base) % size
	if off < 0 {
		off += size
	}
	return base + off
}

// streamAccess books a stream access of n bytes issued at nominal cycle t on a stream port
// and returns the stall it causes. An input port delivers one 32-bit word per cycle from the
// start of the run, so a read of the words [pos, pos+w) waits for word pos+w-1; an output port
// takes one word per cycle, so a write waits until the port has sent the previous words
// (AM009 "AI Engine Interfaces": the core stalls on an empty input or a full output stream).
// A port connected to a PLIO moves its words at the PLIO's rate through PLIOFIFOWords of
// buffering instead (plio.go).
// Cascade moves are 384 bits a cycle and do not stall here.
func (s *sim) streamAccess(q *streamQ, t int64, n int) {
	if q.cascade {
		return
	}
	words := int64((n*8 + aie1.StreamWordBits - 1) / aie1.StreamWordBits)
	now := t + s.adf.streamStalls
	var ready int64
	switch {
	case q.plio != nil && q.out:
		ready = max(q.next, q.plio.outputReady(words))
	case q.plio != nil:
		ready = max(q.next, q.plio.inputReady(words))
	case q.out:
		ready = q.next
	default:
		ready = int64(q.pos*8/aie1.StreamWordBits) + words - 1
		ready = max(ready, q.next)
	}
	if ready > now {
		s.adf.streamStalls += ready - now
		now = ready
	}
	q.next = now + words
	switch {
	case q.plio != nil && q.out:
		q.plio.outputWrite(now, words)
	case q.plio != nil:
		q.plio.inputRead(now, words)
	}
}

// execADF executes the ops ADF kernels add; handled is false for another op.
func (s *sim) execADF(in *backend.Instr, seq, t int64) (handled bool, err error) {
	src := in.Src
	if src == nil {
		return false, nil
	}
	op := src.Op
	switch {
	case op == kernel.OpNull:
		return true, s.rawMove(in, seq, t)
	case (op == kernel.OpWinIncr || op == kernel.OpPtrAdd || op == kernel.OpLoad || op == kernel.OpStore) && (in.Name == "mul" || in.Name == "lsl"):
		// a run-time amount scaled to bytes (backend winIncrReg, ptrAddReg)
		v, err := s.readScalar(in, in.Uses[0], seq, t)
		if err != nil {
			return true, err
		}
		if in.Name == "lsl" {
			v <<= uint(in.Imm)
		} else {
			v *= in.Imm
		}
		s.writeScalar(in, in.Defs[0], seq, t, int64(int32(v)))
	case op == kernel.OpSelect:
		vals, err := s.scalarArgs(in, seq, t)
		if err != nil {
			return true, err
		}
		c := vals[0]
		if src.Args[0].Type().Elem == kernel.Float32 {
			c = 0
			if math.Float32frombits(uint32(vals[0])) != 0 {
				c = 1
			}
		}
		pick := 2
		if c != 0 {
			pick = 1
		}
		ct := kernel.Promote(src.Args[1].Type().Elem, src.Args[2].Type().Elem)
		v := kernel.Convert(vals[pick], src.Args[pick].Type().Elem, ct)
		if src.Dst.Type.IsScalar() {
			v = kernel.Convert(v, ct, src.Dst.Type.Elem)
		}
		s.writeScalar(in, in.Defs[0], seq, t, int64(int32(v)))
	case op.IsFPLane() || op == kernel.OpVMax || op == kernel.OpVMin:
		// the second operand now; the first (in an fpmac's accumulator place, read late)
		// when its cycle comes, like a MAC's accumulator (issueMAC)
		var x kernel.Vec
		if err := s.readVec(in, in.Uses[1], seq, t, &x); err != nil {
			return true, err
		}
		if s.imm || in.Uses[0].Cycle <= 1 {
			return true, s.execLane(in, seq, t, &x)
		}
		rc := t + int64(in.Uses[0].Cycle) - 1
		q := &s.defers[rc&63]
		*q = append(*q, deferred{id: int32(in.ID), seq: seq, t: t, x: x})
	case op == kernel.OpBroadcast:
		vals, err := s.scalarArgs(in, seq, t)
		if err != nil {
			return true, err
		}
		at := src.Args[0].Type().Elem
		ty := src.Dst.Type
		v := vals[0]
		if src.Args[0].IsFloat {
			at = kernel.Float32
		}
		v = kernel.Convert(v, kernel.Promote(at, at), ty.Elem)
		var out kernel.Vec
		kernel.Broadcast(ty.Elem, ty.Lanes, v, &out)
		s.writeVec(in, in.Defs[0], seq, t, &out)
	case convMove(in):
		// a scalar converted (int -> float, int32 -> int16, ...): C's conversion, as the
		// interpreter's
		v, err := s.readScalar(in, in.Uses[0], seq, t)
		if err != nil {
			return true, err
		}
		from, to := src.Args[0].Var.Type.Elem, src.Dst.Type.Elem
		if from != kernel.Float32 {
			v = from.Wrap(v)
		}
		s.writeScalar(in, in.Defs[0], seq, t, int64(int32(kernel.Convert(v, from, to))))
	case op == kernel.OpExtElem || op == kernel.OpUpdElem:
		// a lane out of or into a vector (the MV1 slot's vext and vupd)
		var v kernel.Vec
		ui := 1
		if op == kernel.OpUpdElem && (len(in.Uses) == 0 || in.Uses[0].Reg.File != backend.FileVec) {
			// a lane into an undefined vector (backend undefinedTemp): no vector is read, the
			// other lanes are undef_*'s zeros as in the interpreter
			ui = 0
		} else if err := s.readVec(in, in.Uses[0], seq, t, &v); err != nil {
			return true, err
		}
		arg := func(i int) (int64, error) {
			a := src.Args[i]
			if c, ok := s.p.ConstArg(src, i); ok {
				if a.IsFloat {
					return int64(math.Float32bits(a.F)), nil
				}
				return c, nil
			}
			if a.IsFloat {
				return int64(math.Float32bits(a.F)), nil
			}
			if ui >= len(in.Uses) {
				return 0, s.fail(in, "missing operand %d", i+1)
			}
			x, err := s.readScalar(in, in.Uses[ui], seq, t)
			ui++
			if a.Var != nil {
				x = a.Var.Type.Elem.Wrap(x)
			}
			return x, err
		}
		idx, err := arg(1)
		if err != nil {
			return true, err
		}
		ty := src.Args[0].Type()
		if idx < 0 || int(idx) >= ty.Lanes {
			return true, s.fail(in, "lane %d out of range for %v", idx, ty)
		}
		if op == kernel.OpExtElem {
			x := kernel.Convert(v.Lane(ty.Elem, int(idx)), ty.Elem, src.Dst.Type.Elem)
			s.writeScalar(in, in.Defs[0], seq, t, int64(int32(x)))
			break
		}
		x, err := arg(2)
		if err != nil {
			return true, err
		}
		at := src.Args[2].Type().Elem
		if src.Args[2].IsFloat {
			at = kernel.Float32
		}
		v.SetLane(ty.Elem, int(idx), kernel.Convert(x, at, ty.Elem))
		s.writeVec(in, in.Defs[0], seq, t, &v)
	case op == kernel.OpUnpack:
		var x, out kernel.Vec
		if err := s.readVec(in, in.Uses[0], seq, t, &x); err != nil {
			return true, err
		}
		ty := src.Args[0].Type()
		kernel.Unpack(&x, ty.Elem, ty.Lanes, &out)
		s.writeVec(in, in.Defs[0], seq, t, &out)
	case op == kernel.OpFPShuffle:
		// the buffer and xstart read at issue, the selection written at the def cycle
		var x, out kernel.Vec
		if err := s.readVec(in, in.Uses[0], seq, t, &x); err != nil {
			return true, err
		}
		xs, ok := s.p.ConstArg(src, 1)
		if !ok {
			if len(in.Uses) < 2 {
				return true, s.fail(in, "missing operand 2")
			}
			v, err := s.readScalar(in, in.Uses[1], seq, t)
			if err != nil {
				return true, err
			}
			xs = src.Args[1].Var.Type.Elem.Wrap(v)
		}
		xo, _ := s.p.ConstArg(src, 2)
		kernel.FPShuffle(&x, src.Args[0].Type().Lanes, xs, uint32ToInt(xo), &out)
		s.writeVec(in, in.Defs[0], seq, t, &out)
	case op == kernel.OpCycles:
		// the tile's 64-bit cycle counter, counted from the start of the run (UG1079
		// "Profiling Kernel Code"); stalls so far included
		c := t + s.adf.streamStalls
		s.adf.cycleReads = append(s.adf.cycleReads, c)
		s.writeScalar(in, in.Defs[0], seq, t, int64(uint32(c)))
	case op == kernel.OpStreamRead:
		q := s.adf.streams[src.Args[0].Var.Name]
		if q == nil {
			return true, s.fail(in, "no stream %s", src.Args[0].Var.Name)
		}
		ty := src.Dst.Type
		n := streamBytes(ty)
		if q.pos+n > len(q.data) {
			return true, s.fail(in, "reads %d bytes at byte %d of stream %s, which holds %d (the kernel would stall forever)", n, q.pos, q.name, len(q.data))
		}
		b := q.data[q.pos : q.pos+n]
		s.streamAccess(q, t, n)
		q.pos += n
		d := in.Defs[0]
		switch ty.Class {
		case kernel.Accum:
			var acc kernel.AccVal
			for l := 0; l < ty.Lanes; l++ {
				acc[l] = kernel.StreamLane(b, l, ty.Elem)
			}
			s.writeAcc(in, d, seq, t, &acc, ty.Lanes/len(d.Reg.Units))
		case kernel.Vector:
			var v kernel.Vec
			copy(v[:], b)
			s.writeVec(in, d, seq, t, &v)
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
			if ty.Elem != kernel.Float32 {
				raw = ty.Elem.Wrap(raw)
			}
			s.writeScalar(in, d, seq, t, raw)
		}
	case op == kernel.OpStreamWrite:
		q := s.adf.streams[src.Args[0].Var.Name]
		if q == nil {
			return true, s.fail(in, "no stream %s", src.Args[0].Var.Name)
		}
		ty := src.Args[1].Type()
		s.streamAccess(q, t, streamBytes(ty))
		switch {
		case ty.IsAcc():
			var acc kernel.AccVal
			u := in.Uses[0]
			if err := s.readAcc(in, u, seq, t, ty.Lanes/len(u.Reg.Units), &acc); err != nil {
				return true, err
			}
			for l := 0; l < ty.Lanes; l++ {
				q.data = kernel.AppendStreamLane(q.data, acc[l], ty.Elem)
			}
		case ty.IsVector():
			var v kernel.Vec
			if err := s.readVec(in, in.Uses[0], seq, t, &v); err != nil {
				return true, err
			}
			q.data = append(q.data, v[:ty.Bytes()]...)
		default:
			var x int64
			if len(in.Uses) > 0 {
				v, err := s.readScalar(in, in.Uses[0], seq, t)
				if err != nil {
					return true, err
				}
				x = v
			} else {
				x = in.Imm
			}
			var buf [4]byte
			binary.LittleEndian.PutUint32(buf[:], uint32(x))
			q.data = append(q.data, buf[:ty.Bytes()]...)
		}
	default:
		return false, nil
	}
	return true, nil
}

// execLane finishes fpadd/fpsub/fpmax/fpmin and vector max/min: x is the second operand,
// read at issue; the first is read here.
func (s *sim) execLane(in *backend.Instr, seq, t int64, x *kernel.Vec) error {
	src := in.Src
	op := src.Op
	var a, out kernel.Vec
	if err := s.readVec(in, in.Uses[0], seq, t, &a); err != nil {
		return err
	}
	if op.IsFPLane() {
		xs, _ := s.p.ConstArg(src, 2)
		xo, _ := s.p.ConstArg(src, 3)
		kernel.FPLane(op, &a, x, src.Args[1].Type().Lanes, xs, xo, &out)
	} else {
		ty := src.Args[0].Type()
		kernel.VMaxMin(op == kernel.OpVMin, ty.Elem, ty.Lanes, &a, x, &out)
	}
	s.writeVec(in, in.Defs[0], seq, t, &out)
	return nil
}

// convMove reports a scalar move between element types (a conversion).
func convMove(in *backend.Instr) bool {
	src := in.Src
	return src != nil && src.Op == kernel.OpMov && in.Name == "mov" && len(in.Uses) == 1 && len(in.Defs) == 1 &&
		len(src.Args) == 1 && src.Args[0].Var != nil && src.Dst != nil &&
		src.Args[0].Var.Type.IsScalar() && src.Dst.Type.IsScalar() && src.Args[0].Var.Type.Elem != src.Dst.Type.Elem
}

// scalarArgs reads a kernel instruction's scalar arguments: constants from the program, the
// others from the instruction's register operands in order.
func (s *sim) scalarArgs(in *backend.Instr, seq, t int64) ([]int64, error) {
	src := in.Src
	vals := make([]int64, len(src.Args))
	ui := 0
	for i, a := range src.Args {
		if c, ok := s.p.ConstArg(src, i); ok {
			vals[i] = c
			if a.IsFloat {
				vals[i] = int64(math.Float32bits(a.F))
			}
			continue
		}
		if a.IsFloat {
			vals[i] = int64(math.Float32bits(a.F))
			continue
		}
		if ui >= len(in.Uses) {
			return nil, s.fail(in, "missing operand %d", i+1)
		}
		v, err := s.readScalar(in, in.Uses[ui], seq, t)
		if err != nil {
			return nil, err
		}
		ui++
		if a.Var != nil {
			v = a.Var.Type.Elem.Wrap(v)
		}
		vals[i] = v
	}
	return vals, nil
}

// streamBytes is what a value takes on a stream (kernel.StreamLane's format for cascades).
func streamBytes(t kernel.Type) int {
	if t.IsAcc() {
		if t.Elem == kernel.Acc80 {
			return 16 * t.Lanes
		}
		return 8 * t.Lanes
	}
	return t.Bytes()
}

var _ = fmt.Sprint

// adfTimingOps lists the register accesses execADF makes for the ops it handles (the timing
// engine's view, timingOps); false for another op.
func adfTimingOps(p *backend.Program, in *backend.Instr, ti *tInstr, units func(*[]tOp, backend.Operand, bool)) bool {
	src := in.Src
	if src == nil {
		return false
	}
	isVec := func(o backend.Operand) bool { return o.Reg.File == backend.FileVec || o.Reg.File == backend.FileAcc }
	writes := func() {
		for _, d := range in.Defs {
			units(&ti.writes, d, isVec(d))
		}
	}
	readAll := func(from int) {
		for _, u := range in.Uses[min(from, len(in.Uses)):] {
			units(&ti.reads, u, isVec(u))
		}
	}
	switch op := src.Op; {
	case (op == kernel.OpWinIncr || op == kernel.OpPtrAdd || op == kernel.OpLoad || op == kernel.OpStore) && (in.Name == "mul" || in.Name == "lsl"), op == kernel.OpSelect, op == kernel.OpBroadcast,
		op == kernel.OpExtElem, op == kernel.OpUpdElem, op == kernel.OpCycles, op == kernel.OpFPShuffle, op == kernel.OpUnpack,
		op == kernel.OpStreamRead, op == kernel.OpStreamWrite:
		readAll(0)
		writes()
	case op.IsFPLane() || op == kernel.OpVMax || op == kernel.OpVMin:
		if len(in.Uses) < 2 {
			return false
		}
		units(&ti.reads, in.Uses[1], true)
		if in.Uses[0].Cycle > 1 {
			units(&ti.late, in.Uses[0], true)
		} else {
			units(&ti.reads, in.Uses[0], true)
		}
		writes()
	default:
		return false
	}
	return true
}

// uint32ToInt reads an xoffs word as its 32 unsigned bits.
func uint32ToInt(v int64) int64 { return int64(uint32(v)) }
