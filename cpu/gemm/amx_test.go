package gemm

import (
	mrand "math/rand"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
)

// withAMX runs f on the AMX paths: the real tile kernels where the CPU has AMX, else the Go
// model of the tile instructions running the kernels' generated programs (the same packing,
// blocking and loops; kernels.AMX says which).
func withAMX(t *testing.T, f func()) {
	if !kernels.AMX() {
		t.Logf("AMX kernels not in use (%v): the AMX paths run on the Go model of the tile instructions", kernels.AMXStatus())
	}
	old := forceAMX
	forceAMX = true
	defer func() { forceAMX = old }()
	f()
}

// TestGemmAMXInt: uint8 x int8 (TDPBUSD) and int8 x int8 (TDPBSSD) on the AMX driver, random
// shapes, layouts, transposes, scalars and thread counts, bit for bit against op/ref.
func TestGemmAMXInt(t *testing.T) {
	u8 := func(r *rand.Rand) uint8 { return uint8(r.Uint32()) }
	s8 := func(r *rand.Rand) int8 { return int8(r.Uint32()) }
	withAMX(t, func() {
		testInt(t, 11, iters(12, 60), 4, op.UInt8, op.Int8, u8, s8,
			func(p problem, a []uint8, b []int8, c []int32) error {
				return p.opts.GemmU8S8(p.tA, p.tB, p.m, p.n, p.k, p.alphaI, a, p.lda, b, p.ldb, p.betaI, c, p.ldc)
			})
		testInt(t, 12, iters(12, 60), 4, op.Int8, op.Int8, s8, s8,
			func(p problem, a []int8, b []int8, c []int32) error {
				return p.opts.GemmS8S8(p.tA, p.tB, p.m, p.n, p.k, p.alphaI, a, p.lda, b, p.ldb, p.betaI, c, p.ldc)
			})
		if got := KernelISA("u8s8"); got != "amx" {
			t.Errorf("KernelISA(u8s8) = %q on the AMX path", got)
		}
	})
}

// TestGemmS8S8Widened: the int8 x int8 GEMM without AMX (widened to int16).
func TestGemmS8S8Widened(t *testing.T) {
	if useAMX() {
		t.Skip("AMX in use")
	}
	s8 := func(r *rand.Rand) int8 { return int8(r.Uint32()) }
	testInt(t, 13, iters(20, 100), 2, op.Int8, op.Int8, s8, s8,
		func(p problem, a []int8, b []int8, c []int32) error {
			return p.opts.GemmS8S8(p.tA, p.tB, p.m, p.n, p.k, p.alphaI, a, p.lda, b, p.ldb, p.betaI, c, p.ldc)
		})
}

// TestGemmAMXBF16: the bf16 GEMM on the AMX driver (TDPBF16PS) within ref.BF16Bound.
func TestGemmAMXBF16(t *testing.T) {
	withAMX(t, func() {
		r := mrand.New(mrand.NewSource(5))
		shapes := [][3]int{{1, 1, 1}, {32, 32, 32}, {33, 31, 65}, {70, 100, 300}, {5, 200, 1100}}
		for si, s := range shapes {
			checkGemmBF16(t, r, s[0], s[1], s[2], si%2 == 1, si%3 == 2, []float32{0, 1, -0.5}[si%3], Options{Threads: 1 + si%2})
		}
		if got := KernelISA("bf16"); got != "amx" {
			t.Errorf("KernelISA(bf16) = %q on the AMX path", got)
		}
	})
}

// TestPackedAMX: Gemm on B packed once (PackU8S8, PackBF16) on the AMX path equals the
// unpacked AMX GEMM: bit for bit for int8 (and against op/ref through TestU8S8AMX in
// cpu/conv), the same bits for bf16 (same kernels and blocks).
func TestPackedAMX(t *testing.T) {
	withAMX(t, func() {
		r := rand.New(rand.NewPCG(7, 8))
		for _, s := range [][3]int{{49, 96, 1100}, {70, 33, 65}, {33, 600, 70}, {1, 1, 1}} {
			m, n, k := s[0], s[1], s[2]
			a, b := make([]uint8, m*k), make([]int8, k*n)
			h, hb := make([]uint16, m*k), make([]uint16, k*n)
			for i := range a {
				a[i], h[i] = uint8(r.Uint32()), uint16(r.Uint32()>>18)|0x3f00
			}
			for i := range b {
				b[i], hb[i] = int8(r.Uint32()), uint16(r.Uint32()>>18)|0x3f00
			}
			o := Options{Threads: 2}
			p8, err := o.PackU8S8(NoTrans, n, k, b, n)
			if err != nil {
				t.Fatal(err)
			}
			got, want := make([]int32, m*n), make([]int32, m*n)
			if err := p8.Gemm(NoTrans, m, 1, a, k, 0, got, n); err != nil {
				t.Fatal(err)
			}
			if err := o.GemmU8S8(NoTrans, NoTrans, m, n, k, 1, a, k, b, n, 0, want, n); err != nil {
				t.Fatal(err)
			}
			pb, err := o.PackBF16(NoTrans, n, k, hb, n)
			if err != nil {
				t.Fatal(err)
			}
			gf, wf := make([]float32, m*n), make([]float32, m*n)
			if err := pb.Gemm(NoTrans, m, 1, h, k, 0, gf, n); err != nil {
				t.Fatal(err)
			}
			if err := o.GemmBF16(NoTrans, NoTrans, m, n, k, 1, h, k, hb, n, 0, wf, n); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != want[i] || gf[i] != wf[i] {
					t.Fatalf("%v: C[%d] = %d, %v packed; %d, %v unpacked", s, i, got[i], gf[i], want[i], wf[i])
				}
			}
		}
	})
}
