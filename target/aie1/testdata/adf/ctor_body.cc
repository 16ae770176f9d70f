// A requantizing kernel class whose constructor, defined outside the class, computes its
// constants from its arguments (the exponent of a scale ratio and its fixed-point value, as
// quantized kernels do), with the output vector type chosen by std::conditional on
// std::is_same and an accumulator plus a vector (aie::add); written for sumac's tests.
// Requant<int8, 64>(0.05, 0.2, 3): the constructor runs once, before the first call.
#include <adf.h>
#include <assert.h>
#include <cmath>
#include <type_traits>
#include "aie_api/aie.hpp"

template <typename T, int N>
class Requant {
  private:
    float scale_in;
    float scale_out;
    T zero;
    int bits;
    int16_t mult;

  public:
    Requant(float scale_in, float scale_out, T zero);

    void run(input_window<int16> *in, output_window<T> *out);

    static void registerKernelClass() { REGISTER_FUNCTION(Requant::run); }
};

template <typename T, int N>
Requant<T, N>::Requant(float scale_in, float scale_out, T zero)
    : scale_in(scale_in), scale_out(scale_out), zero(zero) {
    set_sat();
    set_rnd(rnd_sym_inf);
    float ratio = scale_in < scale_out ? scale_in / scale_out : 1.0f;
    bits = 14 - log(ratio) / log(2);
    mult = float2fix(ratio, bits);
    assert(bits <= 24);
}

template <typename T, int N>
void Requant<T, N>::run(input_window<int16> *in, output_window<T> *out) {
    using V16 = typename std::conditional<(std::is_same<T, int8>::value), v16int8, v16uint8>::type;
    for (int i = 0; i < N; i += 16) {
        aie::vector<int16, 16> x = window_readincr_v16(in);
        aie::accum<acc48, 16> acc = aie::mul(x, mult);
        acc = aie::add(acc, aie::broadcast<int16, 16>(zero));
        V16 r = acc.to_vector<T>(bits);
        window_writeincr(out, r);
    }
}
