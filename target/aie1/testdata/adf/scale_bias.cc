// The ScaleBias kernel class template (scale_bias.h): y = max(srs(x * taps, SHIFT) + offset, 0)
// lane by lane over N int16 samples, and a running sum of the first lane kept in the object.
// Written for sumac's tests of the ADF packaging: a local header, a class template with a
// reference-to-array member and a constructor argument, the input_window<T> spelling, a
// file-scope const array, a static local, a local array, if on a template parameter and on a
// run-time value, chess attributes and pragmas.
#include "scale_bias.h"

static const int16 kLaneOffsets[4] = {0, 1, 2, 3};

template <typename T, int N, int SHIFT, bool RELU>
void ScaleBias<T, N, SHIFT, RELU>::run(input_window<T> *__restrict in, output_window<T> *__restrict out) {
    static int calls = 0; // persists between calls; sumac runs one call
    v16int16 c = *(v16int16 *)taps;
    const unsigned int xoffs = 0x43526170, xoffs_hi = 0x07162534; // lane l gets x[l] in column 0
    int16 first[4] = {0, 0, 0, 0};
    v16int16 zero = null_v16int16();
    [[chess::prepare_for_pipelining]] [[chess::min_loop_count(2)]]
    for (int i = 0; i < N / 16; i++) {
        v16int16 x = window_readincr_v16(in);
        v16acc48 a = mul16(concat(x, zero), 0, xoffs, xoffs_hi, 0x3120, c, 0, 0x76543210, 0xFEDCBA98, 1);
        v16int16 y = srs(a, SHIFT);
        int16 o = offset + kLaneOffsets[i % 4];
        v16int16 b = upd_elem(zero, 0, o);
        y = operator+(y, b);
        if (RELU) { // a compile-time condition: one branch is lowered
            int16 y0 = ext_elem(y, 0);
            if (y0 < 0) { // a run-time condition
                y = upd_elem(y, 0, 0);
            }
        }
        first[i % 4] = ext_elem(y, 0);
        window_writeincr(out, y);
    }
    chess_separator_scheduler();
    int16 sum = 0;
    for (int j = 0; j < 4; j++) chess_flatten_loop {
        sum += first[j];
    }
    hist[0] = sum;
    calls++;
}
