// A load indexed by an outer loop's counter inside an inner loop (as onnx2versal's 5x5
// convolutions read bias[m] in their pixel loop), written for sumac's tests: the backend
// computes the address at run time (a shift and a pointer add).
#include <adf.h>

void outer_index(input_window<int32> *__restrict in, output_window<int32> *__restrict out) {
    const int32 *p = reinterpret_cast<const int32 *>(in->ptr);
    for (int m = 0; m < 6; m++) {
        for (int h = 0; h < 5; h++) {
            int32 b = p[m];
            int32 c = p[2 * m + 3];
            for (int w = 0; w < 8; w++) chess_prepare_for_pipelining {
                window_writeincr(out, b + c * w);
            }
        }
    }
}
