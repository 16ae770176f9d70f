// Streams in both spellings (UG1079 "Reading and Advancing an Input Stream"), written for
// sumac's tests: per iteration one 128-bit read and one 32-bit read from the input stream, four
// 32-bit writes to the output stream, y[j] = x[j] * k + w[j] with w from a window.
#include <adf.h>

#ifndef N
#define N 8
#endif

void stream_scale(input_stream<int32> *__restrict sin, output_stream_int32 *__restrict sout, input_window_int32 *w) {
    for (int i = 0; i < N; i++)
        chess_prepare_for_pipelining
    {
        v4int32 x = readincr_v4(sin);
        int32 k = readincr(sin);
        for (int j = 0; j < 4; j++) chess_flatten_loop {
            int32 y = ext_elem(x, j) * (k & 0xFF) + window_readincr(w);
            writeincr(sout, y);
        }
    }
}
