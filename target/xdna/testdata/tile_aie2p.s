// One bfp16 8x8x8 tile: out[8][8] = in0[8][8] x in1[8][8]^T, fp32 (written here, not
// from the xdna repository).
  .globl tile
  .p2align 4
tile:
  nopv ; nopa ; nopb ; nops ; movx r24, #0 ; mov r25, #0
  nopv ; nopa ; nopb ; nops ; movxm r0, #780
  nopv ; vlda.fill.512 [p0, lf0, r24] ; vldb.fill.512 [p1, lf1, r25] ; nops ; nopxm
  nopv ; vlda.pop.576 ex0, [p0, lf0, r24] ; vldb.pop.576 ex1, [p1, lf1, r25] ; nops ; nopxm
  nop
  nop
  nop
  nop
  nop
  nop
  nop
  vmul.f dm0, ex0, ex1, r0
  nop
  nop
  nop
  nop
  nop
  nopv ; nopa ; nopb ; vst bmll0, [p2], #64 ; nopxm
  nopv ; nopa ; nopb ; vst bmlh0, [p2], #64 ; ret lr
  nopv ; nopa ; nopb ; vst bmhl0, [p2], #64 ; nopxm
  nopv ; nopa ; nopb ; vst bmhh0, [p2], #64 ; nopxm
  nop
  nop
  nop
