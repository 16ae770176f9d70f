package gemm

import (
	"fmt"
	"testing"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/op"
)

// space is the schedule space of a spec on its datapath (the tuner's, sched.GEMMSpace).
func space(t *testing.T, spec *op.Spec) []sched.GEMM {
	t.Helper()
	d, err := DatapathFor(spec.Types)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProblem(spec)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := sched.GEMMSpace(p.C, d.Shape, d.XBits, d.ZBits, 8, 512)
	return out
}

// TestRandomShapes checks random GEMMs in every type (random sizes, transposes, beta, shift,
// rounding and saturation modes) under random schedules of their space bit for bit against
// op/ref on the interpreter; fp32 within the reordered-sum bound.
func TestRandomShapes(t *testing.T) {
	r := rng.New(16)
	types := []string{"int16", "int8", "uint8", "int32", "fp32"}
	rounds := []string{"floor", "ceil", "sym_inf", "conv_even"}
	sats := []string{"saturate", "symmetric", "none"}
	perType := 6
	if testing.Short() {
		perType = 2
	}
	for _, dt := range types {
		checked := 0
		for try := 0; checked < perType && try < 50; try++ {
			m, n, k := 1+r.Intn(40), 1+r.Intn(40), 1+r.Intn(70)
			text := fmt.Sprintf("gemm m=%d n=%d k=%d ta=%d tb=%d beta=%d dtype=%s", m, n, k, r.Intn(2), r.Intn(2), r.Intn(2), dt)
			if dt != "fp32" {
				text += fmt.Sprintf(" shift=%d round=%s sat=%s", r.Intn(6), rounds[r.Intn(len(rounds))], sats[r.Intn(len(sats))])
			}
			spec := op.MustParse(text)
			cands := space(t, spec)
			s := cands[r.Intn(len(cands))]
			p, err := Generate(spec, s)
			if err != nil {
				continue // refused: the tuner's business (TestRefusalsNamed)
			}
			ck, err := p.Verify(uint64(try + 1))
			if err != nil || !ck.OK() {
				t.Fatalf("%s, %s: %v %+v", spec, p.Sched.Key(), err, ck)
			}
			checked++
		}
		if checked == 0 {
			t.Errorf("%s: no schedule of 50 tries generated", dt)
		}
	}
}

// TestEinsum checks contractions given as einsums: a plain matrix product read in place, a
// batched one, and seed 002's tiled layout [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0].
func TestEinsum(t *testing.T) {
	for _, text := range []string{
		"einsum [m,k],[k,n]->[m,n] m=32 k=32 n=16 dtype=int16",
		"einsum [b,m,k],[b,k,n]->[b,m,n] b=3 m=8 k=16 n=8 dtype=uint8",
		"einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=2 k1=4 m0=4 k0=8 n1=2 n0=4 dtype=int8",
		"einsum [k,m],[n,k]->[n,m] m=16 k=8 n=8 dtype=fp32",
		"einsum [m,k],[k,n]->[m,n] m=8 k=12 n=8 dtype=int32",
	} {
		spec := op.MustParse(text)
		n := 0
		for i, s := range space(t, spec) {
			if i%7 != 0 {
				continue
			}
			p, err := Generate(spec, s)
			if err != nil {
				continue
			}
			ck, err := p.Verify(uint64(i + 1))
			if err != nil || !ck.OK() {
				t.Fatalf("%s, %s: %v %+v", spec, p.Sched.Key(), err, ck)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no schedule generated", text)
		}
	}
}
