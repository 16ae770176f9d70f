package shuffle

import (
	"strings"
	"testing"
)

// sel16 builds a 16x2 selection from a function of lane and column; Z broadcasts z0, z0+1.
func sel16(x func(l, c int) int, z0 int) Selection {
	s := Selection{Lanes: 16, Cols: 2, XElems: 64, ZElems: 16}
	for l := 0; l < 16; l++ {
		s.X = append(s.X, []int{x(l, 0), x(l, 1)})
		s.Z = append(s.Z, []int{z0, z0 + 1})
	}
	return s
}

func wantErr(t *testing.T, name string, err error, substr string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Errorf("%s: error %v, want one mentioning %q", name, err, substr)
	}
}

// The documented example: nibbles 0x24 select elements 8,9 (even lane) and 14,15 (odd lane).
func TestPairRuleExample(t *testing.T) {
	x, _ := Eval(Sel16, Params{XOffs: 0x24, XSquare: 0x3210}, 2, 2)
	if x[0][0] != 8 || x[0][1] != 9 || x[1][0] != 14 || x[1][1] != 15 {
		t.Errorf("0x24 selects %v, want [[8 9] [14 15]]", x)
	}
	// xsquare 0x2103 puts indices 3, 0 in the even lane and 1, 2 in the odd lane.
	x, _ = Eval(Sel16, Params{XOffs: 0x00, XSquare: 0x2103}, 2, 2)
	if x[0][0] != 3 || x[0][1] != 0 || x[1][0] != 1 || x[1][1] != 2 {
		t.Errorf("xsquare 0x2103 selects %v, want [[3 0] [1 2]]", x)
	}
}

func TestShuffleRules(t *testing.T) {
	// Sliding window: legal with xsquare 0x2110.
	if _, err := Solve(Sel16, sel16(func(l, c int) int { return l + c }, 0)); err != nil {
		t.Errorf("sliding window: %v", err)
	}
	// Odd start of a sliding window: lane 0 would need elements 1, 2 of words 0 and 1 while
	// lane 1 needs 2, 3 (word 1 only), possible; but xstart must be even.
	p, err := Solve(Sel16, sel16(func(l, c int) int { return l + c + 2 }, 0))
	if err != nil || p.XStart%2 != 0 {
		t.Errorf("even shift: %v %v", p, err)
	}
	// Offset nibbles: lanes 16 words apart cannot share one xstart.
	_, err = Solve(Sel32, Selection{Lanes: 8, Cols: 1, XElems: 32, ZElems: 8,
		X: [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {20}}, Z: [][]int{{0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}}})
	wantErr(t, "32-bit span", err, "4-bit offset")
	// Pair rule: a lane pair needing three different 32-bit words.
	_, err = Solve(Sel16, sel16(func(l, c int) int {
		if l == 1 {
			return 10 + 20*c
		}
		return 2*l + c
	}, 0))
	wantErr(t, "three words", err, "pair rule")
	// The odd lane's word must come after the even lane's: lane 1 reading 16 words before
	// lane 0 is out of reach of every xsquare.
	_, err = Solve(Sel16, sel16(func(l, c int) int {
		if l == 0 {
			return 40 + c
		}
		return 2*l + c
	}, 0))
	wantErr(t, "word order", err, "pair rule")
	// zstep: columns of different lanes stepping differently.
	s := sel16(func(l, c int) int { return l + c }, 0)
	s.Z[3][1] = 5
	_, err = Solve(Sel16, s)
	wantErr(t, "zstep", err, "zstep")
	// zstart: only the low 4 bits count.
	_, err = Solve(Sel32, Selection{Lanes: 8, Cols: 1, XElems: 16, ZElems: 32,
		X: [][]int{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}, Z: [][]int{{17}, {17}, {17}, {17}, {17}, {17}, {17}, {17}}})
	wantErr(t, "zstart", err, "low 4 bits")
	// Element outside the register.
	_, err = Solve(Sel32, Selection{Lanes: 8, Cols: 1, XElems: 16, ZElems: 8,
		X: [][]int{{10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}}, Z: [][]int{{0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}}})
	wantErr(t, "beyond", err, "beyond")
}
