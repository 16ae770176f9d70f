// A 32x4 int16 GEMM micro-kernel in the style of seed 001's Fig. 4 (lei_gemm_16x4.cc): the
// larger register block that seed 001 section VI-B measures (1,429 cycles at Kc=256 against
// 596 for 16x4) because it "exceeds the capacity of the accumulator registers, producing
// register spilling". Written here (seed 001 prints no code for it) by doubling the 16x4
// kernel's rows: eight v16acc48 accumulators where the tile has four 768-bit ones (UG1079
// "Accumulator Registers"), and four v32int16 A registers plus br (2304 bits) where the tile
// has 16 x 128 = 2048 bits of vector registers, so both classes must spill.
//
// What it computes: C_r(32x4) += A_r(32 x Kc) * B_r(Kc x 4), int16, srs(acc, 0).
// Data layouts (our packing):
//   PL_IN  : per group of 4 columns k = 4i..4i+3 of A_r, eight blocks of 16 values:
//            A(0:15,4i), A(0:15,4i+1), A(16:31,4i), A(16:31,4i+1),
//            A(0:15,4i+2), A(0:15,4i+3), A(16:31,4i+2), A(16:31,4i+3);
//   Br     : B_r row-major (Bref(k, j) = Br[k*nr + j]), as in the 16x4 kernel;
//   DDR_IN : C_r by columns, rows 0:15 then rows 16:31 of column 0, then column 1, ...;
//   out    : the same layout as DDR_IN.
// Cacc<j> holds rows 0:15 of column j, Cacc<4+j> rows 16:31. The mac16 parameters are the
// 16x4 kernel's (lane L: x[L] in column 0, x[16+L] in column 1; z[zstart], z[zstart+4]).

#ifndef Kc
#define Kc 256
#endif
#ifndef nr
#define nr 4
#endif

#define Bref(i,j) Br[i*nr+j]
void micro_kernel_32x4( input_window_int16 * __restrict DDR_IN,
                        input_window_int16 * __restrict PL_IN,
                        int16 *Br,
                        output_window_int16 * __restrict out) {

    v32int16 ar0, ar1, ar2, ar3;
    v16int16 br;
    v16acc48 Cacc0, Cacc1, Cacc2, Cacc3, Cacc4, Cacc5, Cacc6, Cacc7;

    unsigned int xoffsets      = 0x73727170;
    unsigned int xoffsets_hi   = 0x77767574;
    unsigned int xsquare       = 0x3120;
    unsigned int zoffsets      = 0x0;
    unsigned int zoffsets_hi   = 0x0;

    for (unsigned int i=0; i<Kc/4; i+=1)
        chess_prepare_for_pipelining
        chess_loop_range(Kc/4, ) {
            br = *(v16int16*) &Bref(i*4, 0);

            ar0 = upd_w( ar0 ,0, window_readincr_v16(PL_IN));
            ar0 = upd_w( ar0 ,1, window_readincr_v16(PL_IN));
            ar1 = upd_w( ar1 ,0, window_readincr_v16(PL_IN));
            ar1 = upd_w( ar1 ,1, window_readincr_v16(PL_IN));
            ar2 = upd_w( ar2 ,0, window_readincr_v16(PL_IN));
            ar2 = upd_w( ar2 ,1, window_readincr_v16(PL_IN));
            ar3 = upd_w( ar3 ,0, window_readincr_v16(PL_IN));
            ar3 = upd_w( ar3 ,1, window_readincr_v16(PL_IN));

            // columns 4i, 4i+1: rows 0:15 (ar0) and 16:31 (ar1)
            Cacc0 = mac16(Cacc0, ar0 ,0, xoffsets, xoffsets_hi, xsquare, br ,0 , zoffsets, zoffsets_hi,4);
            Cacc1 = mac16(Cacc1, ar0 ,0, xoffsets, xoffsets_hi, xsquare, br ,1 , zoffsets, zoffsets_hi,4);
            Cacc2 = mac16(Cacc2, ar0 ,0, xoffsets, xoffsets_hi, xsquare, br ,2 , zoffsets, zoffsets_hi,4);
            Cacc3 = mac16(Cacc3, ar0 ,0, xoffsets, xoffsets_hi, xsquare, br ,3 , zoffsets, zoffsets_hi,4);
            Cacc4 = mac16(Cacc4, ar1 ,0, xoffsets, xoffsets_hi, xsquare, br ,0 , zoffsets, zoffsets_hi,4);
            Cacc5 = mac16(Cacc5, ar1 ,0, xoffsets, xoffsets_hi, xsquare, br ,1 , zoffsets, zoffsets_hi,4);
            Cacc6 = mac16(Cacc6, ar1 ,0, xoffsets, xoffsets_hi, xsquare, br ,2 , zoffsets, zoffsets_hi,4);
            Cacc7 = mac16(Cacc7, ar1 ,0, xoffsets, xoffsets_hi, xsquare, br ,3 , zoffsets, zoffsets_hi,4);

            // columns 4i+2, 4i+3: rows 0:15 (ar2) and 16:31 (ar3)
            Cacc0 = mac16(Cacc0, ar2 ,0, xoffsets, xoffsets_hi, xsquare, br ,8 , zoffsets, zoffsets_hi,4);
            Cacc1 = mac16(Cacc1, ar2 ,0, xoffsets, xoffsets_hi, xsquare, br ,9 , zoffsets, zoffsets_hi,4);
            Cacc2 = mac16(Cacc2, ar2 ,0, xoffsets, xoffsets_hi, xsquare, br ,10, zoffsets, zoffsets_hi,4);
            Cacc3 = mac16(Cacc3, ar2 ,0, xoffsets, xoffsets_hi, xsquare, br ,11, zoffsets, zoffsets_hi,4);
            Cacc4 = mac16(Cacc4, ar3 ,0, xoffsets, xoffsets_hi, xsquare, br ,8 , zoffsets, zoffsets_hi,4);
            Cacc5 = mac16(Cacc5, ar3 ,0, xoffsets, xoffsets_hi, xsquare, br ,9 , zoffsets, zoffsets_hi,4);
            Cacc6 = mac16(Cacc6, ar3 ,0, xoffsets, xoffsets_hi, xsquare, br ,10, zoffsets, zoffsets_hi,4);
            Cacc7 = mac16(Cacc7, ar3 ,0, xoffsets, xoffsets_hi, xsquare, br ,11, zoffsets, zoffsets_hi,4);
        }

    v16int16 C0 = window_readincr_v16(DDR_IN);
    v16int16 C4 = window_readincr_v16(DDR_IN);
    v16int16 C1 = window_readincr_v16(DDR_IN);
    v16int16 C5 = window_readincr_v16(DDR_IN);
    v16int16 C2 = window_readincr_v16(DDR_IN);
    v16int16 C6 = window_readincr_v16(DDR_IN);
    v16int16 C3 = window_readincr_v16(DDR_IN);
    v16int16 C7 = window_readincr_v16(DDR_IN);

    C0=operator+(srs(Cacc0,0),C0);window_writeincr(out,C0);
    C4=operator+(srs(Cacc4,0),C4);window_writeincr(out,C4);
    C1=operator+(srs(Cacc1,0),C1);window_writeincr(out,C1);
    C5=operator+(srs(Cacc5,0),C5);window_writeincr(out,C5);
    C2=operator+(srs(Cacc2,0),C2);window_writeincr(out,C2);
    C6=operator+(srs(Cacc6,0),C6);window_writeincr(out,C6);
    C3=operator+(srs(Cacc3,0),C3);window_writeincr(out,C3);
    C7=operator+(srs(Cacc7,0),C7);window_writeincr(out,C7);
}
