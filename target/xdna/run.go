package xdna

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
	"github.com/sumacdev/sumac/target/vliw"
)

// Layout places an einsum kernel's three buffers in data memory. The kernel's arguments are
// p0 = In0, p1 = In1, p2 = Out and p3 = Out + OutBytes/2 (the second half of the output,
// [seed] "The implementation passes two pointers for out, one per half").
type Layout struct {
	In0, In1, Out                int
	In0Bytes, In1Bytes, OutBytes int
}

// TensorBytes is the memory size of an einsum tensor of n elements of type t.
func TensorBytes(t op.DType, n int) int {
	switch t {
	case op.BFP16:
		return n / num.BFP16Block * num.BFP16BlockSize
	case op.BF16:
		return 2 * n
	case op.FP32:
		return 4 * n
	}
	return n * t.Bits() / 8
}

// PlaceBuffers is the bank-aware placement of [seed] "Bank-Aware Buffer Placement": in0 and
// in1 each start a bank; the output straddles a bank boundary, its first half ending where
// the second starts, so the two halves (the m1 = 0 and m1 = 1 slices) can be accessed in one
// cycle without a conflict. Every buffer stays off the others' banks.
func (a *Arch) PlaceBuffers(e *op.Einsum) (Layout, error) {
	bank := a.M.BankBytes
	up := func(x int) int { return (x + bank - 1) / bank * bank }
	l := Layout{
		In0Bytes: TensorBytes(a.TileDType, e.Len(e.In[0])),
		In1Bytes: TensorBytes(a.TileDType, e.Len(e.In[1])),
		OutBytes: TensorBytes(op.FP32, e.Len(e.Out)),
	}
	l.In0 = 0
	l.In1 = up(l.In0 + l.In0Bytes)
	half := l.OutBytes / 2
	mid := up(l.In1+l.In1Bytes) + up(half)
	l.Out = mid - half
	if end := l.Out + l.OutBytes; end > a.M.MemBytes {
		return l, fmt.Errorf("%s: buffers need %d bytes placed bank by bank (in0 %d, in1 %d, out %d); the core addresses %d", a.Name, end, l.In0Bytes, l.In1Bytes, l.OutBytes, a.M.MemBytes)
	}
	return l, nil
}

// Operands are an einsum run's inputs as memory images and as the exact values they hold.
type Operands struct {
	In0, In1, C0 []byte    // memory images (C0: the output buffer's initial contents)
	A, B, C      []float64 // canonical values (C: initial output)
}

// RandomOperands draws inputs in [-1, 1) and converts them with the tool chain's conversion
// (bfp16: num.BFP16FromFloat32Trunc; bf16: num.ToBF16); cIn "zero" or "random" fills the
// output buffer the kernel may accumulate into.
func (a *Arch) RandomOperands(e *op.Einsum, seed uint64, cIn string) (*Operands, error) {
	rng := rand.New(rand.NewPCG(seed, 0x19))
	o := &Operands{}
	var err error
	if o.In0, o.A, err = encode(a.TileDType, e.Len(e.In[0]), rng); err != nil {
		return nil, err
	}
	if o.In1, o.B, err = encode(a.TileDType, e.Len(e.In[1]), rng); err != nil {
		return nil, err
	}
	n := e.Len(e.Out)
	o.C0, o.C = make([]byte, 4*n), make([]float64, n)
	switch cIn {
	case "zero", "":
	case "random":
		for i := range o.C {
			f := float32(rng.Float64()*2 - 1)
			o.C[i] = float64(f)
			binary.LittleEndian.PutUint32(o.C0[4*i:], math.Float32bits(f))
		}
	default:
		return nil, fmt.Errorf("initial output %q: want zero or random", cIn)
	}
	return o, nil
}

func encode(t op.DType, n int, rng *rand.Rand) ([]byte, []float64, error) {
	vals := make([]float64, n)
	switch t {
	case op.BFP16:
		if n%num.BFP16Block != 0 {
			return nil, nil, fmt.Errorf("bfp16 tensor of %d elements is not whole blocks of 8", n)
		}
		img := make([]byte, 0, n/8*9)
		for i := 0; i < n; i += 8 {
			var x [8]float32
			// one exponent per block, spread over a few octaves so blocks differ
			scale := math.Ldexp(1, rng.IntN(5)-2)
			for j := range x {
				x[j] = float32((rng.Float64()*2 - 1) * scale)
			}
			b := num.BFP16FromFloat32Trunc(x)
			img = b.AppendBytes(img)
			for j, f := range b.Float32s() {
				vals[i+j] = float64(f)
			}
		}
		return img, vals, nil
	case op.BF16:
		img := make([]byte, 2*n)
		for i := range vals {
			h := num.ToBF16(float32(rng.Float64()*2 - 1))
			binary.LittleEndian.PutUint16(img[2*i:], uint16(h))
			vals[i] = float64(h.Float32())
		}
		return img, vals, nil
	}
	return nil, nil, fmt.Errorf("no operand encoding for %v", t)
}

// RunResult is one simulated run of an einsum kernel.
type RunResult struct {
	Stats    vliw.Stats
	VMACs    int64
	Verified bool
	// MaxErr is the largest |got - want| relative to its bound (<= 1 when verified); Mismatch
	// describes the first output outside its bound.
	MaxErr   float64
	Mismatch string
	Out      []byte // the output buffer after the run
}

// Run executes a linked program on operands placed by lay and checks the output buffer
// against op/ref: want = C0 + the contraction in float64, each output within
// ref.FloatBound of it (the reduction length plus one for C0).
func (a *Arch) Run(p *vliw.Program, e *op.Einsum, lay Layout, o *Operands) (*RunResult, error) {
	s := vliw.NewSim(a.M, p)
	for _, init := range []struct {
		addr int
		data []byte
	}{{lay.In0, o.In0}, {lay.In1, o.In1}, {lay.Out, o.C0}} {
		if err := s.InitMem(init.addr, init.data); err != nil {
			return nil, err
		}
	}
	args := []int{lay.In0, lay.In1, lay.Out, lay.Out + lay.OutBytes/2}
	for i, r := range a.ArgPointers {
		if err := s.InitReg(r, int64(args[i])); err != nil {
			return nil, err
		}
	}
	for _, r := range []string{"lr", "sp"} {
		s.InitReg(r, 0)
	}
	st, err := s.Run()
	res := &RunResult{Stats: st, VMACs: st.Counters["vmac"]}
	if err != nil {
		return res, err
	}
	got := s.Mem()[lay.Out : lay.Out+lay.OutBytes]
	res.Out = append([]byte(nil), got...)
	res.Verified, res.MaxErr, res.Mismatch = a.check(e, o, got)
	return res, nil
}

func (a *Arch) check(e *op.Einsum, o *Operands, got []byte) (bool, float64, string) {
	types := op.Types{A: a.TileDType, B: a.TileDType, Acc: op.AccF32, Out: op.FP64}
	want, err := ref.EinsumFloat(e, types, o.A, o.B)
	if err != nil {
		return false, math.Inf(1), err.Error()
	}
	absA := make([]float64, len(o.A))
	for i, v := range o.A {
		absA[i] = math.Abs(v)
	}
	absB := make([]float64, len(o.B))
	for i, v := range o.B {
		absB[i] = math.Abs(v)
	}
	abs, _ := ref.EinsumFloat(e, types, absA, absB)
	n := 1
	for _, ix := range e.Contracted() {
		n *= e.Sizes[ix]
	}
	worst := 0.0
	for i := range want {
		w := want[i] + o.C[i]
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])))
		bound := ref.FloatBound(n+1, abs[i]+math.Abs(o.C[i]), op.AccF32)
		d := math.Abs(g - w)
		if !(d <= bound) {
			return false, math.Inf(1), fmt.Sprintf("output %d = %g, want %g (|diff| %g > bound %g)", i, g, w, d, bound)
		}
		if bound > 0 {
			worst = max(worst, d/bound)
		}
	}
	return true, worst, ""
}
