package xdna_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/vliw"
	"github.com/sumacdev/sumac/target/xdna"
)

const seedSpec = "einsum [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] m2=4 k1=12 m1=2 m0=8 k0=8 n2=4 n1=2 n0=8 dtype=bfp16"

func TestCompileSeedAIE2P(t *testing.T) {
	r, err := xdna.Compile(aie2p.Arch, seedSpec)
	if err != nil {
		if r != nil {
			t.Log(r.Listing)
		}
		t.Fatal(err)
	}
	t.Logf("instr %d vmacs %d util %.4f cycles %d stalls %d gflops %.0f verified %v II %d loop %d pro %d epi %d", r.Instructions, r.VMACs, r.Utilization, r.Cycles, r.Stalls, r.GFLOPS, r.Verified, r.II, r.Loop, r.Prologue, r.Epilogue)
	if !r.Verified || r.Stalls != 0 || r.Utilization < 0.96 {
		t.Fatalf("%+v", r.Mismatch)
	}
}

const seedSpecAIE2 = "einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=4 m0=4 k0=8 n1=8 n0=4 dtype=bf16"

func TestCompileSeedAIEML(t *testing.T) {
	r, err := xdna.Compile(aieml.Arch, seedSpecAIE2)
	if err != nil {
		if r != nil {
			t.Log(r.Listing)
		}
		t.Fatal(err)
	}
	t.Logf("instr %d vmacs %d util %.4f cycles %d stalls %d gflops %.0f verified %v II %d loop %d pro %d epi %d", r.Instructions, r.VMACs, r.Utilization, r.Cycles, r.Stalls, r.GFLOPS, r.Verified, r.II, r.Loop, r.Prologue, r.Epilogue)
	if !r.Verified || r.Stalls != 0 || r.Utilization < 256.0/288 {
		t.Fatalf("%+v", r.Mismatch)
	}
}

// TestRandomSizes compiles einsums of random sizes on both tiles and checks every run
// against op/ref (Compile verifies; the test asserts it did, without stalls).
func TestRandomSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 7))
	for i := 0; i < 6; i++ {
		m2, n2, k1 := 1+rng.IntN(3), 1+rng.IntN(3), 4*(1+rng.IntN(2))
		spec := fmt.Sprintf("einsum [a,k,m,r,s],[b,k,n,c,s]->[m,a,b,n,r,c] a=%d k=%d m=2 r=8 s=8 b=%d n=2 c=8 dtype=bfp16", m2, k1, n2)
		checkCompile(t, aie2p.Arch, spec)
	}
	for i := 0; i < 6; i++ {
		m1, n1, k1 := 2*(1+rng.IntN(2)), 4*(1+rng.IntN(2)), 3+rng.IntN(4)
		spec := fmt.Sprintf("einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=%d k1=%d m0=4 k0=8 n1=%d n0=4 dtype=bf16", m1, k1, n1)
		checkCompile(t, aieml.Arch, spec)
	}
}

func checkCompile(t *testing.T, a *xdna.Arch, spec string) *xdna.Result {
	t.Helper()
	r, err := xdna.Compile(a, spec)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	e := einsum(t, spec)
	want := e.MACs() / int64(a.MACsPerInstr())
	if !r.Verified || r.Stalls != 0 || r.VMACs != want {
		t.Fatalf("%s: verified %v (%s) stalls %d vmacs %d want %d", spec, r.Verified, r.Mismatch, r.Stalls, r.VMACs, want)
	}
	return r
}

// TestListingRoundTrip: the printed listing reads back into the same bundles and, run without
// the generator's annotations, gives the same counts and a verified output.
func TestListingRoundTrip(t *testing.T) {
	for _, c := range []struct {
		a    *xdna.Arch
		spec string
	}{{aie2p.Arch, seedSpec}, {aieml.Arch, seedSpecAIE2}} {
		r := checkCompile(t, c.a, c.spec)
		back, err := runListing(t, c.a, r.Listing, c.spec, "zero")
		if err != nil {
			t.Fatal(err)
		}
		if !back.Verified || back.Stats.Bundles != r.Instructions || back.VMACs != r.VMACs {
			t.Fatalf("%s: listing run %+v, compiled %d/%d", c.a.Name, back, r.Instructions, r.VMACs)
		}
		p, _ := vliw.Parse(c.a.M, xdna.NewISA(c.a), "einsum_kernel", r.Listing)
		if vliw.Listing(c.a.M, p) != r.Listing {
			t.Fatalf("%s: listing does not print back unchanged", c.a.Name)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		a          *xdna.Arch
		spec, want string
	}{
		{aie2p.Arch, strings.Replace(seedSpec, "k1=12", "k1=10", 1), "multiple of 4"},
		{aie2p.Arch, strings.Replace(seedSpec, "dtype=bfp16", "dtype=bf16", 1), "dtype=bfp16"},
		{aie2p.Arch, strings.Replace(seedSpec, "m1=2", "m1=4", 1), "2x2 register blocking"},
		{aie2p.Arch, "gemm m=8 n=8 k=8 dtype=bfp16", "einsum"},
		{aieml.Arch, strings.Replace(seedSpecAIE2, "n1=8", "n1=6", 1), "n1=6 of 4"},
		{aieml.Arch, "einsum [m,k],[k,n]->[m,n] m=4 k=8 n=4 dtype=bf16", "layout"},
	} {
		if _, err := xdna.Compile(c.a, c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", c.spec, err, c.want)
		}
	}
}

// TestAccumulate: with Options.Accumulate the aieml kernel adds to a random output buffer as
// the published kernels do; its loads then bound the loop body at k1 < 4 (docs/xdna.md).
func TestAccumulate(t *testing.T) {
	for _, k1 := range []int{2, 3, 4, 6} {
		spec := fmt.Sprintf("einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=%d m0=4 k0=8 n1=8 n0=4 dtype=bf16", k1)
		r, err := xdna.CompileOpts(aieml.Arch, spec, xdna.Options{Accumulate: true})
		if err != nil {
			t.Fatalf("k1=%d: %v", k1, err)
		}
		t.Logf("k1=%d: %d instructions, %d VMAC.F (%.4f), II %d, stalls %d, verified %v", k1, r.Instructions, r.VMACs, r.Utilization, r.II, r.Stalls, r.Verified)
		if !r.Verified || r.Stalls != 0 {
			t.Fatalf("k1=%d: verified %v (%s) stalls %d", k1, r.Verified, r.Mismatch, r.Stalls)
		}
	}
	if _, err := xdna.CompileOpts(aie2p.Arch, seedSpec, xdna.Options{Accumulate: true}); err == nil {
		t.Fatal("aie2p accumulate accepted")
	}
}
