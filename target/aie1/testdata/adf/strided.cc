// Pointer arithmetic in loops, written for sumac's tests of backend/flatten.go: a row pointer
// p + 2 * i read at two offsets in a pipelined loop (forwarded into induction pointers), a
// down-counting loop of four iterations (flattened), and a counter read after its loop.
#include <adf.h>

void strided(input_window<int32> *__restrict in, output_window<int32> *__restrict out) {
    const int32 *p = reinterpret_cast<const int32 *>(in->ptr);
    int32 *q = reinterpret_cast<int32 *>(out->ptr);
    for (int i = 0; i < 16; i++) chess_prepare_for_pipelining {
        const int32 *r = p + 2 * i;
        q[i] = r[1] - r[0];
    }
    int32 acc = 0;
    int k;
    for (k = 4; k > 0; k--) {
        const int32 *s = p + 3 * k;
        acc += s[1];
    }
    q[16] = acc;
    q[17] = k;
}
