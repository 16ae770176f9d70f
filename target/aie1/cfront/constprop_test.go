package cfront

import (
	"testing"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// TestCounterAfterLoop: a counter declared outside its loop is known after it (its first value
// that fails the test) and inside a loop that runs once (its start), so the ifs it decides fold
// (onnx2versal's GemmReluMKKN: `for (k = 0; k < K-7; k += 8)`, then `if (k+4 <= K)`, and
// `if (NCHUNK - j < 8)` in a j loop of one trip).
func TestCounterAfterLoop(t *testing.T) {
	src := `void k(input_window<int32> * in, output_window<int32> * out) {
    int k;
    for (k = 0; k < 10; k += 4) { window_writeincr(out, window_readincr(in)); }
    if (k + 2 <= 13) { window_writeincr(out, 1); } else { window_writeincr(out, 2); }
    for (int j = 0; j < 10; j += 16) {
        if (10 - j < 8) { window_writeincr(out, 3); } else { window_writeincr(out, 4); }
    }
    unsigned char c;
    for (c = 250; c < 255; c += 10) { window_writeincr(out, 5); }
    if (c == 4) { window_writeincr(out, 6); }
}
`
	k, err := ParseKernel("k.cc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ifs int
	var consts []int64
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.If:
			ifs++
		case *kernel.Instr:
			if s.Op == kernel.OpWinWriteIncr && s.Args[1].IsIntImm() {
				consts = append(consts, s.Args[1].Imm)
			}
		}
	})
	// k is 12 after its loop (12 + 2 > 13: the else branch); j is 0 in its one trip (10 >= 8);
	// c's loop wraps an 8-bit counter, whose value after it stays unknown
	if ifs != 1 || len(consts) < 3 || consts[0] != 2 || consts[1] != 4 {
		t.Errorf("%d ifs left (want 1), constants written %v (want 2, 4, 5, ...)", ifs, consts)
	}
}
