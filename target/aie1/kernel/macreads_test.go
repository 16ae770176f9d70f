package kernel

import "testing"

// TestXElemsRead: the AI Engine API's int16 mmul<4, 4, 8> MACs read A's 16 values of the
// 32-lane X buffer it is grown to; one with xstart 16 reads the upper half.
func TestXElemsRead(t *testing.T) {
	k := &Kernel{}
	x := k.NewTemp(VecOf(Int16, 32))
	z := k.NewTemp(VecOf(Int16, 16))
	args := func(xstart, xoffs, xoffsHi int64) []Operand {
		return []Operand{V(x), Imm(xstart), Imm(xoffs), Imm(xoffsHi), Imm(0x1010), V(z), Imm(0), Imm(0x76543210), Imm(0x76543210), Imm(8)}
	}
	for _, c := range []struct {
		xstart, xoffs, xoffsHi int64
		want                   int
	}{
		{0, 0, 0x02020202, 6},           // rows 0 and 1, k = 0, 1: elements 0, 1, 4, 5
		{2, 0x04040404, 0x06060606, 16}, // rows 2 and 3, k = 2, 3: elements 10, 11, 14, 15
		{16, 0, 0, 18},
	} {
		n, ok := XElemsRead(OpMul16, args(c.xstart, c.xoffs, c.xoffsHi))
		if !ok || n != c.want {
			t.Errorf("xstart %d xoffsets %#x/%#x: %d, %v; want %d", c.xstart, c.xoffs, c.xoffsHi, n, ok, c.want)
		}
	}
	a := args(0, 0, 0)
	a[1] = V(k.NewTemp(ScalarOf(Int32)))
	if _, ok := XElemsRead(OpMul16, a); ok {
		t.Error("a run-time xstart gave a bound")
	}
}
