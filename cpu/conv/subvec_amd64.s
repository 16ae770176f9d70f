//go:build amd64 && !noasm

#include "textflag.h"

// func subVecAVX2(dst, v *int32, k, count int)
// dst[i*k + j] -= v[j] for i < count, j < k (k a positive multiple of 8, count >= 1).
TEXT ·subVecAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ count+24(FP), DX

vec:
	MOVQ v+8(FP), SI
	MOVQ k+16(FP), CX
	SHRQ $3, CX

lane:
	VMOVDQU (DI), Y0
	VPSUBD  (SI), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     lane
	DECQ    DX
	JNZ     vec
	VZEROUPPER
	RET
