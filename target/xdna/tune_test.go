package xdna_test

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/xdna"
)

// TestTune: every candidate of the space either is refused with a reason or runs verified
// without stalls; the winner is at least as good as Compile's pick, and the store callback
// spares the evaluation of what it supplies.
func TestTune(t *testing.T) {
	for _, c := range []struct {
		a    *xdna.Arch
		spec string
		acc  bool
	}{{aie2p.Arch, seedSpec, false}, {aieml.Arch, seedSpecAIE2, false}, {aieml.Arch, seedSpecAIE2, true}} {
		opt := xdna.Options{Accumulate: c.acc}
		cands, n, err := xdna.Tune(c.a, c.spec, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n != len(cands) {
			t.Fatalf("%s: evaluated %d of %d", c.a.Name, n, len(cands))
		}
		refused := 0
		for _, x := range cands {
			t.Logf("%s acc=%v %-42s instr %5d vmacs %4d util %.4f cycles %5d verified %v %s", c.a.Name, c.acc, x.Choice, x.Instructions, x.VMACs, x.Utilization, x.Cycles, x.Verified, x.Refusal)
			if x.Refusal != "" {
				refused++
				continue
			}
			if !x.Verified || x.Stalls != 0 {
				t.Errorf("%s %v: verified %v stalls %d", c.a.Name, x.Choice, x.Verified, x.Stalls)
			}
		}
		r, err := xdna.CompileOpts(c.a, c.spec, opt)
		if err != nil {
			t.Fatal(err)
		}
		if w := cands[0]; w.Cycles > r.Cycles {
			t.Errorf("%s: tuned %d cycles, compile %d", c.a.Name, w.Cycles, r.Cycles)
		}
		// a store that has the winner: it is not evaluated again
		win := cands[0]
		_, n2, err := xdna.Tune(c.a, c.spec, opt, func(ch xdna.Choice) (xdna.Candidate, bool) { return win, ch == win.Choice })
		if err != nil || n2 != n-1 {
			t.Errorf("%s: with the winner stored, evaluated %d of %d (%v)", c.a.Name, n2, n, err)
		}
		if refused == len(cands) {
			t.Errorf("%s: every candidate refused", c.a.Name)
		}
	}
}

func TestParseChoice(t *testing.T) {
	for _, c := range xdna.Space(aieml.Arch, xdna.Options{}) {
		back, err := xdna.ParseChoice(c.String())
		if err != nil || back != c {
			t.Fatalf("%v: read back %v, %v", c, back, err)
		}
	}
	for _, bad := range []string{"chains=x", "slack=-1", "lead=a", "foo=1", "slack"} {
		if _, err := xdna.ParseChoice(bad); err == nil || !strings.Contains(err.Error(), strings.Split(bad, "=")[0]) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
