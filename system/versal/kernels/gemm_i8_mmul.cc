// The int8 GEMM tile kernel of MaxEVA's designs (FPT'23, enyac-group/MaxEVA, kernels.cc:
// opt_blocked_matrix_mult), restated for sumac in AIE1 intrinsics: C(M x N, int32) = A(M x K) *
// B(K x N), int8 operands, in 4 x 8 x 4 blocks (aie::mmul<4, 8, 4, int8, int8>), a 2 x 2 block
// of C tiles per pass (four accumulators), the K/8 block products of a pass in a loop, and the
// accumulators narrowed to int32 (to_vector<int32>(0): lsrs). One 4 x 8 x 4 block is one mac16
// (16 lanes = the 4 x 4 C tile, row-major; 8 columns = the 8 k): the X buffer holds the B tile
// (8 x 4, row-major, 32 bytes) with xoffsets 0, xstep 8, xsquare 0x3120 and the Z buffer the A
// tile (4 x 8, row-major) with zoffsets 0xcc884400, zstep 2, zsquare 0x3210 (the AIE API's AIE1
// mapping of that shape, aie_api/detail/aie1/mmul_8_8.hpp); lane 4g + t then accumulates
// A(g, c) * B(c, t) over c (system/versal's tests check it against op/ref).
//
// MaxEVA flattens every loop (chess_flatten_loop); this subset has no such pragma, so the k loop
// is software-pipelined instead (chess_prepare_for_pipelining, as MaxEVA's commented-out pragma).
//
// Layouts (bytes; the PL packs A and B):
//   A : M/8 pairs of 4-row blocks; per pair and k block (K/8 of them) the two 4 x 8 tiles
//       (row-major, 32 bytes each) of rows 8p..8p+3 and 8p+4..8p+7;
//   B : N/8 pairs of 4-column blocks; per pair and k block the two 8 x 4 tiles (row-major) of
//       columns 8q..8q+3 and 8q+4..8q+7;
//   C : per (row pair p, column pair q) the four 4 x 4 int32 tiles C00 C01 C10 C11 (64 bytes
//       each, row-major), pairs in row-major order (p, q).

#ifndef M
#define M 32
#endif
#ifndef K
#define K 128
#endif
#ifndef N
#define N 32
#endif

#define MMUL(acc, xb, za) acc = mac16(acc, xb, 0, 0x00000000, 8, 0x3120, za, 0, 0xcc884400, 2, 0x3210);
#define MMUL0(acc, xb, za) acc = mul16(xb, 0, 0x00000000, 8, 0x3120, za, 0, 0xcc884400, 2, 0x3210);

void gemm_i8_mmul(input_window_int8 * __restrict A,
                  input_window_int8 * __restrict B,
                  output_window_int32 * __restrict C) {
    v32int8 a0, a1;
    v64int8 b0, b1;
    v16acc48 c00, c01, c10, c11;

    for (unsigned int p=0; p<M/8; p+=1) {
        for (unsigned int q=0; q<N/8; q+=1) {
            a0 = window_readincr_v32(A);
            a1 = window_readincr_v32(A);
            b0 = upd_w(b0, 0, window_readincr_v32(B));
            b1 = upd_w(b1, 0, window_readincr_v32(B));
            MMUL0(c00, b0, a0)
            MMUL0(c01, b1, a0)
            MMUL0(c10, b0, a1)
            MMUL0(c11, b1, a1)
            for (unsigned int k=1; k<K/8; k+=1)
                chess_prepare_for_pipelining
                chess_loop_range(K/8-1, ) {
                a0 = window_readincr_v32(A);
                a1 = window_readincr_v32(A);
                b0 = upd_w(b0, 0, window_readincr_v32(B));
                b1 = upd_w(b1, 0, window_readincr_v32(B));
                MMUL(c00, b0, a0)
                MMUL(c01, b1, a0)
                MMUL(c10, b0, a1)
                MMUL(c11, b1, a1)
            }
            window_writeincr(C, lsrs(c00, 0));
            window_writeincr(C, lsrs(c01, 0));
            window_writeincr(C, lsrs(c10, 0));
            window_writeincr(C, lsrs(c11, 0));
            // the same rows for the next column pair
            window_incr(A, -K*8);
        }
        // the next row pair; the columns from the first pair again
        window_incr(A, K*8);
        window_incr(B, -K*N);
    }
}
