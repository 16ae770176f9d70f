package cemit

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/emul"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// randomKernel builds a well-typed kernel from random instructions: window reads and writes,
// upd/ext, int16 and 8-bit MACs with random selection parameters, srs/ubsrs, vector adds,
// pointer loads and stores with computed indices, scalar arithmetic (through temporaries, as
// a generator would write it) and loops with random pragmas.
func randomKernel(r *rand.Rand, n int) *kernel.Kernel {
	k := kernel.New(fmt.Sprintf("rk%d", n))
	b := kernel.NewBuilder(k)
	in := b.Param("in", kernel.InWindow(kernel.Int16))
	in8 := b.Param("in8", kernel.InWindow(kernel.UInt8))
	buf := b.Param("buf", kernel.PtrTo(kernel.Int16, 1))
	out := b.Param("out", kernel.OutWindow(kernel.Int16))
	s := b.Param("s", kernel.ScalarOf(kernel.Int32))
	x := []*kernel.Var{b.Decl("x0", kernel.VecOf(kernel.Int16, 32)), b.Decl("x1", kernel.VecOf(kernel.Int16, 32))}
	v := []*kernel.Var{b.Decl("v0", kernel.VecOf(kernel.Int16, 16)), b.Decl("v1", kernel.VecOf(kernel.Int16, 16))}
	a := []*kernel.Var{b.Decl("a0", kernel.AccOf(kernel.Acc48, 16)), b.Decl("a1", kernel.AccOf(kernel.Acc48, 16))}
	x8 := b.Decl("x8", kernel.VecOf(kernel.UInt8, 64))
	z8 := b.Decl("z8", kernel.VecOf(kernel.UInt8, 32))
	u := b.Decl("u", kernel.ScalarOf(kernel.UInt32))
	pick := func(vs []*kernel.Var) *kernel.Var { return vs[r.IntN(len(vs))] }
	imm := func() kernel.Operand { return kernel.Imm(int64(r.IntN(40) - 8)) }
	var counters []*kernel.Var
	nloops := 0
	scalar := func(b *kernel.Builder) kernel.Operand {
		ops := []kernel.Op{kernel.OpAdd, kernel.OpSub, kernel.OpMul, kernel.OpShl, kernel.OpAnd, kernel.OpXor}
		var o kernel.Operand = kernel.V(s)
		if len(counters) > 0 && r.IntN(2) == 0 {
			o = kernel.V(pick(counters))
		}
		for d := r.IntN(3); d > 0; d-- {
			op := ops[r.IntN(len(ops))]
			c := imm()
			if op == kernel.OpShl {
				c = kernel.Imm(int64(r.IntN(4)))
			}
			if r.IntN(2) == 0 {
				o = kernel.V(b.Op(op, o, c))
			} else {
				o = kernel.V(b.Op(op, c, o))
			}
		}
		return o
	}
	var stmts func(b *kernel.Builder, depth, count int)
	stmts = func(b *kernel.Builder, depth, count int) {
		for i := 0; i < count; i++ {
			switch r.IntN(14) {
			case 13:
				if r.IntN(2) == 0 {
					b.Emit(kernel.OpSetRnd, nil, kernel.Imm(int64([]num.Round{num.Floor, num.ConvEven, num.SymInf}[r.IntN(3)])))
				} else {
					b.Emit(kernel.OpSetSat, nil, kernel.Imm(int64([]num.Sat{num.Saturate, num.None}[r.IntN(2)])))
				}
			case 0:
				b.Set(pick(v), kernel.OpWinReadIncr, kernel.V(in))
			case 1:
				t := b.OpT(kernel.OpWinReadIncr, kernel.VecOf(kernel.Int16, 16), kernel.V(in))
				xx := pick(x)
				b.Set(xx, kernel.OpUpdW, kernel.V(xx), kernel.Imm(int64(r.IntN(2))), kernel.V(t))
			case 2:
				b.Set(pick(v), kernel.OpExtW, kernel.V(pick(x)), kernel.Imm(int64(r.IntN(2))))
			case 3, 4:
				acc := pick(a)
				p := kernel.MACArgs{XStart: kernel.Imm(int64(2 * r.IntN(16))), XOffs: kernel.Imm(int64(r.Uint32())), XOffsHi: kernel.Imm(int64(r.Uint32())),
					XSquare: kernel.Imm(int64(r.IntN(1 << 16))), ZStart: kernel.Imm(int64(r.IntN(16))), ZOffs: kernel.Imm(int64(r.Uint32())),
					ZOffsHi: kernel.Imm(int64(r.Uint32())), ZStep: kernel.Imm(int64(r.IntN(8)))}
				op := []kernel.Op{kernel.OpMac16, kernel.OpMsc16, kernel.OpMul16}[r.IntN(3)]
				b.MAC(acc, op, acc, pick(x), pick(v), p)
			case 5:
				p := kernel.MACArgs{XStart: kernel.Imm(int64(4 * r.IntN(16))), XOffs: kernel.Imm(int64(r.Uint32())), XStep: kernel.Imm(int64(4 * r.IntN(8))),
					XSquare: kernel.Imm(int64(r.IntN(1 << 16))), ZStart: kernel.Imm(int64(2 * r.IntN(8))), ZOffs: kernel.Imm(int64(r.Uint32())),
					ZStep: kernel.Imm(int64(2 * r.IntN(4))), ZSquare: kernel.Imm(int64(r.IntN(1 << 16)))}
				acc := pick(a)
				b.MAC(acc, kernel.OpMac16, acc, x8, z8, p)
			case 6:
				t := b.Op(kernel.OpSRS, kernel.V(pick(a)), kernel.Imm(int64(r.IntN(20))))
				vv := pick(v)
				b.Set(vv, kernel.OpVAdd, kernel.V(t), kernel.V(vv))
			case 7:
				b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(pick(v)))
			case 8:
				b.Set(pick(v), kernel.OpLoad, kernel.V(buf), scalar(b))
			case 9:
				b.Emit(kernel.OpStore, nil, kernel.V(buf), scalar(b), kernel.V(pick(v)))
			case 10:
				b.Set(u, kernel.OpAdd, scalar(b), kernel.V(u))
			case 11:
				b.Set(x8, kernel.OpWinReadIncr, kernel.V(in8))
				t := b.OpT(kernel.OpWinReadIncr, kernel.VecOf(kernel.UInt8, 32), kernel.V(in8))
				b.Set(z8, kernel.OpMov, kernel.V(t))
			case 12:
				if depth < 2 {
					iv := b.Decl(fmt.Sprintf("i%d", nloops), kernel.ScalarOf(kernel.Int32))
					nloops++
					start, step := int64(r.IntN(4)), int64(1+r.IntN(3))
					trip := int64(1 + r.IntN(8))
					l, lb := b.For(iv, kernel.Imm(start), kernel.Imm(start+trip*step), step)
					l.Pipelined = r.IntN(2) == 0
					if r.IntN(2) == 0 {
						l.HasRange, l.RangeMin = true, trip
						if r.IntN(2) == 0 {
							l.RangeMax = trip + int64(r.IntN(3))
						}
					}
					counters = append(counters, iv)
					stmts(lb, depth+1, 1+r.IntN(6))
					counters = counters[:len(counters)-1]
				}
			}
		}
	}
	stmts(b, 0, 5+r.IntN(20))
	if err := b.Err(); err != nil {
		panic(err)
	}
	return k
}

func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for n := 0; n < 300; n++ {
		k := randomKernel(r, n)
		if err := k.Validate(); err != nil {
			t.Fatalf("generator made an invalid kernel: %v\n%s", err, k)
		}
		text1, err := Emit(k)
		if err != nil {
			t.Fatalf("emit: %v\n%s", err, k)
		}
		k2, err := cfront.ParseKernel("random.cc", []byte(text1), nil)
		if err != nil {
			t.Fatalf("kernel %d: emitted text does not parse: %v\n%s", n, err, text1)
		}
		text2, err := Emit(k2)
		if err != nil {
			t.Fatal(err)
		}
		if text1 != text2 {
			t.Fatalf("kernel %d: emit -> parse -> emit is not a fixed point\nfirst:\n%s\nsecond:\n%s", n, text1, text2)
		}
	}
}

// TestEmittedCompiles compiles emitted kernels (the testdata and random ones) with g++ and the
// emulation header: the emitter writes C++ that a C++ compiler accepts, not only cfront.
func TestEmittedCompiles(t *testing.T) {
	if _, err := emul.Compiler(); err != nil {
		t.Skip("no C++ compiler (g++): skipping the compile check of emitted kernels")
	}
	r := rand.New(rand.NewPCG(5, 9))
	for n := 0; n < 2; n++ {
		k := randomKernel(r, n)
		text, err := Emit(k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := emul.Build(emul.Source{Name: k.Name + ".cc", Text: []byte(text)}, k); err != nil {
			t.Fatalf("emitted kernel does not compile: %v\n%s", err, text)
		}
	}
}
