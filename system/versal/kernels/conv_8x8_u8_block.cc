// sumac's block variant of seed 004's Fig. 5 micro-kernel (lei_conv_8x8_u8.cc): the same 8x8
// uint8 register block, the same eight mac16 per 16 input channels with the same parameters,
// the roles of the operands as seed 004's text places them (filters in the X buffer, the input
// in the Z buffer, so that the 8x8 output block comes out pixel-major, the NHWC order), the
// whole reduction K = R*S*C in the accumulators (one narrowing, as the reference narrows), and
// NT x NQ micro-tiles per call.
//
// What it computes, for t = 0..NT-1 (input panels) and q = 0..NQ-1 (filter panels):
//   O_tq(8 pixels x 8 output channels) = ubsrs(sum_k I_t(pixel, k) * W_q(k, co), 0).
// Layouts (K a multiple of 16, at least 32; the packing pads with zeros):
//   W : NQ panels of K x 8 bytes; per 16 reduction steps 2 x 64 bytes, [k 0-7 x co 0-7]
//       [k 8-15 x co 0-7], each k's 8 output channels contiguous (RSCK order, co fastest);
//   I : NT panels of 8 x K bytes; per 16 reduction steps 4 x 32 bytes, [k 0-7 x px 0-3]
//       [k 0-7 x px 4-7] [k 8-15 x px 0-3] [k 8-15 x px 4-7], each pixel's 8 k contiguous;
//   O : NT x NQ blocks of 64 bytes, block (t, q) at 64*(t*NQ + q), pixel-major (8 co per pixel).
// The first 16 reduction steps use mul16, which starts the accumulators.

#ifndef K
#define K 256
#endif
#ifndef NT
#define NT 1
#endif
#ifndef NQ
#define NQ 1
#endif

// The element type: uint8 (seed 004) by default; -D SIGNED8=1 makes the same kernel int8 x int8
// with bsrs to int8 (the 8-bit GEMM of seed 001's future work, as a 1x1 convolution).
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

void conv_block(WIN_IN * __restrict W,
                WIN_IN * __restrict I,
                WIN_OUT * __restrict O) {
    V64 ir0, ir1;
    V32 fr;
    v16acc48 Oacc01, Oacc23, Oacc45, Oacc67;
    unsigned int xoffsets = 0x11101110, xsquare = 0x3120, zoffsets_0 = 0x44440000,
                 zoffsets_1 = 0xCCCC8888, zsquare = 0x1010;

    for (unsigned int t=0; t<NT; t+=1) {
        for (unsigned int q=0; q<NQ; q+=1) {
            ir0 = window_readincr_v64(W);
            ir1 = window_readincr_v64(W);
            fr = window_readincr_v32(I);
            conv_mul(Oacc01, ir0, fr, zoffsets_0);
            conv_mul(Oacc23, ir0, fr, zoffsets_1);
            fr = window_readincr_v32(I);
            conv_mul(Oacc45, ir0, fr, zoffsets_0);
            conv_mul(Oacc67, ir0, fr, zoffsets_1);
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
            window_writeincr(O, concat(NARROW(Oacc01,0), NARROW(Oacc23,0), NARROW(Oacc45,0), NARROW(Oacc67,0)));
            // the same input panel for the next filter panel
            window_incr(I, -K*8);
        }
        // the next input panel; the filter panels again from the first
        window_incr(I, K*8);
        window_incr(W, -NQ*K*8);
    }
}
