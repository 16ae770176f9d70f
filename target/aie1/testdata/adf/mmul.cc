// aie::mmul over buffer ports (the AI Engine API, "mmul.hpp"; UG1079 "Matrix Multiplication"),
// written for sumac's tests: C (M x N) = A (M x KK) * B (KK x N), A and B stored as
// consecutive M x K and K x N tiles, K at a time into one mmul. The graph creates it with
// kernel::create(matmul<4, 4, 4, int16, int16, 16>), read as
// --instance 'matmul<4, 4, 4, int16, int16, 16>'; the other shapes sumac lowers run the same way.
#include <adf.h>
#include <aie_api/aie.hpp>

template <unsigned M, unsigned K, unsigned N, typename TA, typename TB, unsigned KK>
void matmul(adf::input_buffer<TA, adf::extents<M * KK>> &__restrict a, adf::input_buffer<TB, adf::extents<KK * N>> &__restrict b,
            adf::output_buffer<TA> &__restrict c) {
    using MMUL = aie::mmul<M, K, N, TA, TB>;
    auto pa = aie::begin_vector<M * K>(a);
    auto pb = aie::begin_vector<K * N>(b);
    MMUL m;
    m.mul(*pa++, *pb++);
    for (unsigned k = 1; k < KK / K; k++)
        chess_prepare_for_pipelining
    {
        m.mac(*pa++, *pb++);
    }
    auto pc = aie::begin_vector<M * N>(c);
    *pc = m.template to_vector<TA>(2);
}
