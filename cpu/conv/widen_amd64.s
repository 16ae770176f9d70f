//go:build amd64 && !noasm

#include "textflag.h"

// func widenAVX2(dst *int16, src *uint8, n int)
TEXT ·widenAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   done

loop:
	VPMOVZXBW (SI), Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop

done:
	VZEROUPPER
	RET
