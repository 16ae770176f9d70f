package xdna_test

import (
	"encoding/binary"
	"math"
	"os"
	"testing"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/vliw"
	"github.com/sumacdev/sumac/target/xdna"
)

func einsum(t *testing.T, s string) *op.Einsum {
	t.Helper()
	sp, err := op.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sp.Einsum
}

func runListing(t *testing.T, a *xdna.Arch, src, spec, cIn string) (*xdna.RunResult, error) {
	t.Helper()
	p, err := vliw.Parse(a.M, xdna.NewISA(a), "t", src)
	if err != nil {
		return nil, err
	}
	if err := vliw.Link(a.M, p); err != nil {
		return nil, err
	}
	e := einsum(t, spec)
	lay, err := a.PlaceBuffers(e)
	if err != nil {
		t.Fatal(err)
	}
	o, err := a.RandomOperands(e, 1, cIn)
	if err != nil {
		t.Fatal(err)
	}
	return a.Run(p, e, lay, o)
}

const tileSpec = "einsum [m0,k0],[n0,k0]->[m0,n0] m0=8 k0=8 n0=8 dtype=bfp16"

func TestTileListing(t *testing.T) {
	src, err := os.ReadFile("testdata/tile_aie2p.s")
	if err != nil {
		t.Fatal(err)
	}
	r, err := runListing(t, aie2p.Arch, string(src), tileSpec, "zero")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Verified || r.VMACs != 1 || r.Stats.Bundles != 24 || r.Stats.Stalls != 0 {
		t.Fatalf("%+v", r)
	}
}

// TestPublishedListings runs the xdna repository's hand-written kernels from a local checkout
// (XDNA_SRC=path/to/xdna/src; they are not ours to commit) as published: instruction and
// VMAC.F counts, stalls, and the results against op/ref with a random initial output (both
// kernels accumulate into it).
//
// The XDNA1 kernel computes the einsum exactly. The XDNA2 kernel's products are all right,
// but per 2x2 block it stores tile (m1,n1) = (1,0) where (0,1) belongs, (1,1) where (1,0)
// belongs and (0,1) where (1,1) belongs, and adds initial output tiles to other products
// (its benchmark runs on uninitialized buffers and checks no values); the test pins the
// permutation of the products (initial output zero). docs/xdna.md has the analysis.
func TestPublishedListings(t *testing.T) {
	dir := os.Getenv("XDNA_SRC")
	if dir == "" {
		t.Skip("XDNA_SRC not set")
	}
	for _, c := range []struct {
		file, spec string
		a          *xdna.Arch
		bundles    int64
		vmacs      int64
		permuted   bool
	}{
		{"tensor_kernel_32x32x32_bf16_bf16_fp32.s", "einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=4 m0=4 k0=8 n1=8 n0=4 dtype=bf16", aieml.Arch, 288, 256, false},
		{"tensor_kernel_64x96x64_bfp16_bfp16_fp32.s", "einsum [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] m2=4 k1=12 m1=2 m0=8 k0=8 n2=4 n1=2 n0=8 dtype=bfp16", aie2p.Arch, 800, 768, true},
	} {
		src, err := os.ReadFile(dir + "/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		cIn := "random"
		if c.permuted {
			cIn = "zero" // products only: see checkPermuted
		}
		r, err := runListing(t, c.a, string(src), c.spec, cIn)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if r.Stats.Bundles != c.bundles || r.VMACs != c.vmacs || r.Stats.Stalls != 0 {
			t.Errorf("%s: %+v", c.file, r.Stats)
		}
		if r.Verified == c.permuted {
			t.Errorf("%s: verified %v (%s)", c.file, r.Verified, r.Mismatch)
		}
		if c.permuted {
			checkPermuted(t, c.a, c.spec, r.Out)
		}
	}
}

// checkPermuted: the output equals the reference with the XDNA2 listing's tile permutation.
func checkPermuted(t *testing.T, a *xdna.Arch, spec string, out []byte) {
	e := einsum(t, spec)
	o, _ := a.RandomOperands(e, 1, "zero")
	want, _ := ref.EinsumFloat(e, op.Types{A: op.BFP16, B: op.BFP16, Acc: op.AccF32, Out: op.FP64}, o.A, o.B)
	m2, n2 := e.Sizes["m2"], e.Sizes["n2"]
	idx := func(m1, mb, nb, n1, i int) int { return ((((m1*m2+mb)*n2+nb)*2+n1)*64 + i) }
	from := map[[2]int][2]int{{0, 0}: {0, 0}, {0, 1}: {1, 0}, {1, 0}: {1, 1}, {1, 1}: {0, 1}}
	for mb := 0; mb < m2; mb++ {
		for nb := 0; nb < n2; nb++ {
			if mb == m2-1 && nb == n2-1 {
				continue // the cool-down switches its chains to the right tiles part way (docs/xdna.md)
			}
			for pos, src := range from {
				ok := true
				for i := 0; i < 64; i++ {
					g := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*idx(pos[0], mb, nb, pos[1], i):])))
					w := want[idx(src[0], mb, nb, src[1], i)]
					if math.Abs(g-w) > 1e-3*(1+math.Abs(w)) {
						ok = false
					}
				}
				if !ok {
					t.Fatalf("block (%d,%d) tile %v is not product tile %v", mb, nb, pos, src)
				}
			}
		}
	}
}
