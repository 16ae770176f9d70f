// A circular window (UG1079 2023.1 "Kernel Conversion": ADF windows wrap at their end):
// each iteration reads two vectors and steps back one, so with a 64-byte window the position
// wraps past the end and, through window_decr, before the start. Written for sumac's tests;
// run it with --window in=64.
#include <adf.h>

void circular(input_window<int16> *__restrict in, output_window<int16> *__restrict out) {
    for (int i = 0; i < 4; i++) {
        v16int16 a = window_readincr_v16(in);
        v16int16 b = window_readincr_v16(in);
        window_decr(in, 16);
        window_writeincr(out, operator-(a, b));
    }
}
