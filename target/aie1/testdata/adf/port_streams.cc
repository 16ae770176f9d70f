// Port-number stream moves, written for sumac's tests: getf_wss(n) reads a v4float from the
// kernel's n-th input stream, put_wms(n, v) writes 128 bits to its n-th output stream (the
// difference a - b tells the two input ports apart).
#include <adf.h>

void port_streams(input_stream<float> *__restrict a, input_stream<float> *__restrict b,
                  output_stream<float> *__restrict out) {
    v8float x = null_v8float();
    v8float y = null_v8float();
    for (int i = 0; i < 8; i++) {
        x = upd_v(x, 0, getf_wss(0));
        y = upd_v(y, 0, getf_wss(1));
        put_wms(0, ext_v(fpsub(x, y), 0));
    }
}
