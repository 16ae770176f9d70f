// sumac's block variant of seed 001's Fig. 4 micro-kernel: the same 16x4 int16 register block and
// the same inner loop (lines 19-51 of the figure, kept as they are), called once for NT micro-tiles
// that share one B_r, so that the call's overhead (locks, call and return, pipeline fill and
// drain of the first tile) is paid once per block instead of once per micro-tile.
//
// What it computes, for t = 0..NT-1:
//   C_t(16x4) = srs(C_t + A_t(16 x Kc) * B_r(Kc x 4), 0), int16 operands, 48-bit accumulation.
// Layouts (the same as the seed kernel's, lei_gemm_16x4.cc):
//   A     : NT micro-panels A_t one after the other, each by columns (16 int16 per k);
//   Br    : B_r row-major, Br[k*4 + j];
//   C_IN  : NT micro-tiles one after the other, each by columns (C_t(0:15, j) for j = 0..3);
//   C_OUT : the same layout as C_IN.
// Kc must be a multiple of 4 (the packing pads A_t and B_r with zero columns/rows).

#ifndef Kc
#define Kc 292
#endif
#ifndef NT
#define NT 8
#endif

void gemm_block(input_window_int16 * __restrict A,
                int16 *Br,
                input_window_int16 * __restrict C_IN,
                output_window_int16 * __restrict C_OUT) {
    v32int16 ar0, ar1;
    v16int16 br;
    v16acc48 Cacc0, Cacc1, Cacc2, Cacc3;
    unsigned int xoffsets    = 0x73727170;
    unsigned int xoffsets_hi = 0x77767574;
    unsigned int xsquare     = 0x3120;
    unsigned int zoffsets    = 0x0;
    unsigned int zoffsets_hi = 0x0;

    for (unsigned int t=0; t<NT; t+=1) {
        // C_t enters the accumulators (ups: exact, int16 -> 48 bits), so C_t + A_t*B_r is
        // narrowed once, as the reference narrows it.
        Cacc0 = ups(window_readincr_v16(C_IN), 0);
        Cacc1 = ups(window_readincr_v16(C_IN), 0);
        Cacc2 = ups(window_readincr_v16(C_IN), 0);
        Cacc3 = ups(window_readincr_v16(C_IN), 0);
        for (unsigned int i=0; i<Kc/4; i+=1)
            chess_prepare_for_pipelining
            chess_loop_range(Kc/4, ) {
                br = *(v16int16*) &Br[i*16];
                ar0 = upd_w(ar0, 0, window_readincr_v16(A));
                ar0 = upd_w(ar0, 1, window_readincr_v16(A));
                ar1 = upd_w(ar1, 0, window_readincr_v16(A));
                ar1 = upd_w(ar1, 1, window_readincr_v16(A));
                Cacc0 = mac16(Cacc0, ar0, 0, xoffsets, xoffsets_hi, xsquare, br, 0, zoffsets, zoffsets_hi, 4);
                Cacc1 = mac16(Cacc1, ar0, 0, xoffsets, xoffsets_hi, xsquare, br, 1, zoffsets, zoffsets_hi, 4);
                Cacc2 = mac16(Cacc2, ar0, 0, xoffsets, xoffsets_hi, xsquare, br, 2, zoffsets, zoffsets_hi, 4);
                Cacc3 = mac16(Cacc3, ar0, 0, xoffsets, xoffsets_hi, xsquare, br, 3, zoffsets, zoffsets_hi, 4);
                Cacc0 = mac16(Cacc0, ar1, 0, xoffsets, xoffsets_hi, xsquare, br, 8, zoffsets, zoffsets_hi, 4);
                Cacc1 = mac16(Cacc1, ar1, 0, xoffsets, xoffsets_hi, xsquare, br, 9, zoffsets, zoffsets_hi, 4);
                Cacc2 = mac16(Cacc2, ar1, 0, xoffsets, xoffsets_hi, xsquare, br, 10, zoffsets, zoffsets_hi, 4);
                Cacc3 = mac16(Cacc3, ar1, 0, xoffsets, xoffsets_hi, xsquare, br, 11, zoffsets, zoffsets_hi, 4);
            }
        window_writeincr(C_OUT, srs(Cacc0,0));
        window_writeincr(C_OUT, srs(Cacc1,0));
        window_writeincr(C_OUT, srs(Cacc2,0));
        window_writeincr(C_OUT, srs(Cacc3,0));
    }
}
