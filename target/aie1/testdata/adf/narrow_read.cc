// An int8 window element read into an int (C++'s implicit conversion of the value read),
// written for sumac's tests.
#include <adf.h>

void narrow_read(input_window<int8> *__restrict in, output_window<int32> *__restrict out) {
    for (int i = 0; i < 16; i++) {
        int x = window_readincr(in);
        window_writeincr(out, x * 3 - 1);
    }
}
