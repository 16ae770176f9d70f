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

// int8 GEMM (seed 001's future work) runs as a 1x1 convolution with the int8 build of the
// 8-bit kernels, verified against op/ref; it has no seed placement.
func TestGEMMInt8(t *testing.T) {
	m := DefaultMachine()
	r, err := RunGEMM(m, mustSpec(t, "gemm m=100 n=20 k=40 dtype=int8"), GEMMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Verified || r.MACs != 100*20*40 || r.Peak != 128 {
		t.Errorf("int8 gemm: verified %v (%s), macs %d, peak %d", r.Verified, r.VerifyError, r.MACs, r.Peak)
	}
	if _, err := RunGEMM(m, mustSpec(t, "gemm m=100 n=20 k=40 dtype=int8"), GEMMOptions{Placement: PlacementSeed}); err == nil {
		t.Error("int8 in the seed placement: no error")
	}
}
