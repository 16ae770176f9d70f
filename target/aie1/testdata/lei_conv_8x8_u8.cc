// Seed 004 (Lei, Martinez, Flich, Quintana-Orti, ISC 2023), Fig. 5: the 8x8 uint8 micro-kernel
// of the GEMM-like direct convolution for one AIE1 tile, transcribed line for line. Departures
// from the printed figure are marked "FIX:" (a typo in the figure) or "ADDED:" (something the
// "simplified" figure omits); there is nothing else.
//
// What it computes (seed 004 sections 2.4 and 3.3, Fig. 3 loop L6): the micro-tile
// O_r(8 x 8) += I_r(8 x cib) * F_r(cib x 8), uint8 operands, 48-bit accumulation, ubsrs(acc, 0)
// narrowing, O_r read from DDR_IN and written to DDR_OUT. Rows of O_r are mr = 8 output pixels
// (w_o), columns nr = 8 output channels (c_o); the reduction runs over cib input channels.
//
// Data layouts (the packing, our choice where the paper is silent):
//   FPGA_IN : I_r by columns: I_r(0:7, p) for p = 0, 1, ..., cib-1 (8 bytes per input channel),
//             so ir0 holds channels pr..pr+7 and ir1 channels pr+8..pr+15, ir[8*c + r] = I_r(r, pr+c);
//   Fr      : F_r in blocks of 8 input channels x 4 output channels, 32 bytes each, output
//             channel major: block (pr/4 + q) byte 8*jj + c = F_r(pr + 8*(q/2) + c, 4*(q%2) + jj);
//             i.e. per 16 channels: [ch 0-7 x out 0-3] [ch 0-7 x out 4-7] [ch 8-15 x out 0-3]
//             [ch 8-15 x out 4-7]. This is the order in which the loop body pairs fr with ir0
//             and ir1: the figure's comment "4 rows with nr=8" does not fit the MACs, because
//             Oacc01 and Oacc23 only ever see the 1st and 3rd fr of an iteration and must
//             still receive all 16 input channels of output channels 0-3;
//   DDR_IN  : O_r by columns (byte 8*j + r = O_r(r, j)); DDR_OUT the same.
// Accumulator Oacc<2m><2m+1> holds output channels 2m (lanes 0-7, rows r = lane) and 2m+1
// (lanes 8-15), so that concat(ubsrs(...)) is O_r by columns, as the paper describes ("we
// concatenate two column vectors of the micro-tile O_r into one v16uint8").
//
// The mac16 parameters (ADDED below; the figure omits them "for brevity"), for sumac's 8-bit
// rule (target/aie1/kernel/mac.go DecodeMAC, Form8x8; UG1079 "MAC on 8x8 bits"):
//   xstep = 16 (fixed by the figure's macro): column block k (columns 2k, 2k+1 = channels
//     pr+2k, pr+2k+1) starts 16 bytes = 2 channels further in ir;
//   xoffsets = 0x11101110: lane group g (lanes 4g..4g+3, rows r = 4(g%2)..4(g%2)+3) takes the
//     nibble pair (a, b) = (g%2, 1): word a holds rows 4(g%2)+0..3 of the block's first
//     channel, word a+b+1 = a+2 the same rows of its second channel (8 bytes further);
//   xsquare = 0x3120: of the four 16-bit units (u0 u1 from word a, u2 u3 from word a+2),
//     lanes t = 0, 1 of the group take u0 (column 0) and u2 (column 1), lanes t = 2, 3 take u1
//     and u3; even lanes read a unit's low byte, odd lanes its high byte: lane r, column c
//     reads ir[8c + r] = I_r(r, pr + c);
//   zstep = 2 (fixed by the macro): column block k starts 2 bytes = 2 channels further in fr;
//   zsquare = 0x1010: both lane pairs of a group read the low byte of the group's first Z
//     unit in even columns and its high byte in odd columns: byte 2*zoff(g) + c;
//   zoffsets_0 = 0x44440000: groups 0, 1 (lanes 0-7) start at unit 0 (output channel jj = 0
//     of the block), groups 2, 3 (lanes 8-15) at unit 4 = byte 8 (jj = 1): Oacc01, Oacc45;
//   zoffsets_1 = 0xCCCC8888: units 8 and 12 (jj = 2, 3): Oacc23, Oacc67.
// So lane l of Oacc<2m><2m+1> adds sum_c I_r(l%8, ch(c)) * F_r(ch(c), 2m + l/8) over the 8
// channels ch(c) that its ir register holds: 8 MACs x 16 lanes = 128 per mac16 call.

// ADDED: cib (the c_{i,b} blocking parameter) is set outside the figure (sumac sim -D cib=...);
// the default is seed 004's experimental value c_{i,b} = 256.
#ifndef cib
#define cib 256
#endif

// FIX: the figure defines conv_mac16 but calls conv_mac (8 times); the calls are kept and the
// macro is named conv_mac.
#define conv_mac(v1,v2,v3, zoffsets) \
    v1 = mac16(v1, v2, 0, xoffsets, 16, \
                xsquare, v3, 0, zoffsets, 2, zsquare);

// FIX: the figure declares the windows as int16 (input_window_int16, output_window_int16), but
// the kernel reads and writes v64uint8 through them (window_readincr_v64 into ir0, ir1 and
// O01234567, window_writeincr of O01234567): they are uint8 windows.
void micro_kernel( input_window_uint8 * __restrict DDR_IN,
                   input_window_uint8 * __restrict FPGA_IN,
                   uint8 *Fr,
                   output_window_uint8 * __restrict DDR_OUT){

    // Vectors for cols of Ir, rows of Fr, and accumulators for Or
    v64uint8 ir0, ir1;
    v32uint8 fr;
    v16acc48 Oacc01, Oacc23, Oacc45, Oacc67;

    // Parameters for mac16() intrinsics
    // Initialization omitted for brevity
    // ADDED: the initialization (values explained at the top of this file).
    unsigned int xoffsets = 0x11101110, xsquare = 0x3120, zoffsets_0 = 0x44440000,
                 zoffsets_1 = 0xCCCC8888, zsquare = 0x1010;

    // FIX: the figure's loop header has no '{' although the body ends with '}' (line "}" after
    // the last conv_mac): without it only the first statement would be the loop body.
    for (unsigned int pr=0; pr<cib; pr+=16) {
        // Read 2 x 64 = 64 entries of Ir
        // corresponding to 16 cols with mr=8 UINT8 each
        ir0 = window_readincr_v64(FPGA_IN);
        ir1 = window_readincr_v64(FPGA_IN);

        // Repeat four times:
        // Read 32 entries of Fr
        // corresponding to 4 rows with nr=8 UINT each
        // Use the elements of Ir, Fr to update Or
        // FIX (4 times below): the figure reads "fr = *(v32uint8*) Fr[pr/4+0];", which casts a
        // uint8 value to a pointer. The intent is the (pr/4+q)-th 32-byte block of Fr, i.e.
        // ((v32uint8*)Fr)[pr/4+q], written here as the pointer load it is.
        fr = *(v32uint8*) &Fr[(pr/4+0)*32];
        conv_mac(Oacc01, ir0, fr, zoffsets_0);
        conv_mac(Oacc23, ir0, fr, zoffsets_1);

        fr = *(v32uint8*) &Fr[(pr/4+1)*32];
        conv_mac(Oacc45, ir0, fr, zoffsets_0);
        conv_mac(Oacc67, ir0, fr, zoffsets_1);

        fr = *(v32uint8*) &Fr[(pr/4+2)*32];
        conv_mac(Oacc01, ir1, fr, zoffsets_0);
        conv_mac(Oacc23, ir1, fr, zoffsets_1);

        fr = *(v32uint8*) &Fr[(pr/4+3)*32];
        conv_mac(Oacc45, ir1, fr, zoffsets_0);
        conv_mac(Oacc67, ir1, fr, zoffsets_1);
    }
    // Read Or from global memory
    v64uint8 O01234567 = undef_v64uint8();
    O01234567 = window_readincr_v64(DDR_IN);

    // Convert result, add it to Or and write back to memory
    // FIX: the figure narrows acc01, acc23, acc45, acc67; the accumulators are Oacc01, ...
    v64uint8 accV01234567 = concat(ubsrs(Oacc01,0), ubsrs(Oacc23,0),
                                   ubsrs(Oacc45,0), ubsrs(Oacc67,0));
    O01234567 = operator + (accV01234567, O01234567);
    window_writeincr(DDR_OUT, O01234567);
}
