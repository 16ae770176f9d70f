package shuffle

import (
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// TestSel8MatchesKernel: eval8 (this package's reading of the 8-bit rules) selects the same
// bytes as target/aie1/kernel's DecodeMAC, written separately, for random parameters; and the solver
// recovers parameters for every such selection.
func TestSel8MatchesKernel(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	checked := 0
	for trial := 0; trial < 4000; trial++ {
		p := Params{XStart: 4 * rng.Int63n(4), XOffs: rng.Int63n(1 << 32), XStep: 4 * rng.Int63n(3), XSquare: rng.Int63n(1<<16) & 0x3333,
			ZStart: 2 * rng.Int63n(3), ZOffs: rng.Int63n(1<<32) & 0x33333333, ZStep: 2 * rng.Int63n(3), ZSquare: rng.Int63n(1<<16) & 0x3333}
		x, z := Eval(Sel8, p, 16, 8)
		inside := true
		for l := range x {
			for c := range x[l] {
				inside = inside && x[l][c] < 128 && z[l][c] < 32
			}
		}
		if !inside {
			continue // the solver never asks for wrap-around
		}
		var ks kernel.MACSel
		kp := kernel.MACParams{XStart: p.XStart, XOffs: p.XOffs, XStep: p.XStep, XSquare: p.XSquare, ZStart: p.ZStart, ZOffs: p.ZOffs, ZStep: p.ZStep, ZSquare: p.ZSquare}
		if err := kernel.DecodeMAC(kernel.Form8x8, 128, 32, kp, &ks); err != nil {
			t.Fatal(err)
		}
		for l := 0; l < 16; l++ {
			for c := 0; c < 8; c++ {
				if int(ks.X[l][c]) != x[l][c] || int(ks.Z[l][c]) != z[l][c] {
					t.Fatalf("%v lane %d column %d: triplet x=%d z=%d, kernel x=%d z=%d", p, l, c, x[l][c], z[l][c], ks.X[l][c], ks.Z[l][c])
				}
			}
		}
		sel := Selection{Lanes: 16, Cols: 8, XElems: 128, ZElems: 32, X: x, Z: z}
		if _, err := Solve(Sel8, sel); err != nil {
			t.Fatalf("%v: selection it makes not solved: %v", p, err)
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d parameter sets inside the registers", checked)
	}
}

// sel8 builds a 16x8 selection from functions of lane and column.
func sel8(x, z func(l, c int) int) Selection {
	s := Selection{Lanes: 16, Cols: 8, XElems: 128, ZElems: 32}
	for l := 0; l < 16; l++ {
		xs, zs := make([]int, 8), make([]int, 8)
		for c := 0; c < 8; c++ {
			xs[c], zs[c] = x(l, c), z(l, c)
		}
		s.X, s.Z = append(s.X, xs), append(s.Z, zs)
	}
	return s
}

func TestSel8Rules(t *testing.T) {
	// k vectorized: X = a 16-channel x 8-input-channel weight tile, channel-minor (byte 16c+k);
	// Z = one pixel's 8 input channels, broadcast over the lanes.
	pw := sel8(func(l, c int) int { return 16*c + l }, func(l, c int) int { return c })
	if p, err := Solve(Sel8, pw); err != nil {
		t.Errorf("k-vectorized tile: %v", err)
	} else if p.XStep != 32 || p.ZStep != 2 {
		t.Errorf("k-vectorized tile: %v, want xstep 32 and zstep 2", p)
	}
	// x vectorized with adjacent taps in adjacent columns: lane 0 would read an odd byte.
	_, err := Solve(Sel8, sel8(func(l, c int) int { return l + c }, func(l, c int) int { return c }))
	wantErr(t, "adjacent taps", err, "byte pairs")
	// Even taps only (0, 2, ..., 14): the byte pairs hold, a unit per lane pair and column.
	if _, err := Solve(Sel8, sel8(func(l, c int) int { return l + 2*c }, func(l, c int) int { return c })); err != nil {
		t.Errorf("even taps: %v", err)
	}
	// Odd lanes must read the byte after their even neighbour's.
	s := sel8(func(l, c int) int { return 16*c + l }, func(l, c int) int { return c })
	s.X[5][3] = 40
	_, err = Solve(Sel8, s)
	wantErr(t, "pairs", err, "byte pairs")
	// Z: lanes 4g+2/3 read what 4g+0/1 read.
	s = sel8(func(l, c int) int { return 16*c + l }, func(l, c int) int { return c + l%4 })
	_, err = Solve(Sel8, s)
	wantErr(t, "zsquare duplication", err, "zsquare")
	// xstep: the second column block of one lane moves differently.
	s = sel8(func(l, c int) int { return 16*c + l }, func(l, c int) int { return c })
	s.X[6][2], s.X[7][2] = 96, 97
	_, err = Solve(Sel8, s)
	wantErr(t, "xstep", err, "xstep")
	// Wrong shape.
	_, err = Solve(Sel8, sel16(func(l, c int) int { return l + c }, 0))
	wantErr(t, "shape", err, "16 lanes and 8 columns")
}
