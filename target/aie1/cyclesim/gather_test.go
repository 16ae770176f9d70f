package cyclesim

import (
	"math/rand"
	"testing"
	"unsafe"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// TestGatherAndMadd compares the build's gatherBytes and madd8 (assembly on amd64)
// with their Go definitions on random tables and operands, extremes included.
func TestGatherAndMadd(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 2000; trial++ {
		var idx [256]int16
		nOut := 1 + rng.Intn(8)
		srcLen := 16 * (1 + rng.Intn(8))
		// dense: any source byte anywhere; sparse: each output chunk from at most two source
		// chunks (the MACs' usual shape), some chunks empty
		sparse := trial%2 == 1
		for i := range idx {
			idx[i] = -1
			if i >= 32*nOut || rng.Intn(4) == 0 {
				continue
			}
			idx[i] = int16(rng.Intn(srcLen))
			if sparse {
				o := i / 32
				s := (o*5 + rng.Intn(2)) % (srcLen / 16)
				idx[i] = int16(16*s + rng.Intn(16))
				if o%3 == 2 {
					idx[i] = -1
				}
			}
		}
		var g gatherTab
		g.build(&idx, nOut)
		var src kernel.Vec
		rng.Read(src[:])
		var got, want [256]byte
		rng.Read(got[:])
		want = got // bytes past the written chunks stay as they were
		gatherBytes(&g, unsafe.Pointer(&src), &got)
		gatherGo(&g, &src, &want)
		if got != want {
			t.Fatalf("trial %d: gatherBytes differs from gatherGo", trial)
		}
		// the same chunks at an address of any alignment, as an operand in pass 2's registers
		off := rng.Intn(16)
		moved := make([]byte, off+len(src))
		copy(moved[off:], src[:])
		gatherBytes(&g, unsafe.Pointer(&moved[off]), &got)
		if got != want {
			t.Fatalf("trial %d: gatherBytes at offset %d differs from gatherGo", trial, off)
		}
		var gx, gz [256]byte
		rng.Read(gx[:])
		rng.Read(gz[:])
		if trial%4 == 0 {
			for i := 0; i < 256; i += 2 {
				gx[i], gx[i+1], gz[i], gz[i+1] = 0x80, 0x80, 0x80, 0xff // -128 or 128, -1 or 255
			}
		}
		np := 1 + rng.Intn(4)
		mode := rng.Intn(4)
		var o8, w8 [16]int32
		madd8(&gx, &gz, np, mode, &o8)
		madd8Go(&gx, &gz, np, mode&1 != 0, mode&2 != 0, &w8)
		if o8 != w8 {
			t.Fatalf("trial %d: madd8 differs from madd8Go (mode %d, %d pairs)", trial, mode, np)
		}
	}
}

// testUnits returns pass 2's registers for the assembly MACs' tests: X in units 0-7, Z in
// 8-15, accumulators in 16-19.
func testUnits() *regs { return new(regs) }

// TestMac16x2U compares the build's mac16x2U with mac16x2AccGo: random X selections and
// operands (extremes included: -2^15 x -2^15 twice, the pair sum VPMADDWD wraps), random
// 48-bit accumulators, separate and shared source and destination units.
func TestMac16x2U(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	ug := testUnits()
	for trial := 0; trial < 3000; trial++ {
		var mt macTable
		for l := range 16 {
			for c := range 2 {
				mt.x[l][c] = uint8(2 * rng.Intn(32))
			}
		}
		tab := x16PairTab(&mt)
		var x kernel.Vec
		rng.Read(x[:])
		for i := 0; i < 8; i++ {
			ug.vec[i] = [16]byte(x[16*i:])
			rng.Read(ug.vec[8+i][:])
		}
		mu := macUnits{x: 0, z: 8, zu0: int32(8 + rng.Intn(8)), zb0: int32(2 * rng.Intn(8)), zu1: int32(8 + rng.Intn(8)), zb1: int32(2 * rng.Intn(8))}
		if trial%3 == 0 {
			for i := 0; i < 8; i++ {
				for j := 0; j < 16; j += 2 {
					ug.vec[i][j], ug.vec[i][j+1] = 0, 0x80
					ug.vec[8+i][j], ug.vec[8+i][j+1] = 0, 0x80
				}
			}
			x = *chunks(vecAt(ug, 0), 8)
		}
		z0, z1 := &ug.vec[mu.zu0], &ug.vec[mu.zu1]
		zpair := uint32(z0[mu.zb0]) | uint32(z0[mu.zb0+1])<<8 | uint32(z1[mu.zb1])<<16 | uint32(z1[mu.zb1+1])<<24
		var a0, a1 [8]num.Acc
		for i := range a0 {
			a0[i] = num.AccFrom((rng.Int63n(1<<48) - 1<<47))
			a1[i] = num.AccFrom((rng.Int63n(1<<48) - 1<<47))
		}
		ug.acc[16], ug.acc[18] = a0, a1
		w0, w1, e0, e1 := a0, a1, a0, a1
		if trial%2 == 0 { // in place
			mu.acc0, mu.out0, mu.acc1, mu.out1 = 16, 16, 18, 18
			mac16x2AccGo(tab, &x, zpair, &w0, &w0, &w1, &w1)
		} else {
			mu.acc0, mu.out0, mu.acc1, mu.out1 = 16, 17, 18, 19
			mac16x2AccGo(tab, &x, zpair, &w0, &e0, &w1, &e1)
			w0, w1 = e0, e1
		}
		mac16x2U(tab, ug, &mu)
		if g0, g1 := ug.acc[mu.out0], ug.acc[mu.out1]; g0 != w0 || g1 != w1 {
			t.Fatalf("trial %d: mac16x2U differs from mac16x2AccGo\n%v %v\n%v %v", trial, g0, g1, w0, w1)
		}
	}
}

// TestMac8U compares the build's mac8U with the same steps done one by one (mac8AccGo) on
// random 8-bit selections: 1 to 8 columns, both signednesses, operands in register units,
// accumulators updated in place.
func TestMac8U(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	ug := testUnits()
	mu := macUnits{x: 0, z: 8, acc0: 16, out0: 16, acc1: 17, out1: 17}
	for trial := 0; trial < 3000; trial++ {
		var mt macTable
		mt.mode, mt.lanes, mt.cols = fast8uu, 16, 1+rng.Intn(8)
		for l := range 16 {
			for c := range mt.cols {
				mt.x[l][c], mt.z[l][c] = uint8(rng.Intn(128)), uint8(rng.Intn(32))
			}
		}
		d := &decoded{xe: kernel.UInt8, ze: kernel.UInt8}
		if trial%2 == 0 {
			d.xe = kernel.Int8
		}
		if trial%3 == 0 {
			d.ze = kernel.Int8
		}
		m := buildMACSIMD(d, &mt)
		for i := 0; i < 16; i++ {
			rng.Read(ug.vec[i][:])
		}
		var a0, a1 [8]num.Acc
		for i := range a0 {
			a0[i] = num.AccFrom(rng.Int63n(1<<48) - 1<<47)
			a1[i] = num.AccFrom(rng.Int63n(1<<48) - 1<<47)
		}
		w0, w1 := a0, a1
		mac8AccGo(m, vecAt(ug, 0), vecAt(ug, 8), &w0, &w0, &w1, &w1)
		ug.acc[16], ug.acc[17] = a0, a1
		mac8U(m, ug, &mu)
		if ug.acc[16] != w0 || ug.acc[17] != w1 {
			t.Fatalf("trial %d (%d columns, mode %d): mac8U differs from mac8AccGo", trial, mt.cols, m.mode)
		}
	}
}

// TestAcc48Add16 compares the build's acc48Add16 with acc48Add16Go, the wrap at 48 bits and
// the VPMADDWD overflow value included.
func TestAcc48Add16(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for trial := 0; trial < 3000; trial++ {
		var sums [16]int32
		for i := range sums {
			sums[i] = int32(rng.Uint32())
			if rng.Intn(8) == 0 {
				sums[i] = -1 << 31
			}
		}
		var a0, a1 [8]num.Acc
		for i := range a0 {
			a0[i] = num.AccFrom((rng.Int63n(1<<48) - 1<<47))
			a1[i] = num.AccFrom((rng.Int63n(1<<48) - 1<<47))
		}
		var g0, g1, w0, w1 [8]num.Acc
		acc48Add16(&sums, &a0, &g0, &a1, &g1)
		acc48Add16Go(&sums, &a0, &w0, &a1, &w1)
		if g0 != w0 || g1 != w1 {
			t.Fatalf("trial %d: acc48Add16 differs from acc48Add16Go", trial)
		}
	}
}

// BenchmarkMACAsm times the assembly MAC pieces alone: one 8-bit MAC of 8 columns (mac8U)
// and the 48-bit accumulation of 16 lanes (acc48Add16), the figures of docs/aie-timing.md.
func BenchmarkMACAsm(b *testing.B) {
	rng := rand.New(rand.NewSource(8))
	b.Run("mac8U", func(b *testing.B) {
		ug := testUnits()
		mu := macUnits{x: 0, z: 8, acc0: 16, out0: 16, acc1: 17, out1: 17}
		var mt macTable
		mt.mode, mt.lanes, mt.cols = fast8uu, 16, 8
		for l := range 16 {
			for c := range mt.cols {
				mt.x[l][c], mt.z[l][c] = uint8(rng.Intn(128)), uint8(rng.Intn(32))
			}
		}
		m := buildMACSIMD(&decoded{xe: kernel.UInt8, ze: kernel.Int8}, &mt)
		for i := 0; i < 16; i++ {
			rng.Read(ug.vec[i][:])
		}
		for b.Loop() {
			mac8U(m, ug, &mu)
		}
	})
	b.Run("acc48Add16", func(b *testing.B) {
		var sums [16]int32
		var a0, a1, g0, g1 [8]num.Acc
		for b.Loop() {
			acc48Add16(&sums, &a0, &g0, &a1, &g1)
		}
	})
}
