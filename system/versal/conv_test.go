package versal

import "testing"

// Small convolutions in both placements, bit for bit against op/ref: a 3x3 layer with a width
// that leaves a partial pixel block (14 = 8 + 6), a 1x1 layer of width 7 (one partial block
// per row; flattened over rows in the best placement), and a 7x7 stride-2 layer with 3 input
// channels and padding 3 (C1's shape: the copy applies stride and padding).
func TestConvExact(t *testing.T) {
	m := DefaultMachine()
	for _, s := range []string{
		"conv2d x=14 y=2 k=16 c=64 r=3 s=3 pad=1 dtype=uint8",
		"conv2d x=7 y=7 k=32 c=32 r=1 s=1 dtype=uint8",
		"conv2d x=12 y=3 k=16 c=3 r=7 s=7 stride=2 pad=3 dtype=uint8",
	} {
		for _, o := range []ConvOptions{{Placement: PlacementSeed, Rates: RatesSeed}, {Placement: PlacementSeed}, {Placement: PlacementBest}} {
			r, err := RunConv(m, mustSpec(t, s), o)
			if err != nil {
				t.Fatalf("%s %+v: %v", s, o, err)
			}
			if !r.Verified {
				t.Errorf("%s %+v: not verified on %s: %s", s, o, r.VerifiedOn, r.VerifyError)
			}
			if r.MACs != mustSpec(t, s).MACs() {
				t.Errorf("%s: %d MACs, want %d", s, r.MACs, mustSpec(t, s).MACs())
			}
			sum := int64(0)
			for _, v := range r.Breakdown {
				sum += v
			}
			if d := sum - r.Cycles; d < -2 || d > 2 {
				t.Errorf("%s %+v: breakdown %v sums to %d, cycles %d", s, o, r.Breakdown, sum, r.Cycles)
			}
		}
	}
}

// The seed's per-call narrowing (O_r + ubsrs(partial) per tap) differs from the reference's
// single narrowing once outputs saturate; the best placement's does not.
func TestConvSeedNarrowing(t *testing.T) {
	m := DefaultMachine()
	spec := mustSpec(t, "conv2d x=8 y=1 k=8 c=16 r=3 s=1 dtype=uint8")
	for _, c := range []struct {
		placement string
		exact     bool
	}{{PlacementSeed, false}, {PlacementBest, true}} {
		p, err := newConvPlan(m, spec, ConvOptions{Placement: c.placement})
		if err != nil {
			t.Fatal(err)
		}
		in := make([]int64, spec.Conv.InLen())
		w := make([]int64, spec.Conv.WLen())
		for i := range in {
			in[i] = 3
		}
		for i := range w {
			w[i] = 3 // 16 channels x 9 = 144 per tap: every output saturates (3 taps)
		}
		got, err := p.execute(in, w)
		if err != nil {
			t.Fatal(err)
		}
		if exact := got[0] == 255; exact != c.exact {
			t.Errorf("%s: output 0 = %d (3 taps x 144 = 432 narrows to 255 once; per tap 144 + 144 + 144 wraps)", c.placement, got[0])
		}
	}
}
