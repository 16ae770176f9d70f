// Seed 001 (Lei, Flich, Quintana-Orti, PDP 2023), Fig. 4: the 16x4 int16 GEMM micro-kernel for
// one AIE1 tile, transcribed line for line. The figure's line numbers are kept in the trailing
// "// L<n>" comments so the text can be checked against the paper. Departures from the printed
// figure are marked "FIX:" (a typo in the figure) or "ADDED:" (something the "simplified"
// figure leaves out that a compiler needs); there is nothing else. The seed's text of the
// figure is complete: lines 53-64 (read C_r, srs, add, write back) are printed there and are
// transcribed here, not reconstructed.
//
// What it computes (seed 001 section V-B): C_r(16x4) += A_r(16 x Kc) * B_r(Kc x 4), int16
// operands, 48-bit accumulation, srs(acc, 0) narrowing, C_r read from DDR_IN and written to out.
// Data layouts (packing, our choice where the paper is silent):
//   PL_IN  : A_r by columns, A_r(0:15, k) for k = 0, 1, ..., Kc-1 (16 int16 per column);
//   Br     : B_r row-major, Bref(k, j) = Br[k*nr + j] (the figure's macro);
//   DDR_IN : C_r by columns, C_r(0:15, j) for j = 0..3;  out: the same layout as DDR_IN.
// Per iteration i the loop consumes columns 4i..4i+3 of A_r (ar0 = columns 4i, 4i+1; ar1 =
// columns 4i+2, 4i+3) and rows 4i..4i+3 of B_r (br, 16 values). With xoffsets 0x73727170 /
// 0x77767574 and xsquare 0x3120, lane L of mac16 sees x[L] in column 0 and x[16+L] in column 1;
// with zoffsets 0 and zstep 4 it sees z[zstart] and z[zstart+4]: so mac16(..., br, j, ...)
// adds A(L,4i)*B(4i,j) + A(L,4i+1)*B(4i+1,j), and zstart 8+j adds rows 4i+2 and 4i+3.

// ADDED: Kc and nr are set outside the figure (sumac sim -D Kc=...); these are defaults.
#ifndef Kc
#define Kc 256
#endif
#ifndef nr
#define nr 4
#endif

#define Bref(i,j) Br[i*nr+j]                                              // L1
void micro_kernel( input_window_int16 * __restrict DDR_IN,               // L2
                   input_window_int16 * __restrict PL_IN,                // L3
                   int16 *Br,                                            // L4
                   output_window_int16 * __restrict out) {               // L5
                                                                         // L6
    // Vectors, Accumulator for ar, br, C                                // L7
    v32int16 ar0, ar1;                                                   // L8
    v16int16 br;                                                         // L9
    v16acc48 Cacc0, Cacc1, Cacc2, Cacc3;                                 // L10
                                                                         // L11
    // Parameters for mac16() intrinsics                                 // L12
    unsigned int xoffsets      = 0x73727170;                             // L13
    unsigned int xoffsets_hi   = 0x77767574;                             // L14
    unsigned int xsquare       = 0x3120;                                 // L15
    unsigned int zoffsets      = 0x0;                                    // L16
    unsigned int zoffsets_hi   = 0x0;                                    // L17
                                                                         // L18
    for (unsigned int i=0; i<Kc/4; i+=1)                                 // L19
        // Unroll loop to overlap transfers and computations             // L20
        chess_prepare_for_pipelining                                     // L21
        chess_loop_range(Kc/4, ) {                                       // L22
            // Read a vector of 16 INT16 into br                         // L23
            // FIX: the figure reads "br = *(v16int16*) Bref[i];", which indexes the
            // function-like macro Bref with brackets. Iteration i needs rows 4i..4i+3 of
            // B_r, i.e. the 16 values starting at Bref(4i, 0) = Br[16*i].
            br = *(v16int16*) &Bref(i*4, 0);                              // L24
                                                                         // L25
            // Read into ar                                              // L26
            ar0 = upd_w( ar0 ,0, window_readincr_v16(PL_IN));            // L27
            ar0 = upd_w( ar0 ,1, window_readincr_v16(PL_IN));            // L28
            ar1 = upd_w( ar1 ,0, window_readincr_v16(PL_IN));            // L29
            ar1 = upd_w( ar1 ,1, window_readincr_v16(PL_IN));            // L30
                                                                         // L31
            // Compute two mac16()                                       // L32
            Cacc0 = mac16(Cacc0, ar0 ,0, xoffsets, xoffsets_hi,          // L33
                          xsquare, br ,0 , zoffsets, zoffsets_hi,4);     // L34
            Cacc1 = mac16(Cacc1, ar0 ,0, xoffsets, xoffsets_hi,          // L35
                          xsquare, br ,1 , zoffsets, zoffsets_hi,4);     // L36
            Cacc2 = mac16(Cacc2, ar0 ,0, xoffsets, xoffsets_hi,          // L37
                          xsquare, br ,2 , zoffsets, zoffsets_hi,4);     // L38
            Cacc3 = mac16(Cacc3, ar0 ,0, xoffsets, xoffsets_hi,          // L39
                          xsquare, br ,3 , zoffsets, zoffsets_hi,4);     // L40
                                                                         // L41
            //                                                           // L42
            Cacc0 = mac16(Cacc0, ar1 ,0, xoffsets, xoffsets_hi,          // L43
                          xsquare, br ,8 , zoffsets, zoffsets_hi,4);     // L44
            Cacc1 = mac16(Cacc1, ar1 ,0, xoffsets, xoffsets_hi,          // L45
                          xsquare, br ,9 , zoffsets, zoffsets_hi,4);     // L46
            Cacc2 = mac16(Cacc2, ar1 ,0, xoffsets, xoffsets_hi,          // L47
                          xsquare, br ,10, zoffsets, zoffsets_hi,4);     // L48
            Cacc3 = mac16(Cacc3, ar1 ,0, xoffsets, xoffsets_hi,          // L49
                          xsquare, br ,11, zoffsets, zoffsets_hi,4);     // L50
        }                                                                // L51
                                                                         // L52
    // Read Cr from global memory                                        // L53
    v16int16 C0 = window_readincr_v16(DDR_IN);                           // L54
    v16int16 C1 = window_readincr_v16(DDR_IN);                           // L55
    v16int16 C2 = window_readincr_v16(DDR_IN);                           // L56
    v16int16 C3 = window_readincr_v16(DDR_IN);                           // L57
                                                                         // L58
    // Convert result, add it to Cr and write back to memory             // L59
    C0=operator+(srs(Cacc0,0),C0);window_writeincr(out,C0);              // L60
    C1=operator+(srs(Cacc1,0),C1);window_writeincr(out,C1);              // L61
    C2=operator+(srs(Cacc2,0),C2);window_writeincr(out,C2);              // L62
    C3=operator+(srs(Cacc3,0),C3);window_writeincr(out,C3);              // L63
}                                                                        // L64
