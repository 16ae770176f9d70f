package interp

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// fpKernel: acc(l) = sum_k x_k(l) * w(k), k = 0..K-1, x_k read from a window 8 floats at a
// time and w from a buffer, eight fpmac per block of eight k.
func fpKernel(K int64) (*kernel.Kernel, error) {
	k := kernel.New("fpdot")
	b := kernel.NewBuilder(k)
	in := b.Param("in", kernel.InWindow(kernel.Float32))
	w := b.Param("w", kernel.PtrTo(kernel.Float32, 1))
	out := b.Param("out", kernel.OutWindow(kernel.Float32))
	acc := b.Decl("acc", kernel.VecOf(kernel.Float32, 8))
	b.Set(acc, kernel.OpNull)
	blk := b.Decl("blk", kernel.ScalarOf(kernel.Int32))
	_, lb := b.For(blk, kernel.Imm(0), kernel.Imm(K/8), 1)
	idx := lb.Op(kernel.OpMul, kernel.V(blk), kernel.Imm(8))
	wv := lb.OpT(kernel.OpLoad, kernel.VecOf(kernel.Float32, 8), kernel.V(w), kernel.V(idx))
	for j := int64(0); j < 8; j++ {
		x := lb.OpT(kernel.OpWinReadIncr, kernel.VecOf(kernel.Float32, 8), kernel.V(in))
		xx := lb.Op(kernel.OpConcat, kernel.V(x), kernel.V(x))
		lb.MAC(acc, kernel.OpFPMac, acc, xx, wv, kernel.MACArgs{XOffs: kernel.Imm(0x76543210), ZStart: kernel.Imm(j)})
	}
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(acc))
	return k, b.Err()
}

func TestFPKernel(t *testing.T) {
	const K = 64
	k, err := fpKernel(K)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 8*K)
	w := make([]float32, K)
	for i := range x {
		x[i] = rng.Float32()*2 - 1
	}
	for i := range w {
		w[i] = rng.Float32()*2 - 1
	}
	res, err := Run(k, Config{Data: map[string][]byte{"in": f32bytes(x), "w": f32bytes(w)}, Sizes: map[string]int{"out": 32}})
	if err != nil {
		t.Fatal(err)
	}
	for l := 0; l < 8; l++ {
		var acc float32
		for kk := 0; kk < K; kk++ {
			p := x[8*kk+l] * w[kk]
			acc = float32(acc + p)
		}
		got := math.Float32frombits(binary.LittleEndian.Uint32(res.Data["out"][4*l:]))
		if got != acc {
			t.Errorf("lane %d = %v, want %v (bit for bit)", l, got, acc)
		}
	}
	if len(res.Uninit) != 0 {
		t.Errorf("uninitialized reads: %v", res.Uninit)
	}
}

// An int32 kernel: lmac8 with v8acc80 accumulators and srs with rounding.
func TestInt32Kernel(t *testing.T) {
	k := kernel.New("i32")
	b := kernel.NewBuilder(k)
	in := b.Param("in", kernel.InWindow(kernel.Int32))
	w := b.Param("w", kernel.InWindow(kernel.Int32))
	out := b.Param("out", kernel.OutWindow(kernel.Int32))
	acc := b.Decl("acc", kernel.AccOf(kernel.Acc80, 8))
	b.Set(acc, kernel.OpNull)
	wv := b.OpT(kernel.OpWinReadIncr, kernel.VecOf(kernel.Int32, 8), kernel.V(w))
	for j := int64(0); j < 8; j++ {
		x := b.OpT(kernel.OpWinReadIncr, kernel.VecOf(kernel.Int32, 8), kernel.V(in))
		xx := b.Op(kernel.OpConcat, kernel.V(x), kernel.V(x))
		b.MAC(acc, kernel.OpLMac8, acc, xx, wv, kernel.MACArgs{XOffs: kernel.Imm(0x76543210), ZStart: kernel.Imm(j)})
	}
	r := b.Op(kernel.OpSRS, kernel.V(acc), kernel.Imm(20))
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(r))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	x := make([]byte, 4*64)
	wb := make([]byte, 32)
	for i := range x {
		x[i] = byte(rng.Uint32())
	}
	for i := range wb {
		wb[i] = byte(rng.Uint32())
	}
	var trace [][]num.Acc
	res, err := Run(k, Config{Data: map[string][]byte{"in": x, "w": wb}, Sizes: map[string]int{"out": 32}, Round: num.ConvEven,
		OnNarrow: func(in *kernel.Instr, lanes []num.Acc) { trace = append(trace, append([]num.Acc(nil), lanes...)) }})
	if err != nil {
		t.Fatal(err)
	}
	i32 := func(b []byte, i int) int64 { return int64(int32(binary.LittleEndian.Uint32(b[4*i:]))) }
	for l := 0; l < 8; l++ {
		a := num.AccFrom(0)
		for j := 0; j < 8; j++ {
			a = a.MulAdd(i32(x, 8*j+l), i32(wb, j), 80)
		}
		want, _ := num.SRS(a, num.Narrow{Bits: 32, Shift: 20, Round: num.ConvEven, Sat: num.Saturate})
		if got := i32(res.Data["out"], l); got != want {
			t.Errorf("lane %d = %d, want %d", l, got, want)
		}
		if len(trace) != 1 || trace[0][l].Cmp(a) != 0 {
			t.Errorf("narrow trace lane %d: %v, want %v", l, trace, a)
		}
	}
}

// scalarKernel writes the results of scalar expressions to an int window, one per entry.
func TestScalarSemantics(t *testing.T) {
	k := kernel.New("scalars")
	b := kernel.NewBuilder(k)
	out := b.Param("out", kernel.OutWindow(kernel.Int32))
	n := b.Param("n", kernel.ScalarOf(kernel.Int32))
	u := b.Decl("u", kernel.ScalarOf(kernel.UInt32))
	s16 := b.Decl("s16", kernel.ScalarOf(kernel.Int16))
	f := b.Decl("f", kernel.ScalarOf(kernel.Float32))
	emit := func(v *kernel.Var) {
		r := b.Decl("r"+v.Name+"_"+string(rune('a'+len(k.Vars)%26)), kernel.ScalarOf(kernel.Int32))
		b.Mov(r, kernel.V(v))
		b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(r))
	}
	b.Set(u, kernel.OpSub, kernel.Imm(0), kernel.Imm(1))  // int 0-1 = -1 -> unsigned 0xFFFFFFFF
	t1 := b.Op(kernel.OpShr, kernel.V(u), kernel.Imm(28)) // logical shift: 15
	emit(t1)
	t2 := b.Op(kernel.OpDiv, kernel.V(n), kernel.Imm(2)) // n = -7: -3
	emit(t2)
	t3 := b.Op(kernel.OpRem, kernel.V(n), kernel.Imm(2)) // -1
	emit(t3)
	t4 := b.Op(kernel.OpShr, kernel.V(n), kernel.Imm(1)) // arithmetic: -4
	emit(t4)
	b.Mov(s16, kernel.Imm(40000)) // wraps to -25536
	emit(s16)
	t5 := b.Op(kernel.OpLt, kernel.V(u), kernel.V(n)) // unsigned compare: 0xFFFFFFFF < 0xFFFFFFF9 is false
	emit(t5)
	b.Set(f, kernel.OpMul, kernel.V(n), kernel.FImm(1.5)) // -10.5
	t6 := b.Op(kernel.OpAdd, kernel.V(f), kernel.Imm(0))  // float
	t7 := b.Decl("t7", kernel.ScalarOf(kernel.Int32))
	b.Mov(t7, kernel.V(t6)) // truncates towards zero: -10
	emit(t7)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(k, Config{Scalars: map[string]int64{"n": -7}, Sizes: map[string]int{"out": 28}})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{15, -3, -1, -4, -25536, 0, -10}
	for i, w := range want {
		if got := int64(int32(binary.LittleEndian.Uint32(res.Data["out"][4*i:]))); got != w {
			t.Errorf("result %d = %d, want %d", i, got, w)
		}
	}
}

func TestRunErrors(t *testing.T) {
	build := func(f func(b *kernel.Builder)) *kernel.Kernel {
		k := kernel.New("bad")
		f(kernel.NewBuilder(k))
		return k
	}
	k := build(func(b *kernel.Builder) {
		p := b.Param("p", kernel.PtrTo(kernel.Int16, 1))
		b.OpT(kernel.OpLoad, kernel.VecOf(kernel.Int16, 16), kernel.V(p), kernel.Imm(3))
	})
	_, err := Run(k, Config{Sizes: map[string]int{"p": 256}})
	if err == nil || !strings.Contains(err.Error(), "not 16-byte aligned") {
		t.Errorf("misaligned load: %v", err)
	}
	k = build(func(b *kernel.Builder) {
		n := b.Param("n", kernel.ScalarOf(kernel.Int32))
		b.Op(kernel.OpDiv, kernel.Imm(1), kernel.V(n))
	})
	if _, err := Run(k, Config{Scalars: map[string]int64{"n": 0}}); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("division by zero: %v", err)
	}
	k = build(func(b *kernel.Builder) {
		p := b.Param("p", kernel.PtrTo(kernel.Int32, 1))
		v := b.Decl("v", kernel.ScalarOf(kernel.Int32))
		b.Mov(v, kernel.Imm(5))
		b.Emit(kernel.OpStore, nil, kernel.V(p), kernel.Imm(-1), kernel.V(v))
	})
	if _, err := Run(k, Config{Sizes: map[string]int{"p": 16}}); err == nil || !strings.Contains(err.Error(), "store int at p[-1]") {
		t.Errorf("store before buffer: %v", err)
	}
	if _, err := Run(k, Config{}); err == nil || !strings.Contains(err.Error(), "no size for int* p") {
		t.Errorf("missing size: %v", err)
	}
	k = build(func(b *kernel.Builder) {
		_, lb := b.For(nil, kernel.Imm(0), kernel.Imm(1000), 1)
		lb.Op(kernel.OpAdd, kernel.Imm(1), kernel.Imm(2))
	})
	if _, err := Run(k, Config{MaxSteps: 100}); err == nil || !strings.Contains(err.Error(), "more than 100 instructions") {
		t.Errorf("step limit: %v", err)
	}
}

// set_rnd / clr_sat change the narrowing of later srs.
func TestModeOps(t *testing.T) {
	k := kernel.New("modes")
	b := kernel.NewBuilder(k)
	in := b.Param("in", kernel.InWindow(kernel.Int16))
	out := b.Param("out", kernel.OutWindow(kernel.Int16))
	v := b.OpT(kernel.OpWinReadIncr, kernel.VecOf(kernel.Int16, 16), kernel.V(in))
	acc := b.Op(kernel.OpUPS, kernel.V(v), kernel.Imm(4)) // x * 16
	r0 := b.Op(kernel.OpSRS, kernel.V(acc), kernel.Imm(5))
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(r0))
	rnd, _ := kernel.RoundConst("rnd_conv_even")
	b.Emit(kernel.OpSetRnd, nil, kernel.Imm(int64(rnd)))
	r1 := b.Op(kernel.OpSRS, kernel.V(acc), kernel.Imm(5))
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(r1))
	sat, _ := kernel.SatCall("clr_sat")
	b.Emit(kernel.OpSetSat, nil, kernel.Imm(int64(sat)))
	r2 := b.Op(kernel.OpSRS, kernel.V(acc), kernel.Imm(0))
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(r2))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	data := make([]int16, 16)
	data[0], data[1], data[2] = 3, 5, 4000 // 3*16/32 = 1.5, 5*16/32 = 2.5; 4000*16 = 64000 wraps
	res, err := Run(k, Config{Data: map[string][]byte{"in": i16bytes(data)}, Sizes: map[string]int{"out": 96}})
	if err != nil {
		t.Fatal(err)
	}
	got := i16s(res.Data["out"])
	want := map[int]int16{0: 1, 1: 2, 16: 2, 17: 2, 32 + 2: int16(-1536)} // floor; conv_even; wrap 64000
	for i, w := range want {
		if got[i] != w {
			t.Errorf("out[%d] = %d, want %d", i, got[i], w)
		}
	}
}
