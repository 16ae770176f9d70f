// A blocked matrix product over a nest of small constant loops, block addresses computed as
// A + (z * 2 + i) * size (the way the AI Engine API's training kernels write it), written for
// sumac's tests of loop flattening and pointer-addition forwarding (backend/flatten.go).
#include <adf.h>
#include <aie_api/aie.hpp>

void blocked(input_window<int16> *__restrict wa, input_window<int16> *__restrict wb,
             output_window<int16> *__restrict wc) {
    using MMUL = aie::mmul<4, 4, 4, int16, int16>;
    const int16 *A = reinterpret_cast<const int16 *>(wa->ptr);
    const int16 *B = reinterpret_cast<const int16 *>(wb->ptr);
    int16 *C = reinterpret_cast<int16 *>(wc->ptr);
    for (unsigned z = 0; z < 2; z++) {
        for (unsigned j = 0; j < 2; j++) {
            unsigned i = 0;
            const int16 *pa = A + (z * 2 + i) * MMUL::size_A;
            const int16 *pb = B + (i * 2 + j) * MMUL::size_B;
            MMUL c;
            c.mul(aie::load_v<MMUL::size_A>(pa), aie::load_v<MMUL::size_B>(pb));
            for (i = 1; i < 2; ++i) {
                pa = A + (z * 2 + i) * MMUL::size_A;
                pb = B + (i * 2 + j) * MMUL::size_B;
                c.mac(aie::load_v<MMUL::size_A>(pa), aie::load_v<MMUL::size_B>(pb));
            }
            aie::store_v(C + (z * 2 + j) * MMUL::size_C, c.template to_vector<int16>(2));
        }
    }
}
