package cyclesim

import (
	"math/rand"
	"testing"
	"unsafe"

	"github.com/sumacdev/sumac/aie/kernel"
)

// TestGatherTabLayout: gather_amd64.s reads nOut, nSrc and m at fixed offsets.
func TestGatherTabLayout(t *testing.T) {
	var g gatherTab
	if unsafe.Offsetof(g.nOut) != 0 || unsafe.Offsetof(g.nSrc) != 8 || unsafe.Offsetof(g.m) != 16 {
		t.Fatalf("gatherTab layout changed: nOut %d nSrc %d m %d", unsafe.Offsetof(g.nOut), unsafe.Offsetof(g.nSrc), unsafe.Offsetof(g.m))
	}
}

// TestGatherAndMadd compares the build's gatherBytes and madd8 (assembly on amd64)
// with their Go definitions on random tables and operands, extremes included.
func TestGatherAndMadd(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 2000; trial++ {
		var idx [256]int16
		nOut := 1 + rng.Intn(8)
		srcLen := 16 * (1 + rng.Intn(8))
		for i := range idx {
			idx[i] = -1
			if i < 32*nOut && rng.Intn(4) != 0 {
				idx[i] = int16(rng.Intn(srcLen))
			}
		}
		var g gatherTab
		g.build(&idx, nOut)
		var src kernel.Vec
		rng.Read(src[:])
		var got, want [256]byte
		rng.Read(got[:])
		want = got // bytes past the written chunks stay as they were
		gatherBytes(&g, &src, &got)
		gatherGo(&g, &src, &want)
		if got != want {
			t.Fatalf("trial %d: gatherBytes differs from gatherGo", trial)
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
