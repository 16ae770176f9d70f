// sumac's 8-bit GEMM tile kernel for the array model: the micro-kernel of conv_8x8_u8_block.cc
// (seed 004's 8 x 8 register block, eight mac16 per 16 reduction steps, four accumulators) as a
// GEMM tile C(8*NT x 8*NQ) = A(8*NT x K) * B(K x 8*NQ), with the partial sums of a K split
// across tiles entering and leaving as int32 (the cascade's content: the accumulators of a
// neighbour; lups/lsrs are exact while |partial| < 2^31, i.e. K < 131072 for int8 and K < 33025
// for uint8).
//
//   PIN=1   the accumulators start from the partial sums in P (lups) instead of mul16;
//   POUT=1  the accumulators leave as int32 partial sums (lsrs) instead of being narrowed.
// Without either the kernel is conv_8x8_u8_block.cc: one narrowing (bsrs / ubsrs, shift 0).
//
// Layouts (bytes; K a multiple of 16, at least 32):
//   W (B) : NQ panels of K x 8, per 16 reduction steps [k 0-7 x col 0-7] [k 8-15 x col 0-7];
//   I (A) : NT panels of 8 x K, per 16 steps [k 0-7 x row 0-3] [k 0-7 x row 4-7]
//           [k 8-15 x row 0-3] [k 8-15 x row 4-7], each row's 8 k contiguous;
//   O, P  : NT x NQ blocks (t, q) at block t*NQ + q, rows by 8 columns (64 bytes narrowed, or the
//           four accumulators' 16 int32 lanes each, 256 bytes, as partial sums).

#ifndef K
#define K 128
#endif
#ifndef NT
#define NT 4
#endif
#ifndef NQ
#define NQ 4
#endif
#ifndef PIN
#define PIN 0
#endif
#ifndef POUT
#define POUT 0
#endif

#ifdef SIGNED8
#define V64 v64int8
#define V32 v32int8
#define WIN_IN input_window_int8
#define WIN_OUT output_window_int8
#define NARROW bsrs
#else
#define V64 v64uint8
#define V32 v32uint8
#define WIN_IN input_window_uint8
#define WIN_OUT output_window_uint8
#define NARROW ubsrs
#endif

#define conv_mul(v1,v2,v3, zoffsets) \
    v1 = mul16(v2, 0, xoffsets, 16, xsquare, v3, 0, zoffsets, 2, zsquare);
#define conv_mac(v1,v2,v3, zoffsets) \
    v1 = mac16(v1, v2, 0, xoffsets, 16, xsquare, v3, 0, zoffsets, 2, zsquare);

#if PIN
#define FIRST(v1,v2,v3, zoffsets) \
    v1 = mac16(v1, v2, 0, xoffsets, 16, xsquare, v3, 0, zoffsets, 2, zsquare);
#else
#define FIRST(v1,v2,v3, zoffsets) \
    v1 = mul16(v2, 0, xoffsets, 16, xsquare, v3, 0, zoffsets, 2, zsquare);
#endif

void mm8_block(WIN_IN * __restrict W,
               WIN_IN * __restrict I,
#if PIN
               input_window_int32 * __restrict P,
#endif
#if POUT
               output_window_int32 * __restrict O) {
#else
               WIN_OUT * __restrict O) {
#endif
    V64 ir0, ir1;
    V32 fr;
    v16acc48 Oacc01, Oacc23, Oacc45, Oacc67;
    unsigned int xoffsets = 0x11101110, xsquare = 0x3120, zoffsets_0 = 0x44440000,
                 zoffsets_1 = 0xCCCC8888, zsquare = 0x1010;

    for (unsigned int t=0; t<NT; t+=1) {
        for (unsigned int q=0; q<NQ; q+=1) {
#if PIN
            Oacc01 = lups(window_readincr_v16(P), 0);
            Oacc23 = lups(window_readincr_v16(P), 0);
            Oacc45 = lups(window_readincr_v16(P), 0);
            Oacc67 = lups(window_readincr_v16(P), 0);
#endif
            ir0 = window_readincr_v64(W);
            ir1 = window_readincr_v64(W);
            fr = window_readincr_v32(I);
            FIRST(Oacc01, ir0, fr, zoffsets_0);
            FIRST(Oacc23, ir0, fr, zoffsets_1);
            fr = window_readincr_v32(I);
            FIRST(Oacc45, ir0, fr, zoffsets_0);
            FIRST(Oacc67, ir0, fr, zoffsets_1);
            fr = window_readincr_v32(I);
            conv_mac(Oacc01, ir1, fr, zoffsets_0);
            conv_mac(Oacc23, ir1, fr, zoffsets_1);
            fr = window_readincr_v32(I);
            conv_mac(Oacc45, ir1, fr, zoffsets_0);
            conv_mac(Oacc67, ir1, fr, zoffsets_1);
            for (unsigned int pr=16; pr<K; pr+=16)
                chess_prepare_for_pipelining
                chess_loop_range(K/16-1, ) {
                ir0 = window_readincr_v64(W);
                ir1 = window_readincr_v64(W);
                fr = window_readincr_v32(I);
                conv_mac(Oacc01, ir0, fr, zoffsets_0);
                conv_mac(Oacc23, ir0, fr, zoffsets_1);
                fr = window_readincr_v32(I);
                conv_mac(Oacc45, ir0, fr, zoffsets_0);
                conv_mac(Oacc67, ir0, fr, zoffsets_1);
                fr = window_readincr_v32(I);
                conv_mac(Oacc01, ir1, fr, zoffsets_0);
                conv_mac(Oacc23, ir1, fr, zoffsets_1);
                fr = window_readincr_v32(I);
                conv_mac(Oacc45, ir1, fr, zoffsets_0);
                conv_mac(Oacc67, ir1, fr, zoffsets_1);
            }
#if POUT
            window_writeincr(O, lsrs(Oacc01, 0));
            window_writeincr(O, lsrs(Oacc23, 0));
            window_writeincr(O, lsrs(Oacc45, 0));
            window_writeincr(O, lsrs(Oacc67, 0));
#else
            window_writeincr(O, concat(NARROW(Oacc01,0), NARROW(Oacc23,0), NARROW(Oacc45,0), NARROW(Oacc67,0)));
#endif
            // the same A panel for the next B panel
            window_incr(I, -K*8);
        }
        // the next A panel; the B panels again from the first
        window_incr(I, K*8);
        window_incr(W, -NQ*K*8);
    }
}
