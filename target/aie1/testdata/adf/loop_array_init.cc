// A local array declared with an initializer inside a loop body, written for sumac's tests:
// C++ initializes it each time the declaration runs (the elements past the list are zero),
// so each group of 16 inputs starts from {-inf, 0, 0, 0}; the -inf is a double limit
// converted to float.
#include <adf.h>
#include <limits>

void loop_array_init(input_window<float> *__restrict in, output_window<float> *__restrict out) {
    for (int g = 0; g < 8; g++) {
        float best[4] = {-std::numeric_limits<double>::infinity()};
        for (int i = 0; i < 4; i++) {
            for (int c = 0; c < 4; c++) {
                float a = window_readincr(in);
                best[c] = (best[c] < a) ? a : best[c];
            }
        }
        for (int c = 0; c < 4; c++)
            window_writeincr(out, best[c]);
    }
}
