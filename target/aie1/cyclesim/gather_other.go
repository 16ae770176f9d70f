//go:build !amd64 || noasm

package cyclesim

import (
	"unsafe"

	"github.com/sumacdev/sumac/num"
)

// useSIMD: this build has no assembly; the MACs run macSums's Go loops.
var useSIMD = false

func gatherBytes(g *gatherTab, src unsafe.Pointer, dst *[256]byte) {
	gatherGo(g, chunks(src, g.nSrc), dst)
}

func madd8(gx, gz *[256]byte, npairs int, mode int, out *[16]int32) {
	madd8Go(gx, gz, npairs, mode&1 != 0, mode&2 != 0, out)
}

func mac16x2U(tab *gatherTab, r *regs, mu *macUnits) { mac16x2UGo(tab, r, mu) }

func acc48Add16(sums *[16]int32, src0, dst0, src1, dst1 *[8]num.Acc) {
	acc48Add16Go(sums, src0, dst0, src1, dst1)
}

func mac8U(m *macSIMD, r *regs, mu *macUnits) { mac8UGo(m, r, mu) }
