// The AI Engine API's element-wise operations and the intrinsic forms they lower to, written for
// sumac's tests: loads and stores, iterators, broadcast, zeros, concat, extract/insert, get/set,
// add/sub/max/min, mul/mac/msc (vector x vector, x scalar, x vector element), to_vector with a shift,
// from_vector, the simple mul/mac intrinsics, the short fp forms and fpadd/fpmax, and the tile's
// cycle counter.
#include <adf.h>
#include <aie_api/aie.hpp>

void api_mix(adf::input_buffer<int16, adf::extents<64>> &__restrict a, adf::input_buffer<float, adf::extents<32>> &__restrict f,
             adf::input_buffer<int32, adf::extents<16>> &__restrict w, adf::output_buffer<int16> &__restrict o16,
             adf::output_buffer<float> &__restrict of, adf::output_buffer<int32> &__restrict o32) {
    aie::tile tile = aie::tile::current();
    unsigned t0 = tile.cycles();
    auto pa = aie::begin_vector<16>(a);
    aie::vector<int16, 16> x = *pa++;
    aie::vector<int16, 16> y = *pa++;
    aie::vector<int16, 16> s = aie::broadcast<int16, 16>(3);
    aie::accum<acc48, 16> acc = aie::mul(x, y);
    acc = aie::mac(acc, x, s);
    acc = aie::msc(acc, y, (int16)2);
    aie::vector<int16, 16> r = acc.to_vector<int16>(2);
    r = aie::max(r, aie::sub(x, y));
    r = aie::min(r, aie::add(x, s));
    aie::vector<int16, 8> lo = r.extract<8>(0);
    aie::vector<int16, 8> hi = r.extract<8>(1);
    v8acc48 m8 = mul(lo, hi);        // the simple lane-by-lane intrinsic
    m8 = mac(m8, hi, hi);
    r.insert(1, srs(m8, 1));
    r.set(r.get(3) + 1, 0);
    aie::store_v(a.data() + 0, r);   // an input buffer is memory too; sumac compares it
    auto po = aie::begin_vector<16>(o16);
    *po++ = r;
    aie::accum<acc48, 16> up;
    up.from_vector(y, 1);
    *po = up.to_vector<int16>(1);

    aie::vector<float, 8> f0 = aie::load_v<8>(f.data());
    aie::vector<float, 8> f1 = aie::load_v<8>(f.data() + 8);
    aie::accum<accfloat, 8> fa = aie::mul(f0, f1);
    fa = aie::mac(fa, f1, 0.5f);
    fa = aie::mac(fa, f0, f1[5]);    // an element of a vector: its lane selected (zstart 5)
    aie::vector<float, 8> g = fa.to_vector<float>();
    g = aie::max(g, aie::zeros<float, 8>());
    g = aie::add(g, f0);
    v8float h = fpmac(g, f0, f1);    // the short fpmac form
    h = fpmax(h, aie::concat(f0, f1), 4, 0x76543210);
    h = fpadd(h, f1);
    aie::vector<float, 16> f16 = aie::concat(g, h);
    aie::accum<accfloat, 16> fb = aie::mul(f16, 2.0f);
    fb = aie::msc(fb, f16[11], f16); // the element first, from the upper half of 16 lanes
    aie::store_v(of.data(), fb.to_vector<float>().extract<8>(0));
    aie::store_v(of.data() + 8, aie::sub(fb.to_vector<float>().extract<8>(1), g));

    aie::vector<int32, 8> w0 = aie::load_v<8>(w.data());
    aie::vector<int32, 8> w1 = aie::load_v<8>(w.data() + 8);
    aie::accum<acc80, 8> wa = aie::mul(w0, w1);
    wa = aie::mac(wa, w1, 7);
    aie::store_v(o32.data(), wa.to_vector<int32>(3));
    unsigned t1 = tile.cycles();
    o32.data()[8] = t1 - t0;
}
