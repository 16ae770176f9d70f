package xdna

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/vliw"
)

// ISA is the AIE2-family instruction subset the tensor-contraction kernels use, for one Arch:
// which slot each mnemonic occupies ([XD-isa] operation tables and the slot columns of the
// published listings: V, A, B, S, X, M, XM) and what it does in which stage (Arch.Lat).
type ISA struct{ A *Arch }

// NewISA returns the ISA of an architecture.
func NewISA(a *Arch) *ISA { return &ISA{A: a} }

type opDef struct {
	slots []string
	gens  []Gen // generations that have it (nil: both)
	bind  func(a *Arch, in *vliw.Inst) error
}

var scalarClasses = map[string]bool{"r": true, "p": true, "m": true, "dn": true, "dj": true, "dc": true, "s": true,
	"ls": true, "le": true, "lc": true, "lr": true, "sp": true}

var ops = map[string]opDef{}

func init() {
	for n, s := range map[string]string{"nop": "", "nopv": "vec", "nopa": "lda", "nopb": "ldb", "nops": "st", "nopx": "alu", "nopm": "mv", "nopxm": "lng"} {
		sl := []string{s}
		if s == "" {
			sl = []string{"vec"} // a bare nop occupies nothing that matters; keep it in vec
		}
		ops[n] = opDef{slots: sl, bind: func(*Arch, *vliw.Inst) error { return nil }}
	}
	// Moves: MOV in the mv slot, MOVX in the alu slot, MOVA in the A slot, MOVS in the S slot,
	// MOVXM (32-bit immediate) in the long slot [XD-isa] "mov - move".
	for n, s := range map[string]string{"mov": "mv", "movx": "alu", "mova": "lda", "movs": "st", "movxm": "lng"} {
		ops[n] = opDef{slots: []string{s}, bind: bindMov}
	}
	for _, n := range []string{"add", "sub", "mul", "lt", "ltu", "gt", "gtu", "le", "leu", "ge", "geu", "eq", "ne", "and", "or", "xor"} {
		ops[n] = opDef{slots: []string{"alu"}, bind: bindALU}
	}
	ops["sel.nez"] = opDef{slots: []string{"alu"}, bind: bindSel}
	ops["sel.eqz"] = opDef{slots: []string{"alu"}, bind: bindSel}
	ops["padda"] = opDef{slots: []string{"lda"}, bind: bindPadd}
	ops["paddb"] = opDef{slots: []string{"ldb"}, bind: bindPadd}
	ops["padds"] = opDef{slots: []string{"st"}, bind: bindPadd}
	ops["ret"] = opDef{slots: []string{"alu", "mv"}, bind: bindRet}
	ops["vlda"] = opDef{slots: []string{"lda"}, bind: bindVLD}
	ops["vldb"] = opDef{slots: []string{"ldb"}, bind: bindVLD}
	ops["vst"] = opDef{slots: []string{"st"}, bind: bindVST}
	ops["vmov"] = opDef{slots: []string{"mv"}, bind: bindVMOV}
	ops["vmac.f"] = opDef{slots: []string{"vec"}, bind: bindMAC}
	ops["vmul.f"] = opDef{slots: []string{"vec"}, bind: bindMAC}
	ops["vlda.fill.512"] = opDef{slots: []string{"lda"}, gens: []Gen{AIE2P}, bind: bindFill}
	ops["vldb.fill.512"] = opDef{slots: []string{"ldb"}, gens: []Gen{AIE2P}, bind: bindFill}
	ops["vlda.pop.576"] = opDef{slots: []string{"lda"}, gens: []Gen{AIE2P}, bind: bindPop}
	ops["vldb.pop.576"] = opDef{slots: []string{"ldb"}, gens: []Gen{AIE2P}, bind: bindPop}
}

// Slots implements vliw.ISA.
func (s *ISA) Slots(op string) ([]string, bool) {
	d, ok := ops[op]
	if !ok || !d.has(s.A.Gen) {
		return nil, false
	}
	return d.slots, true
}

func (d opDef) has(g Gen) bool {
	if d.gens == nil {
		return true
	}
	for _, x := range d.gens {
		if x == g {
			return true
		}
	}
	return false
}

// Bind implements vliw.ISA.
func (s *ISA) Bind(in *vliw.Inst) error {
	d, ok := ops[in.Op]
	if !ok || !d.has(s.A.Gen) {
		return fmt.Errorf("%s has no operation %q", s.A.Name, in.Op)
	}
	return d.bind(s.A, in)
}

// Operation returns an instruction built and bound (generator use).
func (s *ISA) Operation(op string, args ...vliw.Arg) *vliw.Inst {
	in := &vliw.Inst{Op: op, Args: args}
	d, ok := ops[op]
	if !ok {
		panic("xdna: no operation " + op)
	}
	in.Slot = d.slots[0]
	if err := d.bind(s.A, in); err != nil {
		panic(fmt.Sprintf("xdna: %s: %v", in, err))
	}
	return in
}

func wantArgs(in *vliw.Inst, n int) error {
	if len(in.Args) != n {
		return fmt.Errorf("%s takes %d operands, has %d", in.Op, n, len(in.Args))
	}
	return nil
}

func isScalar(a vliw.Arg) bool { return a.Kind == vliw.ArgReg && scalarClasses[a.Reg.Class] }

// scalar reads operand i (a register or an immediate) in the current stage.
func scalar(c *vliw.Ctx, i int) int64 {
	a := c.In.Args[i]
	if a.Kind == vliw.ArgImm {
		return a.Imm
	}
	return c.ReadU32(a.Reg, i)
}

func bindMov(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 2); err != nil {
		return err
	}
	if !isScalar(in.Args[0]) || !(isScalar(in.Args[1]) || in.Args[1].Kind == vliw.ArgImm) {
		return fmt.Errorf("%s wants a scalar destination and a scalar or immediate source", in.Op)
	}
	dst := in.Args[0].Reg
	in.Defs = []*vliw.Reg{dst}
	in.Exec = func(c *vliw.Ctx) {
		c.At(1, func() { c.WriteI32(a.Lat.ALUDst, dst, scalar(c, 1)) })
	}
	return nil
}

func bindALU(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 3); err != nil {
		return err
	}
	if !isScalar(in.Args[0]) || !isScalar(in.Args[1]) || !(isScalar(in.Args[2]) || in.Args[2].Kind == vliw.ArgImm) {
		return fmt.Errorf("%s wants scalar registers (and an immediate last)", in.Op)
	}
	dst, op := in.Args[0].Reg, in.Op
	st := a.Lat.ALUDst
	if op == "mul" {
		st = a.Lat.MulDst
	}
	in.Defs = []*vliw.Reg{dst}
	in.Exec = func(c *vliw.Ctx) {
		c.At(1, func() {
			x, y := scalar(c, 1), scalar(c, 2)
			ux, uy := uint32(x), uint32(y)
			var v int64
			b := func(t bool) int64 {
				if t {
					return 1
				}
				return 0
			}
			switch op {
			case "add":
				v = x + y
			case "sub":
				v = x - y
			case "mul":
				v = x * y
			case "lt":
				v = b(x < y)
			case "ltu":
				v = b(ux < uy)
			case "gt":
				v = b(x > y)
			case "gtu":
				v = b(ux > uy)
			case "le":
				v = b(x <= y)
			case "leu":
				v = b(ux <= uy)
			case "ge":
				v = b(x >= y)
			case "geu":
				v = b(ux >= uy)
			case "eq":
				v = b(x == y)
			case "ne":
				v = b(x != y)
			case "and":
				v = x & y
			case "or":
				v = x | y
			case "xor":
				v = x ^ y
			}
			c.WriteI32(st, dst, int64(int32(v)))
		})
	}
	return nil
}

// bindSel: SEL.(EQZ|NEZ) d, s, t, r27 [XD-isa]: d = s if r27 (is zero | is not zero), else t.
func bindSel(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 4); err != nil {
		return err
	}
	for i := 0; i < 4; i++ {
		if !isScalar(in.Args[i]) {
			return fmt.Errorf("%s wants four scalar registers", in.Op)
		}
	}
	if in.Args[3].Reg.Name != "r27" {
		return fmt.Errorf("%s tests r27, not %s [XD isa]", in.Op, in.Args[3].Reg.Name)
	}
	dst, nez := in.Args[0].Reg, in.Op == "sel.nez"
	in.Defs = []*vliw.Reg{dst}
	in.Exec = func(c *vliw.Ctx) {
		c.At(1, func() {
			x, y, cond := scalar(c, 1), scalar(c, 2), scalar(c, 3)
			v := y
			if (cond != 0) == nez {
				v = x
			}
			c.WriteI32(a.Lat.ALUDst, dst, v)
		})
	}
	return nil
}

func bindPadd(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 1); err != nil {
		return err
	}
	m := in.Args[0]
	if m.Kind != vliw.ArgMem || !m.Post {
		return fmt.Errorf("%s wants [p], #imm or [p], m", in.Op)
	}
	in.Defs = []*vliw.Reg{m.Base}
	in.Exec = func(c *vliw.Ctx) {
		c.At(1, func() {
			p := c.ReadU32(m.Base, 0)
			c.WriteI32(a.Lat.PtrUpdate, m.Base, p+postInc(c, m))
		})
	}
	return nil
}

func postInc(c *vliw.Ctx, m vliw.Arg) int64 {
	if m.PostReg != nil {
		return c.ReadU32(m.PostReg, -1)
	}
	return m.PostImm
}

func bindRet(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 1); err != nil {
		return err
	}
	if in.Args[0].Kind != vliw.ArgReg || in.Args[0].Reg.Name != "lr" {
		return fmt.Errorf("ret returns through lr")
	}
	in.Exec = func(c *vliw.Ctx) {
		c.Return()
		c.At(1, func() { c.Read(in.Args[0].Reg, 0) })
	}
	return nil
}

// address computes a memory operand's address in stage 1 and schedules its post-modify.
func address(a *Arch, c *vliw.Ctx, m vliw.Arg, argIdx int) int {
	p := c.ReadU32(m.Base, argIdx)
	if m.Post {
		c.WriteI32(a.Lat.PtrUpdate, m.Base, p+postInc(c, m))
		return int(p)
	}
	return int(p + m.Off)
}

func isAcc(a *Arch, r *vliw.Reg) bool {
	return r.Class == "am" || r.Class == "bm" || r.Class == "cm" || r.Class == "dm"
}

func bindVLD(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 2); err != nil {
		return err
	}
	d, m := in.Args[0], in.Args[1]
	if d.Kind != vliw.ArgReg || m.Kind != vliw.ArgMem || m.Fifo != nil {
		return fmt.Errorf("%s wants a register and [p, #off], [p], #inc or [p], m", in.Op)
	}
	if d.Reg.Bytes != a.LoadBytes {
		return fmt.Errorf("%s loads %d bytes; %s has %d", in.Op, a.LoadBytes, d.Reg.Name, d.Reg.Bytes)
	}
	unitB := in.Op == "vldb"
	if isAcc(a, d.Reg) && unitB {
		// [XD-isa], [seed]: only load unit A writes accumulator registers.
		return fmt.Errorf("vldb cannot write the accumulator %s (only unit A loads accumulators)", d.Reg.Name)
	}
	if !isAcc(a, d.Reg) && d.Reg.Class != "x" && d.Reg.Class != "w" {
		return fmt.Errorf("%s cannot load %s", in.Op, d.Reg.Name)
	}
	in.Defs = []*vliw.Reg{d.Reg, m.Base}
	n := a.LoadBytes
	in.Exec = func(c *vliw.Ctx) {
		if a.NoLoadAfterPop {
			for _, p := range c.Prev() {
				if p.Slot == in.Slot && strings.Contains(p.Op, ".pop") {
					c.Fail("pipeline", "a standard load may not directly follow %q on the same unit [XD isa]", p)
				}
			}
		}
		var addr int
		c.At(1, func() {
			addr = address(a, c, m, 1)
			if addr%n != 0 {
				c.Fail("align", "address %d is not %d-byte aligned", addr, n)
			}
		})
		c.At(a.Lat.Mem, func() { c.Write(a.Lat.VLDDst, d.Reg, c.Load(addr, n)) })
	}
	return nil
}

func bindVST(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 2); err != nil {
		return err
	}
	d, m := in.Args[0], in.Args[1]
	if d.Kind != vliw.ArgReg || m.Kind != vliw.ArgMem || m.Fifo != nil {
		return fmt.Errorf("vst wants a register and a memory operand")
	}
	if d.Reg.Bytes != a.StoreBytes {
		return fmt.Errorf("vst stores %d bytes; %s has %d", a.StoreBytes, d.Reg.Name, d.Reg.Bytes)
	}
	in.Defs = []*vliw.Reg{m.Base}
	n := a.StoreBytes
	in.Exec = func(c *vliw.Ctx) {
		var addr int
		var data []byte
		c.At(a.Lat.VSTSrc, func() {
			data = c.Read(d.Reg, 0)
			addr = address(a, c, m, 1)
			if addr%n != 0 {
				c.Fail("align", "address %d is not %d-byte aligned", addr, n)
			}
		})
		c.At(a.Lat.Mem, func() { c.Store(addr, data) })
	}
	return nil
}

func bindVMOV(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 2); err != nil {
		return err
	}
	d, s := in.Args[0], in.Args[1]
	if d.Kind != vliw.ArgReg || s.Kind != vliw.ArgReg || d.Reg.Bytes != s.Reg.Bytes || scalarClasses[d.Reg.Class] {
		return fmt.Errorf("vmov wants two vector or accumulator registers of one size")
	}
	in.Defs = []*vliw.Reg{d.Reg}
	in.Exec = func(c *vliw.Ctx) {
		c.At(1, func() { c.Write(a.Lat.VMOVDst, d.Reg, c.Read(s.Reg, 1)) })
	}
	return nil
}

// bindMAC: VMAC.F dst, acc, a, b, conf and VMUL.F dst, a, b, conf. On AIE2P the operands are
// EX registers holding bfp16ebs8 8x8 tiles and dst/acc are DM (64 fp32): dst = acc + A B^T
// (B stored [n][k], MA mm_bfp.cc mac_8x8_8x8T; [seed] layout [n0,k0]). On AIE2 they are X
// registers holding bf16 4x8 (A) and 8x8... 8x4 (B) row-major tiles and BM (16 fp32):
// dst = acc + A B ([XD1] "Register data layout"). Every lane is num.FP32Sum of its exact
// products.
func bindMAC(a *Arch, in *vliw.Inst) error {
	mac := in.Op == "vmac.f"
	n := 4
	if mac {
		n = 5
	}
	if err := wantArgs(in, n); err != nil {
		return err
	}
	for _, x := range in.Args {
		if x.Kind != vliw.ArgReg {
			return fmt.Errorf("%s takes registers only", in.Op)
		}
	}
	accC, srcC, accB := "dm", "ex", 256
	if a.Gen == AIE2 {
		accC, srcC, accB = "bm", "x", 64
	}
	dst := in.Args[0].Reg
	ai := 1
	if mac {
		ai = 2
		if acc := in.Args[1].Reg; acc.Class != accC || acc.Bytes != accB {
			return fmt.Errorf("%s accumulates in a %s register, not %s", in.Op, accC, acc.Name)
		}
	}
	if dst.Class != accC || dst.Bytes != accB {
		return fmt.Errorf("%s writes a %s register, not %s", in.Op, accC, dst.Name)
	}
	ra, rb, rc := in.Args[ai].Reg, in.Args[ai+1].Reg, in.Args[ai+2].Reg
	if ra.Class != srcC || rb.Class != srcC || rc.Class != "r" {
		return fmt.Errorf("%s multiplies two %s registers under a configuration register r", in.Op, srcC)
	}
	in.Defs = []*vliw.Reg{dst}
	in.Exec = func(c *vliw.Ctx) {
		c.Count("vmac")
		var x, y []byte
		c.At(a.Lat.MACSrc, func() {
			x, y = c.Read(ra, ai), c.Read(rb, ai+1)
			if conf := c.ReadU32(rc, ai+2); conf != a.Mode.Config {
				c.Fail("config", "configuration register holds %d; the %s %dx%dx%d mode is %d [XD isa]", conf, a.Mode.DType, a.Mode.M, a.Mode.K, a.Mode.N, a.Mode.Config)
			}
			if !mac {
				c.Write(a.Lat.MACDst, dst, a.macTile(nil, x, y))
			}
		})
		if mac {
			c.At(a.Lat.MACAcc, func() {
				acc := c.Read(in.Args[1].Reg, 1)
				c.Write(a.Lat.MACDst, dst, a.macTile(acc, x, y))
			})
		}
	}
	return nil
}

// macTile computes one matrix MAC of the architecture's mode on register images.
func (a *Arch) macTile(acc, x, y []byte) []byte {
	if a.Gen == AIE2P {
		return MACBFP16(acc, x, y)
	}
	return MACBF16(acc, x, y)
}

// MACBFP16 is VMAC.F bfp16 8x8x8: x and y hold 8 bfp16ebs8 blocks each (72 bytes, block =
// exponent byte then 8 mantissas), rows m of A and rows n of B; acc and the result hold 64
// fp32 lanes m*8+n (nil acc: VMUL.F).
func MACBFP16(acc, x, y []byte) []byte {
	out := make([]byte, 256)
	var ab, bb [8]num.BFP16
	for i := 0; i < 8; i++ {
		ab[i], _ = num.BFP16FromBytes(x[9*i:])
		bb[i], _ = num.BFP16FromBytes(y[9*i:])
	}
	var terms [1]float64
	for m := 0; m < 8; m++ {
		for n := 0; n < 8; n++ {
			l := 4 * (m*8 + n)
			var c float32
			if acc != nil {
				c = math.Float32frombits(binary.LittleEndian.Uint32(acc[l:]))
			}
			terms[0] = ab[m].Dot(bb[n])
			binary.LittleEndian.PutUint32(out[l:], math.Float32bits(num.FP32Sum(c, terms[:])))
		}
	}
	return out
}

// MACBF16 is VMAC.F bf16 4x8x4: x holds A (4x8 bf16, row-major), y holds B (8x4, row-major);
// acc and the result hold 16 fp32 lanes m*4+n (nil acc: VMUL.F). Subnormal bf16 inputs count
// as zero (AM020: no denormals).
func MACBF16(acc, x, y []byte) []byte {
	out := make([]byte, 64)
	val := func(b []byte, i int) float64 {
		h := num.BF16(binary.LittleEndian.Uint16(b[2*i:]))
		f := float64(h.Float32())
		if f != 0 && math.Abs(f) < 0x1p-126 {
			return 0
		}
		return f
	}
	var terms [8]float64
	for m := 0; m < 4; m++ {
		for n := 0; n < 4; n++ {
			l := 4 * (m*4 + n)
			var c float32
			if acc != nil {
				c = math.Float32frombits(binary.LittleEndian.Uint32(acc[l:]))
			}
			for k := 0; k < 8; k++ {
				terms[k] = val(x, m*8+k) * val(y, k*4+n)
			}
			binary.LittleEndian.PutUint32(out[l:], math.Float32bits(num.FP32Sum(c, terms[:])))
		}
	}
	return out
}

// bindFill: VLDA.FILL.512 [p0, lf0, r24] (unit B: [p1, lf1, r25]) [XD-isa]: loads the 64
// bytes at p + r into the load FIFO behind the r bytes it holds and adds 64 to r. The FIFO
// register is written in stage FifoReg, r in stage 1 [LLVM-Sched].
func bindFill(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 1); err != nil {
		return err
	}
	m := in.Args[0]
	if err := checkFifo(in, m); err != nil {
		return err
	}
	in.Defs = []*vliw.Reg{m.Pos, m.Fifo}
	in.Exec = func(c *vliw.Ctx) {
		var pos int64
		var addr int
		c.At(1, func() {
			pos = c.ReadU32(m.Pos, 0)
			p := c.ReadU32(m.Base, 0)
			if pos < 0 || pos+64 > int64(m.Fifo.Bytes) {
				c.Fail("fifo", "fill with %d bytes already in %s: it holds %d", pos, m.Fifo.Name, m.Fifo.Bytes)
				return
			}
			addr = int(p + pos)
			if addr%64 != 0 {
				c.Fail("align", "fill address %d is not 64-byte aligned [seed]", addr)
			}
			c.WriteI32(1, m.Pos, pos+64)
		})
		var data []byte
		c.At(a.Lat.Mem, func() { data = c.Fetch(addr, 64) })
		c.At(a.Lat.FifoReg, func() {
			buf := c.ReadRaw(m.Fifo)
			copy(buf[pos:], data)
			c.Write(a.Lat.FifoReg, m.Fifo, buf)
		})
	}
	return nil
}

// bindPop: VLDA.POP.576 exN, [p0, lf0, r24] [XD-isa]: assembles 72 bytes from the r bytes in
// the FIFO and the next 64-byte fetch at p + r, writes them to exN (stage PopDst), keeps the
// remaining r-8 bytes in the FIFO, adds 72 to p and subtracts 8 from r. A pop needs r >= 8.
func bindPop(a *Arch, in *vliw.Inst) error {
	if err := wantArgs(in, 2); err != nil {
		return err
	}
	d, m := in.Args[0], in.Args[1]
	if d.Kind != vliw.ArgReg || d.Reg.Class != "ex" {
		return fmt.Errorf("%s writes an ex register", in.Op)
	}
	if err := checkFifo(in, m); err != nil {
		return err
	}
	in.Defs = []*vliw.Reg{d.Reg, m.Pos, m.Fifo, m.Base}
	in.Exec = func(c *vliw.Ctx) {
		var pos int64
		var addr int
		c.At(1, func() {
			pos = c.ReadU32(m.Pos, 1)
			p := c.ReadU32(m.Base, 1)
			if pos < 8 || pos > int64(m.Fifo.Bytes) {
				c.Fail("fifo", "pop with %d bytes in %s: needs at least 8 (a fill is missing)", pos, m.Fifo.Name)
				return
			}
			addr = int(p + pos)
			if addr%64 != 0 {
				c.Fail("align", "pop fetch address %d is not 64-byte aligned [seed]", addr)
			}
			c.WriteI32(1, m.Pos, pos-8)
			c.WriteI32(a.Lat.PtrUpdate, m.Base, p+72)
		})
		var data []byte
		c.At(a.Lat.Mem, func() { data = c.Fetch(addr, 64) })
		c.At(a.Lat.FifoReg, func() {
			buf := append(c.ReadRaw(m.Fifo)[:pos], data...)
			rest := make([]byte, m.Fifo.Bytes)
			copy(rest, buf[72:])
			c.Write(a.Lat.FifoReg, m.Fifo, rest)
			c.Write(a.Lat.PopDst, d.Reg, buf[:72])
		})
	}
	return nil
}

// checkFifo: the FIFO tuples are {p0, lf0, r24} for unit A and {p1, lf1, r25} for unit B
// (llvm-aie AIE2PRegisterInfo).
func checkFifo(in *vliw.Inst, m vliw.Arg) error {
	if m.Kind != vliw.ArgMem || m.Fifo == nil {
		return fmt.Errorf("%s wants [p, lf, r]", in.Op)
	}
	want := [3]string{"p0", "lf0", "r24"}
	if strings.HasPrefix(in.Op, "vldb") {
		want = [3]string{"p1", "lf1", "r25"}
	}
	if m.Base.Name != want[0] || m.Fifo.Name != want[1] || m.Pos.Name != want[2] {
		return fmt.Errorf("%s uses [%s, %s, %s]", in.Op, want[0], want[1], want[2])
	}
	return nil
}
