package versal

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// Functional execution of a design: every iteration's kernel calls on the cycle simulator with
// the windows the PL packs (zero padding at the edges), the partial sums passed along cascade
// chains (as int32 / fp32: the cascade's accumulators, exact while they fit), summed by the
// adder kernels, kept in the tile (output stationary), or added by the PL across K iterations
// and narrowed there once; the result unpacked into C and compared with op/ref.

// packA returns the A window of one call: rows r0.., reduction steps k0.. of A (m x k).
func (p *arrayPlan) packA(a []int64, af []float64, m, kk, r0, k0 int) []byte {
	ks := p.k.Spec
	at := func(r, c int) (int64, float64) {
		if r0+r >= m || k0+c >= kk {
			return 0, 0
		}
		i := (r0+r)*kk + k0 + c
		if af != nil {
			return 0, af[i]
		}
		return a[i], 0
	}
	buf := make([]byte, p.k.ABytes)
	switch ks.Family {
	case "mm8":
		for t := 0; t < ks.NT; t++ {
			for r := 0; r < 8; r++ {
				for c := 0; c < ks.TK; c++ {
					v, _ := at(8*t+r, c)
					buf[t*ks.TK*8+zIndex(c, r)] = byte(v)
				}
			}
		}
	case "f32":
		for rb := 0; rb < 4; rb++ {
			for c := 0; c < ks.TK; c++ {
				for r := 0; r < 8; r++ {
					_, f := at(8*rb+r, c)
					binary.LittleEndian.PutUint32(buf[4*(rb*8*ks.TK+c*8+r):], math.Float32bits(float32(f)))
				}
			}
		}
	case "i8mmul":
		for r := 0; r < ks.TM; r++ {
			for c := 0; c < ks.TK; c++ {
				v, _ := at(r, c)
				pr, h, rr := r/8, r%8/4, r%4
				buf[((pr*(ks.TK/8)+c/8)*2+h)*32+rr*8+c%8] = byte(v)
			}
		}
	case "i16":
		for t := 0; t < ks.NT; t++ {
			for c := 0; c < ks.TK; c++ {
				for r := 0; r < 16; r++ {
					v, _ := at(16*t+r, c)
					binary.LittleEndian.PutUint16(buf[2*((t*ks.TK+c)*16+r):], uint16(int16(v)))
				}
			}
		}
	}
	return buf
}

// packB returns the B window of one call: steps k0.., columns c0.. of B (k x n).
func (p *arrayPlan) packB(b []int64, bf []float64, kk, n, k0, c0 int) []byte {
	ks := p.k.Spec
	at := func(r, c int) (int64, float64) {
		if k0+r >= kk || c0+c >= n {
			return 0, 0
		}
		i := (k0+r)*n + c0 + c
		if bf != nil {
			return 0, bf[i]
		}
		return b[i], 0
	}
	buf := make([]byte, p.k.BBytes)
	switch ks.Family {
	case "mm8":
		for q := 0; q < ks.NQ; q++ {
			for r := 0; r < ks.TK; r++ {
				for c := 0; c < 8; c++ {
					v, _ := at(r, 8*q+c)
					buf[q*ks.TK*8+xIndex(r, c)] = byte(v)
				}
			}
		}
	case "f32":
		for jq := 0; jq < 4; jq++ {
			for r := 0; r < ks.TK; r++ {
				for c := 0; c < 8; c++ {
					_, f := at(r, 8*jq+c)
					binary.LittleEndian.PutUint32(buf[4*(jq*8*ks.TK+r*8+c):], math.Float32bits(float32(f)))
				}
			}
		}
	case "i8mmul":
		for r := 0; r < ks.TK; r++ {
			for c := 0; c < ks.TN; c++ {
				v, _ := at(r, c)
				q, h, cc := c/8, c%8/4, c%4
				buf[((q*(ks.TK/8)+r/8)*2+h)*32+r%8*4+cc] = byte(v)
			}
		}
	case "i16":
		for r := 0; r < ks.TK; r++ {
			for c := 0; c < 4; c++ {
				v, _ := at(r, c)
				binary.LittleEndian.PutUint16(buf[2*(r*4+c):], uint16(int16(v)))
			}
		}
	}
	return buf
}

// outIndex is the element of (row r, column c) of one call's output (narrowed or partial
// sums: the same element order).
func (p *arrayPlan) outIndex(r, c int) int {
	ks := p.k.Spec
	switch ks.Family {
	case "mm8":
		t, px, q, co := r/8, r%8, c/8, c%8
		return 64*(t*ks.NQ+q) + px*8 + co
	case "f32":
		return (r/8)*256 + c*8 + r%8
	case "i8mmul":
		pr, hr, rr := r/8, r%8/4, r%4
		q, hc, cc := c/8, c%8/4, c%4
		return ((pr*(ks.TN/8)+q)*4+hr*2+hc)*16 + rr*4 + cc
	case "i16":
		return (r/16*4+c)*16 + r%16
	}
	return 0
}

// element reads element i of an output region: narrowed (the output type) or a partial sum.
func (p *arrayPlan) element(buf []byte, i int, partial bool) (int64, float64) {
	ks := p.k.Spec
	switch {
	case ks.DType == "fp32":
		return 0, float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])))
	case ks.DType == "int16":
		return int64(int16(binary.LittleEndian.Uint16(buf[2*i:]))), 0
	case partial || ks.Family == "i8mmul":
		return int64(int32(binary.LittleEndian.Uint32(buf[4*i:]))), 0
	case ks.DType == "int8":
		return int64(int8(buf[i])), 0
	}
	return int64(buf[i]), 0
}

// execute runs the plan on A (m x k) and B (k x n) and returns C; integer operands in a/b,
// floats in af/bf.
func (p *arrayPlan) execute(a, b []int64, af, bf []float64) ([]int64, []float64, error) {
	g, d, k := p.g, p.d, p.k
	ks := k.Spec
	isF := ks.DType == "fp32"
	m, n, kk := g.M, g.N, g.K
	c := make([]int64, m*n)
	cf := make([]float64, m*n)
	pl := make([]int64, m*n)     // PL sums of partial sums (integers)
	plf := make([]float32, m*n)  // (fp32)
	plUsed := make([]bool, m*n)  // C(r, c) came from partial sums the PL narrows
	resident := map[int][]byte{} // output-stationary partial sums per tile
	var err error
	p.walk(0, func(_ int, it iteration) bool {
		for i := 0; i < d.X; i++ {
			for j := 0; j < d.Z; j++ {
				r0 := (it.mb*d.X + i) * ks.TM
				c0 := (it.nb*d.Z + j) * ks.TN
				var prev []byte
				var outs [][]byte
				for pos := 0; pos < d.Y; pos++ {
					t := d.tile(i, pos, j)
					k0 := (it.kb*d.Y + pos) * ks.TK
					v := p.variant(pos, it)
					kern := k.Variants[v]
					data := map[string][]byte{}
					for name, s := range kern.Sizes {
						data[name] = make([]byte, s)
					}
					copy(data[k.AName], p.packA(a, af, m, kk, r0, k0))
					copy(data[k.BName], p.packB(b, bf, kk, n, k0, c0))
					if v == Mid || v == Last {
						in := prev
						if d.Stationary {
							in = resident[t]
						}
						if len(in) != len(data[k.PName]) {
							err = fmt.Errorf("tile %d: partial sum of %d bytes for a window of %d", t, len(in), len(data[k.PName]))
							return false
						}
						copy(data[k.PName], in)
					}
					res, e := kern.Run(data, p.t.Round, p.t.Sat)
					if e != nil {
						err = e
						return false
					}
					out := res[k.OName]
					prev = out
					if d.Stationary {
						resident[t] = out
					}
					outs = append(outs, out)
				}
				if !it.out {
					continue
				}
				var final []byte
				partial := false
				switch d.Reduce {
				case ReduceAdder:
					q := outs
					for len(q) > 1 {
						x, y := q[0], q[1]
						q = q[2:]
						data := map[string][]byte{"IN1": x, "IN2": y, "OUT": make([]byte, p.adder.Sizes["OUT"])}
						res, e := p.adder.Run(data, p.t.Round, p.t.Sat)
						if e != nil {
							err = e
							return false
						}
						q = append(q, res["OUT"])
					}
					final, partial = q[0], true
				default:
					final = outs[len(outs)-1]
					v := p.variant(d.Y-1, it)
					partial = v == First || v == Mid
				}
				for r := 0; r < ks.TM && r0+r < m; r++ {
					for cc := 0; cc < ks.TN && c0+cc < n; cc++ {
						iv, fv := p.element(final, p.outIndex(r, cc), partial)
						o := (r0+r)*n + c0 + cc
						switch {
						case isF && partial:
							plf[o] += float32(fv)
							plUsed[o] = true
						case isF:
							cf[o] = fv
						case partial:
							pl[o] += iv
							plUsed[o] = true
						default:
							c[o] = iv
						}
					}
				}
			}
		}
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	nar := p.t.Narrow()
	for o := range plUsed {
		if !plUsed[o] {
			continue
		}
		if isF {
			cf[o] = float64(plf[o])
			continue
		}
		v, _ := num.SRS(num.AccFrom(pl[o]).Wrap(48), nar)
		c[o] = v
	}
	return c, cf, nil
}

// verifyDesign is the scaled-down design the verification runs: the same kernel variants,
// reduction and stationarity, at most 2 x Y x 2 tiles.
func (p *arrayPlan) verifyPlan() (*arrayPlan, *op.Spec, error) {
	d := *p.d
	d.X, d.Z = min(d.X, 2), min(d.Z, 2)
	d.ACast, d.BCast, d.PackIn, d.PackOut = 1, 1, 1, 1
	d.Scope = ScopeArray
	ks := p.k.Spec
	// two block rows and columns with an edge, two K iterations with an edge where the plan
	// has them (one where it keeps the whole K in one)
	m := min(p.g.M, 2*d.X*ks.TM-3)
	n := min(p.g.N, d.Z*ks.TN+ks.TN/2+1)
	k := min(p.g.K, d.Y*ks.TK+ks.TK/2+4)
	if p.kB == 1 {
		k = min(p.g.K, d.Y*ks.TK-4)
	}
	if d.Y > 1 && k <= (d.Y-1)*ks.TK {
		k = min(p.g.K, (d.Y-1)*ks.TK+1) // every tile of the chain gets some K
	}
	s := fmt.Sprintf("gemm m=%d n=%d k=%d atype=%s btype=%s acc=%s out=%s round=%s sat=%s", max(m, 1), max(n, 1), max(k, 1),
		p.t.A, p.t.B, p.t.Acc, p.t.Out, p.t.Round, p.t.Sat)
	spec, err := op.Parse(s)
	if err != nil {
		return nil, nil, err
	}
	vp, err := newArrayPlan(p.a, &d, spec)
	if err != nil {
		return nil, nil, err
	}
	return vp, spec, nil
}

// verify runs the scaled-down design and compares C with op/ref bit for bit. Integer inputs:
// the widest range for which fewer than 1% of the reference's outputs saturate; fp32 inputs:
// small integers, so that every sum is exact in fp32 whatever the order of the additions.
func (p *arrayPlan) verify(seed uint64) (shape, inputs string, err error) {
	vp, spec, err := p.verifyPlan()
	if err != nil {
		return "", "", err
	}
	g := spec.GEMM
	shape = spec.String()
	r := rng.New(seed)
	if vp.k.Spec.DType == "fp32" {
		gen := func(n int) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(r.Intn(9) - 4)
			}
			return v
		}
		af, bf := gen(g.M*g.K), gen(g.K*g.N)
		want, err := ref.GEMMFloat(g, spec.Types, af, bf)
		if err != nil {
			return shape, "", err
		}
		inputs = "fp32 integers in [-4, 4] (every partial sum exact)"
		_, got, err := vp.execute(nil, nil, af, bf)
		if err != nil {
			return shape, inputs, err
		}
		for i := range got {
			if got[i] != want[i] {
				return shape, inputs, fmt.Errorf("C[%d][%d] = %g, op/ref %g", i/g.N, i%g.N, got[i], want[i])
			}
		}
		return shape, inputs, nil
	}
	signed := spec.Types.A.Signed()
	ebits := spec.Types.A.Bits()
	var a, b []int64
	var want ref.IntResult
	bits := ebits
	narrowing := vp.k.NarrowsPartials && vp.kB > 1
	if narrowing {
		// the partial sums are narrowed per call: a range in which none can saturate
		for bits > 2 && int64(g.K)<<(2*(bits-1)) >= 1<<(ebits-1) {
			bits--
		}
	}
	for ; bits >= 2; bits-- {
		rr := rng.New(seed)
		gen := func(n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				if signed {
					v[i] = int64(rr.Intn(1<<bits-1)) - (1<<(bits-1) - 1)
				} else {
					v[i] = int64(rr.Intn(1 << bits))
				}
			}
			return v
		}
		a, b = gen(g.M*g.K), gen(g.K*g.N)
		want, err = ref.GEMMInt(g, spec.Types, a, b)
		if err != nil {
			return shape, "", err
		}
		if narrowing || want.Saturated*100 < len(want.Out) {
			break
		}
	}
	lo, hi := 0, 1<<bits
	if signed {
		lo, hi = -(1<<(bits-1) - 1), 1<<(bits-1)
	}
	inputs = fmt.Sprintf("%s in [%d, %d), %d of %d outputs saturate", spec.Types.A, lo, hi, want.Saturated, len(want.Out))
	if narrowing {
		inputs += "; the kernel narrows its partial sums per call, so the range keeps every partial sum in range"
	}
	got, _, err := vp.execute(a, b, nil, nil)
	if err != nil {
		return shape, inputs, err
	}
	for i := range got {
		if got[i] != want.Out[i] {
			return shape, inputs, fmt.Errorf("C[%d][%d] = %d, op/ref %d", i/g.N, i%g.N, got[i], want.Out[i])
		}
	}
	return shape, inputs, nil
}
