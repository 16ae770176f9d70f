package cyclesim

import (
	"encoding/binary"
	"unsafe"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Pass 2's fast forms of the instructions that dominate kernels (vector loads and stores,
// pointer adds, immediate moves, integer MACs with 48-bit lanes): operands resolved once per
// program to register units, so executing one is a few array accesses. Every other
// instruction goes through exec, the value-carrying engine's code in immediate mode. The
// two give the same results (TestTraceEngineMatchesReference compares the whole runs).

const (
	fGeneric uint8 = iota // s.exec
	fNop                  // no register or memory effect
	fVld                  // vector load: mem -> vector units, optional post-increment
	fVst                  // vector store: vector units -> mem, optional post-increment
	fPadd                 // pointer add immediate
	fMovImm               // scalar immediate move
	fMAC48                // integer MAC with 48-bit lanes (fastmac.go's table)
	fLds                  // scalar load: mem -> a scalar or pointer unit, optional post-increment
	fSts                  // scalar store
	fAcq                  // lock acquire (imm: the lock)
	fRel                  // lock release
	fSRS                  // shift-round-saturate: accumulator units -> vector units
	fVAdd                 // vector add or subtract (imm: 1 subtracts)
	fMov                  // scalar or pointer register move: dst = ptr (the source)
	fConcat               // vector concatenation of whole units: out = x, unit by unit
)

// fInstr is an instruction prepared for pass 2.
type fInstr struct {
	// The fields pass 2 reads most come first (one cache line: op, a MAC's assembly form,
	// tables, units and count; a memory instruction's address and size).
	op  uint8
	asm uint8 // asmMac16x2, asmMac8: the assembly on the units in place (0: none)
	inc bool  // memory: the address register is post-incremented
	// xRun, zRun: the MAC's gathers read X's (Z's) units in place (prepareF)
	xRun, zRun bool
	spill      bool
	path       uint8     // MAC: pathMac16x2, pathMac8 or 0 (fastMAC's general code), by macPath
	tab        *macTable // the MAC's selection tables
	macs       int64
	mu         macUnits // the units of pathMac16x2 and pathMac8
	ptr        int32    // global unit of the address register (memory), or the source (padd)
	dst        int32    // global unit written (padd, mov)
	region     int32    // memory: index in sim.regions of the instruction's memory space (-1: none)
	off, size  int32    // memory: offset and bytes
	postInc    int64
	imm        int64
	data       []int32 // vector units (vld: written, vst: read)
	x, z, acc  []int32 // MAC operands (acc: nil when the MAC has none)
	out        []int32
	lpu        int // MAC: accumulator lanes per unit
	// inPlace: the MAC's result units can be written while its accumulator input is still
	// being read (each output unit is not an input unit of another output unit)
	inPlace bool
	// fSRS, fVAdd: lanes and element type of the operation, SRS's constant shift
	lanes int
	elem  kernel.Elem
	shift int
}

// consecutive reports whether the units follow each other in one register file (then their
// values lie side by side in pass 2's registers, 16 bytes apart).
func consecutive(units []int32) bool {
	for i := range units {
		if units[i] != units[0]+int32(i) || i > 0 && fileOf(units[i]) != fileOf(units[0]) {
			return false
		}
	}
	return len(units) > 0
}

// operand returns where a MAC operand's 16-byte chunks are, one after the other: in place in
// pass 2's registers when run says its units are consecutive, else copied into buf.
func (s *sim) operand(units []int32, run bool, buf *kernel.Vec) unsafe.Pointer {
	if run {
		return unsafe.Pointer(&s.r.vec[units[0]])
	}
	for i, g := range units {
		*(*[16]byte)(buf[16*i:]) = s.r.vec[g]
	}
	return unsafe.Pointer(buf)
}

func gunits(r backend.Reg) []int32 {
	us := make([]int32, len(r.Units))
	for i, n := range r.Units {
		us[i] = gunit(r.File, n)
	}
	return us
}

// prepareF decides the pass-2 form of an instruction.
func prepareF(p *backend.Program, in *backend.Instr, kind uint8, dec *decoded) fInstr {
	f := fInstr{op: fGeneric, region: -1}
	switch kind {
	case kNop:
		f.op = fNop
	case kMovImm:
		if len(in.Defs) == 1 {
			f.op, f.dst, f.imm = fMovImm, gunit(in.Defs[0].Reg.File, in.Defs[0].Reg.Units[0]), in.Imm
		}
	case kPadd:
		if len(in.Defs) == 1 && len(in.Uses) == 1 && in.Wrap == "" {
			f.op, f.dst, f.ptr, f.imm = fPadd, gunit(in.Defs[0].Reg.File, in.Defs[0].Reg.Units[0]), gunit(in.Uses[0].Reg.File, in.Uses[0].Reg.Units[0]), in.Imm
		}
	case kMem:
		m := in.Mem
		var pu *backend.Operand
		for i := range in.Uses {
			if in.Uses[i].Kind == aie1.OpndPtr {
				pu = &in.Uses[i]
				break
			}
		}
		if pu == nil || m.Bytes <= 0 || in.Wrap != "" {
			break // a window that wraps: exec's memOp
		}
		f.ptr, f.off, f.size, f.postInc, f.spill = gunit(pu.Reg.File, pu.Reg.Units[0]), int32(m.Offset), int32(m.Bytes), int64(m.PostInc), in.Spill
		if m.PostInc != 0 {
			n := 0
			for _, d := range in.Defs {
				if d.Reg.File == backend.FilePtr && d.Reg.Units[0] == pu.Reg.Units[0] {
					n++
				}
			}
			if n != 1 {
				break // not the usual shape: leave it to exec
			}
			f.inc = true
		}
		scalar := func(r backend.Reg) bool {
			return r.File != backend.FileVec && r.File != backend.FileAcc && len(r.Units) > 0 && m.Bytes <= 8
		}
		switch {
		case m.Store && len(in.Uses) > 0 && in.Uses[0].Reg.File == backend.FileVec && m.Bytes <= 16*len(in.Uses[0].Reg.Units):
			f.op, f.data = fVst, gunits(in.Uses[0].Reg)
		case m.Store && len(in.Uses) > 0 && scalar(in.Uses[0].Reg):
			f.op, f.dst = fSts, gunit(in.Uses[0].Reg.File, in.Uses[0].Reg.Units[0])
		case m.Store:
		case len(in.Defs) > 0 && in.Defs[0].Reg.File == backend.FileVec && m.Bytes <= 16*len(in.Defs[0].Reg.Units):
			f.op, f.data = fVld, gunits(in.Defs[0].Reg)
		case len(in.Defs) > 0 && scalar(in.Defs[0].Reg):
			f.op, f.dst = fLds, gunit(in.Defs[0].Reg.File, in.Defs[0].Reg.Units[0])
		}
	case kAcq, kRel:
		if in.Lock != nil && in.Lock.ID >= 0 && in.Lock.ID < 64 {
			f.op, f.imm = fAcq, int64(in.Lock.ID)
			if kind == kRel {
				f.op = fRel
			}
		}
	case kRaw:
		// a register-to-register move of a scalar or pointer (exec's rawMove)
		if in.Name == "mov" && len(in.Defs) == 1 && len(in.Uses) == 1 && len(in.Defs[0].Reg.Units) > 0 && len(in.Uses[0].Reg.Units) > 0 && !convMove(in) {
			d, u := in.Defs[0].Reg, in.Uses[0].Reg
			if d.File != backend.FileVec && d.File != backend.FileAcc && u.File != backend.FileVec && u.File != backend.FileAcc {
				f.op, f.dst, f.ptr = fMov, gunit(d.File, d.Units[0]), gunit(u.File, u.Units[0])
			}
		}
	case kGeneric:
		prepareGeneric(p, in, &f)
	case kMAC:
		if dec == nil || !dec.tab.ok || dec.form == kernel.FormFloat || dec.xo < 0 || dec.zo < 0 || len(in.Defs) == 0 {
			break
		}
		out := in.Defs[0].Reg
		if len(out.Units) == 0 || len(out.Units) > 2 || out.File != backend.FileAcc {
			break
		}
		lpu := dec.accLanes / len(out.Units)
		if lpu > 8 || in.Uses[dec.xo].Reg.File != backend.FileVec || in.Uses[dec.zo].Reg.File != backend.FileVec ||
			len(in.Uses[dec.xo].Reg.Units) > 8 || len(in.Uses[dec.zo].Reg.Units) > 8 {
			break
		}
		if dec.acco >= 0 {
			a := in.Uses[dec.acco].Reg
			if len(a.Units) != len(out.Units) || a.File != backend.FileAcc {
				break
			}
			f.acc = gunits(a)
		}
		f.inPlace = true
		for i, o := range gunits(out) {
			for k, a := range f.acc {
				if k != i && a == o {
					f.inPlace = false
				}
			}
		}
		f.op, f.x, f.z, f.out, f.lpu, f.macs = fMAC48, gunits(in.Uses[dec.xo].Reg), gunits(in.Uses[dec.zo].Reg), gunits(out), lpu, int64(in.MACs)
		setMACPath(dec, &f)
	}
	return f
}

// setMACPath decides f's MAC path once per program, and where its operands are read.
func setMACPath(d *decoded, f *fInstr) {
	f.path, f.tab = macPath(d, f), &d.tab
	if f.path == 0 {
		return
	}
	// the assembly reads the operands in place when their units are consecutive (one
	// stride apart in the register file) and hold every chunk the gathers read
	t := &d.tab
	f.mu = macUnits{x: f.x[0], z: f.z[0], acc0: f.acc[0], out0: f.out[0], acc1: f.acc[1], out1: f.out[1]}
	switch f.path {
	case pathMac16x2:
		f.xRun = consecutive(f.x) && t.x16 != nil && t.x16.nSrc <= len(f.x)
		for i, o := range [2]int{int(t.z[0][0] & 126), int(t.z[0][1] & 126)} {
			// Z's two elements: even bytes, each within one unit
			if o/16 >= len(f.z) {
				f.path = 0
				return
			}
			if i == 0 {
				f.mu.zu0, f.mu.zb0 = f.z[o/16], int32(o%16)
			} else {
				f.mu.zu1, f.mu.zb1 = f.z[o/16], int32(o%16)
			}
		}
	case pathMac8:
		f.xRun = consecutive(f.x) && t.simd.gx.nSrc <= len(f.x)
		f.zRun = consecutive(f.z) && t.simd.gz.nSrc <= len(f.z)
	}
	switch {
	case f.path == pathMac16x2 && f.xRun:
		f.asm = asmMac16x2
	case f.path == pathMac8 && f.xRun && f.zRun:
		f.asm = asmMac8
	}
}

// The assembly MACs on register units in place (f.asm).
const (
	asmMac16x2 uint8 = 1 + iota // mac16x2U
	asmMac8                     // mac8U
)

// The MAC forms with their own code in fastMAC: the GEMM-style int16 mac16 (16 lanes, 2
// columns, broadcast Z) and the 8-bit mac16 of the SIMD path, both accumulating 16 lanes
// into two units in place.
const (
	pathMac16x2 uint8 = 1 + iota
	pathMac8
)

// macPath decides f's MAC path once per program.
func macPath(d *decoded, f *fInstr) uint8 {
	t := &d.tab
	usual := d.kind == kernel.Mac && t.lanes == 16 && f.lpu == 8 && len(f.out) == 2 && f.inPlace && f.acc != nil
	switch {
	case usual && t.mode == fast16 && littleEndian && t.zBcast && t.cols == 2:
		return pathMac16x2
	case usual && t.simd != nil:
		return pathMac8
	}
	return 0
}

// prepareGeneric gives SRS and vector adds their fast forms (exec's semantics: the source
// op's argument types, SRS's shift a constant).
func prepareGeneric(p *backend.Program, in *backend.Instr, f *fInstr) {
	src := in.Src
	if src == nil || len(in.Defs) != 1 || in.Defs[0].Reg.File != backend.FileVec || len(in.Defs[0].Reg.Units) > 8 {
		return
	}
	switch op := src.Op; {
	case op == kernel.OpSRS || op == kernel.OpLSRS || op == kernel.OpBSRS || op == kernel.OpUBSRS:
		shift, ok := p.ConstArg(src, 1)
		if !ok || len(in.Uses) < 1 || in.Uses[0].Reg.File != backend.FileAcc || src.Dst == nil {
			return
		}
		a := in.Uses[0].Reg
		lanes := src.Args[0].Var.Type.Lanes
		if len(a.Units) == 0 || lanes%len(a.Units) != 0 || lanes/len(a.Units) > 8 || lanes > 16 {
			return
		}
		f.op, f.acc, f.out, f.lanes, f.shift, f.elem = fSRS, gunits(a), gunits(in.Defs[0].Reg), lanes, int(shift), src.Dst.Type.Elem
		f.lpu = lanes / len(a.Units)
	case op == kernel.OpConcat:
		// parts of whole units (kernel.Concat with part sizes a multiple of 16 bytes)
		part := src.Args[0].Var.Type.Bytes()
		if part <= 0 || part%16 != 0 || len(in.Uses) > 4 {
			return
		}
		var x []int32
		for _, u := range in.Uses {
			if u.Reg.File != backend.FileVec || len(u.Reg.Units) != part/16 {
				return
			}
			x = append(x, gunits(u.Reg)...)
		}
		if out := gunits(in.Defs[0].Reg); len(out) == len(x) {
			f.op, f.x, f.out = fConcat, x, out
		}
	case op == kernel.OpVAdd || op == kernel.OpVSub:
		ty := src.Args[0].Var.Type
		if !ty.IsVector() || len(in.Uses) < 2 || in.Uses[0].Reg.File != backend.FileVec || in.Uses[1].Reg.File != backend.FileVec ||
			len(in.Uses[0].Reg.Units) > 8 || len(in.Uses[1].Reg.Units) > 8 {
			return
		}
		// the operands' units hold every lane (the scratch they are copied into is not cleared)
		if need := ty.Lanes * ty.Elem.Bits() / 8; need > 16*len(in.Uses[0].Reg.Units) || need > 16*len(in.Uses[1].Reg.Units) {
			return
		}
		f.op, f.x, f.z, f.out, f.lanes, f.elem = fVAdd, gunits(in.Uses[0].Reg), gunits(in.Uses[1].Reg), gunits(in.Defs[0].Reg), ty.Lanes, ty.Elem
		if op == kernel.OpVSub {
			f.imm = 1
		}
	}
}

// fast executes trace entry k (instruction in, prepared as f) in pass 2.
func (s *sim) fast(f *fInstr, in *backend.Instr, k int32, seq, t int64) error {
	switch f.op {
	case fNop:
		return nil
	case fMovImm:
		s.r.s[f.dst] = f.imm
		return nil
	case fPadd:
		s.r.s[f.dst] = s.r.s[f.ptr] + f.imm
		return nil
	case fVld, fVst:
		pv, a, n, ok := s.access(f, k)
		if !ok {
			return s.exec(in, seq, t) // the error, worded by the general path
		}
		if f.op == fVld {
			for i, g := range f.data {
				v := &s.r.vec[g]
				lo := 16 * i
				if lo >= n {
					*v = [16]byte{}
					continue
				}
				if lo+16 <= n {
					*v = [16]byte(s.mem[a+lo : a+lo+16])
					continue
				}
				*v = [16]byte{}
				copy(v[:], s.mem[a+lo:a+n])
			}
		} else {
			for i, g := range f.data {
				lo := 16 * i
				if lo >= n {
					break
				}
				copy(s.mem[a+lo:a+n], s.r.vec[g][:])
			}
			s.markStored(a, n)
			if f.spill {
				s.res.Spills++
			}
		}
		if f.op == fVld && f.spill {
			s.res.Fills++
		}
		if f.inc {
			*pv += f.postInc
		}
		return nil
	case fMAC48:
		return s.fastMAC(f, in)
	case fLds, fSts:
		pv, a, n, ok := s.access(f, k)
		if !ok {
			return s.exec(in, seq, t)
		}
		var buf [8]byte
		if f.op == fLds {
			copy(buf[:], s.mem[a:a+n])
			v := int64(binary.LittleEndian.Uint64(buf[:]))
			if n == 4 {
				v = int64(int32(uint32(v)))
			}
			s.r.s[f.dst] = v
			if f.spill {
				s.res.Fills++
			}
		} else {
			binary.LittleEndian.PutUint64(buf[:], uint64(s.r.s[f.dst]))
			copy(s.mem[a:a+n], buf[:n])
			s.markStored(a, n)
			if f.spill {
				s.res.Spills++
			}
		}
		if f.inc {
			*pv += f.postInc
		}
		return nil
	case fAcq, fRel:
		id := int(f.imm)
		if s.locks.held(id) == (f.op == fAcq) {
			return s.exec(in, seq, t) // the error, worded by the general path
		}
		s.locks.set(id, f.op == fAcq)
		return nil
	case fSRS:
		acc := &s.srsAcc
		for i, g := range f.acc {
			copy(acc[i*f.lpu:(i+1)*f.lpu], s.r.acc[g][:f.lpu])
		}
		var out kernel.Vec
		n := kernel.SRS(acc, f.lanes, f.shift, f.elem, s.cfg.Round, s.cfg.Sat, &out)
		s.res.Narrowed += int64(f.lanes)
		s.res.Saturated += int64(n)
		for i, g := range f.out {
			s.r.vec[g] = [16]byte(out[16*i:])
		}
		return nil
	case fVAdd:
		a, b := &s.x8, &s.z8
		for i, g := range f.x {
			*(*[16]byte)(a[16*i:]) = s.r.vec[g]
		}
		for i, g := range f.z {
			*(*[16]byte)(b[16*i:]) = s.r.vec[g]
		}
		var out kernel.Vec
		kernel.VAdd(f.imm == 1, f.elem, f.lanes, a, b, &out)
		for i, g := range f.out {
			s.r.vec[g] = [16]byte(out[16*i:])
		}
		return nil
	case fMov:
		s.r.s[f.dst] = s.r.s[f.ptr]
		return nil
	case fConcat:
		v := &s.x8 // through a copy: the output may reuse source units
		for i, g := range f.x {
			*(*[16]byte)(v[16*i:]) = s.r.vec[g]
		}
		for i, g := range f.out {
			s.r.vec[g] = [16]byte(v[16*i:])
		}
		return nil
	}
	return s.exec(in, seq, t)
}

// access computes a memory instruction's address (its pointer register is pv) and records it
// for pass 3; ok is false when the access leaves the memory or its region (exec words the
// error).
func (s *sim) access(f *fInstr, k int32) (pv *int64, a, n int, ok bool) {
	pv = &s.r.s[f.ptr]
	a, n = int(*pv)+int(f.off), int(f.size)
	if a < 0 || a+n > aie1.ReachBytes || s.outsideRegion(f.region, a, n) && (f.op != fVld && f.op != fLds || s.readOutside(f.region, a, n) != "") {
		return pv, a, n, false
	}
	s.addrs[k] = int32(a)
	return pv, a, n, true
}

// outsideRegion reports whether bytes [a, a+n) leave region ri (-1: none; a region of size
// -1 is not one).
func (s *sim) outsideRegion(ri int32, a, n int) bool {
	if ri < 0 {
		return false
	}
	r := s.regions[ri]
	return r[1] >= 0 && (a < r[0] || a+n > r[0]+r[1])
}

// readOutside says why a load of bytes [a, a+n) (inside the data memory) that leaves region
// ri cannot read the memory image as the hardware would ("" when it can): the same rule as
// the interpreter's (interp.OutsideRead), plus the window descriptors and the spill stack,
// which the interpreter's image does not hold.
func (s *sim) readOutside(ri int32, a, n int) string {
	if ri >= 0 && s.pi.params[ri].storage != nil {
		return "sumac reads past windows and buffers only, not past an array with storage of its own"
	}
	if a+n > s.pi.sysStart {
		return "the bytes read include the window descriptors and spill stack, which the interpreter's memory image does not hold"
	}
	for i, r := range s.regions {
		if r[1] > 0 && s.pi.params[i].storage != nil && a < r[0]+r[1] && r[0] < a+n {
			return "the bytes read belong to array " + s.pi.params[i].name + ", whose place in data memory sumac does not model"
		}
	}
	return ""
}

// vld executes a vector load of whole units inside the memory and its region, reporting
// false for any other case (fast has the general form and the errors); pass 2 calls it first,
// outside fast's frame.
func (s *sim) vld(f *fInstr, k int32) bool {
	if int(f.size) != 16*len(f.data) || f.spill {
		return false
	}
	pv, a, _, ok := s.access(f, k)
	if !ok {
		return false
	}
	for i, g := range f.data {
		s.r.vec[g] = [16]byte(s.mem[a+16*i:])
	}
	if f.inc {
		*pv += f.postInc
	}
	return true
}

// simdMAC executes f on its assembly path, reporting false when it has none (fastMAC's first
// step; pass 2 runs the in-place forms itself, before any call).
func (s *sim) simdMAC(f *fInstr) bool {
	if !useSIMD {
		return false
	}
	switch {
	case f.asm == asmMac16x2:
		mac16x2U(f.tab.x16, &s.r, &f.mu)
	case f.asm == asmMac8:
		mac8U(f.tab.simd, &s.r, &f.mu)
	case f.path == pathMac8:
		// operands in scattered units: copied, then the steps one by one
		mac8AccGo(f.tab.simd, s.operand(f.x, f.xRun, &s.x8), s.operand(f.z, f.zRun, &s.z8), &s.r.acc[f.acc[0]], &s.r.acc[f.out[0]], &s.r.acc[f.acc[1]], &s.r.acc[f.out[1]])
	default:
		return false
	}
	s.res.MACs += f.macs
	return true
}

// fastMAC is exec's MAC (execMAC48) on prepared operands.
func (s *sim) fastMAC(f *fInstr, in *backend.Instr) error {
	if s.simdMAC(f) {
		return nil
	}
	d := s.dec[in.ID]
	s.res.MACs += f.macs
	if f.path == pathMac16x2 {
		s.mac16x2(f, &d.tab)
		return nil
	}
	var sums [16]int64
	var lanes int
	switch {
	case useSIMD && d.tab.simd != nil:
		x, z := &s.x8, &s.z8
		for i, g := range f.x {
			*(*[16]byte)(x[16*i:]) = s.r.vec[g]
		}
		for i, g := range f.z {
			*(*[16]byte)(z[16*i:]) = s.r.vec[g]
		}
		lanes = macSumsSIMD(&d.tab, x, z, &s.msc, &sums)
	case d.tab.mode == fast16 && littleEndian:
		// 16-bit elements read in place: X and Z gathered as int16 arrays (the table reads
		// only elements inside the operands, so what the buffers held before does not matter)
		x, z := &s.x16, &s.z16
		xb, zb := (*[128]byte)(unsafe.Pointer(x)), (*[128]byte)(unsafe.Pointer(z))
		for i, g := range f.x {
			*(*[16]byte)(xb[16*i:]) = s.r.vec[g]
		}
		for i, g := range f.z {
			*(*[16]byte)(zb[16*i:]) = s.r.vec[g]
		}
		lanes = macSums16(&d.tab, x, z, &sums)
	default:
		x, z := &s.x8, &s.z8
		for i, g := range f.x {
			*(*[16]byte)(x[16*i:]) = s.r.vec[g]
		}
		for i, g := range f.z {
			*(*[16]byte)(z[16*i:]) = s.r.vec[g]
		}
		lanes = macSums(&d.tab, x, z, &sums)
	}
	res := &s.macRes
	for i := range f.out {
		r := &res[i&1]
		if f.inPlace {
			r = &s.r.acc[f.out[i]]
		}
		n := max(min(f.lpu, lanes-i*f.lpu, 8), 0)
		clear(r[n:]) // lanes past the MAC's (or the unit's share) are zero
		if n == 0 {
			continue
		}
		ls := sums[i*f.lpu&15:]
		neg := d.kind == kernel.Msc
		if f.acc == nil || d.kind == kernel.Mul { // no accumulator input: as kernel.MACInt, zero
			for j := 0; j < n; j++ {
				v := ls[j]
				if neg {
					v = -v
				}
				v = v << 16 >> 16 // wrap to 48 bits
				r[j] = num.Acc{Hi: v >> 63, Lo: uint64(v)}
			}
			continue
		}
		src := &s.r.acc[f.acc[i]]
		for j := 0; j < n; j++ {
			sm := ls[j]
			if neg {
				sm = -sm
			}
			v := (int64(src[j].Lo) + sm) << 16 >> 16
			r[j] = num.Acc{Hi: v >> 63, Lo: uint64(v)}
		}
	}
	if !f.inPlace {
		for i, g := range f.out {
			s.r.acc[g] = res[i&1]
		}
	}
	return nil
}

// mac16x2 is fastMAC for the GEMM-style int16 mac16 (16 lanes, 2 columns, a broadcast Z,
// accumulating into two 8-lane units written in place) in Go (simdMAC has its assembly
// form): products, accumulation and the 48-bit wrap in one pass per lane.
func (s *sim) mac16x2(f *fInstr, t *macTable) {
	x, z := &s.x16, &s.z16
	xb, zb := (*[128]byte)(unsafe.Pointer(x)), (*[128]byte)(unsafe.Pointer(z))
	for i, g := range f.x {
		*(*[16]byte)(xb[16*i:]) = s.r.vec[g]
	}
	for i, g := range f.z {
		*(*[16]byte)(zb[16*i:]) = s.r.vec[g]
	}
	z0, z1 := int64(z[t.z[0][0]>>1&63]), int64(z[t.z[0][1]>>1&63])
	for i := 0; i < 2; i++ {
		src := &s.r.acc[f.acc[i]]
		dst := &s.r.acc[f.out[i]]
		xs := (*[8][8]uint8)(t.x[8*i:])
		for j := 0; j < 8; j++ {
			xi := &xs[j]
			v := int64(src[j].Lo) + int64(x[xi[0]>>1&63])*z0 + int64(x[xi[1]>>1&63])*z1
			v = v << 16 >> 16 // wrap to 48 bits
			dst[j] = num.Acc{Hi: v >> 63, Lo: uint64(v)}
		}
	}
}

// littleEndian: the host stores an int16's low byte first (amd64, arm64, ...), so a vector
// register's bytes can be read as int16 elements in place.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// macSums16 is macSums for 16-bit elements read from int16 arrays.
func macSums16(t *macTable, x, z *[64]int16, sums *[16]int64) int {
	lanes, cols := min(t.lanes, 16), min(t.cols, 8)
	if cols == 2 && t.zBcast {
		z0, z1 := int64(z[t.z[0][0]>>1&63]), int64(z[t.z[0][1]>>1&63])
		for l := 0; l < lanes; l++ {
			xi := &t.x[l]
			sums[l] = int64(x[xi[0]>>1&63])*z0 + int64(x[xi[1]>>1&63])*z1
		}
		return lanes
	}
	for l := 0; l < lanes; l++ {
		xi, zi := &t.x[l], &t.z[l]
		var s int64
		for c := 0; c < cols; c++ {
			s += int64(x[xi[c]>>1&63]) * int64(z[zi[c]>>1&63])
		}
		sums[l] = s
	}
	return lanes
}
