package interp

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
)

// TestLeiConv runs seed 004 Fig. 5 (target/aie1/testdata/lei_conv_8x8_u8.cc) and checks it against
// the micro-tile product with the packing its header documents.
func TestLeiConv(t *testing.T) {
	for _, c := range []struct{ cib, lim int }{{16, 3}, {32, 3}, {256, 1}} {
		k := kerneltest.Parse(t, "lei_conv_8x8_u8.cc", "cib="+strconv.Itoa(c.cib))
		rng := rand.New(rand.NewPCG(uint64(c.cib), 9))
		cib := c.cib
		I := make([][]int, 8) // I[r][p]
		for r := range I {
			I[r] = make([]int, cib)
			for p := range I[r] {
				I[r][p] = rng.IntN(c.lim + 1)
			}
		}
		F := make([][]int, cib) // F[p][j]
		for p := range F {
			F[p] = make([]int, 8)
			for j := range F[p] {
				F[p][j] = rng.IntN(c.lim + 1)
			}
		}
		fpga := make([]byte, 8*cib)
		for r := 0; r < 8; r++ {
			for p := 0; p < cib; p++ {
				fpga[8*p+r] = byte(I[r][p])
			}
		}
		fr := make([]byte, 8*cib)
		for pr := 0; pr < cib; pr += 16 {
			for q := 0; q < 4; q++ {
				for jj := 0; jj < 4; jj++ {
					for ch := 0; ch < 8; ch++ {
						fr[(pr/4+q)*32+8*jj+ch] = byte(F[pr+8*(q/2)+ch][4*(q%2)+jj])
					}
				}
			}
		}
		ddr := make([]byte, 64)
		for i := range ddr {
			ddr[i] = byte(rng.IntN(256))
		}
		res, err := Run(k, Config{Data: map[string][]byte{"FPGA_IN": fpga, "Fr": fr, "DDR_IN": ddr}, Sizes: map[string]int{"DDR_OUT": 64}})
		if err != nil {
			t.Fatal(err)
		}
		out := res.Data["DDR_OUT"]
		for j := 0; j < 8; j++ {
			for r := 0; r < 8; r++ {
				s := 0
				for p := 0; p < cib; p++ {
					s += I[r][p] * F[p][j]
				}
				want := byte(int(ddr[8*j+r]) + min(s, 255))
				if out[8*j+r] != want {
					t.Fatalf("cib=%d: O(%d,%d) = %d, want %d", cib, r, j, out[8*j+r], want)
				}
			}
		}
		if res.MACs != int64(cib/16*8*128) {
			t.Errorf("cib=%d: %d MACs", cib, res.MACs)
		}
	}
}
