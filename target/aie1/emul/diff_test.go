package emul

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// diffGen builds random straight-line kernels that use every intrinsic of the subset, so that
// the emulation header and the interpreter (target/aie1/kernel's semantics) can be compared on them.
type diffGen struct {
	r    *rand.Rand
	k    *kernel.Kernel
	b    *kernel.Builder
	pool map[kernel.Type][]*kernel.Var
	in   map[kernel.Elem]*kernel.Var // input window per element type
	out  map[kernel.Elem]*kernel.Var // output window per element type
	buf  *kernel.Var
	// scalars is an int32 window read one element at a time
	scalars *kernel.Var
}

var diffElems = []kernel.Elem{kernel.Int8, kernel.UInt8, kernel.Int16, kernel.Int32, kernel.Float32}

func (g *diffGen) v(e kernel.Elem, lanes int) kernel.Type { return kernel.VecOf(e, lanes) }

// get returns a variable of type t, creating one filled from its input window if needed.
func (g *diffGen) get(t kernel.Type) *kernel.Var {
	if vs := g.pool[t]; len(vs) > 0 && g.r.IntN(3) > 0 {
		return vs[g.r.IntN(len(vs))]
	}
	return g.fresh(t)
}

func (g *diffGen) fresh(t kernel.Type) *kernel.Var {
	v := g.b.Decl(fmt.Sprintf("%s_%d", t, len(g.k.Vars)), t)
	switch {
	case t.IsVector():
		g.b.Set(v, kernel.OpWinReadIncr, kernel.V(g.in[t.Elem]))
	case t.IsAcc():
		// an accumulator from ups of a fresh vector
		e, lanes := kernel.Int16, t.Lanes
		if t.Elem == kernel.Acc80 {
			e = kernel.Int32
		}
		g.b.Set(v, kernel.OpUPS, kernel.V(g.get(g.v(e, lanes))), kernel.Imm(int64(g.r.IntN(12))))
	}
	g.pool[t] = append(g.pool[t], v)
	return v
}

// set assigns op(args) to a new variable of type t.
func (g *diffGen) set(t kernel.Type, op kernel.Op, args ...kernel.Operand) {
	v := g.b.Decl(fmt.Sprintf("%s_%d", t, len(g.k.Vars)), t)
	g.b.Set(v, op, args...)
	g.pool[t] = append(g.pool[t], v)
}

func (g *diffGen) imm(n int) kernel.Operand { return kernel.Imm(int64(g.r.IntN(n))) }
func (g *diffGen) word() kernel.Operand     { return kernel.Imm(int64(g.r.Uint32())) }

func (g *diffGen) step() {
	r := g.r
	acc48, acc48s, acc80 := kernel.AccOf(kernel.Acc48, 16), kernel.AccOf(kernel.Acc48, 8), kernel.AccOf(kernel.Acc80, 8)
	switch r.IntN(17) {
	case 16: // mode changes
		if r.IntN(2) == 0 {
			modes := []num.Round{num.Floor, num.Ceil, num.PosInf, num.NegInf, num.SymInf, num.SymZero, num.ConvEven, num.ConvOdd}
			g.b.Emit(kernel.OpSetRnd, nil, kernel.Imm(int64(modes[r.IntN(len(modes))])))
		} else {
			g.b.Emit(kernel.OpSetSat, nil, kernel.Imm(int64([]num.Sat{num.Saturate, num.None}[r.IntN(2)])))
		}
	case 0: // int16 16x2
		op := []kernel.Op{kernel.OpMac16, kernel.OpMsc16, kernel.OpMul16}[r.IntN(3)]
		x := g.get(g.v(kernel.Int16, []int{32, 64}[r.IntN(2)]))
		p := kernel.MACArgs{XStart: kernel.Imm(int64(2 * r.IntN(32))), XOffs: g.word(), XOffsHi: g.word(), XSquare: g.imm(1 << 16),
			ZStart: g.imm(16), ZOffs: g.word(), ZOffsHi: g.word(), ZStep: g.imm(16)}
		d := g.b.Decl(fmt.Sprintf("acc_%d", len(g.k.Vars)), acc48)
		g.b.MAC(d, op, g.get(acc48), x, g.get(g.v(kernel.Int16, 16)), p)
		g.pool[acc48] = append(g.pool[acc48], d)
	case 1: // 8-bit 16x8, every signedness combination
		xe, ze := []kernel.Elem{kernel.Int8, kernel.UInt8}[r.IntN(2)], []kernel.Elem{kernel.Int8, kernel.UInt8}[r.IntN(2)]
		op := []kernel.Op{kernel.OpMac16, kernel.OpMsc16, kernel.OpMul16}[r.IntN(3)]
		p := kernel.MACArgs{XStart: kernel.Imm(int64(4 * r.IntN(32))), XOffs: g.word(), XStep: kernel.Imm(int64(4 * r.IntN(16))), XSquare: g.imm(1 << 16),
			ZStart: kernel.Imm(int64(2 * r.IntN(16))), ZOffs: g.word(), ZStep: kernel.Imm(int64(2 * r.IntN(8))), ZSquare: g.imm(1 << 16)}
		d := g.b.Decl(fmt.Sprintf("acc_%d", len(g.k.Vars)), acc48)
		g.b.MAC(d, op, g.get(acc48), g.get(g.v(xe, []int{64, 128}[r.IntN(2)])), g.get(g.v(ze, 32)), p)
		g.pool[acc48] = append(g.pool[acc48], d)
	case 2: // int16 8x4
		op := []kernel.Op{kernel.OpMac8, kernel.OpMsc8, kernel.OpMul8}[r.IntN(3)]
		p := kernel.MACArgs{XStart: kernel.Imm(int64(2 * r.IntN(32))), XOffs: g.word(), XStep: kernel.Imm(int64(2 * r.IntN(16))), XSquare: g.imm(1 << 16),
			ZStart: g.imm(16), ZOffs: g.word(), ZStep: g.imm(16)}
		d := g.b.Decl(fmt.Sprintf("acc_%d", len(g.k.Vars)), acc48s)
		g.b.MAC(d, op, g.get(acc48s), g.get(g.v(kernel.Int16, []int{32, 64}[r.IntN(2)])), g.get(g.v(kernel.Int16, 16)), p)
		g.pool[acc48s] = append(g.pool[acc48s], d)
	case 3: // int32 8x1
		op := []kernel.Op{kernel.OpLMac8, kernel.OpLMsc8, kernel.OpLMul8}[r.IntN(3)]
		p := kernel.MACArgs{XStart: g.imm(32), XOffs: g.word(), ZStart: g.imm(16), ZOffs: g.word()}
		d := g.b.Decl(fmt.Sprintf("acc_%d", len(g.k.Vars)), acc80)
		g.b.MAC(d, op, g.get(acc80), g.get(g.v(kernel.Int32, []int{16, 32}[r.IntN(2)])), g.get(g.v(kernel.Int32, 8)), p)
		g.pool[acc80] = append(g.pool[acc80], d)
	case 4: // fp32 8x1
		op := []kernel.Op{kernel.OpFPMac, kernel.OpFPMsc, kernel.OpFPMul}[r.IntN(3)]
		p := kernel.MACArgs{XStart: g.imm(32), XOffs: g.word(), ZStart: g.imm(16), ZOffs: g.word()}
		t := g.v(kernel.Float32, 8)
		d := g.b.Decl(fmt.Sprintf("facc_%d", len(g.k.Vars)), t)
		g.b.MAC(d, op, g.get(t), g.get(g.v(kernel.Float32, []int{16, 32}[r.IntN(2)])), g.get(t), p)
		g.pool[t] = append(g.pool[t], d)
	case 5: // narrowing, every form
		sh := kernel.Imm(int64(r.IntN(24)))
		switch r.IntN(8) {
		case 0:
			g.set(g.v(kernel.Int16, 16), kernel.OpSRS, kernel.V(g.get(acc48)), sh)
		case 1:
			g.set(g.v(kernel.Int16, 8), kernel.OpSRS, kernel.V(g.get(acc48s)), sh)
		case 2:
			g.set(g.v(kernel.Int32, 8), kernel.OpSRS, kernel.V(g.get(acc80)), sh)
		case 3:
			g.set(g.v(kernel.Int32, 8), kernel.OpLSRS, kernel.V(g.get(acc48s)), sh)
		case 4:
			g.set(g.v(kernel.Int32, 16), kernel.OpLSRS, kernel.V(g.get(acc48)), sh)
		case 5:
			g.set(g.v(kernel.Int8, 16), kernel.OpBSRS, kernel.V(g.get(acc48)), sh)
		case 6:
			g.set(g.v(kernel.UInt8, 16), kernel.OpUBSRS, kernel.V(g.get(acc48)), sh)
		case 7:
			g.set(g.v(kernel.Int32, 4), kernel.OpSRS, kernel.V(g.get(kernel.AccOf(kernel.Acc80, 4))), sh)
		}
	case 6: // upshift
		sh := kernel.Imm(int64(r.IntN(30)))
		switch r.IntN(4) {
		case 0:
			g.set(acc48, kernel.OpUPS, kernel.V(g.get(g.v(kernel.Int16, 16))), sh)
		case 1:
			g.set(acc80, kernel.OpUPS, kernel.V(g.get(g.v(kernel.Int32, 8))), sh)
		case 2:
			g.set(acc48s, kernel.OpLUPS, kernel.V(g.get(g.v(kernel.Int32, 8))), sh)
		case 3:
			g.set(acc48, kernel.OpLUPS, kernel.V(g.get(g.v(kernel.Int32, 16))), sh)
		}
	case 7, 8: // upd / ext
		e := diffElems[r.IntN(len(diffElems))]
		ops := []kernel.Op{kernel.OpUpdV, kernel.OpUpdW, kernel.OpUpdX}
		k := r.IntN(3)
		part := 128 << k
		bufBits := part << (1 + r.IntN(3-k))
		if bufBits > 1024 {
			bufBits = 1024
		}
		bt := g.v(e, bufBits/e.Bits())
		pt := g.v(e, part/e.Bits())
		if r.IntN(2) == 0 {
			g.set(bt, ops[k], kernel.V(g.get(bt)), g.imm(bufBits/part), kernel.V(g.get(pt)))
		} else {
			g.set(pt, []kernel.Op{kernel.OpExtV, kernel.OpExtW, kernel.OpExtX}[k], kernel.V(g.get(bt)), g.imm(bufBits/part))
		}
	case 9: // concat of vectors and of accumulators
		if r.IntN(3) == 0 {
			g.set(acc48, kernel.OpConcat, kernel.V(g.get(acc48s)), kernel.V(g.get(acc48s)))
			break
		}
		e := diffElems[r.IntN(len(diffElems))]
		n := []int{2, 4}[r.IntN(2)]
		lanes := 128 / e.Bits()
		if n == 2 && r.IntN(2) == 0 {
			lanes *= 2
		}
		t := g.v(e, lanes)
		var args []kernel.Operand
		for i := 0; i < n; i++ {
			args = append(args, kernel.V(g.get(t)))
		}
		g.set(g.v(e, lanes*n), kernel.OpConcat, args...)
	case 10, 11: // element-wise add/sub
		op := []kernel.Op{kernel.OpVAdd, kernel.OpVSub}[r.IntN(2)]
		switch r.IntN(4) {
		case 0:
			g.set(acc48, op, kernel.V(g.get(acc48)), kernel.V(g.get(acc48)))
		case 1:
			g.set(acc48, op, kernel.V(g.get(acc48)), kernel.V(g.get(g.v(kernel.Int16, 16))))
		default:
			e := diffElems[r.IntN(len(diffElems))]
			t := g.v(e, (256<<r.IntN(2))/e.Bits())
			g.set(t, op, kernel.V(g.get(t)), kernel.V(g.get(t)))
		}
	case 12: // ext_elem / upd_elem through a scalar
		e := []kernel.Elem{kernel.Int8, kernel.UInt8, kernel.Int16, kernel.Int32}[r.IntN(4)]
		t := g.v(e, 256/e.Bits())
		s := g.b.Decl(fmt.Sprintf("s_%d", len(g.k.Vars)), kernel.ScalarOf(kernel.Int32))
		g.b.Set(s, kernel.OpExtElem, kernel.V(g.get(t)), g.imm(t.Lanes))
		s2 := g.b.Decl(fmt.Sprintf("s_%d", len(g.k.Vars)), kernel.ScalarOf(kernel.Int32))
		g.b.Set(s2, []kernel.Op{kernel.OpAdd, kernel.OpSub, kernel.OpXor, kernel.OpShr}[r.IntN(4)], kernel.V(s), g.imm(8))
		g.set(t, kernel.OpUpdElem, kernel.V(g.get(t)), g.imm(t.Lanes), kernel.V(s2))
	case 13: // pointer load and store (16-byte aligned)
		t := g.v(kernel.Int16, []int{8, 16, 32}[r.IntN(3)])
		if r.IntN(2) == 0 {
			g.set(t, kernel.OpLoad, kernel.V(g.buf), kernel.Imm(int64(8*r.IntN(16))))
		} else {
			g.b.Emit(kernel.OpStore, nil, kernel.V(g.buf), kernel.Imm(int64(8*r.IntN(16))), kernel.V(g.get(t)))
		}
	case 14: // undef / null
		e := diffElems[r.IntN(len(diffElems))]
		t := g.v(e, 256/e.Bits())
		g.set(t, []kernel.Op{kernel.OpUndef, kernel.OpNull}[r.IntN(2)])
	case 15: // scalar window reads (from their own window: vector reads must stay aligned)
		e := kernel.Int32
		s := g.b.Decl(fmt.Sprintf("s_%d", len(g.k.Vars)), kernel.ScalarOf(e))
		g.b.Set(s, kernel.OpWinReadIncr, kernel.V(g.scalars))
		t := g.v(e, 256/e.Bits())
		g.set(t, kernel.OpUpdElem, kernel.V(g.get(t)), g.imm(t.Lanes), kernel.V(s))
	}
}

func newDiffKernel(r *rand.Rand, n, steps int) *kernel.Kernel {
	k := kernel.New(fmt.Sprintf("diff%d", n))
	g := &diffGen{r: r, k: k, b: kernel.NewBuilder(k), pool: map[kernel.Type][]*kernel.Var{},
		in: map[kernel.Elem]*kernel.Var{}, out: map[kernel.Elem]*kernel.Var{}}
	for _, e := range diffElems {
		g.in[e] = g.b.Param("in_"+elemC(e), kernel.InWindow(e))
		g.out[e] = g.b.Param("out_"+elemC(e), kernel.OutWindow(e))
	}
	g.buf = g.b.Param("buf", kernel.PtrTo(kernel.Int16, 1))
	g.scalars = g.b.Param("scalars", kernel.InWindow(kernel.Int32))
	for i := 0; i < steps; i++ {
		g.step()
	}
	// every vector goes to its output window; every accumulator is narrowed (so the
	// comparison sees all accumulators before narrowing)
	for t, vs := range g.pool {
		for _, v := range vs {
			switch {
			case t.IsVector():
				g.b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(g.out[t.Elem]), kernel.V(v))
			case t.IsAcc() && t.Elem == kernel.Acc48 && t.Lanes == 16:
				o := g.b.Decl(fmt.Sprintf("n_%d", len(k.Vars)), g.v(kernel.Int16, 16))
				g.b.Set(o, kernel.OpSRS, kernel.V(v), kernel.Imm(0))
				g.b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(g.out[kernel.Int16]), kernel.V(o))
			case t.IsAcc() && t.Elem == kernel.Acc48:
				o := g.b.Decl(fmt.Sprintf("n_%d", len(k.Vars)), g.v(kernel.Int32, 8))
				g.b.Set(o, kernel.OpLSRS, kernel.V(v), kernel.Imm(0))
				g.b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(g.out[kernel.Int32]), kernel.V(o))
			case t.IsAcc():
				o := g.b.Decl(fmt.Sprintf("n_%d", len(k.Vars)), g.v(kernel.Int32, t.Lanes))
				g.b.Set(o, kernel.OpSRS, kernel.V(v), kernel.Imm(0))
				g.b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(g.out[kernel.Int32]), kernel.V(o))
			}
		}
	}
	if err := g.b.Err(); err != nil {
		panic(err)
	}
	return k
}

// TestDifferential runs random kernels that use every intrinsic of the subset, with random
// parameters and full-range random data, on sumac's interpreter and under g++ with
// aie1_emul.h, in several rounding and saturation modes: final memory, counts and every
// accumulator before narrowing must agree bit for bit. Set SUMAC_DIFF_KERNELS for a longer run.
func TestDifferential(t *testing.T) {
	needCompiler(t)
	kernels := 2
	if n, err := fmt.Sscan(getenv("SUMAC_DIFF_KERNELS"), &kernels); n != 1 || err != nil {
		kernels = 2
	}
	r := rand.New(rand.NewPCG(21, 12))
	modes := []Modes{{Round: num.Floor, Sat: num.Saturate}, {Round: num.ConvEven, Sat: num.Saturate}, {Round: num.PosInf, Sat: num.None}, {Round: num.SymZero, Sat: num.Symmetric},
		{Round: num.Ceil, Sat: num.Saturate}, {Round: num.SymInf, Sat: num.None}, {Round: num.NegInf, Sat: num.Symmetric}, {Round: num.ConvOdd, Sat: num.Saturate}}
	for n := 0; n < kernels; n++ {
		k := newDiffKernel(r, n, 60)
		text, err := cemit.Emit(k)
		if err != nil {
			t.Fatal(err)
		}
		ext, err := interp.Measure(k, interp.Config{})
		if err != nil {
			t.Fatalf("kernel %d: %v\n%s", n, err, text)
		}
		data := map[string][]byte{}
		var mem [][]byte
		for _, p := range k.Params {
			b := make([]byte, ext[p.Name]+64)
			if !p.Type.Out {
				for i := range b {
					b[i] = byte(r.Uint32())
				}
				if p.Type.Elem == kernel.Float32 {
					for i := 0; i+4 <= len(b); i += 4 {
						binary.LittleEndian.PutUint32(b[i:], math.Float32bits(float32(r.NormFloat64())))
					}
				}
			}
			data[p.Name] = b
			mem = append(mem, b)
		}
		prog, err := Build(Source{Name: k.Name + ".cc", Text: []byte(text)}, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range modes[:2+n%3] {
			var trace [][]num.Acc
			ir, err := interp.Run(k, interp.Config{Data: data, Round: m.Round, Sat: m.Sat,
				OnNarrow: func(_ *kernel.Instr, l []num.Acc) { trace = append(trace, append([]num.Acc(nil), l...)) }})
			if err != nil {
				t.Fatalf("kernel %d: interpreter: %v", n, err)
			}
			er, err := prog.Run(mem, m)
			if err != nil {
				t.Fatalf("kernel %d: emulation: %v", n, err)
			}
			for i, p := range k.Params {
				if !bytes.Equal(ir.Data[p.Name], er.Mem[i]) {
					j := 0
					for j < len(er.Mem[i]) && ir.Data[p.Name][j] == er.Mem[i][j] {
						j++
					}
					t.Fatalf("kernel %d, modes %v/%v: %s differs first at byte %d\n%s", n, m.Round, m.Sat, p.Name, j, text)
				}
			}
			if ir.MACs != er.MACs || ir.Narrowed != er.Narrowed || ir.Saturated != er.Saturated {
				t.Fatalf("kernel %d: counts: interpreter MACs %d narrowed %d saturated %d, emulation %d %d %d",
					n, ir.MACs, ir.Narrowed, ir.Saturated, er.MACs, er.Narrowed, er.Saturated)
			}
			SortTrace(trace)
			SortTrace(er.Trace)
			if len(trace) != len(er.Trace) {
				t.Fatalf("kernel %d: %d vs %d narrowings", n, len(trace), len(er.Trace))
			}
			for i := range trace {
				for l := range trace[i] {
					if trace[i][l].Cmp(er.Trace[i][l]) != 0 {
						t.Fatalf("kernel %d: accumulator record %d lane %d: interpreter %v, emulation %v", n, i, l, trace[i][l], er.Trace[i][l])
					}
				}
			}
		}
	}
}
