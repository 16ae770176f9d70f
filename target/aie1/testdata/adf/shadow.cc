// A loop counter shadowed by a nested loop's own `int i` (as onnx2versal's GemmReluMKKN
// writes it), written for sumac's tests: the outer loop stays a counted loop.
#include <adf.h>

void shadow(input_window<int32> *__restrict in, output_window<int32> *__restrict out) {
    for (int i = 0; i < 4; i++) {
        int32 x = window_readincr(in);
        for (int i = 0; i < 3; i++) {
            window_writeincr(out, x + i);
        }
        window_writeincr(out, x * i);
    }
}
