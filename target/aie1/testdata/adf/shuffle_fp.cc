// fpshuffle in its forms (AI Engine intrinsics, "Simple Float Vector Lane Selection"), written
// for sumac's tests: a v8float selection with a run-time start (as onnx2versal's 5x5
// convolution realigns its weights), a v16float one with a constant start, the identity, and
// the result used by an fpmac.
#include <adf.h>

void shuffle_fp(input_window<float> *__restrict in, output_window<float> *__restrict out) {
    v8float acc = null_v8float();
    int zs = 1;
    for (int i = 0; i < 4; i++) {
        v8float a = window_readincr_v8(in);
        v16float b = concat(a, window_readincr_v8(in));
        v8float w = fpshuffle(a, zs, 0x00043210);
        v8float u = fpshuffle(b, 5, 0xfedcba98);
        window_writeincr(out, w);
        window_writeincr(out, fpshuffle(u));
        acc = fpmac(acc, b, 0, 0x76543210, w, 0, 0x00000000);
        zs = (zs + 3) & 0x7;
    }
    window_writeincr(out, acc);
}
