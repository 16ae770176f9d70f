package conv

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
)

// TestS8S8MatchesReference: the int8 x int8 convolution, bit for bit against op/ref, with
// every kernel set the CPU has forced in turn, for full-range weights (the shifted path where
// the byte kernels are exact, else widened) and weights in -64..64 (the shifted path on every
// set), over the fixed and random shapes (padding, stride, dilation, groups, depth-wise).
func TestS8S8MatchesReference(t *testing.T) {
	forEachSet(t, func(set kernels.ISA) { testS8S8MatchesReference(t, set) })
}

func testS8S8MatchesReference(t *testing.T, set kernels.ISA) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i, c := range shapes(t, randomShapes(set)) {
		type sc struct {
			in, wFull, wSmall   []int8
			wantFull, wantSmall []int64
		}
		k := memo(fmt.Sprint("s8 ", i), func() sc {
			in, wf, ws := make([]int8, c.InLen()), make([]int8, c.WLen()), make([]int8, c.WLen())
			for j := range in {
				in[j] = int8(rng.Uint32())
			}
			for j := range wf {
				wf[j] = int8(rng.Uint32())
				ws[j] = int8(rng.IntN(129) - 64)
			}
			// the extremes: -128 * -128 products and 127 * -64 pairs
			if len(in) > 2 && len(wf) > 2 {
				in[0], in[1], wf[0], wf[1], ws[0], ws[1] = -128, 127, -128, -128, -64, 64
			}
			return sc{in, wf, ws, intWant(t, c, op.Int8, op.Int8, i64(in), i64(wf)), intWant(t, c, op.Int8, op.Int8, i64(in), i64(ws))}
		})
		for _, w := range []struct {
			name string
			w    []int8
			want []int64
		}{{"full", k.wFull, k.wantFull}, {"small", k.wSmall, k.wantSmall}} {
			p, err := NewS8S8(c, w.w, Options{Threads: 1 + i%2})
			if err != nil {
				t.Fatal(err)
			}
			if c.K/c.Groups >= minPanelFill && w.name == "small" && p.Path() != "shifted" {
				t.Fatalf("%v: weights in -64..64 take the %s path, want shifted", c, p.Path())
			}
			out := make([]int32, c.OutLen())
			for j := range out {
				out[j] = -1 << 31 // every output must be written
			}
			if err := p.Run(k.in, out); err != nil {
				t.Fatal(err)
			}
			checkInt(t, fmt.Sprintf("%s (%s %s) s8s8 %s", set, p.ISA(), p.Path(), w.name), c, out, w.want)
		}
	}
}

// TestS8S8AMX: the int8 x int8 convolution on the AMX tile kernels (TDPBSSD; the Go model of
// the tile instructions where the CPU has no AMX), full-range operands, bit for bit.
func TestS8S8AMX(t *testing.T) {
	defer gemm.ForceAMXModel()()
	rng := rand.New(rand.NewPCG(13, 14))
	for i, s := range amxShapes {
		c := fillIn(&s)
		in, w := make([]int8, c.InLen()), make([]int8, c.WLen())
		for j := range in {
			in[j] = int8(rng.Uint32())
		}
		for j := range w {
			w[j] = int8(rng.Uint32())
		}
		want := intWant(t, &c, op.Int8, op.Int8, i64(in), i64(w))
		p, err := NewS8S8(&c, w, Options{Threads: 1 + i%2})
		if err != nil {
			t.Fatal(err)
		}
		if p.ISA() != "amx" || KernelISA(&c, "s8s8", false) != "amx" {
			t.Fatalf("%+v: plan runs %s, KernelISA %s, want amx", c, p.ISA(), KernelISA(&c, "s8s8", false))
		}
		out := make([]int32, c.OutLen())
		if err := p.Run(in, out); err != nil {
			t.Fatal(err)
		}
		checkInt(t, "amx s8s8", &c, out, want)
	}
}

// TestS8S8Errors: bad lengths are errors, not panics.
func TestS8S8Errors(t *testing.T) {
	c := parse(t, "conv2d x=4 y=4 k=8 c=4 r=3 s=3 pad=1")
	if _, err := NewS8S8(c, make([]int8, 3), Options{}); err == nil {
		t.Fatal("short weights accepted")
	}
	p, err := NewS8S8(c, make([]int8, c.WLen()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(make([]int8, 1), make([]int32, c.OutLen())); err == nil {
		t.Fatal("short input accepted")
	}
	if err := p.Run(make([]int8, c.InLen()), make([]int32, 1)); err == nil {
		t.Fatal("short output accepted")
	}
}

// TestSubVec: the compensation's vector subtraction (AVX2 and Go) wraps like int32 and
// touches only whole vectors.
func TestSubVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, avx := range []bool{true, false} {
		changed := withAVX2(avx)
		for _, k := range []int{8, 24, 5, 64} {
			for _, n := range []int{1, 3, 9000} {
				v, d := make([]int32, k), make([]int32, k*n+3)
				for i := range v {
					v[i] = int32(rng.Uint32())
				}
				for i := range d {
					d[i] = int32(rng.Uint32())
				}
				want := append([]int32(nil), d...)
				for i := 0; i < k*n; i++ {
					want[i] -= v[i%k]
				}
				subVec(d[:k*n], v)
				if !slices.Equal(d, want) {
					t.Fatalf("avx2 %v, k=%d n=%d: wrong result", avx, k, n)
				}
			}
		}
		if changed {
			withAVX2(true)
		}
	}
}
