// Cascade streams in both spellings (UG1076 "Cascade Streams"; adf/stream.hpp): an 8-lane
// accumulator arrives on the input cascade, takes four 8x4 int16 MACs per iteration, and
// leaves on the output cascade; the last one is also narrowed into the output window.
// Written for sumac's tests.
#include <adf.h>

void cascade_mac(input_stream_acc48 *cin, input_window_int16 *__restrict x, input_window_int16 *__restrict h,
                 output_cascade<acc48> *cout, output_window_int16 *__restrict y) {
    v16int16 coef = window_readincr_v16(h);
    v8acc48 acc;
    for (int i = 0; i < 4; i++) chess_prepare_for_pipelining {
        acc = readincr_v8(cin);
        v32int16 buf = undef_v32int16();
        buf = upd_w(buf, 0, window_readincr_v16(x));
        buf = upd_w(buf, 1, window_readincr_v16(x));
        acc = mac8(acc, buf, 0, 0x76543210, 4, 0x3210, coef, 0, 0x00000000, 1);
        writeincr(cout, acc);
    }
    window_writeincr(y, srs(acc, 2));
}
