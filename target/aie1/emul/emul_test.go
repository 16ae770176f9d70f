package emul

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/cfront"
)

func needCompiler(t *testing.T) {
	t.Helper()
	if _, err := Compiler(); err != nil {
		t.Skip("no C++ compiler (g++) on this machine: the emulation tests need one")
	}
}

func i16s(b []byte) []int16 {
	v := make([]int16, len(b)/2)
	for i := range v {
		v[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return v
}

func bytes16(v []int16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return b
}

// TestGEMM16x4 runs seed 001's Fig. 4 kernel under the emulation and checks it against a
// scalar GEMM written here: C_r(16x4) += A_r(16 x Kc) B_r(Kc x 4) with srs(acc, 0) in the
// default modes (floor rounding, saturation), then a wrapping int16 add of C_r.
func TestGEMM16x4(t *testing.T) {
	needCompiler(t)
	const kc = 64
	src, err := os.ReadFile("../testdata/lei_gemm_16x4.cc")
	if err != nil {
		t.Fatal(err)
	}
	defs := []string{"Kc=64"}
	k, err := cfront.ParseKernel("lei_gemm_16x4.cc", src, defs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(Source{Name: "lei_gemm_16x4.cc", Text: src, Defines: defs}, k)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]int16, 16*kc) // A_r by columns
	b := make([]int16, kc*4)  // B_r row-major
	c := make([]int16, 64)    // C_r by columns
	for i := range a {
		a[i] = int16(rng.IntN(2001) - 1000) // large enough that some lanes saturate
	}
	for i := range b {
		b[i] = int16(rng.IntN(2001) - 1000)
	}
	for i := range c {
		c[i] = int16(rng.IntN(65536) - 32768)
	}
	mem := [][]byte{bytes16(c), bytes16(a), bytes16(b), make([]byte, 128)}
	res, err := p.Run(mem, Modes{Round: num.Floor, Sat: num.Saturate})
	if err != nil {
		t.Fatal(err)
	}
	out := i16s(res.Mem[3])
	sat := 0
	for j := 0; j < 4; j++ {
		for r := 0; r < 16; r++ {
			var s int64
			for q := 0; q < kc; q++ {
				s += int64(a[q*16+r]) * int64(b[q*4+j])
			}
			n, saturated := num.SRS(num.AccFrom(s).Wrap(48), num.Narrow{Bits: 16, Round: num.Floor, Sat: num.Saturate})
			if saturated {
				sat++
			}
			want := int16(n) + c[j*16+r]
			if out[j*16+r] != want {
				t.Errorf("C(%d,%d) = %d, want %d", r, j, out[j*16+r], want)
			}
			if got := res.Trace[j][r]; got.Cmp(num.AccFrom(s)) != 0 {
				t.Errorf("accumulator (%d,%d) before narrowing = %v, want %d", r, j, got, s)
			}
		}
	}
	if res.MACs != 16*4*kc {
		t.Errorf("MACs = %d, want %d", res.MACs, 16*4*kc)
	}
	if res.Narrowed != 64 || res.Saturated != int64(sat) {
		t.Errorf("narrowed %d saturated %d, want 64 and %d", res.Narrowed, res.Saturated, sat)
	}
	if len(res.Trace) != 4 {
		t.Errorf("trace has %d narrowings, want 4", len(res.Trace))
	}
	// the second build of the same source comes from the cache
	p2, err := Build(Source{Name: "lei_gemm_16x4.cc", Text: src, Defines: defs}, k)
	if err != nil || !p2.Cached {
		t.Errorf("second build: cached=%v err=%v", p2 != nil && p2.Cached, err)
	}
}

// TestOutOfWindow checks that a read past a window's end stops the emulation with an error
// naming the window.
func TestOutOfWindow(t *testing.T) {
	needCompiler(t)
	src := []byte(`void over(input_window_int16 * in, output_window_int16 * out) {
    for (int i = 0; i < 3; i++) {
        v16int16 v = window_readincr_v16(in);
        window_writeincr(out, v);
    }
}
`)
	k, err := cfront.ParseKernel("over.cc", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(Source{Name: "over.cc", Text: src}, k)
	if err != nil {
		t.Fatal(err)
	}
	// ADF windows are circular: a 32-element window read three times wraps around
	in := make([]byte, 64)
	for i := range in {
		in[i] = byte(i)
	}
	res, err := p.Run([][]byte{in, make([]byte, 96)}, Modes{})
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]byte(nil), in...), in[:32]...); !bytes.Equal(res.Mem[1], want) {
		t.Errorf("wrapped window: out = %v, want %v", res.Mem[1], want)
	}
	// a read that runs past the end is an error
	_, err = p.Run([][]byte{make([]byte, 40), make([]byte, 96)}, Modes{})
	if err == nil {
		t.Fatal("reading 16 elements at element 16 of a 20-element window succeeded")
	}
	if want := "window_readincr_v16 of 16 elements at element 16 of window in (size 20 elements) is outside the window"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

// TestConv8x8U8 runs seed 004's Fig. 5 kernel under the emulation and checks the 8x8 tile
// update against a scalar reference written here, with the packing documented in the kernel:
// O(r, j) += sum_p I(r, p) F(p, j), ubsrs(acc, 0) (floor, saturate to 0..255), then a
// wrapping uint8 add of the old O.
func TestConv8x8U8(t *testing.T) {
	needCompiler(t)
	const cib = 32
	src, err := os.ReadFile("../testdata/lei_conv_8x8_u8.cc")
	if err != nil {
		t.Fatal(err)
	}
	defs := []string{"cib=32"}
	k, err := cfront.ParseKernel("lei_conv_8x8_u8.cc", src, defs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(Source{Name: "lei_conv_8x8_u8.cc", Text: src, Defines: defs}, k)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var I [8][cib]int64
	var F [cib][8]int64
	var O [8][8]int64
	for r := range I {
		for c := range I[r] {
			I[r][c] = int64(rng.IntN(4))
		}
	}
	for c := range F {
		for j := range F[c] {
			F[c][j] = int64(rng.IntN(4))
		}
	}
	in := make([]byte, 8*cib) // FPGA_IN: I by columns
	fr := make([]byte, 8*cib) // Fr: blocks of 8 channels x 4 outputs
	oin := make([]byte, 64)   // DDR_IN: O by columns
	for pc := 0; pc < cib; pc++ {
		for r := 0; r < 8; r++ {
			in[8*pc+r] = byte(I[r][pc])
		}
	}
	for pr := 0; pr < cib; pr += 16 {
		for q := 0; q < 4; q++ {
			for jj := 0; jj < 4; jj++ {
				for c := 0; c < 8; c++ {
					fr[(pr/4+q)*32+8*jj+c] = byte(F[pr+8*(q/2)+c][4*(q%2)+jj])
				}
			}
		}
	}
	for j := 0; j < 8; j++ {
		for r := 0; r < 8; r++ {
			O[r][j] = int64(rng.IntN(256))
			oin[8*j+r] = byte(O[r][j])
		}
	}
	res, err := p.Run([][]byte{oin, in, fr, make([]byte, 64)}, Modes{Round: num.Floor, Sat: num.Saturate})
	if err != nil {
		t.Fatal(err)
	}
	want16 := make([][]num.Acc, 4)
	for i := range want16 {
		want16[i] = make([]num.Acc, 16)
	}
	for j := 0; j < 8; j++ {
		for r := 0; r < 8; r++ {
			var s int64
			for c := 0; c < cib; c++ {
				s += I[r][c] * F[c][j]
			}
			n, _ := num.SRS(num.AccFrom(s), num.Narrow{Bits: 8, Unsigned: true, Round: num.Floor, Sat: num.Saturate})
			want := byte(n + O[r][j])
			if got := res.Mem[3][8*j+r]; got != want {
				t.Errorf("O(%d,%d) = %d, want %d (sum %d)", r, j, got, want, s)
			}
			want16[j/2][8*(j%2)+r] = num.AccFrom(s)
		}
	}
	// the trace holds the four accumulators in some order (g++ evaluates concat's arguments
	// in an order of its choosing): compare as multisets
	SortTrace(want16)
	SortTrace(res.Trace)
	if len(res.Trace) != 4 {
		t.Fatalf("%d narrowings traced, want 4", len(res.Trace))
	}
	for i := range want16 {
		for l := range want16[i] {
			if res.Trace[i][l].Cmp(want16[i][l]) != 0 {
				t.Errorf("sorted trace record %d lane %d = %v, want %v", i, l, res.Trace[i][l], want16[i][l])
			}
		}
	}
	if res.MACs != 8*8*cib {
		t.Errorf("MACs = %d, want %d", res.MACs, 8*8*cib)
	}
}

func getenv(k string) string { return os.Getenv(k) }
