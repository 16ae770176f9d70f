// int32 lanes times int16 factors into 48-bit accumulators: the int32 x int16 mul16 / mac16
// form, by the AI Engine API (a scalar factor, then a vector of them with the int16 operand
// first, from an accumulator started from the factors) and by the intrinsic with reversed lanes; written for sumac's tests.
#include <adf.h>
#include "aie_api/aie.hpp"

void scale32(input_window<int32> *__restrict in, input_window<int16> *__restrict w,
             output_window<int16> *__restrict out) {
    for (int i = 0; i < 64; i += 16) {
        aie::vector<int32, 16> x = window_readincr_v16(in);
        aie::vector<int16, 16> f = window_readincr_v16(w);
        aie::accum<acc48, 16> a;
        a.from_vector(f, 2);
        a = aie::mac(a, x, (int16)3);
        a = aie::mac(a, f, x);
        v16acc48 b = mac16(a, concat(x, x), 0, 0xFEDCBA98, 0x76543210, f, 0, 0x01234567, 0x89ABCDEF);
        window_writeincr(out, srs(b, 6));
    }
}
