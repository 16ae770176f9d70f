// sumac's fp32 GEMM tile kernel for the array model: C(32 x 32) (+)= A(32 x K) * B(K x 32), the
// kernel size CHARM and MaxEVA put on every tile (32 x 32 x 32 fp32), written for sumac. fpmac is
// 8 lanes x 1 column: lane l of a call multiplies row l of an 8-row block of A by one element of
// B broadcast to all lanes (zoffsets 0, zstart = the column). A block of C is 8 rows x 4 columns
// in four accumulators, so that one accumulator is used every fourth fpmac (dependent fpmacs must
// be at least 3 cycles apart: llvm-aie AIE1Schedule.td, II_VFMAC reads the accumulator in
// cycle 4 and writes it in cycle 6).
//
// Layouts (floats; the PL packs A and B, as it does for the one-tile model):
//   A     : 4 row blocks, each by columns: A[rb*8*K + k*8 + r] = A(8rb + r, k);
//   B     : 4 column blocks of 8, each by rows: B[jq*8*K + k*8 + c] = B(k, 8jq + c);
//   C_IN  : (ACC=1) the partial sums entering, laid out as C_OUT;
//   C_OUT : 4 row blocks, each by columns: C[rb*256 + j*8 + r] = C(8rb + r, j).
// ACC=1 starts the accumulators from C_IN (a partial sum of a K split passed on by a neighbour:
// the first fpmac adds to it); ACC=0 starts them with fpmul.

#ifndef K
#define K 32
#endif
#ifndef ACC
#define ACC 0
#endif

#if ACC
#define START(z0) \
    xa = upd_w(xa, 0, window_readincr_v8(A)); \
    zb = window_readincr_v8(B); \
    acc0 = fpmac(window_readincr_v8(C_IN), xa, 0, xoffs, zb, z0+0, zoffs); \
    acc1 = fpmac(window_readincr_v8(C_IN), xa, 0, xoffs, zb, z0+1, zoffs); \
    acc2 = fpmac(window_readincr_v8(C_IN), xa, 0, xoffs, zb, z0+2, zoffs); \
    acc3 = fpmac(window_readincr_v8(C_IN), xa, 0, xoffs, zb, z0+3, zoffs);
#else
#define START(z0) \
    xa = upd_w(xa, 0, window_readincr_v8(A)); \
    zb = window_readincr_v8(B); \
    acc0 = fpmul(xa, 0, xoffs, zb, z0+0, zoffs); \
    acc1 = fpmul(xa, 0, xoffs, zb, z0+1, zoffs); \
    acc2 = fpmul(xa, 0, xoffs, zb, z0+2, zoffs); \
    acc3 = fpmul(xa, 0, xoffs, zb, z0+3, zoffs);
#endif

// one pass: 8 rows x 4 columns (zstart z0 .. z0+3 of the 8-column block) over k
#define PASS(z0) \
    START(z0) \
    for (unsigned int k=1; k<K; k+=1) \
        chess_prepare_for_pipelining \
        chess_loop_range(K-1, ) { \
        xa = upd_w(xa, 0, window_readincr_v8(A)); \
        zb = window_readincr_v8(B); \
        acc0 = fpmac(acc0, xa, 0, xoffs, zb, z0+0, zoffs); \
        acc1 = fpmac(acc1, xa, 0, xoffs, zb, z0+1, zoffs); \
        acc2 = fpmac(acc2, xa, 0, xoffs, zb, z0+2, zoffs); \
        acc3 = fpmac(acc3, xa, 0, xoffs, zb, z0+3, zoffs); \
    } \
    window_writeincr(C_OUT, acc0); \
    window_writeincr(C_OUT, acc1); \
    window_writeincr(C_OUT, acc2); \
    window_writeincr(C_OUT, acc3);

void gemm_f32(input_window_float * __restrict A,
              input_window_float * __restrict B,
#if ACC
              input_window_float * __restrict C_IN,
#endif
              output_window_float * __restrict C_OUT) {
    v16float xa;
    v8float zb;
    v8float acc0, acc1, acc2, acc3;
    unsigned int xoffs = 0x76543210;
    unsigned int zoffs = 0x0;

    for (unsigned int rb=0; rb<4; rb+=1) {
        for (unsigned int jq=0; jq<4; jq+=1) {
            PASS(0)
            window_incr(A, -8*K);
            window_incr(B, -8*K);
            PASS(4)
            window_incr(A, -8*K);
        }
        window_incr(A, 8*K);
        window_incr(B, -32*K);
    }
}
