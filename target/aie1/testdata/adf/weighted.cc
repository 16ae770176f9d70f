// A function template with buffer ports and a run-time parameter array (UG1079 "Buffer
// Ports", "Runtime Parameter Specification"), written for sumac's tests: the graph creates it
// with kernel::create(weighted<64, 2>), read as --instance 'weighted<64, 2>'.
#include <adf.h>

template <int N, int SHIFT>
void weighted(adf::input_buffer<int16, adf::extents<N>> &__restrict x, adf::output_buffer<int16> &__restrict y,
              const int16 (&w)[16]) {
    int16 *px = x.data();
    int16 *py = y.data();
    v16int16 wv = *(v16int16 *)w;
    for (int i = 0; i < N / 16; i++)
        chess_prepare_for_pipelining
        chess_loop_range(2, )
    {
        v16int16 v = *(v16int16 *)&px[16 * i];
        v16acc48 a = mul16(concat(v, null_v16int16()), 0, 0x43526170, 0x07162534, 0x3120, wv, 0, 0x76543210, 0xFEDCBA98, 1);
        *(v16int16 *)&py[16 * i] = srs(a, SHIFT);
    }
}
