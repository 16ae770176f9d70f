package xdna_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/xdna"
)

// TestSweep checks issue 19's size criterion on aie2p (every size with m2*k1*n2 >= 192 and
// k1 >= 8 reaches utilization 0.93; sizes whose k1 is not a multiple of 4 are rejected, see
// matchBFP) and prints the utilization table of docs/xdna.md. By default it runs a few sizes;
// XDNA_SWEEP=1 runs the whole grid (about a minute):
//
//	XDNA_SWEEP=1 go test ./target/xdna -run Sweep -v
func TestSweep(t *testing.T) {
	full := os.Getenv("XDNA_SWEEP") != ""
	type size struct{ m2, k1, n2 int }
	var p2 []size
	if full {
		for _, k1 := range []int{1, 2, 3, 4, 8, 12, 16, 24, 32} {
			for _, m2 := range []int{1, 2, 4, 8} {
				for _, n2 := range []int{1, 2, 4, 8} {
					if k1%4 != 0 && (m2 > 1 || n2 > 1) {
						continue
					}
					p2 = append(p2, size{m2, k1, n2})
				}
			}
		}
	} else {
		p2 = []size{{1, 4, 1}, {2, 8, 2}, {4, 12, 4}, {2, 24, 4}, {6, 8, 4}}
	}
	t.Logf("%-6s %-16s %7s %7s %6s %4s %5s %7s %7s", "target", "m2,k1,n2", "vmacs", "instr", "util", "II", "loop", "bound", "GFLOPS")
	for _, s := range p2 {
		spec := fmt.Sprintf("einsum [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] m2=%d k1=%d m1=2 m0=8 k0=8 n2=%d n1=2 n0=8 dtype=bfp16", s.m2, s.k1, s.n2)
		r, err := xdna.Compile(aie2p.Arch, spec)
		if err != nil {
			t.Logf("%-6s %-16s %v", "aie2p", fmt.Sprint(s.m2, ",", s.k1, ",", s.n2), err)
			continue
		}
		// derived: II = max(4 k1, 16); instructions = blocks * II + 25 when II = 4 k1 (docs/xdna.md)
		bound := float64(r.VMACs) / float64(int64(r.Blocks*r.II)+25)
		t.Logf("%-6s %-16s %7d %7d %6.4f %4d %5d %7.4f %7.0f", "aie2p", fmt.Sprint(s.m2, ",", s.k1, ",", s.n2), r.VMACs, r.Instructions, r.Utilization, r.II, r.Loop, bound, r.GFLOPS)
		if !r.Verified || r.Stalls != 0 {
			t.Errorf("%v: verified %v stalls %d", s, r.Verified, r.Stalls)
		}
		if s.m2*s.k1*s.n2 >= 192 && s.k1 >= 8 && r.Utilization < 0.93 {
			t.Errorf("%v: utilization %.4f < 0.93", s, r.Utilization)
		}
	}
	type size1 struct{ m1, k1, n1 int }
	var p1 []size1
	if full {
		for _, k1 := range []int{1, 2, 3, 4, 6, 8, 16} {
			for _, m1 := range []int{2, 4, 8} {
				for _, n1 := range []int{4, 8, 16} {
					p1 = append(p1, size1{m1, k1, n1})
				}
			}
		}
	} else {
		p1 = []size1{{8, 4, 8}, {2, 2, 4}, {8, 8, 16}}
	}
	for _, s := range p1 {
		spec := fmt.Sprintf("einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=%d k1=%d m0=4 k0=8 n1=%d n0=4 dtype=bf16", s.m1, s.k1, s.n1)
		r, err := xdna.Compile(aieml.Arch, spec)
		if err != nil {
			t.Errorf("%v: %v", s, err)
			continue
		}
		t.Logf("%-6s %-16s %7d %7d %6.4f %4d %5d %7s %7.0f", "aieml", fmt.Sprint(s.m1, ",", s.k1, ",", s.n1), r.VMACs, r.Instructions, r.Utilization, r.II, r.Loop, "", r.GFLOPS)
		if !r.Verified || r.Stalls != 0 {
			t.Errorf("%v: verified %v stalls %d", s, r.Verified, r.Stalls)
		}
	}
}
