//go:build amd64 && !noasm

#include "textflag.h"
#include "go_asm.h"

// Hand-written (not generated): the SIMD forms of gather.go's gatherGo and madd8Go, AVX2
// only. Struct field offsets come from go_asm.h (type_field, type__size).

// OR1 adds output chunk o's bytes from the broadcast source chunk in Y8 (mask m[o][s] at
// R10 + 256*o) to the accumulator Yacc.
#define OR1(o, acc) VPSHUFB (256*o)(R10), Y8, Y9; VPOR Y9, acc, acc

// GSTEP is one entry of a gather (at ents, advanced past it): the source chunk at base +
// the entry's offset broadcast, shuffled by the entry's mask (in masks) and ORed into acc.
// R8 keeps the mask's offset.
#define GSTEP(ents, base, masks, acc) \
	MOVWLZX        gatherEnt_mask(ents), R8; \
	MOVL           gatherEnt_off(ents), R9; \
	VBROADCASTI128 (base)(R9*1), Y8; \
	VPSHUFB        (masks)(R8*1), Y8, Y9; \
	VPOR           Y9, acc, acc; \
	ADDQ           $gatherEnt__size, ents

// func gatherBytes(tab *gatherTab, src unsafe.Pointer, dst *[256]byte)
//
// One step per entry of tab.ents (an output chunk o and a source chunk s with bytes to
// move, grouped by o): source chunk s (at src + 16*s) is broadcast, shuffled by mask
// m[o][s] and ORed into Y0; the last entry of an output chunk stores Y0 at dst + 32*o
// (the mask's offset 256*o + 32*s, divided by 8, rounded down to 32).
TEXT ·gatherBytes(SB), NOSPLIT, $0-24
	MOVQ  tab+0(FP), AX
	MOVQ  src+8(FP), SI
	MOVQ  dst+16(FP), DI
	MOVQ  gatherTab_nEnt(AX), CX
	LEAQ  gatherTab_ents(AX), R12
	LEAQ  gatherTab_m(AX), R10
	VPXOR Y0, Y0, Y0
	TESTQ CX, CX
	JZ    gdone

gloop:
	GSTEP(R12, SI, R10, Y0)
	CMPB    (gatherEnt_last-gatherEnt__size)(R12), $0
	JEQ     gnext
	SHRL    $3, R8
	ANDL    $0x1E0, R8
	VMOVDQU Y0, (DI)(R8*1)
	VPXOR   Y0, Y0, Y0

gnext:
	DECQ CX
	JNZ  gloop

gdone:
	VZEROUPPER
	RET

// func madd8(gx, gz *[256]byte, npairs int, mode int, out *[16]int32)
TEXT ·madd8(SB), NOSPLIT, $0-40
	MOVQ  gx+0(FP), SI
	MOVQ  gz+8(FP), DI
	MOVQ  npairs+16(FP), CX
	MOVQ  mode+24(FP), DX
	MOVQ  out+32(FP), R8
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	TESTQ CX, CX
	JZ    m8store

m8loop:
	TESTQ     $1, DX
	JZ        m8xu
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	JMP       m8z

m8xu:
	VPMOVZXBW (SI), Y2
	VPMOVZXBW 16(SI), Y3

m8z:
	TESTQ     $2, DX
	JZ        m8zu
	VPMOVSXBW (DI), Y4
	VPMOVSXBW 16(DI), Y5
	JMP       m8mul

m8zu:
	VPMOVZXBW (DI), Y4
	VPMOVZXBW 16(DI), Y5

m8mul:
	VPMADDWD Y4, Y2, Y2
	VPMADDWD Y5, Y3, Y3
	VPADDD   Y2, Y0, Y0
	VPADDD   Y3, Y1, Y1
	ADDQ     $32, SI
	ADDQ     $32, DI
	DECQ     CX
	JNZ      m8loop

m8store:
	VMOVDQU Y0, (R8)
	VMOVDQU Y1, 32(R8)
	VZEROUPPER
	RET

// permPairs orders eight int32 lanes as 0, 2, 1, 3, 4, 6, 5, 7: the order in which ACC4
// meets the accumulator lanes.
DATA permPairs<>+0(SB)/4, $0
DATA permPairs<>+4(SB)/4, $2
DATA permPairs<>+8(SB)/4, $1
DATA permPairs<>+12(SB)/4, $3
DATA permPairs<>+16(SB)/4, $4
DATA permPairs<>+20(SB)/4, $6
DATA permPairs<>+24(SB)/4, $5
DATA permPairs<>+28(SB)/4, $7
GLOBL permPairs<>(SB), RODATA|NOPTR, $32

// ACC4 adds the int64 sums of four lanes in ysum (in the order 0, 2, 1, 3) to the four
// accumulator lanes at src+off (num.Acc: Hi, Lo), wraps them to 48 bits and stores them at
// dst+off with Hi the sign. The Lo halves are picked by one unpack (giving that order),
// and the results put back with the signs by two. Y12 is zero.
#define ACC4(ysum, src, dst, off) \
	VMOVDQU     off(src), Y7; \
	VPUNPCKHQDQ (off+32)(src), Y7, Y8; \
	VPADDQ      ysum, Y8, Y8; \
	VPSLLQ      $16, Y8, Y8; \
	VPCMPGTQ    Y8, Y12, Y9; \
	VPSRLQ      $16, Y8, Y8; \
	VPSLLQ      $48, Y9, Y11; \
	VPOR        Y11, Y8, Y8; \
	VPUNPCKLQDQ Y8, Y9, Y7; \
	VPUNPCKHQDQ Y8, Y9, Y11; \
	VMOVDQU     Y7, off(dst); \
	VMOVDQU     Y11, (off+32)(dst)

// UNIT8 adds the eight int32 pair sums in ysums (VPMADDWD results: -2^31 stands for 2^31)
// to the eight 48-bit accumulator lanes at src and stores them at dst (Y14: permPairs).
#define UNIT8(ysums, xsums, src, dst) \
	VPERMD         ysums, Y14, ysums; \
	VPCMPEQD       Y13, ysums, Y6; \
	VPMOVSXDQ      xsums, Y4; \
	VPMOVZXDQ      X6, Y10; \
	VPSRLQ         $31, Y10, Y10; \
	VPSLLQ         $32, Y10, Y10; \
	VPADDQ         Y10, Y4, Y4; \
	VEXTRACTI128   $1, ysums, X5; \
	VEXTRACTI128   $1, Y6, X6; \
	VPMOVSXDQ      X5, Y5; \
	VPMOVZXDQ      X6, Y10; \
	VPSRLQ         $31, Y10, Y10; \
	VPSLLQ         $32, Y10, Y10; \
	VPADDQ         Y10, Y5, Y5; \
	ACC4(Y4, src, dst, 0); \
	ACC4(Y5, src, dst, 64)

// UNIT8S is UNIT8 for sums known not to be -2^31 (8-bit products).
#define UNIT8S(ysums, xsums, src, dst) \
	VPERMD       ysums, Y14, ysums; \
	VPMOVSXDQ    xsums, Y4; \
	VEXTRACTI128 $1, ysums, X5; \
	VPMOVSXDQ    X5, Y5; \
	ACC4(Y4, src, dst, 0); \
	ACC4(Y5, src, dst, 64)

// ACCUNITS adds the pair sums in Y0 (lanes 0-7) and Y1 (lanes 8-15) to the accumulator lanes
// of the units at s0 and s1, storing them at d0 and d1, with unit (UNIT8 or UNIT8S) for
// each half (Y12 zero, Y14 permPairs; UNIT8 also needs Y13, ACC16 sets it).
#define ACCUNITS(unit, s0, d0, s1, d1) \
	VPXOR   Y12, Y12, Y12; \
	VMOVDQU permPairs<>(SB), Y14; \
	MOVQ    s0, SI; \
	MOVQ    d0, DI; \
	unit(Y0, X0, SI, DI); \
	MOVQ    s1, SI; \
	MOVQ    d1, DI; \
	unit(Y1, X1, SI, DI)

// ACC16 is ACCUNITS for VPMADDWD pair sums (Y13: the int32 lanes 0x80000000).
#define ACC16(s0, d0, s1, d1) \
	VPCMPEQD Y13, Y13, Y13; \
	VPSLLD   $31, Y13, Y13; \
	ACCUNITS(UNIT8, s0, d0, s1, d1)

// ACC16S is ACCUNITS for sums known not to be -2^31 (8-bit products).
#define ACC16S(s0, d0, s1, d1) ACCUNITS(UNIT8S, s0, d0, s1, d1)

// UNITPTR loads into dst the address of element mu.field of the array at offset base of pass
// 2's registers, 1<<shift bytes an element (R8: the regs, R9: mu; R10 is clobbered). VECPTR
// is a unit's vector value (16 bytes), ACCPTR its accumulator lanes (8 num.Acc, 128 bytes).
#define UNITPTR(field, shift, base, dst) \
	MOVLQSX field(R9), R10; \
	SHLQ    $shift, R10; \
	LEAQ    base(R8)(R10*1), dst

#define VECPTR(field, dst) UNITPTR(field, 4, regs_vec, dst)
#define ACCPTR(field, dst) UNITPTR(field, 7, regs_acc, dst)

// ACCPTRS loads the accumulator units of mu into R12 (acc0), R13 (out0), BX (acc1), CX (out1).
#define ACCPTRS \
	ACCPTR(macUnits_acc0, R12); \
	ACCPTR(macUnits_out0, R13); \
	ACCPTR(macUnits_acc1, BX); \
	ACCPTR(macUnits_out1, CX)

// func mac16x2U(tab *gatherTab, r *regs, mu *macUnits)
//
// The int16 mac16 with a broadcast Z pair (mac16x2) on pass 2's registers: X (from unit mu.x
// on, 16 bytes apart) gathered into word pairs per lane (tab: lanes 0-7 in
// chunk 0, 8-15 in chunk 1), VPMADDWD with (z0, z1) read from units mu.zu0, mu.zu1 at bytes
// mu.zb0, mu.zb1, and the sums added to the 48-bit accumulator lanes (ACC16).
TEXT ·mac16x2U(SB), NOSPLIT, $0-24
	MOVQ  tab+0(FP), AX
	MOVQ  r+8(FP), R8
	MOVQ  mu+16(FP), R9
	VECPTR(macUnits_x, SI)
	MOVQ  gatherTab_nSrc(AX), DX
	LEAQ  gatherTab_m(AX), R10
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	TESTQ DX, DX
	JZ    xdone

xsrc:
	VBROADCASTI128 (SI), Y8
	OR1(0, Y0)
	OR1(1, Y1)
	ADDQ           $16, SI
	ADDQ           $32, R10
	DECQ           DX
	JNZ            xsrc

xdone:
	VECPTR(macUnits_zu0, DX)
	MOVLQSX      macUnits_zb0(R9), R11
	MOVWLZX      (DX)(R11*1), DI
	VECPTR(macUnits_zu1, DX)
	MOVLQSX      macUnits_zb1(R9), R11
	MOVWLZX      (DX)(R11*1), R11
	SHLL         $16, R11
	ORL          R11, DI
	VMOVD        DI, X2
	VPBROADCASTD X2, Y2
	VPMADDWD     Y2, Y0, Y0
	VPMADDWD     Y2, Y1, Y1
	ACCPTRS
	ACC16(R12, R13, BX, CX)
	VZEROUPPER
	RET

// func acc48Add16(sums *[16]int32, src0, dst0, src1, dst1 *[8]num.Acc)
//
// Lanes 0-7 of sums added to src0's 48-bit accumulator lanes into dst0, lanes 8-15 from
// src1 into dst1 (acc48Add16Go).
TEXT ·acc48Add16(SB), NOSPLIT, $0-40
	MOVQ     sums+0(FP), AX
	VMOVDQU  (AX), Y0
	VMOVDQU  32(AX), Y1
	ACC16(src0+8(FP), dst0+16(FP), src1+24(FP), dst1+32(FP))
	VZEROUPPER
	RET

// func mac8U(m *macSIMD, r *regs, mu *macUnits)
//
// An 8-bit mac16 in one call, on pass 2's registers (X from unit mu.x on, Z from mu.z on, 16
// bytes apart), in vector registers: for each column pair p, output chunk p of
// the X and of the Z gather (gatherBytes's entries, walked in order: chunk p's end with the
// last flag), widened to 16 bits, multiplied pairwise and summed per lane (madd8's
// arithmetic), then added to the accumulator units (ACC16S: 8-bit pair sums cannot reach
// -2^31).
TEXT ·mac8U(SB), NOSPLIT, $0-24
	MOVQ  m+0(FP), BX
	MOVQ  r+8(FP), R8
	MOVQ  mu+16(FP), R9
	VECPTR(macUnits_x, SI)
	VECPTR(macUnits_z, DI)
	LEAQ  (macSIMD_gx+gatherTab_ents)(BX), R12
	LEAQ  (macSIMD_gx+gatherTab_m)(BX), R10
	LEAQ  (macSIMD_gz+gatherTab_ents)(BX), AX
	MOVQ  macSIMD_npairs(BX), CX
	MOVQ  macSIMD_mode(BX), DX
	LEAQ  (macSIMD_gz+gatherTab_m)(BX), BX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	TESTQ CX, CX
	JZ    fdone

fpair:
	VPXOR Y2, Y2, Y2

fxent:
	GSTEP(R12, SI, R10, Y2)
	CMPB  (gatherEnt_last-gatherEnt__size)(R12), $0
	JEQ   fxent
	VPXOR Y3, Y3, Y3

fzent:
	GSTEP(AX, DI, BX, Y3)
	CMPB (gatherEnt_last-gatherEnt__size)(AX), $0
	JEQ  fzent

	// lanes 0-7 in the low 16 bytes, 8-15 in the high ones, two columns each
	VEXTRACTI128 $1, Y2, X4
	VEXTRACTI128 $1, Y3, X5
	TESTQ        $1, DX
	JZ           fxu
	VPMOVSXBW    X2, Y2
	VPMOVSXBW    X4, Y4
	JMP          fzs

fxu:
	VPMOVZXBW X2, Y2
	VPMOVZXBW X4, Y4

fzs:
	TESTQ     $2, DX
	JZ        fzu
	VPMOVSXBW X3, Y3
	VPMOVSXBW X5, Y5
	JMP       fmul

fzu:
	VPMOVZXBW X3, Y3
	VPMOVZXBW X5, Y5

fmul:
	VPMADDWD Y3, Y2, Y2
	VPMADDWD Y5, Y4, Y4
	VPADDD   Y2, Y0, Y0
	VPADDD   Y4, Y1, Y1
	DECQ     CX
	JNZ      fpair

fdone:
	MOVQ r+8(FP), R8
	MOVQ mu+16(FP), R9
	ACCPTRS
	ACC16S(R12, R13, BX, CX)
	VZEROUPPER
	RET
