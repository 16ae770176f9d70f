// A flattened fp32 filter written for sumac's tests: two fpmac chains (even and odd taps) that
// the scheduler can interleave, a chess_flatten_loop whose counter selects the X lanes (the
// front end unrolls it, so xstart is a constant in each copy), coefficient iterators moved with
// *p++ (post-incremented loads), &C[0] of a reference-to-array parameter, sizeof, an
// accum<accfloat>::to_vector() without a type, aie::mac(acc, scalar, vector), and an int16
// stream read into an int.
#include <adf.h>
#include <aie_api/aie.hpp>

#ifndef BURST
#define BURST 4
#endif

void flat_fir(adf::input_buffer<float> &__restrict in, adf::output_buffer<float> &__restrict out,
              input_stream<int16> *__restrict gain, const float (&C_e)[32], const float (&C_o)[32]) {
    auto ii = aie::begin_vector<8>(in);
    auto oi = aie::begin_vector<8>(out);
    int g = readincr(gain);
    float scale = (float) ((g & 3) + (int) sizeof(v8float) / 32); // a conversion: no scalar float arithmetic
    for (int i = 0; i < BURST; i++) chess_prepare_for_pipelining {
        v8float lo = *ii++;
        v16float x = concat(lo, *ii++);
        v8float acc_e = null_v8float();
        v8float acc_o = null_v8float();
        const v8float *pe = (const v8float *) &C_e[0];
        const v8float *po = (const v8float *) &C_o[0];
        for (int k = 0; k < 4; k++) chess_flatten_loop {
            acc_e = fpmac(acc_e, x, 2 * k, 0, *pe++, 0, 0x76543210);
            acc_o = fpmac(acc_o, x, 2 * k + 1, 0, *po++, 0, 0x76543210);
        }
        aie::accum<accfloat, 8> sum = fpadd(acc_o, acc_e);
        sum = aie::mac(sum, scale, acc_e);
        *oi++ = sum.to_vector();
    }
}
