package cyclesim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/interp"
)

// runADF compiles an ADF kernel, runs it on the interpreter and the cycle simulator with the
// same data (sizes override the measured ones) and requires every region and stream to end
// equal.
func runADF(t *testing.T, src string, sizes map[string]int) (*Result, *backend.Program) {
	t.Helper()
	return runADFPLIO(t, src, sizes, nil)
}

// runADFPLIO is runADF with stream ports connected to PLIOs.
func runADFPLIO(t *testing.T, src string, sizes map[string]int, plio map[string]PLIO) (*Result, *backend.Program) {
	t.Helper()
	k, err := cfront.ParseKernel("adf.cc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, measured := randomData(t, k, 3)
	for n, s := range sizes {
		measured[n] = s
		b := make([]byte, s)
		copy(b, data[n])
		data[n] = b
	}
	want, err := interp.Run(k, interp.Config{Data: data, Sizes: measured})
	if err != nil {
		t.Fatal(err)
	}
	p, err := backend.Compile(k, backend.Options{Sizes: measured})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(p, Config{Data: data, Sizes: measured, PLIO: plio})
	if err != nil {
		t.Fatalf("%v\n%s", err, p)
	}
	for name, w := range want.Data {
		if !bytes.Equal(got.Data[name], w) {
			t.Fatalf("%s differs from the interpreter:\n got %x\nwant %x\n%s", name, got.Data[name], w, p)
		}
	}
	if got.Cycles != int64(p.StaticCycles())+got.Stalls+got.StreamStalls {
		t.Fatalf("simulated %d cycles, schedule %d + %d stalls + %d stream stalls", got.Cycles, p.StaticCycles(), got.Stalls, got.StreamStalls)
	}
	return got, p
}

// TestStreamWriteRate: an output stream takes 32 bits a cycle (AM009), so a loop writing a
// 128-bit vector per iteration cannot run faster than 4 cycles an iteration whatever its
// schedule; the simulator adds the difference as stream stalls.
func TestStreamWriteRate(t *testing.T) {
	const n = 32
	src := `void w(input_window_int32 *in, output_stream_int32 *out) {
    for (int i = 0; i < 32; i++) chess_prepare_for_pipelining {
        v4int32 x = window_readincr_v4(in);
        writeincr_v4(out, x);
    }
}`
	r, p := runADF(t, src, nil)
	if r.StreamStalls == 0 {
		t.Fatalf("no stream stalls (%d cycles)\n%s", r.Cycles, p)
	}
	words := int64(n * 128 / aie1.StreamWordBits)
	if r.Cycles < words {
		t.Fatalf("%d cycles for %d stream words", r.Cycles, words)
	}
	t.Logf("%d cycles (%d static, %d stream stalls) for %d words", r.Cycles, p.StaticCycles(), r.StreamStalls, words)
}

// TestStreamReadRate: an input stream delivers 32 bits a cycle; reading two 128-bit values per
// iteration waits for them.
func TestStreamReadRate(t *testing.T) {
	src := `void r(input_stream_int32 *in, output_window_int32 *out) {
    for (int i = 0; i < 16; i++) chess_prepare_for_pipelining {
        v4int32 a = readincr_v4(in);
        v4int32 b = readincr_v4(in);
        window_writeincr(out, operator+(a, b));
    }
}`
	r, p := runADF(t, src, nil)
	if r.Cycles < 16*8 {
		t.Fatalf("%d cycles for 128 stream words\n%s", r.Cycles, p)
	}
	t.Logf("%d cycles (%d static, %d stream stalls)", r.Cycles, p.StaticCycles(), r.StreamStalls)
}

// TestTwoStreamsInParallel: the two input ports deliver in parallel (AM009: two 32-bit input
// streams), so reading one word from each per iteration stalls less than reading two from one.
func TestTwoStreamsInParallel(t *testing.T) {
	one := `void one(input_stream_int32 *a, output_window_int32 *out) {
    for (int i = 0; i < 64; i++) chess_prepare_for_pipelining {
        v4int32 x = readincr_v4(a);
        v4int32 y = readincr_v4(a);
        window_writeincr(out, operator+(x, y));
    }
}`
	two := strings.NewReplacer("void one(input_stream_int32 *a,", "void two(input_stream_int32 *a, input_stream_int32 *b,",
		"y = readincr_v4(a)", "y = readincr_v4(b)").Replace(one)
	r1, _ := runADF(t, one, nil)
	r2, _ := runADF(t, two, nil)
	if r2.Cycles >= r1.Cycles {
		t.Fatalf("two ports %d cycles, one port %d", r2.Cycles, r1.Cycles)
	}
	t.Logf("one port %d cycles, two ports %d", r1.Cycles, r2.Cycles)
}

// TestStreamCopyWordPerCycle: a 32-bit stream read and a 32-bit stream write can share a bundle
// (the read on MV0 or MV1, the write on MV1 or ST: backend/adf.go ssAlts, msAlts), so copying a
// stream a word at a time runs at the ports' word a cycle, not two cycles a word.
func TestStreamCopyWordPerCycle(t *testing.T) {
	const n = 128
	src := `void c(input_stream_int32 *in, output_stream_int32 *out) {
    for (int i = 0; i < 128; i++) chess_prepare_for_pipelining {
        writeincr(out, readincr(in));
    }
}`
	r, p := runADF(t, src, map[string]int{"in": 4 * n})
	if r.Cycles > n+n/4 {
		t.Fatalf("%d cycles to copy %d stream words\n%s", r.Cycles, n, p)
	}
	t.Logf("%d cycles (%d static, %d stream stalls) for %d words", r.Cycles, p.StaticCycles(), r.StreamStalls, n)
}

// TestPointerWalkPostModify: `x = *p; p += N` walks become post-modified loads (backend
// postmod.go), split between pointers when one pointer's chain would bound the loop; the
// results stay equal to the interpreter's.
func TestPointerWalkPostModify(t *testing.T) {
	src := `void walk(int32 * restrict w, output_window_int32 *out) {
    int32 * restrict p = w;
    for (int k = 0; k < 16; k++) chess_prepare_for_pipelining {
        v4int32 a = *(v4int32 *) p; p += 8;
        v4int32 b = *(v4int32 *) p; p += 8;
        v4int32 c = *(v4int32 *) p; p += 8;
        v4int32 d = *(v4int32 *) p; p += 8;
        window_writeincr(out, operator+(operator+(a, b), operator+(c, d)));
    }
}`
	r, p := runADF(t, src, map[string]int{"w": 16 * 4 * 32})
	if !strings.Contains(p.String(), "], #") {
		t.Errorf("no post-modified load\n%s", p)
	}
	t.Logf("%d cycles", r.Cycles)
}

// TestCircularWindowWraps: a window read past its end starts again at its beginning (ADF
// windows are circular), in the simulator as in the interpreter.
func TestCircularWindowWraps(t *testing.T) {
	src := `void c(input_window_int16 *in, output_window_int16 *out) {
    for (int i = 0; i < 8; i++) chess_prepare_for_pipelining {
        v16int16 x = window_readincr_v16(in);
        window_writeincr(out, x);
    }
}`
	runADF(t, src, map[string]int{"in": 64})
	decr := `void d(input_window_int16 *in, output_window_int16 *out) {
    window_decr_v16(in, 1);
    for (int i = 0; i < 4; i++) chess_prepare_for_pipelining {
        v16int16 x = window_read_v16(in);
        window_decr_v16(in, 1);
        window_writeincr(out, x);
    }
}`
	runADF(t, decr, map[string]int{"in": 64})
}

// TestArrayStorage: a static array with an initializer and a local array live in data memory
// the layout gives them.
func TestArrayStorage(t *testing.T) {
	src := `alignas(32) static const int16 taps[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
void a(input_window_int16 *in, output_window_int16 *out) {
    v16int16 z = *(v16int16 *) taps;
    for (int i = 0; i < 4; i++) chess_prepare_for_pipelining {
        v16int16 x = window_readincr_v16(in);
        window_writeincr(out, operator+(x, z));
    }
}`
	runADF(t, src, nil)
}

// TestFPMACChainSpacing: dependent fpmacs into one accumulator issue FPAccChainCycles apart
// (UG1079 "Floating-Point Operations"; Vitis Tutorials IIR Part 2a: a NOP between each VFPMAC).
func TestFPMACChainSpacing(t *testing.T) {
	src := `void f(input_window_float *in, output_window_float *out) {
    v8float x = window_readincr_v8(in);
    v8float z = window_readincr_v8(in);
    v8float acc = null_v8float();
    acc = fpmac(acc, x, 0, 0x76543210, z, 0, 0);
    acc = fpmac(acc, x, 1, 0x76543210, z, 1, 0);
    acc = fpmac(acc, x, 2, 0x76543210, z, 2, 0);
    acc = fpmac(acc, x, 3, 0x76543210, z, 3, 0);
    window_writeincr(out, acc);
}`
	_, p := runADF(t, src, nil)
	var at []int
	for i, b := range p.Bundles {
		for _, in := range b.Instrs {
			if in.Name == "fpmac" {
				at = append(at, i)
			}
		}
	}
	if len(at) != 4 {
		t.Fatalf("%d fpmacs in\n%s", len(at), p)
	}
	for i := 1; i < len(at); i++ {
		if at[i]-at[i-1] != aie1.FPAccChainCycles {
			t.Fatalf("fpmacs in bundles %v: want %d apart\n%s", at, aie1.FPAccChainCycles, p)
		}
	}
}

// TestOuterLoopStreamTimeline: an outer loop's body is scheduled on a timeline of its own
// (backend scheduleOuterLoop); the issue cycles of the stream ops before the loop belong to the
// enclosing timeline and must not hold the body's first stream op back. The body's length does
// not depend on how many stream reads precede the loop.
func TestOuterLoopStreamTimeline(t *testing.T) {
	kernel := func(prefix int) string {
		// straight-line reads before the loop: a long stretch of the enclosing timeline
		reads := strings.Repeat("    window_writeincr(out, readincr(in));\n", prefix)
		return fmt.Sprintf(`void o(input_stream_int32 *in, output_window_int32 *out) {
%s    for (int j = 0; j < 2; j++) {
        v4int32 a = readincr_v4(in);
        for (int k = 0; k < 64; k++) chess_prepare_for_pipelining {
            v4int32 b = readincr_v4(in);
            window_writeincr(out, operator+(a, b));
        }
    }
}`, reads)
	}
	body := func(prefix int) int {
		_, p := runADF(t, kernel(prefix), nil)
		for _, l := range p.Loops {
			for _, in := range p.Loops {
				if in != l && in.Start >= l.Start && in.End <= l.End {
					return l.End - l.Start // the loop holding another
				}
			}
		}
		t.Fatalf("no outer loop\n%s", p)
		return 0
	}
	short, long := body(4), body(40)
	if short != long {
		t.Fatalf("outer loop body %d bundles after 4 stream reads, %d after 40", short, long)
	}
}

// names lists the instruction names of a program's bundles.
func names(p *backend.Program) map[string]int {
	n := map[string]int{}
	for _, b := range p.Bundles {
		for _, in := range b.Instrs {
			n[in.Name]++
		}
	}
	return n
}

// TestScalarOperandLane: aie::mac of a vector and a scalar puts the scalar into lane 0 of an
// undefined vector that the MAC's Z selection reads in every lane (the API's vector-from-scalar
// constructor): no zeroed register, and the results equal the interpreter's.
func TestScalarOperandLane(t *testing.T) {
	src := `#include <aie_api/aie.hpp>
void s(input_window_float *in, output_window_float *out) {
    alignas(32) float c[8];
    for (int i = 0; i < 8; i++) c[i] = window_readincr(in);
    aie::vector<float, 8> v = window_readincr_v8(in);
    aie::accum<accfloat, 8> acc = aie::mul(v, c[0]);
    for (int i = 1; i < 8; i++) {
        acc = aie::mac(acc, v, c[i]);
    }
    window_writeincr(out, acc.to_vector<float>());
}`
	_, p := runADF(t, src, nil)
	if n := names(p)["vzero"]; n != 0 {
		t.Fatalf("%d vzero for the scalar operands\n%s", n, p)
	}
	// int16 (mac16, whose second column reads another Z lane times X's zero column): the
	// results still equal the interpreter's
	src16 := `#include <aie_api/aie.hpp>
void s16(input_window_int16 *in16, output_window_int16 *out16) {
    aie::vector<int16, 16> x = window_readincr_v16(in16);
    int16 k = window_readincr(in16);
    aie::accum<acc48, 16> a16 = aie::mul(x, k);
    a16 = aie::mac(a16, x, (int16)3);
    a16 = aie::msc(a16, x, window_readincr(in16));
    window_writeincr(out16, a16.to_vector<int16>(2));
}`
	runADF(t, src16, nil)
}

// TestStreamReadIntoPart: a 128-bit stream read whose only use is the upd_v after it writes
// that half of the destination directly (as a window read does), no move through a temporary.
func TestStreamReadIntoPart(t *testing.T) {
	src := `void r(input_stream_float *in, output_window_float *out) {
    v8float m = null_v8float();
    for (int i = 0; i < 16; i++) chess_prepare_for_pipelining {
        m = upd_v(m, 0, readincr_v4(in));
        m = upd_v(m, 1, readincr_v4(in));
        window_writeincr(out, fpadd(m, m));
    }
}`
	_, p := runADF(t, src, nil)
	if n := names(p)["vmov"]; n != 0 {
		t.Fatalf("%d vector moves for the stream halves\n%s", n, p)
	}
}
