// Signed and unsigned 8-bit samples widened to 16 bits by unpack (sign- and zero-extended),
// added, and the 32-lane form of both; written for sumac's tests.
#include <adf.h>

void widen(input_window<int8> *__restrict a, input_window<uint8> *__restrict b,
           output_window<int16> *__restrict out) {
    for (int i = 0; i < 64; i += 16) {
        v16int16 x = unpack(window_readincr_v16(a));
        v16int16 y = unpack(window_readincr_v16(b));
        window_writeincr(out, x + y);
    }
    v32int16 p = unpack(window_readincr_v32(a));
    v32int16 q = unpack(window_readincr_v32(b));
    window_writeincr(out, ext_w(p, 0) - ext_w(q, 1));
}
