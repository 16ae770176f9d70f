package versal

import (
	"testing"

	"github.com/sumacdev/sumac/op"
)

func mustSpec(t *testing.T, s string) *op.Spec {
	t.Helper()
	spec, err := op.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// Small GEMMs through every placement, bit for bit against op/ref, with edges in m, n and k.
func TestGEMMExact(t *testing.T) {
	m := DefaultMachine()
	for _, c := range []struct {
		spec string
		o    GEMMOptions
	}{
		{"gemm m=40 n=10 k=30 dtype=int16", GEMMOptions{Placement: PlacementSeed}},
		{"gemm m=40 n=10 k=30 dtype=int16", GEMMOptions{Placement: PlacementSeed, KC: 12, MC: 32}},
		{"gemm m=40 n=10 k=30 dtype=int16", GEMMOptions{Placement: PlacementBest}},
		{"gemm m=40 n=10 k=30 dtype=int16", GEMMOptions{Placement: PlacementBest, MC: 16}},
	} {
		r, err := RunGEMM(m, mustSpec(t, c.spec), c.o)
		if err != nil {
			t.Fatalf("%s %+v: %v", c.spec, c.o, err)
		}
		if !r.Verified {
			t.Errorf("%s %+v: not verified on %s: %s", c.spec, c.o, r.VerifiedOn, r.VerifyError)
		}
		sum := int64(0)
		for _, v := range r.Breakdown {
			sum += v
		}
		if d := sum - r.Cycles; d < -2 || d > 2 {
			t.Errorf("%s %+v: breakdown %v sums to %d, cycles %d", c.spec, c.o, r.Breakdown, sum, r.Cycles)
		}
	}
}
