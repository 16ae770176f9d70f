package xdna_test

import (
	"testing"

	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
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
