//go:build amd64 && !noasm

package cyclesim

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/sumacdev/sumac/num"
)

// useSIMD selects gather_amd64.s for the MAC operand gathers and products. x/sys/cpu
// reports AVX2 only when the OS saves the ymm state. Tests clear it to run the Go paths.
var useSIMD = cpu.X86.HasAVX2

// gatherBytes writes the first 32*tab.nOut bytes of dst as tab says (gatherGo) from the
// source's tab.nSrc 16-byte chunks at src.
//
//go:noescape
func gatherBytes(tab *gatherTab, src unsafe.Pointer, dst *[256]byte)

// madd8 is madd8Go; mode bit 0: X signed, bit 1: Z signed. npairs is at most 4.
//
//go:noescape
func madd8(gx, gz *[256]byte, npairs int, mode int, out *[16]int32)

// mac16x2U is mac16x2AccGo on the register units named by mu (X's consecutive).
//
//go:noescape
func mac16x2U(tab *gatherTab, r *regs, mu *macUnits)

// acc48Add16 is acc48Add16Go.
//
//go:noescape
func acc48Add16(sums *[16]int32, src0, dst0, src1, dst1 *[8]num.Acc)

// mac8U is mac8AccGo on the register units named by mu (X's and Z's consecutive), in one
// call without the memory between its steps.
//
//go:noescape
func mac8U(m *macSIMD, r *regs, mu *macUnits)
