package gemm

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Sizes are the byte sizes of the kernel's buffers.
func (p *Program) Sizes() map[string]int {
	eb := p.Plan.D.Elem.Bytes()
	out := map[string]int{}
	for n, l := range p.Lay {
		out[n] = l.Size * eb
	}
	return out
}

// each visits every canonical element of operand name: (b, f, g) and its canonical offset.
func (p *Program) each(name string, f func(b, x, y, canon int)) {
	c := p.Prob.C
	dx, dy := c.M, c.K
	switch name {
	case "B":
		dx, dy = c.N, c.K
	case "C":
		dx, dy = c.M, c.N
	}
	canon := p.Prob.Canon[name]
	for b := 0; b < c.Batch; b++ {
		for x := 0; x < dx; x++ {
			for y := 0; y < dy; y++ {
				f(b, x, y, canon(b, x, y))
			}
		}
	}
}

// Pack lays out canonical data of operand name ("A", "B", "C") in the kernel's buffer
// (padding elements zero).
func Pack[T any](p *Program, name string, canon []T) []T {
	buf := make([]T, p.Lay[name].Size)
	off := p.Lay[name].Off
	p.each(name, func(b, x, y, c int) { buf[off(b, x, y)] = canon[c] })
	return buf
}

// Unpack returns C in its canonical layout from the kernel's buffer.
func Unpack[T any](p *Program, buf []T) []T {
	out := make([]T, p.Prob.Len["C"])
	off := p.Lay["C"].Off
	p.each("C", func(b, x, y, c int) { out[c] = buf[off(b, x, y)] })
	return out
}

func intBytes(d op.DType, v []int64) []byte {
	bits := d.Bits()
	b := make([]byte, len(v)*bits/8)
	for i, x := range v {
		switch bits {
		case 8:
			b[i] = byte(x)
		case 16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case 32:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
	}
	return b
}

func bytesInt(d op.DType, b []byte) []int64 {
	bits := d.Bits()
	v := make([]int64, len(b)*8/bits)
	for i := range v {
		switch bits {
		case 8:
			if d.Signed() {
				v[i] = int64(int8(b[i]))
			} else {
				v[i] = int64(b[i])
			}
		case 16:
			v[i] = int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
		case 32:
			v[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	}
	return v
}

func floatBytes(v []float64) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	return b
}

func bytesFloat(b []byte) []float64 {
	v := make([]float64, len(b)/4)
	for i := range v {
		v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return v
}

// Check is the outcome of a verification.
type Check struct {
	Outputs     int     // outputs compared
	Saturated   float64 // fraction of reference outputs whose narrowing saturated
	First       string  // the first mismatch, described ("" when everything matched)
	Interpreted bool
}

// OK reports whether the kernel matched the reference.
func (c Check) OK() bool { return c.First == "" && c.Interpreted }

// refInt computes the exact reference of integer canonical operands.
func (p *Program) refInt(a, b, c []int64) (ref.IntResult, error) {
	s := p.Spec
	switch {
	case s.GEMM != nil && s.GEMM.Beta == 1:
		return ref.GEMMIntC(s.GEMM, s.Types, a, b, c)
	default:
		return ref.Run(s, a, b)
	}
}

func (p *Program) refFloat(a, b, c []float64) ([]float64, error) {
	s := p.Spec
	if s.GEMM != nil && s.GEMM.Beta == 1 {
		return ref.GEMMFloatC(s.GEMM, s.Types, a, b, c)
	}
	return ref.RunFloat(s, a, b)
}

// intInputs draws seeded canonical operands: values uniform in [-a, a] (0..a for uint8) with
// the widest a (halving from the type's range) for which fewer than 1% of the reference's
// narrowings saturate, so that the check compares arithmetic rather than clamped values; C
// (beta=1) uniform over the whole output type, so that the add's wrap-around is exercised.
func (p *Program) intInputs(seed uint64) (a, b, c []int64, r ref.IntResult, err error) {
	t := p.Spec.Types
	_, hi := t.A.Range()
	for amp := hi; ; amp /= 2 {
		g := rng.New(seed)
		draw := func(n int, lo, hi int64) []int64 {
			v := make([]int64, n)
			for i := range v {
				v[i] = lo + int64(g.Intn(int(hi-lo+1)))
			}
			return v
		}
		lo := -amp
		if !t.A.Signed() {
			lo = 0
		}
		a, b = draw(p.Prob.Len["A"], lo, amp), draw(p.Prob.Len["B"], lo, amp)
		if p.Prob.Beta == 1 {
			olo, ohi := t.Out.Range()
			c = draw(p.Prob.Len["C"], olo, ohi)
		}
		if r, err = p.refInt(a, b, c); err != nil {
			return
		}
		if amp <= 1 || float64(r.Saturated) < 0.01*float64(len(r.Out)) {
			return
		}
	}
}

// Verify runs the kernel IR on the interpreter (target/aie1/interp, the exact semantics of
// every intrinsic) with seeded inputs packed into the kernel's layouts and compares the
// unpacked result with op/ref: integers bit for bit, with every accumulator before its
// narrowing; fp32 within the bound of a reordered fp32 sum (ref.FloatBound).
func (p *Program) Verify(seed uint64) (Check, error) {
	d := p.Plan.D
	t := p.Spec.Types
	var ck Check
	mem := map[string][]byte{}
	var refI ref.IntResult
	var refF, absF []float64
	if d.DType == op.FP32 {
		g := rng.New(seed)
		draw := func(n int) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(float32(2*g.Float64() - 1))
			}
			return v
		}
		a, b := draw(p.Prob.Len["A"]), draw(p.Prob.Len["B"])
		var c []float64
		if p.Prob.Beta == 1 {
			c = draw(p.Prob.Len["C"])
		} else {
			c = make([]float64, p.Prob.Len["C"])
		}
		var err error
		if refF, err = p.refFloat(a, b, c); err != nil {
			return ck, err
		}
		absF = p.absSums(a, b, c)
		mem[ParamA], mem[ParamB], mem[ParamC] = floatBytes(Pack(p, "A", a)), floatBytes(Pack(p, "B", b)), floatBytes(Pack(p, "C", c))
	} else {
		a, b, c, r, err := p.intInputs(seed)
		if err != nil {
			return ck, err
		}
		refI = r
		ck.Saturated = float64(r.Saturated) / float64(max(1, len(r.Out)))
		if c == nil {
			c = make([]int64, p.Prob.Len["C"])
		}
		mem[ParamA], mem[ParamB], mem[ParamC] = intBytes(t.A, Pack(p, "A", a)), intBytes(t.B, Pack(p, "B", b)), intBytes(t.Out, Pack(p, "C", c))
	}
	var narrows [][]num.Acc
	cfg := interp.Config{Data: mem, Round: t.Round, Sat: t.Sat,
		OnNarrow: func(_ *kernel.Instr, lanes []num.Acc) { narrows = append(narrows, append([]num.Acc(nil), lanes...)) }}
	res, err := interp.Run(p.Kernel, cfg)
	if err != nil {
		return ck, fmt.Errorf("interpreter: %v", err)
	}
	ck.Interpreted = true
	fail := func(format string, args ...any) (Check, error) {
		ck.First = fmt.Sprintf(format, args...)
		return ck, nil
	}
	if len(res.Uninit) > 0 {
		return fail("kernel reads %v before writing it", res.Uninit[0])
	}
	if res.MACs != p.IssuedMACs {
		return fail("interpreter counts %d MACs, the compiler issued %d", res.MACs, p.IssuedMACs)
	}
	if d.DType == op.FP32 {
		got := Unpack(p, bytesFloat(res.Data[ParamC]))
		ck.Outputs = len(got)
		n := p.Prob.C.K
		if p.Prob.Beta == 1 {
			n++
		}
		for i := range got {
			if diff := math.Abs(got[i] - refF[i]); !(diff <= ref.FloatBound(n, absF[i], t.Acc)) {
				return fail("output %d: kernel %g, reference %g (bound %g)", i, got[i], refF[i], ref.FloatBound(n, absF[i], t.Acc))
			}
		}
		return ck, nil
	}
	got := Unpack(p, bytesInt(t.Out, res.Data[ParamC]))
	ck.Outputs = len(got)
	for i := range got {
		if got[i] != refI.Out[i] {
			return fail("output %d: kernel %d, reference %d", i, got[i], refI.Out[i])
		}
	}
	return p.checkAccs(ck, narrows, refI)
}

// checkAccs compares every narrowed accumulator with the reference's accumulators: the
// kernel narrows the blocks in the order of its tile loops, each block's accumulators in order.
func (p *Program) checkAccs(ck Check, narrows [][]num.Acc, r ref.IntResult) (Check, error) {
	pl := p.Plan
	c := p.Prob.C
	want := c.Batch * p.TM * p.TN * pl.Accs()
	if len(narrows) != want {
		ck.First = fmt.Sprintf("kernel narrows %d accumulators, the blocks have %d", len(narrows), want)
		return ck, nil
	}
	canon := p.Prob.Canon["C"]
	n := 0
	outer, inner := p.TM, p.TN
	if p.Sched.Order == "nm" {
		outer, inner = p.TN, p.TM
	}
	for b := 0; b < c.Batch; b++ {
		for o := 0; o < outer; o++ {
			for in := 0; in < inner; in++ {
				tm, tn := o, in
				if p.Sched.Order == "nm" {
					tm, tn = in, o
				}
				for a := 0; a < pl.Accs(); a++ {
					for l, got := range narrows[n] {
						if l >= pl.D.Shape.Lanes {
							break
						}
						i, j := pl.Out(a, l)
						i, j = tm*p.Sched.MR+i, tn*p.Sched.NR+j
						if i >= c.M || j >= c.N {
							continue
						}
						if w := r.Acc[canon(b, i, j)]; got != w {
							ck.First = fmt.Sprintf("accumulator of output (%d,%d,%d) before narrowing: kernel %v, reference %v", b, i, j, got, w)
							return ck, nil
						}
					}
					n++
				}
			}
		}
	}
	return ck, nil
}

// absSums is sum |a*b| (+ |c| with beta) per canonical output: the scale of ref.FloatBound.
func (p *Program) absSums(a, b, c []float64) []float64 {
	pc := p.Prob.C
	out := make([]float64, p.Prob.Len["C"])
	ca, cb, cc := p.Prob.Canon["A"], p.Prob.Canon["B"], p.Prob.Canon["C"]
	for bt := 0; bt < pc.Batch; bt++ {
		for i := 0; i < pc.M; i++ {
			for j := 0; j < pc.N; j++ {
				s := 0.0
				if p.Prob.Beta == 1 {
					s = math.Abs(c[cc(bt, i, j)])
				}
				for k := 0; k < pc.K; k++ {
					s += math.Abs(a[ca(bt, i, k)] * b[cb(bt, j, k)])
				}
				out[cc(bt, i, j)] = s
			}
		}
	}
	return out
}
