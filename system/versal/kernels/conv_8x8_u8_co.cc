// The convolution micro-kernel of conv_8x8_u8_block.cc with the loops interchanged for a short
// reduction (seed 004 s.4.2: "for those cases with small c_i ... interchanging the roles of
// c_i and c_o"): the software-pipelined loop runs over the NQ filter panels (output channels)
// and the K = R*S*C reduction is unrolled inside it, so that one micro-tile's narrowing and
// store overlap the next micro-tile's MACs instead of draining the pipeline K/16 steps later.
// Same operands, layouts and result as conv_8x8_u8_block.cc; K is a multiple of 16 up to 256.

#ifndef K
#define K 64
#endif
#ifndef NT
#define NT 1
#endif
#ifndef NQ
#define NQ 8
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

// 16 reduction steps: the eight MACs of seed 004's loop body
#define STEP16 \
    ir0 = window_readincr_v64(W); \
    ir1 = window_readincr_v64(W); \
    fr = window_readincr_v32(I); \
    conv_mac(Oacc01, ir0, fr, zoffsets_0); \
    conv_mac(Oacc23, ir0, fr, zoffsets_1); \
    fr = window_readincr_v32(I); \
    conv_mac(Oacc45, ir0, fr, zoffsets_0); \
    conv_mac(Oacc67, ir0, fr, zoffsets_1); \
    fr = window_readincr_v32(I); \
    conv_mac(Oacc01, ir1, fr, zoffsets_0); \
    conv_mac(Oacc23, ir1, fr, zoffsets_1); \
    fr = window_readincr_v32(I); \
    conv_mac(Oacc45, ir1, fr, zoffsets_0); \
    conv_mac(Oacc67, ir1, fr, zoffsets_1);

void conv_co(WIN_IN * __restrict W,
             WIN_IN * __restrict I,
             WIN_OUT * __restrict O) {
    V64 ir0, ir1;
    V32 fr;
    v16acc48 Oacc01, Oacc23, Oacc45, Oacc67;
    unsigned int xoffsets = 0x11101110, xsquare = 0x3120, zoffsets_0 = 0x44440000,
                 zoffsets_1 = 0xCCCC8888, zsquare = 0x1010;

    for (unsigned int t=0; t<NT; t+=1) {
        for (unsigned int q=0; q<NQ; q+=1)
            chess_prepare_for_pipelining
            chess_loop_range(NQ, ) {
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
#if K >= 32
            STEP16
#endif
#if K >= 48
            STEP16
#endif
#if K >= 64
            STEP16
#endif
#if K >= 80
            STEP16
#endif
#if K >= 96
            STEP16
#endif
#if K >= 112
            STEP16
#endif
#if K >= 128
            STEP16
#endif
#if K >= 144
            STEP16
#endif
#if K >= 160
            STEP16
#endif
#if K >= 176
            STEP16
#endif
#if K >= 192
            STEP16
#endif
#if K >= 208
            STEP16
#endif
#if K >= 224
            STEP16
#endif
#if K >= 240
            STEP16
#endif
#if K >= 256
            STEP16
#endif
            window_writeincr(O, concat(NARROW(Oacc01,0), NARROW(Oacc23,0), NARROW(Oacc45,0), NARROW(Oacc67,0)));
            window_incr(I, -K*8);
        }
        window_incr(I, K*8);
        window_incr(W, -NQ*K*8);
    }
}
