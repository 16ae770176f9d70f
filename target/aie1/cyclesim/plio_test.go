package cyclesim

import (
	"strconv"
	"testing"
)

const plioCopy = `void c(input_stream_int32 *in, output_stream_int32 *out) {
    for (int i = 0; i < 128; i++) chess_prepare_for_pipelining {
        writeincr(out, readincr(in));
    }
}`

// TestPLIOInputRate: a copy loop whose input is a 64-bit PLIO at the default PL clock (a
// quarter of the AIE clock, UG1079) gets 16 bits a cycle, so it takes 2 cycles a word where a
// kernel-to-kernel stream gives a word a cycle; the data are the same.
func TestPLIOInputRate(t *testing.T) {
	const n = 128
	sizes := map[string]int{"in": 4 * n}
	free, _ := runADF(t, plioCopy, sizes)
	r, p := runADFPLIO(t, plioCopy, sizes, map[string]PLIO{"in": {Bits: 64}})
	if r.Cycles < 2*n || r.Cycles > 2*n+n/4 {
		t.Fatalf("%d cycles to copy %d words from a 16-bit-a-cycle PLIO (want about %d)\n%s", r.Cycles, n, 2*n, p)
	}
	if free.Cycles > n+n/4 {
		t.Fatalf("%d cycles without a PLIO", free.Cycles)
	}
	// a 128-bit PLIO at the default clock gives the port's word a cycle
	wide, _ := runADFPLIO(t, plioCopy, sizes, map[string]PLIO{"in": {Bits: 128}})
	if wide.Cycles != free.Cycles {
		t.Fatalf("128-bit PLIO at a quarter of the clock: %d cycles, kernel-to-kernel stream %d", wide.Cycles, free.Cycles)
	}
	t.Logf("%d cycles with the PLIO, %d without", r.Cycles, free.Cycles)
}

// TestPLIOOutputFIFO: an output PLIO of 32 bits at the default PL clock drains a word every 4
// AIE cycles; the core writes a word a cycle until the PLIOFIFOWords of buffering are full,
// then at the drain rate.
func TestPLIOOutputFIFO(t *testing.T) {
	write := func(n int) string {
		return `void w(input_window_int32 *in, output_stream_int32 *out) {
    for (int i = 0; i < ` + strconv.Itoa(n/4) + `; i++) chess_prepare_for_pipelining {
        v4int32 x = window_readincr_v4(in);
        writeincr_v4(out, x);
    }
}`
	}
	pl := map[string]PLIO{"out": {Bits: 32}}
	// the buffer takes the whole burst: the port's own word a cycle only
	burst := PLIOFIFOWords / 4 * 4
	free, _ := runADF(t, write(burst), nil)
	r, _ := runADFPLIO(t, write(burst), nil, pl)
	if r.Cycles != free.Cycles {
		t.Fatalf("%d words into a %d-word buffer: %d cycles, %d without a PLIO", burst, PLIOFIFOWords, r.Cycles, free.Cycles)
	}
	const n = 256
	free, _ = runADF(t, write(n), nil)
	r, p := runADFPLIO(t, write(n), nil, pl)
	// the last word enters the buffer once word n-1-PLIOFIFOWords has left, 4 cycles a word
	if low := int64(4 * (n - PLIOFIFOWords)); r.Cycles < low || r.Cycles > low+64 {
		t.Fatalf("%d words to an 8-bit-a-cycle PLIO: %d cycles (want about %d)\n%s", n, r.Cycles, low, p)
	}
	if free.Cycles >= r.Cycles {
		t.Fatalf("no stall: %d cycles, %d without a PLIO", r.Cycles, free.Cycles)
	}
	t.Logf("%d cycles with the PLIO (%d stream stalls), %d without", r.Cycles, r.StreamStalls, free.Cycles)
}

// TestPLIOValid: widths and clocks UG1079 admits.
func TestPLIOValid(t *testing.T) {
	for _, p := range []PLIO{{Bits: 32}, {Bits: 64, MHz: 250}, {Bits: 128, MHz: AIEMHz / 2}} {
		if err := p.Valid(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	for _, p := range []PLIO{{Bits: 16}, {Bits: 0}, {Bits: 64, MHz: -1}, {Bits: 64, MHz: AIEMHz}} {
		if p.Valid() == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}
