// A pointer into a vector register's lanes (`float *p = (float *) &acc;`, as onnx2versal's
// GemmReluMKKN writes its last partial vector), written for sumac's tests: p[i] reads lane i of
// the vector's current value, p[i] = x writes it.
#include <adf.h>

void lane_view(input_window<int32> *__restrict in, output_window<int32> *__restrict out) {
    v8int32 acc = window_readincr_v8(in);
    int32 *p = (int32 *)&acc;
    for (int i = 0; i < 4; i++) {
        window_writeincr(out, p[i]);
    }
    p[5] = p[0] + p[1];
    window_writeincr(out, acc);
    acc = window_readincr_v8(in);
    window_writeincr(out, p[5]);
}
