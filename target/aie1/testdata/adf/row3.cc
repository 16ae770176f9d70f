// A 3-tap float row filter whose tap loop passes its counter to fpmac's data selection
// (xstart and zstart), so it compiles only unrolled, with its accumulator started from a
// vector by accum<accfloat, 8>::from_vector and its result kept at or above zero by aie::max
// with a scalar; the file's other kernel moves stream data by
// port number (put_wms / getf_wss), which sumac does not run but g++ must still compile.
// Written for sumac's tests.
#include <adf.h>
#include "aie_api/aie.hpp"

template <int N>
void row3(input_window<float> *__restrict in, output_window<float> *__restrict out) {
    v8float taps = null_v8float();
    taps = upd_elem(taps, 0, 0.25f);
    taps = upd_elem(taps, 1, 0.5f);
    taps = upd_elem(taps, 2, -0.125f);
    v16float data = null_v16float();
    for (int w = 0; w < N; w += 8) {
        data = upd_w(data, 0, window_readincr_v8(in));
        data = upd_v(data, 2, window_read_v4(in));
        aie::accum<accfloat, 8> acc;
        acc.from_vector(aie::broadcast<float, 8>(0.75f), 0);
        for (int i = 0; i < 3; i++)
            acc = fpmac(acc, data, i, 0x76543210, taps, i, 0);
        window_writeincr(out, aie::max(acc.to_vector(), 0.0f));
    }
}

void copy_ports(input_stream<float> *__restrict in, output_stream<float> *__restrict out) {
    for (int i = 0; i < 8; i++)
        put_wms(0, getf_wss(0));
}
