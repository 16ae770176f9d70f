// A 512-bit input rewritten by upd_w pairs in a small constant loop, and a weight vector read
// through one pointer at every MAC, written for sumac's tests of backend/flatten.go (the loop
// is flattened; the repeated loads of *w become one per statement list).
#include <adf.h>

void upd_chain(input_window<float> *__restrict in, input_window<float> *__restrict wt,
               output_window<float> *__restrict out) {
    v16float data = null_v16float();
    v8float acc1 = null_v8float();
    v8float acc2 = null_v8float();
    v8float *w = (v8float *)wt->ptr;
    for (int c = 0; c < 3; c++) {
        data = upd_w(data, 0, window_readincr_v8(in));
        data = upd_w(data, 1, window_readincr_v8(in));
        acc1 = fpmac(acc1, data, 0, 0x76543210, *w, 0, 0x00000000);
        acc1 = fpmac(acc1, data, 1, 0x76543210, *w, 1, 0x00000000);
        data = upd_w(data, 0, window_readincr_v8(in));
        data = upd_w(data, 1, window_readincr_v8(in));
        acc2 = fpmac(acc2, data, 0, 0x76543210, *w, 2, 0x00000000);
        acc2 = fpmac(acc2, data, 1, 0x76543210, *w, 3, 0x00000000);
    }
    window_writeincr(out, acc1);
    window_writeincr(out, acc2);
}
