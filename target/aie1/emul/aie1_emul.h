// aie1_emul.h: a C++17 emulation of the AIE1 kernel language subset that sumac supports
// (target/aie1/cfront), so that a kernel written with AIE1 intrinsics compiles with g++ and runs on
// the host with the hardware's arithmetic. Written for sumac; it shares no code with the AMD
// headers. Semantics follow the public documentation cited at each function and are the same
// as sumac's Go interpreter (target/aie1/kernel sem_*.go), which `sumac sim` checks bit for bit.
//
// Compile with: g++ -std=c++17 -fno-strict-aliasing -ffp-contract=off
//   -fno-strict-aliasing: kernels read vectors through casted pointers (*(v16int16*)&p[i]);
//   -ffp-contract=off: fpmac/fpmul round like the interpreter (no silent FMA contraction).
#ifndef SUMAC_AIE1_EMUL_H
#define SUMAC_AIE1_EMUL_H

#include <cmath> // the kernels' log, round, ceil ... (<math.h>'s double functions)
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits> // std::numeric_limits, which the AI Engine API headers also bring in
#include <type_traits>
#include <typeinfo>
#include <vector>

typedef int8_t int8;
typedef uint8_t uint8;
typedef int16_t int16;
typedef uint16_t uint16;
typedef int32_t int32;
typedef uint32_t uint32;

// The chess compiler's loop pragmas only guide scheduling; they do not change results.
#define chess_prepare_for_pipelining
#define chess_loop_range(...)

namespace aie_emul {

// fail reports an error the interpreter would also report (an access outside a window, an
// index out of range) and stops: exit status 3 tells the harness's caller what happened.
[[noreturn]] inline void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "aie1_emul: ");
    std::vfprintf(stderr, fmt, ap);
    std::fprintf(stderr, "\n");
    va_end(ap);
    std::exit(3);
}

// Rounding and saturation of shift-round-saturate, as in sumac's num package (num/srs.go:
// num.Round and num.Sat, with UG1079 "Rounding and Saturation Modes" as the source). The
// harness sets them from the command line before the kernel runs.
enum Round { Floor, Ceil, SymFloor, SymCeil, PosInf, NegInf, SymInf, SymZero, ConvEven, ConvOdd };
enum Sat { Saturate, NoSat, Symmetric };
inline int g_round = Floor;
inline int g_sat = Saturate;

// 128-bit integers hold accumulator lanes (48 or 80 bits) with room for exact products; a
// GCC/Clang extension, hence __extension__.
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// The accumulator trace: the lanes of every accumulator that is narrowed (srs, lsrs, bsrs,
// ubsrs), in execution order, so accumulators are compared before narrowing.
struct TraceRec {
    int lanes;
    std::vector<i128> v;
};
inline std::vector<TraceRec> g_trace;
inline long long g_narrowed = 0;  // lanes narrowed
inline long long g_saturated = 0; // lanes that saturation changed
inline long long g_macs = 0;      // multiplications performed by MAC intrinsics

// wrap reduces v to a two's-complement value of bits bits (the accumulator adders wrap;
// num.Acc.Wrap).
inline i128 wrap(i128 v, int bits) {
    int s = 128 - bits;
    return (i128)((u128)v << s) >> s;
}

// floor division by 2^s and the rounding of num.roundShift.
inline i128 round_shift(i128 a, int s, int mode) {
    if (s == 0)
        return a;
    i128 q = a >> s; // arithmetic shift: floor
    u128 mask = ((u128)1 << s) - 1;
    u128 frac = (u128)a & mask;
    if (frac == 0)
        return q;
    u128 half = (u128)1 << (s - 1);
    bool neg = a < 0, up = false;
    switch (mode) {
    case Floor: break;
    case Ceil: up = true; break;
    case SymFloor: up = neg; break;
    case SymCeil: up = !neg; break;
    default:
        if (frac > half)
            up = true;
        else if (frac < half)
            up = false;
        else {
            switch (mode) {
            case PosInf: up = true; break;
            case NegInf: up = false; break;
            case SymInf: up = !neg; break;
            case SymZero: up = neg; break;
            case ConvEven: up = (q & 1) == 1; break;
            case ConvOdd: up = (q & 1) == 0; break;
            }
        }
    }
    return up ? q + 1 : q;
}

// srs_lane is num.SRS: shift right with rounding, then saturate (or wrap) to bits.
inline long long srs_lane(i128 a, int shift, int bits, bool uns) {
    shift &= 63; // the shift-control register holds 6 bits (target/aie1/kernel sem.go SRS)
    i128 q = round_shift(a, shift, g_round);
    i128 lo, hi;
    if (uns) {
        lo = 0;
        hi = ((i128)1 << bits) - 1;
    } else {
        hi = ((i128)1 << (bits - 1)) - 1;
        lo = g_sat == Symmetric ? -hi : -hi - 1;
    }
    g_narrowed++;
    if (q >= lo && q <= hi)
        return (long long)q;
    g_saturated++;
    if (g_sat == NoSat) {
        if (uns)
            return (long long)(q & hi);
        return (long long)wrap(q, bits);
    }
    return (long long)(q < 0 ? lo : hi);
}

} // namespace aie_emul

// Mode control (UG1079 "Rounding and Saturation Modes"): set_rnd(rnd_...) and set_sat() /
// clr_sat() change the modes of every later srs-family narrowing, as the interpreter's
// OpSetRnd / OpSetSat do. The rnd_* values are num.Round's (target/aie1/kernel RoundConst).
enum {
    rnd_floor = aie_emul::Floor,
    rnd_ceil = aie_emul::Ceil,
    rnd_pos_inf = aie_emul::PosInf,
    rnd_neg_inf = aie_emul::NegInf,
    rnd_sym_inf = aie_emul::SymInf,
    rnd_sym_zero = aie_emul::SymZero,
    rnd_conv_even = aie_emul::ConvEven,
    rnd_conv_odd = aie_emul::ConvOdd
};
inline void set_rnd(int mode) { aie_emul::g_round = mode; }
inline void set_sat() { aie_emul::g_sat = aie_emul::Saturate; }
inline void clr_sat() { aie_emul::g_sat = aie_emul::NoSat; }

// float2fix(x, s): the scalar float-to-fixed conversion (UG1078 "Datatype Conversions": x
// scaled by 2^s to an int), x * 2^s rounded to nearest, ties to even (llvm-aie selects the same
// FLT2FX for lrint), saturated to int, as target/aie1/cfront's constructor evaluation
// computes it (ctorbody.go).
inline int float2fix(float x, int s) {
    double v = std::nearbyint((double)x * __builtin_ldexp(1.0, s));
    if (v != v) return 0;
    if (v >= 2147483647.0) return 2147483647;
    if (v <= -2147483648.0) return (-2147483647 - 1);
    return (int)v;
}

// Vectors: N lanes of T, lane 0 in the lowest address (UG1079 "Vector Registers").
// Registers that are never written read as zero, like the interpreter's.
template <typename T, int N> struct aie_vec {
    T e[N];
    aie_vec() : e{} {}
    T &operator[](int i) { return e[i]; }
    const T &operator[](int i) const { return e[i]; }
    // the AI Engine API's member functions (aie::vector, "vector.hpp"); an index out of range
    // is an error, as in the interpreter
    static constexpr unsigned size() { return N; }
    T get(int i) const;
    aie_vec &set(T v, int i);
    template <int M> aie_vec<T, M> extract(int i) const;
    template <int M> aie_vec &insert(int i, const aie_vec<T, M> &v);
    template <int M> aie_vec<T, M> grow(int pos = 0) const;
    // an accum<accfloat, N> is a float vector on AIE1 ("accum_native_types.hpp"); to_vector()
    // without a type gives its floats
    template <typename U = T> aie_vec<U, N> to_vector(int shift = 0) const {
        aie_vec<U, N> r;
        for (int i = 0; i < N; i++)
            r.e[i] = (U)e[i];
        return r;
    }
    // vector::pack<T>(): declared so that a file whose other kernels use it compiles; the
    // front end does not lower it, so no kernel sumac runs calls it
    template <typename U> aie_vec<U, N> pack() const;
    // accum<accfloat, N>::from_vector(v): the float lanes themselves (the shift applies to
    // integer accumulators only)
    aie_vec &from_vector(const aie_vec<T, N> &v, int shift = 0) {
        (void)shift;
        *this = v;
        return *this;
    }
};

// Accumulators: N lanes of BITS-bit two's-complement integers (UG1079 "Accumulator
// Registers": 48-bit lanes for 8/16-bit products, 80-bit for 32x32).
template <typename T, int N> struct aie_vec;
template <int BITS, int N> struct aie_acc {
    aie_emul::i128 e[N];
    aie_acc() : e{} {}
    static constexpr unsigned size() { return N; }
    // accum::to_vector<T>(shift): shift-round-saturate (srs, lsrs, bsrs, ubsrs; API "accum.hpp")
    template <typename T> aie_vec<T, N> to_vector(int shift = 0) const;
    // accum::from_vector(v, shift): ups / lups
    template <typename T> aie_acc &from_vector(const aie_vec<T, N> &v, int shift = 0);
};

#define AIE_VEC_TYPES(T, n1, n2, n3, n4)                                                                               \
    typedef aie_vec<T, n1> v##n1##T;                                                                                   \
    typedef aie_vec<T, n2> v##n2##T;                                                                                   \
    typedef aie_vec<T, n3> v##n3##T;                                                                                   \
    typedef aie_vec<T, n4> v##n4##T;
AIE_VEC_TYPES(int8, 16, 32, 64, 128)
AIE_VEC_TYPES(uint8, 16, 32, 64, 128)
AIE_VEC_TYPES(int16, 8, 16, 32, 64)
AIE_VEC_TYPES(uint16, 8, 16, 32, 64)
AIE_VEC_TYPES(int32, 4, 8, 16, 32)
AIE_VEC_TYPES(uint32, 4, 8, 16, 32)
AIE_VEC_TYPES(float, 4, 8, 16, 32)
#undef AIE_VEC_TYPES
typedef aie_acc<48, 8> v8acc48;
typedef aie_acc<48, 16> v16acc48;
typedef aie_acc<80, 4> v4acc80;
typedef aie_acc<80, 8> v8acc80;

// undef_T() and null_T(): undef gives a register with no defined contents; like the
// interpreter, the emulation gives zeros, which is one of the values the hardware may hold.
#define AIE_UNDEF_NULL(T)                                                                                              \
    inline T undef_##T() { return T(); }                                                                               \
    inline T null_##T() { return T(); }
#define AIE_UNDEF_NULL4(E, n1, n2, n3, n4)                                                                             \
    AIE_UNDEF_NULL(v##n1##E) AIE_UNDEF_NULL(v##n2##E) AIE_UNDEF_NULL(v##n3##E) AIE_UNDEF_NULL(v##n4##E)
AIE_UNDEF_NULL4(int8, 16, 32, 64, 128)
AIE_UNDEF_NULL4(uint8, 16, 32, 64, 128)
AIE_UNDEF_NULL4(int16, 8, 16, 32, 64)
AIE_UNDEF_NULL4(uint16, 8, 16, 32, 64)
AIE_UNDEF_NULL4(int32, 4, 8, 16, 32)
AIE_UNDEF_NULL4(uint32, 4, 8, 16, 32)
AIE_UNDEF_NULL4(float, 4, 8, 16, 32)
AIE_UNDEF_NULL(v8acc48)
AIE_UNDEF_NULL(v16acc48)
AIE_UNDEF_NULL(v4acc80)
AIE_UNDEF_NULL(v8acc80)
#undef AIE_UNDEF_NULL4
#undef AIE_UNDEF_NULL

// ---- Element-wise operators -------------------------------------------------------------
// operator+ / operator- on integer vectors wrap modulo 2^bits (the vector ALU does not
// saturate); on float vectors they round once; on accumulators they wrap to the lane width.
template <typename T, int N> aie_vec<T, N> operator+(const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    aie_vec<T, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = (T)(a.e[i] + b.e[i]);
    return r;
}
template <typename T, int N> aie_vec<T, N> operator-(const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    aie_vec<T, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = (T)(a.e[i] - b.e[i]);
    return r;
}
template <int B, int N> aie_acc<B, N> operator+(const aie_acc<B, N> &a, const aie_acc<B, N> &b) {
    aie_acc<B, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = aie_emul::wrap(a.e[i] + b.e[i], B);
    return r;
}
template <int B, int N> aie_acc<B, N> operator-(const aie_acc<B, N> &a, const aie_acc<B, N> &b) {
    aie_acc<B, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = aie_emul::wrap(a.e[i] - b.e[i], B);
    return r;
}

// operator+(v16acc48, v16int16) and friends add vector lanes to accumulator lanes
// (intrinsics reference, group intr_gpvectorop_arit; target/aie1/kernel sem.go AccAddVec).
template <int B, int N, typename T> aie_acc<B, N> operator+(const aie_acc<B, N> &a, const aie_vec<T, N> &b) {
    aie_acc<B, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = aie_emul::wrap(a.e[i] + (aie_emul::i128)b.e[i], B);
    return r;
}
template <int B, int N, typename T> aie_acc<B, N> operator-(const aie_acc<B, N> &a, const aie_vec<T, N> &b) {
    aie_acc<B, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = aie_emul::wrap(a.e[i] - (aie_emul::i128)b.e[i], B);
    return r;
}

// unpack: 8-bit lanes widened to 16 bits, int8 sign-extended and uint8 zero-extended
// (intrinsics reference, group intr_gpvectorconv_pack; target/aie1/kernel Unpack).
template <int N> aie_vec<int16_t, N> unpack(const aie_vec<int8_t, N> &v) {
    aie_vec<int16_t, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = v.e[i];
    return r;
}
template <int N> aie_vec<int16_t, N> unpack(const aie_vec<uint8_t, N> &v) {
    aie_vec<int16_t, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = v.e[i];
    return r;
}

// ---- Update, extract, concat (UG1079 "Update, Extract, and Shift") -----------------------
// upd_v/w/x replace the 128/256/512-bit part idx of a wider vector; ext_v/w/x return it.
#define AIE_UPD_EXT(suffix, BITS)                                                                                      \
    template <typename T, int N> aie_vec<T, N> upd_##suffix(aie_vec<T, N> b, int idx,                                 \
                                                           const aie_vec<T, BITS / 8 / (int)sizeof(T)> &v) {          \
        const int P = BITS / 8 / (int)sizeof(T);                                                                       \
        static_assert(N > P, "upd_" #suffix ": the buffer must be wider than the part");                              \
        if (idx < 0 || idx >= N / P)                                                                                   \
            aie_emul::fail("upd_" #suffix ": index %d out of range 0..%d", idx, N / P - 1);                           \
        for (int i = 0; i < P; i++)                                                                                    \
            b.e[idx * P + i] = v.e[i];                                                                                 \
        return b;                                                                                                      \
    }                                                                                                                  \
    template <typename T, int N> aie_vec<T, BITS / 8 / (int)sizeof(T)> ext_##suffix(const aie_vec<T, N> &b, int idx) { \
        const int P = BITS / 8 / (int)sizeof(T);                                                                       \
        static_assert(N > P, "ext_" #suffix ": the buffer must be wider than the part");                              \
        if (idx < 0 || idx >= N / P)                                                                                   \
            aie_emul::fail("ext_" #suffix ": index %d out of range 0..%d", idx, N / P - 1);                           \
        aie_vec<T, P> r;                                                                                               \
        for (int i = 0; i < P; i++)                                                                                    \
            r.e[i] = b.e[idx * P + i];                                                                                 \
        return r;                                                                                                      \
    }
AIE_UPD_EXT(v, 128)
AIE_UPD_EXT(w, 256)
AIE_UPD_EXT(x, 512)
#undef AIE_UPD_EXT

// concat joins 2 or 4 vectors (or accumulators), the first in the low lanes.
template <typename T, int N> aie_vec<T, 2 * N> concat(const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    aie_vec<T, 2 * N> r;
    for (int i = 0; i < N; i++) {
        r.e[i] = a.e[i];
        r.e[N + i] = b.e[i];
    }
    return r;
}
template <typename T, int N>
aie_vec<T, 4 * N> concat(const aie_vec<T, N> &a, const aie_vec<T, N> &b, const aie_vec<T, N> &c,
                         const aie_vec<T, N> &d) {
    return concat(concat(a, b), concat(c, d));
}
template <int B, int N> aie_acc<B, 2 * N> concat(const aie_acc<B, N> &a, const aie_acc<B, N> &b) {
    aie_acc<B, 2 * N> r;
    for (int i = 0; i < N; i++) {
        r.e[i] = a.e[i];
        r.e[N + i] = b.e[i];
    }
    return r;
}
template <int B, int N>
aie_acc<B, 4 * N> concat(const aie_acc<B, N> &a, const aie_acc<B, N> &b, const aie_acc<B, N> &c,
                         const aie_acc<B, N> &d) {
    return concat(concat(a, b), concat(c, d));
}

// ext_elem / upd_elem read or replace one lane.
template <typename T, int N> T ext_elem(const aie_vec<T, N> &v, int idx) {
    if (idx < 0 || idx >= N)
        aie_emul::fail("ext_elem: index %d out of range 0..%d", idx, N - 1);
    return v.e[idx];
}
template <typename T, int N, typename S> aie_vec<T, N> upd_elem(aie_vec<T, N> v, int idx, S s) {
    if (idx < 0 || idx >= N)
        aie_emul::fail("upd_elem: index %d out of range 0..%d", idx, N - 1);
    v.e[idx] = (T)s;
    return v;
}

// ---- Shift-round-saturate and upshift (UG1079 "Shift-Round-Saturate"; intrinsics srs,
// lsrs, bsrs, ubsrs, ups, lups) -------------------------------------------------------------
template <typename T, int B, int N> aie_vec<T, N> aie_narrow(const aie_acc<B, N> &a, int shift, int bits, bool uns) {
    aie_emul::TraceRec rec{N, std::vector<aie_emul::i128>(a.e, a.e + N)};
    aie_emul::g_trace.push_back(rec);
    aie_vec<T, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = (T)aie_emul::srs_lane(a.e[i], shift, bits, uns);
    return r;
}
inline v16int16 srs(const v16acc48 &a, int s) { return aie_narrow<int16, 48, 16>(a, s, 16, false); }
inline v8int16 srs(const v8acc48 &a, int s) { return aie_narrow<int16, 48, 8>(a, s, 16, false); }
inline v8int32 srs(const v8acc80 &a, int s) { return aie_narrow<int32, 80, 8>(a, s, 32, false); }
inline v4int32 srs(const v4acc80 &a, int s) { return aie_narrow<int32, 80, 4>(a, s, 32, false); }
inline v8int32 lsrs(const v8acc48 &a, int s) { return aie_narrow<int32, 48, 8>(a, s, 32, false); }
inline v16int32 lsrs(const v16acc48 &a, int s) { return aie_narrow<int32, 48, 16>(a, s, 32, false); }
inline v16int8 bsrs(const v16acc48 &a, int s) { return aie_narrow<int8, 48, 16>(a, s, 8, false); }
inline v16uint8 ubsrs(const v16acc48 &a, int s) { return aie_narrow<uint8, 48, 16>(a, s, 8, true); }

// ups moves a vector into an accumulator shifted left, wrapped to the lane width (num.UPS).
template <int B, typename T, int N> aie_acc<B, N> aie_ups(const aie_vec<T, N> &v, int shift) {
    shift &= 63; // as srs: 6 bits of shift
    aie_acc<B, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = aie_emul::wrap((aie_emul::i128)((aie_emul::u128)(aie_emul::i128)v.e[i] << shift), B);
    return r;
}
inline v16acc48 ups(const v16int16 &v, int s) { return aie_ups<48>(v, s); }
inline v8acc48 ups(const v8int16 &v, int s) { return aie_ups<48>(v, s); }
inline v8acc80 ups(const v8int32 &v, int s) { return aie_ups<80>(v, s); }
inline v4acc80 ups(const v4int32 &v, int s) { return aie_ups<80>(v, s); }
inline v8acc48 lups(const v8int32 &v, int s) { return aie_ups<48>(v, s); }
inline v16acc48 lups(const v16int32 &v, int s) { return aie_ups<48>(v, s); }

// ---- MAC intrinsics -----------------------------------------------------------------------
namespace aie_emul {

inline int nib(unsigned v, int i) { return (v >> (4 * i)) & 0xF; }

// Lane offsets from xoffsets (lanes 0-7) and xoffsets_hi (lanes 8-15), 4 bits each
// (UG1079 "MAC Intrinsics").
inline int lane_nib(unsigned lo, unsigned hi, int lane) { return lane < 8 ? nib(lo, lane) : nib(hi, lane - 8); }

// sel16 is the X selection of the 16-bit modes (UG1079 "MAC on 16x16 bits"): lanes come in
// pairs; the even lane's nibble is an absolute offset in 32-bit units, the odd lane's is
// relative: first + nibble + 1. Each picks two 16-bit values; the four values of a lane pair
// form a 2x2 block that xsquare permutes (nibble k, lowest first, gives the source of block
// position k: even lane col 0, even col 1, odd col 0, odd col 1). Example from the page:
// 0x24 selects {8, 9} for the even lane and {14, 15} for the odd lane. `pairbase` is the
// offset of the column pair (xstep times the pair index for mac8).
inline int sel16(int xstart, unsigned xoffs, unsigned xoffs_hi, unsigned xsquare, int lane, int col, int pairbase, int n) {
    int even = lane & ~1;
    int a = lane_nib(xoffs, xoffs_hi, even);
    int b = lane_nib(xoffs, xoffs_hi, even + 1);
    int pos = (lane & 1) * 2 + (col & 1);       // position in the 2x2 block
    int src = nib(xsquare, pos) & 3;            // which of the four selected values
    int base = (src < 2) ? 2 * a : 2 * (a + b + 1);
    int idx = xstart + pairbase + base + (src & 1);
    return ((idx % n) + n) % n;
}

} // namespace aie_emul

// int16 x int16, 16 lanes x 2 columns: mul16/mac16/msc16 (intrinsics reference, group
// vect_mult_16x16). Z lane i, column c: z[zstart + zoff(i) + c*zstep] (16-bit granularity).
template <int XN>
v16acc48 aie_mac16_16(v16acc48 acc, const aie_vec<int16, XN> &x, int xstart, unsigned xoffs, unsigned xoffs_hi,
                      unsigned xsquare, const v16int16 &z, int zstart, unsigned zoffs, unsigned zoffs_hi, int zstep,
                      int sign) {
    for (int i = 0; i < 16; i++) {
        aie_emul::i128 s = acc.e[i];
        for (int c = 0; c < 2; c++) {
            int xi = aie_emul::sel16(xstart, xoffs, xoffs_hi, xsquare, i, c, 0, XN);
            int zi = ((zstart + aie_emul::lane_nib(zoffs, zoffs_hi, i) + c * zstep) % 16 + 16) % 16;
            s += sign * (aie_emul::i128)x.e[xi] * z.e[zi];
        }
        acc.e[i] = aie_emul::wrap(s, 48);
    }
    aie_emul::g_macs += 32;
    return acc;
}
#define AIE_MAC16_16(XN)                                                                                               \
    inline v16acc48 mac16(v16acc48 a, const v##XN##int16 &x, int xs, unsigned xo, unsigned xoh, unsigned xq,          \
                          const v16int16 &z, int zs, unsigned zo, unsigned zoh, int zst) {                             \
        return aie_mac16_16(a, x, xs, xo, xoh, xq, z, zs, zo, zoh, zst, 1);                                            \
    }                                                                                                                  \
    inline v16acc48 msc16(v16acc48 a, const v##XN##int16 &x, int xs, unsigned xo, unsigned xoh, unsigned xq,          \
                          const v16int16 &z, int zs, unsigned zo, unsigned zoh, int zst) {                             \
        return aie_mac16_16(a, x, xs, xo, xoh, xq, z, zs, zo, zoh, zst, -1);                                           \
    }                                                                                                                  \
    inline v16acc48 mul16(const v##XN##int16 &x, int xs, unsigned xo, unsigned xoh, unsigned xq, const v16int16 &z,    \
                          int zs, unsigned zo, unsigned zoh, int zst) {                                                \
        return aie_mac16_16(v16acc48(), x, xs, xo, xoh, xq, z, zs, zo, zoh, zst, 1);                                   \
    }
AIE_MAC16_16(32)
AIE_MAC16_16(64)
#undef AIE_MAC16_16

// int16 x int16, 8 lanes x 4 columns: mul8/mac8/msc8. Columns come in pairs; pair p starts
// p*xstep further (UG1079 "MAC on 16x16 bits": "the step applies to the next 2x2 block").
// Z lane i, column c: z[zstart + zoff(i) + c*zstep].
template <int XN>
v8acc48 aie_mac8_16(v8acc48 acc, const aie_vec<int16, XN> &x, int xstart, unsigned xoffs, int xstep, unsigned xsquare,
                    const v16int16 &z, int zstart, unsigned zoffs, int zstep, int sign) {
    for (int i = 0; i < 8; i++) {
        aie_emul::i128 s = acc.e[i];
        for (int c = 0; c < 4; c++) {
            int xi = aie_emul::sel16(xstart, xoffs, 0, xsquare, i, c, (c / 2) * xstep, XN);
            int zi = ((zstart + aie_emul::nib(zoffs, i) + c * zstep) % 16 + 16) % 16;
            s += sign * (aie_emul::i128)x.e[xi] * z.e[zi];
        }
        acc.e[i] = aie_emul::wrap(s, 48);
    }
    aie_emul::g_macs += 32;
    return acc;
}
#define AIE_MAC8_16(XN)                                                                                                \
    inline v8acc48 mac8(v8acc48 a, const v##XN##int16 &x, int xs, unsigned xo, int xst, unsigned xq,                  \
                        const v16int16 &z, int zs, unsigned zo, int zst) {                                             \
        return aie_mac8_16(a, x, xs, xo, xst, xq, z, zs, zo, zst, 1);                                                  \
    }                                                                                                                  \
    inline v8acc48 msc8(v8acc48 a, const v##XN##int16 &x, int xs, unsigned xo, int xst, unsigned xq,                  \
                        const v16int16 &z, int zs, unsigned zo, int zst) {                                             \
        return aie_mac8_16(a, x, xs, xo, xst, xq, z, zs, zo, zst, -1);                                                 \
    }                                                                                                                  \
    inline v8acc48 mul8(const v##XN##int16 &x, int xs, unsigned xo, int xst, unsigned xq, const v16int16 &z, int zs,   \
                        unsigned zo, int zst) {                                                                        \
        return aie_mac8_16(v8acc48(), x, xs, xo, xst, xq, z, zs, zo, zst, 1);                                          \
    }
AIE_MAC8_16(32)
AIE_MAC8_16(64)
#undef AIE_MAC8_16

// int32 x int32, 8 lanes x 1 column: lmul8/lmac8/lmsc8 into 80-bit lanes (group
// vect_mult_32x32): lane i multiplies x[xstart + xoff(i)] by z[zstart + zoff(i)].
template <int XN>
v8acc80 aie_lmac8(v8acc80 acc, const aie_vec<int32, XN> &x, int xstart, unsigned xoffs, const v8int32 &z, int zstart,
                  unsigned zoffs, int sign) {
    for (int i = 0; i < 8; i++) {
        int xi = ((xstart + aie_emul::nib(xoffs, i)) % XN + XN) % XN;
        int zi = ((zstart + aie_emul::nib(zoffs, i)) % 8 + 8) % 8;
        acc.e[i] = aie_emul::wrap(acc.e[i] + sign * (aie_emul::i128)x.e[xi] * z.e[zi], 80);
    }
    aie_emul::g_macs += 8;
    return acc;
}
#define AIE_LMAC8(XN)                                                                                                  \
    inline v8acc80 lmac8(v8acc80 a, const v##XN##int32 &x, int xs, unsigned xo, const v8int32 &z, int zs,             \
                         unsigned zo) {                                                                                \
        return aie_lmac8(a, x, xs, xo, z, zs, zo, 1);                                                                  \
    }                                                                                                                  \
    inline v8acc80 lmsc8(v8acc80 a, const v##XN##int32 &x, int xs, unsigned xo, const v8int32 &z, int zs,             \
                         unsigned zo) {                                                                                \
        return aie_lmac8(a, x, xs, xo, z, zs, zo, -1);                                                                 \
    }                                                                                                                  \
    inline v8acc80 lmul8(const v##XN##int32 &x, int xs, unsigned xo, const v8int32 &z, int zs, unsigned zo) {         \
        return aie_lmac8(v8acc80(), x, xs, xo, z, zs, zo, 1);                                                          \
    }
AIE_LMAC8(16)
AIE_LMAC8(32)
#undef AIE_LMAC8

// int32 x int16, 16 lanes x 1 column: mul16/mac16/msc16 with an int32 X buffer into 48-bit
// lanes (target/aie1/kernel Form32x16): lane i multiplies x[xstart + xoff(i)] by
// z[zstart + zoff(i)], lanes 8-15 taking their offsets from the _hi words.
template <int XN>
v16acc48 aie_mac16_32x16(v16acc48 acc, const aie_vec<int32, XN> &x, int xstart, unsigned xoffs, unsigned xoffs_hi,
                         const v16int16 &z, int zstart, unsigned zoffs, unsigned zoffs_hi, int sign) {
    for (int i = 0; i < 16; i++) {
        int xi = ((xstart + aie_emul::lane_nib(xoffs, xoffs_hi, i)) % XN + XN) % XN;
        int zi = (((zstart & 15) + aie_emul::lane_nib(zoffs, zoffs_hi, i)) % 16 + 16) % 16;
        acc.e[i] = aie_emul::wrap(acc.e[i] + sign * (aie_emul::i128)x.e[xi] * z.e[zi], 48);
    }
    aie_emul::g_macs += 16;
    return acc;
}
#define AIE_MAC16_32X16(XN)                                                                                            \
    inline v16acc48 mac16(v16acc48 a, const v##XN##int32 &x, int xs, unsigned xo, unsigned xoh, const v16int16 &z,    \
                          int zs, unsigned zo, unsigned zoh) {                                                         \
        return aie_mac16_32x16(a, x, xs, xo, xoh, z, zs, zo, zoh, 1);                                                  \
    }                                                                                                                  \
    inline v16acc48 msc16(v16acc48 a, const v##XN##int32 &x, int xs, unsigned xo, unsigned xoh, const v16int16 &z,    \
                          int zs, unsigned zo, unsigned zoh) {                                                         \
        return aie_mac16_32x16(a, x, xs, xo, xoh, z, zs, zo, zoh, -1);                                                 \
    }                                                                                                                  \
    inline v16acc48 mul16(const v##XN##int32 &x, int xs, unsigned xo, unsigned xoh, const v16int16 &z, int zs,        \
                          unsigned zo, unsigned zoh) {                                                                 \
        return aie_mac16_32x16(v16acc48(), x, xs, xo, xoh, z, zs, zo, zoh, 1);                                         \
    }
AIE_MAC16_32X16(16)
AIE_MAC16_32X16(32)
#undef AIE_MAC16_32X16

// fp32, 8 lanes x 1 column: fpmul/fpmac/fpmsc. The product and the sum are each rounded to
// float (two roundings; the build disables FMA contraction).
template <int XN>
v8float aie_fpmac(v8float acc, const aie_vec<float, XN> &x, int xstart, unsigned xoffs, const v8float &z, int zstart,
                  unsigned zoffs, int mode) {
    for (int i = 0; i < 8; i++) {
        int xi = ((xstart + aie_emul::nib(xoffs, i)) % XN + XN) % XN;
        int zi = ((zstart + aie_emul::nib(zoffs, i)) % 8 + 8) % 8;
        float p = x.e[xi] * z.e[zi];
        acc.e[i] = mode == 0 ? p : mode > 0 ? acc.e[i] + p : acc.e[i] - p;
    }
    aie_emul::g_macs += 8;
    return acc;
}
#define AIE_FPMAC(XN)                                                                                                  \
    inline v8float fpmac(v8float a, const v##XN##float &x, int xs, unsigned xo, const v8float &z, int zs, unsigned zo) { \
        return aie_fpmac(a, x, xs, xo, z, zs, zo, 1);                                                                  \
    }                                                                                                                  \
    inline v8float fpmsc(v8float a, const v##XN##float &x, int xs, unsigned xo, const v8float &z, int zs, unsigned zo) { \
        return aie_fpmac(a, x, xs, xo, z, zs, zo, -1);                                                                 \
    }                                                                                                                  \
    inline v8float fpmul(const v##XN##float &x, int xs, unsigned xo, const v8float &z, int zs, unsigned zo) {         \
        return aie_fpmac(v8float(), x, xs, xo, z, zs, zo, 0);                                                          \
    }
AIE_FPMAC(8)
AIE_FPMAC(16)
AIE_FPMAC(32)
#undef AIE_FPMAC
// the short forms: lane by lane (intrinsics reference, "Advanced Float Vector Operations":
// fpmul(v8float xbuf, v8float zbuf), fpmac(v8float acc, v8float xbuf, v8float zbuf))
inline v8float fpmul(const v8float &x, const v8float &z) { return fpmul(x, 0, 0x76543210, z, 0, 0x76543210); }
inline v8float fpmac(v8float a, const v8float &x, const v8float &z) { return fpmac(a, x, 0, 0x76543210, z, 0, 0x76543210); }
inline v8float fpmsc(v8float a, const v8float &x, const v8float &z) { return fpmsc(a, x, 0, 0x76543210, z, 0, 0x76543210); }

// fpadd, fpsub, fpmax, fpmin: ret[i] = op(acc[i], xbuf[xstart + xoffs[i]]) (intrinsics
// reference, groups intr_gpvectorop_arit_adv_flt and intr_gpvectorop_word_cmp_flt); max keeps
// acc[i] unless the selected lane compares greater (target/aie1/kernel sem.go FPLane).
template <int XN> v8float aie_fplane(int op, v8float acc, const aie_vec<float, XN> &x, int xstart, unsigned xoffs) {
    for (int i = 0; i < 8; i++) {
        float b = x.e[((xstart + aie_emul::nib(xoffs, i)) % XN + XN) % XN];
        float a = acc.e[i];
        switch (op) {
        case 0: acc.e[i] = a + b; break;
        case 1: acc.e[i] = a - b; break;
        case 2: acc.e[i] = b > a ? b : a; break;
        default: acc.e[i] = b < a ? b : a; break;
        }
    }
    return acc;
}
#define AIE_FPLANE(name, op)                                                                                           \
    template <int XN> v8float name(v8float acc, const aie_vec<float, XN> &x, int xstart, unsigned xoffs) {             \
        return aie_fplane(op, acc, x, xstart, xoffs);                                                                  \
    }                                                                                                                  \
    inline v8float name(v8float acc, const v8float &x) { return aie_fplane(op, acc, x, 0, 0x76543210); }
// fpshuffle: ret[i] = xbuf[(xstart + xoffs[i]) mod N] (intrinsics reference, group
// intr_gpvectorop_vec_sel_simple_flt; target/aie1/kernel sem.go FPShuffle).
template <int XN> v8float fpshuffle(const aie_vec<float, XN> &x, int xstart, unsigned xoffs) {
    v8float r;
    for (int i = 0; i < 8; i++)
        r.e[i] = x.e[((xstart + aie_emul::nib(xoffs, i)) % XN + XN) % XN];
    return r;
}
inline v8float fpshuffle(const v8float &x) { return fpshuffle(x, 0, 0x76543210); }
AIE_FPLANE(fpadd, 0)
AIE_FPLANE(fpsub, 1)
AIE_FPLANE(fpmax, 2)
AIE_FPLANE(fpmin, 3)
#undef AIE_FPLANE

// Simple MAC intrinsics (intrinsics reference, group intr_gpvectorop_mul_simple): lane by lane
// products into an accumulator. On AIE1 they issue as one mul16 (16 lanes x 2 columns), mul8
// (8 x 4) or lmul8 (8 x 1), so the MAC count is that instruction's.
namespace aie_emul {
template <int B, int N, typename T, typename U>
aie_acc<B, N> lanewise(aie_acc<B, N> acc, const aie_vec<T, N> &a, const aie_vec<U, N> &z, int sign, long long macs) {
    for (int i = 0; i < N; i++)
        acc.e[i] = wrap(acc.e[i] + sign * (i128)a.e[i] * (i128)z.e[i], B);
    g_macs += macs;
    return acc;
}
} // namespace aie_emul
inline v16acc48 mul(const v16int16 &a, const v16int16 &b) { return aie_emul::lanewise(v16acc48(), a, b, 1, 32); }
inline v16acc48 mac(v16acc48 c, const v16int16 &a, const v16int16 &b) { return aie_emul::lanewise(c, a, b, 1, 32); }
inline v16acc48 msc(v16acc48 c, const v16int16 &a, const v16int16 &b) { return aie_emul::lanewise(c, a, b, -1, 32); }
inline v8acc48 mul(const v8int16 &a, const v8int16 &b) { return aie_emul::lanewise(v8acc48(), a, b, 1, 32); }
inline v8acc48 mac(v8acc48 c, const v8int16 &a, const v8int16 &b) { return aie_emul::lanewise(c, a, b, 1, 32); }
inline v8acc48 msc(v8acc48 c, const v8int16 &a, const v8int16 &b) { return aie_emul::lanewise(c, a, b, -1, 32); }
inline v8acc80 mul(const v8int32 &a, const v8int32 &b) { return aie_emul::lanewise(v8acc80(), a, b, 1, 8); }
inline v8acc80 mac(v8acc80 c, const v8int32 &a, const v8int32 &b) { return aie_emul::lanewise(c, a, b, 1, 8); }
inline v8acc80 msc(v8acc80 c, const v8int32 &a, const v8int32 &b) { return aie_emul::lanewise(c, a, b, -1, 8); }

// 8-bit x 8-bit, 16 lanes x 8 columns: mul16/mac16/msc16 on v64/v128 (u)int8 X and v32
// (u)int8 Z (group vect_mult_8x8; UG1079 "MAC on 8x8 bits"). The rule is the one sumac's
// interpreter implements (target/aie1/kernel mac.go DecodeMAC, Form8x8), restated:
// X: 32-bit permute granularity, xstart and xstep in bytes. Lanes come in groups of four;
// group g uses the nibble pair (2g, 2g+1) with the pair rule, selecting words Wa = base + a
// and Wb = base + a + b + 1, i.e. 16-bit units u0 u1 (Wa) u2 u3 (Wb); xsquare picks a unit for
// (lanes 4g+0/1, column 0), (4g+0/1, 1), (4g+2/3, 0), (4g+2/3, 1); an even lane takes the
// unit's low byte, an odd lane its high byte. Column block k (columns 2k, 2k+1) starts
// k*xstep bytes further.
// Z: 16-bit granularity, zstart and zstep in bytes. Group g's nibbles 2g and 2g+1 are
// absolute 16-bit units (no pairing) giving bytes z0 z1 and z2 z3; zsquare picks a byte for
// (even lane, column 0), (even, 1), (odd, 0), (odd, 1), the same for both lane pairs of the
// group ("the 2*2 index block is duplicated to construct a 4*2 block"). Block k of columns
// starts k*zstep bytes further; only the low 4 bits of zstart/2 count.
namespace aie_emul {
inline int modn(int a, int n) {
    a %= n;
    return a < 0 ? a + n : a;
}
inline void sel8x8(int xlen, int zlen, int xstart, unsigned xoffs, int xstep, unsigned xsquare, int zstart,
                   unsigned zoffs, int zstep, unsigned zsquare, int lane, int col, int *xi, int *zi) {
    if (xstart % 4 != 0 || xstep % 4 != 0)
        fail("mac16 (8-bit): xstart %d, xstep %d must be multiples of 4", xstart, xstep);
    if (zstart % 2 != 0 || zstep % 2 != 0)
        fail("mac16 (8-bit): zstart %d, zstep %d must be multiples of 2", zstart, zstep);
    int g = lane / 4, t = lane % 4, k = col / 2, cc = col % 2;
    int words = xlen / 4, units = zlen / 2;
    int a = nib(xoffs, 2 * g), b = nib(xoffs, 2 * g + 1);
    int base = xstart / 4 + k * (xstep / 4);
    int wa = modn(base + a, words), wb = modn(base + a + b + 1, words);
    int u[4] = {2 * wa, 2 * wa + 1, 2 * wb, 2 * wb + 1};
    int unit = u[nib(xsquare, 2 * (t / 2) + cc) & 3];
    *xi = 2 * unit + t % 2;
    int zbase = ((zstart / 2) & 0xF) + k * (zstep / 2);
    int u0 = modn(zbase + nib(zoffs, 2 * g), units), u1 = modn(zbase + nib(zoffs, 2 * g + 1), units);
    int zb[4] = {2 * u0, 2 * u0 + 1, 2 * u1, 2 * u1 + 1};
    *zi = zb[nib(zsquare, 2 * (t % 2) + cc) & 3];
}
} // namespace aie_emul

template <typename X, int XN, typename Z>
v16acc48 aie_mac16_8(v16acc48 acc, const aie_vec<X, XN> &x, int xstart, unsigned xoffs, int xstep, unsigned xsquare,
                     const aie_vec<Z, 32> &z, int zstart, unsigned zoffs, int zstep, unsigned zsquare, int sign) {
    for (int i = 0; i < 16; i++) {
        aie_emul::i128 s = acc.e[i];
        for (int c = 0; c < 8; c++) {
            int xi, zi;
            aie_emul::sel8x8(XN, 32, xstart, xoffs, xstep, xsquare, zstart, zoffs, zstep, zsquare, i, c, &xi, &zi);
            s += sign * (aie_emul::i128)x.e[xi] * (aie_emul::i128)z.e[zi];
        }
        acc.e[i] = aie_emul::wrap(s, 48);
    }
    aie_emul::g_macs += 128;
    return acc;
}
#define AIE_MAC16_8(XT, XN, ZT)                                                                                        \
    inline v16acc48 mac16(v16acc48 a, const v##XN##XT &x, int xs, unsigned xo, int xst, unsigned xq,                  \
                          const v32##ZT &z, int zs, unsigned zo, int zst, unsigned zq) {                               \
        return aie_mac16_8(a, x, xs, xo, xst, xq, z, zs, zo, zst, zq, 1);                                              \
    }                                                                                                                  \
    inline v16acc48 msc16(v16acc48 a, const v##XN##XT &x, int xs, unsigned xo, int xst, unsigned xq,                  \
                          const v32##ZT &z, int zs, unsigned zo, int zst, unsigned zq) {                               \
        return aie_mac16_8(a, x, xs, xo, xst, xq, z, zs, zo, zst, zq, -1);                                             \
    }                                                                                                                  \
    inline v16acc48 mul16(const v##XN##XT &x, int xs, unsigned xo, int xst, unsigned xq, const v32##ZT &z, int zs,     \
                          unsigned zo, int zst, unsigned zq) {                                                         \
        return aie_mac16_8(v16acc48(), x, xs, xo, xst, xq, z, zs, zo, zst, zq, 1);                                     \
    }
AIE_MAC16_8(int8, 64, int8)
AIE_MAC16_8(int8, 64, uint8)
AIE_MAC16_8(uint8, 64, int8)
AIE_MAC16_8(uint8, 64, uint8)
AIE_MAC16_8(int8, 128, int8)
AIE_MAC16_8(int8, 128, uint8)
AIE_MAC16_8(uint8, 128, int8)
AIE_MAC16_8(uint8, 128, uint8)
#undef AIE_MAC16_8

// ---- Windows (UG1079 "Window and Streaming Data API") -------------------------------------
// A window is a buffer in data memory and a position (ptr) that reads and writes advance.
// ADF windows are circular: every move of the position is taken modulo the window's size,
// margin included (UG1079 2023.1 "Kernel Conversion"; the ADF window header's cyclic_add),
// as in the interpreter (target/aie1/interp exec.go move). An access that runs past the end
// is an error, as in the interpreter.
template <typename T, bool OUT> struct aie_window {
    T *base;
    long long size; // elements
    T *ptr;         // the current position
    const char *name;
    long long pos() const { return (long long)(ptr - base); }
};
#define AIE_WINDOW_TYPES(T)                                                                                            \
    typedef aie_window<T, false> input_window_##T;                                                                     \
    typedef aie_window<T, true> output_window_##T;
AIE_WINDOW_TYPES(int8)
AIE_WINDOW_TYPES(uint8)
AIE_WINDOW_TYPES(int16)
AIE_WINDOW_TYPES(uint16)
AIE_WINDOW_TYPES(int32)
AIE_WINDOW_TYPES(uint32)
AIE_WINDOW_TYPES(float)
#undef AIE_WINDOW_TYPES
// the template spellings input_window<int16> (the typedefs above are these, ADF window.h)
template <typename T> using input_window = aie_window<T, false>;
template <typename T> using output_window = aie_window<T, true>;

namespace aie_emul {
template <typename T, bool OUT> inline void win_check(const aie_window<T, OUT> *w, long long n, const char *what) {
    if (w->pos() < 0 || w->pos() + n > w->size)
        fail("%s of %lld elements at element %lld of window %s (size %lld elements) is outside the window", what, n,
             w->pos(), w->name, w->size);
}
// win_move advances the position by n elements, modulo the window's size.
template <typename T, bool OUT> inline void win_move(aie_window<T, OUT> *w, long long n) {
    long long p = w->pos() + n;
    if (w->size > 0 && (p < 0 || p >= w->size)) {
        p %= w->size;
        if (p < 0)
            p += w->size;
    }
    w->ptr = w->base + p;
}
} // namespace aie_emul

#define AIE_WINDOW_READ(N)                                                                                             \
    template <typename T> aie_vec<T, N> window_read_v##N(aie_window<T, false> *w) {                                  \
        aie_emul::win_check(w, N, "window_read_v" #N);                                                                 \
        aie_vec<T, N> r;                                                                                               \
        std::memcpy(r.e, w->ptr, sizeof r.e);                                                                         \
        return r;                                                                                                      \
    }                                                                                                                  \
    template <typename T> aie_vec<T, N> window_readincr_v##N(aie_window<T, false> *w) {                              \
        aie_emul::win_check(w, N, "window_readincr_v" #N);                                                             \
        aie_vec<T, N> r;                                                                                               \
        std::memcpy(r.e, w->ptr, sizeof r.e);                                                                         \
        aie_emul::win_move(w, N);                                                                                      \
        return r;                                                                                                      \
    }                                                                                                                  \
    template <typename T, bool OUT> void window_incr_v##N(aie_window<T, OUT> *w, int n) {                            \
        aie_emul::win_move(w, (long long)n * N);                                                                       \
    }                                                                                                                  \
    template <typename T, bool OUT> void window_decr_v##N(aie_window<T, OUT> *w, int n) {                            \
        aie_emul::win_move(w, -(long long)n * N);                                                                      \
    }
AIE_WINDOW_READ(4)
AIE_WINDOW_READ(8)
AIE_WINDOW_READ(16)
AIE_WINDOW_READ(32)
AIE_WINDOW_READ(64)
AIE_WINDOW_READ(128)
#undef AIE_WINDOW_READ
// the API's template forms window_readincr_v<N>(w), window_read_v<N>(w) (adf/window.hpp)
template <unsigned N, typename T> aie_vec<T, N> window_read_v(aie_window<T, false> *w) {
    aie_emul::win_check(w, N, "window_read_v<N>");
    aie_vec<T, N> r;
    std::memcpy(r.e, w->ptr, sizeof r.e);
    return r;
}
template <unsigned N, typename T> aie_vec<T, N> window_readincr_v(aie_window<T, false> *w) {
    aie_vec<T, N> r = window_read_v<N>(w);
    aie_emul::win_move(w, N);
    return r;
}
template <unsigned N, typename T, bool OUT> void window_incr_v(aie_window<T, OUT> *w, int n) {
    aie_emul::win_move(w, (long long)n * N);
}
template <unsigned N, typename T, bool OUT> void window_decr_v(aie_window<T, OUT> *w, int n) {
    aie_emul::win_move(w, -(long long)n * N);
}

template <typename T> T window_read(aie_window<T, false> *w) {
    aie_emul::win_check(w, 1, "window_read");
    return *w->ptr;
}
template <typename T> T window_readincr(aie_window<T, false> *w) {
    aie_emul::win_check(w, 1, "window_readincr");
    T v = *w->ptr;
    aie_emul::win_move(w, 1);
    return v;
}
template <typename T, int N> void window_write(aie_window<T, true> *w, const aie_vec<T, N> &v) {
    aie_emul::win_check(w, N, "window_write");
    std::memcpy(w->ptr, v.e, sizeof v.e);
}
template <typename T, int N> void window_writeincr(aie_window<T, true> *w, const aie_vec<T, N> &v) {
    aie_emul::win_check(w, N, "window_writeincr");
    std::memcpy(w->ptr, v.e, sizeof v.e);
    aie_emul::win_move(w, N);
}
template <typename T> struct aie_id {
    typedef T type;
};
template <typename T> void window_write(aie_window<T, true> *w, typename aie_id<T>::type v) {
    aie_emul::win_check(w, 1, "window_write");
    *w->ptr = v;
}
template <typename T> void window_writeincr(aie_window<T, true> *w, typename aie_id<T>::type v) {
    aie_emul::win_check(w, 1, "window_writeincr");
    *w->ptr = v;
    aie_emul::win_move(w, 1);
}
template <typename T, bool OUT> void window_incr(aie_window<T, OUT> *w, int n) { aie_emul::win_move(w, n); }
template <typename T, bool OUT> void window_decr(aie_window<T, OUT> *w, int n) { aie_emul::win_move(w, -(long long)n); }

// ---- Streams and cascades (UG1079 "Reading and Advancing an Input Stream", "Cascade
// Streams") --------------------------------------------------------------------------------
// A stream is a byte queue: an input stream's reads take values in order, an output stream's
// writes append. A read past the end is an error (the kernel would stall), as in the
// interpreter. Cascade words are accumulator lanes: an acc48 lane travels as 8 bytes
// (sign-extended), an acc80 lane as 16 (target/aie1/kernel StreamLane).
struct acc48 {};
struct acc80 {};
struct accfloat {};
template <typename T, bool OUT> struct aie_stream {
    std::vector<unsigned char> data;
    size_t pos = 0;
    const char *name = "";
};
namespace aie_emul {
inline const unsigned char *stream_take(std::vector<unsigned char> &d, size_t &pos, size_t n, const char *name) {
    if (pos + n > d.size())
        fail("readincr(%s): %zu bytes wanted at byte %zu, but the stream holds %zu bytes (the kernel would stall)", name,
             n, pos, d.size());
    const unsigned char *p = d.data() + pos;
    pos += n;
    return p;
}
} // namespace aie_emul
#define AIE_STREAM_TYPES(T)                                                                                            \
    typedef aie_stream<T, false> input_stream_##T;                                                                     \
    typedef aie_stream<T, true> output_stream_##T;
AIE_STREAM_TYPES(int8)
AIE_STREAM_TYPES(uint8)
AIE_STREAM_TYPES(int16)
AIE_STREAM_TYPES(uint16)
AIE_STREAM_TYPES(int32)
AIE_STREAM_TYPES(uint32)
AIE_STREAM_TYPES(float)
AIE_STREAM_TYPES(acc48)
AIE_STREAM_TYPES(acc80)
#undef AIE_STREAM_TYPES
template <typename T> using input_stream = aie_stream<T, false>;
template <typename T> using output_stream = aie_stream<T, true>;
template <typename T> using input_cascade = aie_stream<T, false>;
template <typename T> using output_cascade = aie_stream<T, true>;
// Declared so that a file whose other kernels use them still compiles; a kernel sumac runs
// cannot use them (the front end rejects packet streams).
struct input_pktstream;
struct output_pktstream;
// Stream moves by port number (intrinsics reference, group intr_streams): port idx is the
// kernel's idx-th input (output) stream parameter, numbered from the left (UG1076
// "Stream-based Access"); the harness binds the ports before the call (bind_port), as
// target/aie1/cfront ports.go lowers them to the parameters' readincr / writeincr.
namespace aie_emul {
struct stream_port {
    std::vector<unsigned char> *data;
    size_t *pos;
    const char *name;
};
inline stream_port g_ports[2][2];
inline int g_nports[2];
template <typename T, bool OUT> void bind_port(aie_stream<T, OUT> &s) {
    if (g_nports[OUT] < 2)
        g_ports[OUT][g_nports[OUT]++] = stream_port{&s.data, &s.pos, s.name};
}
inline stream_port &port(bool out, int idx) {
    if (idx < 0 || idx >= g_nports[out])
        fail("%s stream port %d: the kernel has %d %s stream parameters", out ? "output" : "input", idx, g_nports[out],
             out ? "output" : "input");
    return g_ports[out][idx];
}
template <typename T> T port_read(int idx) {
    stream_port &p = port(false, idx);
    T v;
    std::memcpy((void *)&v, stream_take(*p.data, *p.pos, sizeof(T), p.name), sizeof(T));
    return v;
}
inline void port_write(int idx, const void *v, size_t n) {
    stream_port &p = port(true, idx);
    const unsigned char *b = (const unsigned char *)v;
    p.data->insert(p.data->end(), b, b + n);
}
} // namespace aie_emul
inline int get_ss(int idx) { return aie_emul::port_read<int>(idx); }
inline float getf_ss(int idx) { return aie_emul::port_read<float>(idx); }
inline aie_vec<int32_t, 4> get_wss(int idx) { return aie_emul::port_read<aie_vec<int32_t, 4>>(idx); }
inline aie_vec<float, 4> getf_wss(int idx) { return aie_emul::port_read<aie_vec<float, 4>>(idx); }
inline void put_ms(int idx, int v) { aie_emul::port_write(idx, &v, 4); }
inline void putf_ms(int idx, float v) { aie_emul::port_write(idx, &v, 4); }
template <typename T, int N> void put_wms(int idx, const aie_vec<T, N> &v) {
    static_assert(sizeof v.e == 16, "put_wms writes 128 bits");
    aie_emul::port_write(idx, v.e, sizeof v.e);
}
template <typename... A> int getPacketid(A...);
template <typename... A> void writeHeader(A...);
template <typename... A> int readincr(input_pktstream *, A...);
template <typename... A> void writeincr(output_pktstream *, A...);
#ifndef restrict
#define restrict __restrict
#endif

template <typename T> T readincr(aie_stream<T, false> *s) {
    T v;
    std::memcpy(&v, aie_emul::stream_take(s->data, s->pos, sizeof(T), s->name), sizeof(T));
    return v;
}
template <unsigned N, typename T> aie_vec<T, N> aie_stream_readv(aie_stream<T, false> *s) {
    aie_vec<T, N> r;
    std::memcpy(r.e, aie_emul::stream_take(s->data, s->pos, sizeof r.e, s->name), sizeof r.e);
    return r;
}
template <unsigned N, int B> aie_acc<B, N> aie_cascade_read(std::vector<unsigned char> &d, size_t &pos, const char *name) {
    aie_acc<B, N> r;
    const int lb = B == 48 ? 8 : 16;
    const unsigned char *p = aie_emul::stream_take(d, pos, N * lb, name);
    for (unsigned l = 0; l < N; l++) {
        unsigned long long lo = 0, hi = 0;
        for (int k = 0; k < 8; k++)
            lo |= (unsigned long long)p[l * lb + k] << (8 * k);
        if (lb == 16)
            for (int k = 0; k < 8; k++)
                hi |= (unsigned long long)p[l * lb + 8 + k] << (8 * k);
        else
            hi = (lo >> 63) ? ~0ull : 0;
        aie_emul::i128 v = (aie_emul::i128)(((aie_emul::u128)hi << 64) | lo);
        r.e[l] = aie_emul::wrap(v, B);
    }
    return r;
}
template <int B, int N> void aie_cascade_write(std::vector<unsigned char> &d, const aie_acc<B, N> &a) {
    const int lb = B == 48 ? 8 : 16;
    for (int l = 0; l < N; l++) {
        aie_emul::u128 v = (aie_emul::u128)a.e[l];
        for (int k = 0; k < lb; k++)
            d.push_back((unsigned char)(v >> (8 * k)));
    }
}
#define AIE_STREAM_READV(N)                                                                                            \
    template <typename T> aie_vec<T, N> readincr_v##N(aie_stream<T, false> *s) { return aie_stream_readv<N>(s); }      \
    inline aie_acc<48, N> readincr_v##N(aie_stream<acc48, false> *s) {                                                 \
        return aie_cascade_read<N, 48>(s->data, s->pos, s->name);                                                      \
    }                                                                                                                  \
    inline aie_acc<80, N> readincr_v##N(aie_stream<acc80, false> *s) {                                                 \
        return aie_cascade_read<N, 80>(s->data, s->pos, s->name);                                                      \
    }
AIE_STREAM_READV(4)
AIE_STREAM_READV(8)
AIE_STREAM_READV(16)
#undef AIE_STREAM_READV
// readincr_v<N>(s): the template form (adf/stream.hpp)
template <unsigned N, typename T> aie_vec<T, N> readincr_v(aie_stream<T, false> *s) { return aie_stream_readv<N>(s); }
template <unsigned N> aie_acc<48, N> readincr_v(aie_stream<acc48, false> *s) {
    return aie_cascade_read<N, 48>(s->data, s->pos, s->name);
}
template <unsigned N> aie_acc<80, N> readincr_v(aie_stream<acc80, false> *s) {
    return aie_cascade_read<N, 80>(s->data, s->pos, s->name);
}
template <typename T> void writeincr(aie_stream<T, true> *s, typename aie_id<T>::type v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s->data.insert(s->data.end(), b, b + sizeof(T));
}
template <typename T, int N> void writeincr(aie_stream<T, true> *s, const aie_vec<T, N> &v) {
    const unsigned char *b = (const unsigned char *)v.e;
    s->data.insert(s->data.end(), b, b + sizeof v.e);
}
template <int N> void writeincr(aie_stream<acc48, true> *s, const aie_acc<48, N> &a) { aie_cascade_write(s->data, a); }
template <int N> void writeincr(aie_stream<acc80, true> *s, const aie_acc<80, N> &a) { aie_cascade_write(s->data, a); }
#define writeincr_v4 writeincr
#define writeincr_v8 writeincr
#define writeincr_v16 writeincr
#define READINCR(port, s) readincr(s)
#define READINCRW(port, s) readincr(s)
#define WRITEINCR(port, s, v) writeincr(s, v)
#define WRITEINCRW(port, s, v) writeincr(s, v)

// ---- Buffer ports (UG1079 "Buffer Ports"): linear buffers with data() and size() ----------
namespace adf {
template <int... N> struct extents {};
template <int M> struct margin {};
template <typename T> struct aie_buffer_port {
    T *p;
    unsigned n;
    T *data() { return p; }
    const T *data() const { return p; }
    unsigned size() const { return n; }
};
template <typename T, typename... Rest> using input_buffer = aie_buffer_port<T>;
template <typename T, typename... Rest> using output_buffer = aie_buffer_port<T>;
} // namespace adf
using adf::input_buffer;
using adf::output_buffer;
using adf::extents;
using adf::margin;

// ---- The cycle counter (UG1079 "Profiling Kernel Code") -----------------------------------
// Reads return the values the cycle simulator read, in order (the harness's input), else 0,
// as the interpreter's (interp.Config.CycleReads).
namespace aie_emul {
inline std::vector<long long> g_cycle_reads;
inline size_t g_cycle_next = 0;
inline unsigned long long next_cycles() {
    long long v = g_cycle_next < g_cycle_reads.size() ? g_cycle_reads[g_cycle_next] : 0;
    g_cycle_next++;
    return (unsigned long long)v;
}
} // namespace aie_emul
inline unsigned long long get_cycles() { return aie_emul::next_cycles(); }

// ---- Kernel classes (UG1079 "C++ Kernel Class Support") and chess directives --------------
// Registration is for the ADF graph compiler; the chess directives guide its scheduler and do
// not change results.
#define REGISTER_FUNCTION(f)
#define REGISTER_PARAMETER(p)
#define chess_flatten_loop
#define chess_unroll_loop(...)
#define chess_unroll_loop_assuming_multiple(...)
#define chess_loop_count(...)
#define chess_pipeline_non_leaf_loop_solution(...)
#define chess_pipeline_adjust_preamble(...)
#define chess_modulo_scheduling_budget_ratio(...)
#define chess_no_hw_loop
#define chess_no_pipelining
#define chess_separator_scheduler(...) ((void)0)
#define chess_separator(...) ((void)0)
#define chess_storage(...)
#define chess_copy(x) (x)
#define chess_manifest(x) (x)
#define chess_report(...) ((void)0)
#define __aie_dm_resource_a
#define __aie_dm_resource_b


// ---- The AI Engine API for AIE1 (aie::, UG1079 "AI Engine API"; the API User Guide UG1529) --
// Written from the API's documented semantics, independently of sumac's lowering of the API
// to intrinsics (target/aie1/cfront api.go), which the interpreter runs: the two agree bit for
// bit or `sumac sim` reports the difference. MAC counts are those of the intrinsics the API
// issues on AIE1 (its "detail/aie1" headers): an element-wise int16 multiply of 16 lanes is one
// mul16 with half its products by zero (32), of 8 lanes one mul8 (32), an int32 one lmul8 (8)
// or, of 16 lanes times an int16, one int32 x int16 mul16 (16),
// a float one fpmul per 8 lanes; mmul as listed at aie::mmul.
template <typename T, int N> T aie_vec<T, N>::get(int i) const {
    if (i < 0 || i >= N)
        aie_emul::fail("vector::get: index %d out of range 0..%d", i, N - 1);
    return e[i];
}
template <typename T, int N> aie_vec<T, N> &aie_vec<T, N>::set(T v, int i) {
    if (i < 0 || i >= N)
        aie_emul::fail("vector::set: index %d out of range 0..%d", i, N - 1);
    e[i] = v;
    return *this;
}
template <typename T, int N> template <int M> aie_vec<T, M> aie_vec<T, N>::extract(int i) const {
    static_assert(M < N && N % M == 0, "extract: a part of the vector");
    if (i < 0 || i >= N / M)
        aie_emul::fail("vector::extract: part %d out of range 0..%d", i, N / M - 1);
    aie_vec<T, M> r;
    for (int k = 0; k < M; k++)
        r.e[k] = e[i * M + k];
    return r;
}
template <typename T, int N> template <int M> aie_vec<T, N> &aie_vec<T, N>::insert(int i, const aie_vec<T, M> &v) {
    static_assert(M < N && N % M == 0, "insert: a part of the vector");
    if (i < 0 || i >= N / M)
        aie_emul::fail("vector::insert: part %d out of range 0..%d", i, N / M - 1);
    for (int k = 0; k < M; k++)
        e[i * M + k] = v.e[k];
    return *this;
}
template <typename T, int N> template <int M> aie_vec<T, M> aie_vec<T, N>::grow(int pos) const {
    static_assert(M > N && M % N == 0, "grow: a larger vector");
    aie_vec<T, M> r; // the other lanes are undefined in the API; zero here and in the interpreter
    for (int k = 0; k < N; k++)
        r.e[pos * N + k] = e[k];
    return r;
}
namespace aie_emul {
template <typename T> struct narrow_of;
template <> struct narrow_of<int16> { static constexpr int bits = 16; static constexpr bool uns = false; };
template <> struct narrow_of<int8> { static constexpr int bits = 8; static constexpr bool uns = false; };
template <> struct narrow_of<uint8> { static constexpr int bits = 8; static constexpr bool uns = true; };
template <> struct narrow_of<int32> { static constexpr int bits = 32; static constexpr bool uns = false; };
} // namespace aie_emul
template <int BITS, int N> template <typename T> aie_vec<T, N> aie_acc<BITS, N>::to_vector(int shift) const {
    return aie_narrow<T, BITS, N>(*this, shift, aie_emul::narrow_of<T>::bits, aie_emul::narrow_of<T>::uns);
}
template <int BITS, int N> template <typename T> aie_acc<BITS, N> &aie_acc<BITS, N>::from_vector(const aie_vec<T, N> &v, int shift) {
    *this = aie_ups<BITS>(v, shift);
    return *this;
}

struct acc32 {};
struct acc40 {};
struct acc64 {};
struct acc72 {};
namespace aie {
template <typename T, unsigned N> using vector = aie_vec<T, (int)N>;
template <typename Tag, unsigned N> struct accum_of;
template <unsigned N> struct accum_of<acc32, N> { typedef aie_acc<48, (int)N> type; };
template <unsigned N> struct accum_of<acc40, N> { typedef aie_acc<48, (int)N> type; };
template <unsigned N> struct accum_of<acc48, N> { typedef aie_acc<48, (int)N> type; };
template <unsigned N> struct accum_of<acc64, N> { typedef aie_acc<80, (int)N> type; };
template <unsigned N> struct accum_of<acc72, N> { typedef aie_acc<80, (int)N> type; };
template <unsigned N> struct accum_of<acc80, N> { typedef aie_acc<80, (int)N> type; };
template <unsigned N> struct accum_of<accfloat, N> { typedef aie_vec<float, (int)N> type; };
template <typename Tag, unsigned N> using accum = typename accum_of<Tag, N>::type;

// zeros<T, N>(): a vector or an accumulator of zeros
template <typename T, unsigned N> struct zeros_of { typedef aie_vec<T, (int)N> type; };
template <unsigned N> struct zeros_of<acc32, N> { typedef accum<acc32, N> type; };
template <unsigned N> struct zeros_of<acc40, N> { typedef accum<acc40, N> type; };
template <unsigned N> struct zeros_of<acc48, N> { typedef accum<acc48, N> type; };
template <unsigned N> struct zeros_of<acc64, N> { typedef accum<acc64, N> type; };
template <unsigned N> struct zeros_of<acc72, N> { typedef accum<acc72, N> type; };
template <unsigned N> struct zeros_of<acc80, N> { typedef accum<acc80, N> type; };
template <unsigned N> struct zeros_of<accfloat, N> { typedef accum<accfloat, N> type; };
template <typename T, unsigned N> typename zeros_of<T, N>::type zeros() { return typename zeros_of<T, N>::type(); }

template <typename T, unsigned N> vector<T, N> broadcast(T x) {
    vector<T, N> r;
    for (unsigned i = 0; i < N; i++)
        r.e[i] = x;
    return r;
}

// load_v / store_v assume vector alignment ("aie.hpp"); the interpreter checks 16 bytes
template <unsigned N, typename T> vector<T, N> load_v(const T *p) {
    if ((unsigned long)p % 16 != 0)
        aie_emul::fail("aie::load_v: pointer %p is not 16-byte aligned", (const void *)p);
    vector<T, N> r;
    std::memcpy(r.e, p, sizeof r.e);
    return r;
}
template <typename T, int N> void store_v(T *p, const aie_vec<T, N> &v) {
    if ((unsigned long)p % 16 != 0)
        aie_emul::fail("aie::store_v: pointer %p is not 16-byte aligned", (const void *)p);
    std::memcpy(p, v.e, sizeof v.e);
}

// iterators over buffers and pointers ("iterator.hpp"): linear iterators are pointers
template <unsigned N, typename T> aie_vec<T, (int)N> *begin_vector(T *p) { return (aie_vec<T, (int)N> *)p; }
// over const data: an iterator of vectors of the element type (the API's const_vector_iterator)
template <unsigned N, typename T> const aie_vec<T, (int)N> *begin_vector(const T *p) { return (const aie_vec<T, (int)N> *)p; }
template <unsigned N, typename T> aie_vec<T, (int)N> *begin_vector(adf::aie_buffer_port<T> &b) { return (aie_vec<T, (int)N> *)b.data(); }
template <unsigned N, typename T> const aie_vec<T, (int)N> *cbegin_vector(const T *p) { return (const aie_vec<T, (int)N> *)p; }
template <unsigned N, typename T> const aie_vec<T, (int)N> *cbegin_vector(adf::aie_buffer_port<T> &b) { return (const aie_vec<T, (int)N> *)b.data(); }
template <unsigned N, typename T> aie_vec<T, (int)N> *begin_restrict_vector(T *p) { return (aie_vec<T, (int)N> *)p; }
template <unsigned N, typename T> aie_vec<T, (int)N> *begin_restrict_vector(adf::aie_buffer_port<T> &b) { return (aie_vec<T, (int)N> *)b.data(); }
template <typename T> T *begin(T *p) { return p; }
template <typename T> T *begin(adf::aie_buffer_port<T> &b) { return b.data(); }
template <typename T> const T *cbegin(const T *p) { return p; }
template <typename T> const T *cbegin(adf::aie_buffer_port<T> &b) { return b.data(); }

using ::concat;

// element-wise add, sub, max, min
template <typename T, int N> aie_vec<T, N> add(const aie_vec<T, N> &a, const aie_vec<T, N> &b) { return a + b; }
template <typename T, int N> aie_vec<T, N> sub(const aie_vec<T, N> &a, const aie_vec<T, N> &b) { return a - b; }
template <int B, int N> aie_acc<B, N> add(const aie_acc<B, N> &a, const aie_acc<B, N> &b) { return a + b; }
template <int B, int N> aie_acc<B, N> sub(const aie_acc<B, N> &a, const aie_acc<B, N> &b) { return a - b; }
// add(accum, vector), sub(accum, vector): the vector's values join the accumulator lanes
template <int B, int N, typename T> aie_acc<B, N> add(const aie_acc<B, N> &a, const aie_vec<T, N> &b) { return a + b; }
template <int B, int N, typename T> aie_acc<B, N> sub(const aie_acc<B, N> &a, const aie_vec<T, N> &b) { return a - b; }
template <typename T, int N> aie_vec<T, N> max(const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    aie_vec<T, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = b.e[i] > a.e[i] ? b.e[i] : a.e[i];
    return r;
}
template <typename T, int N> aie_vec<T, N> min(const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    aie_vec<T, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = b.e[i] < a.e[i] ? b.e[i] : a.e[i];
    return r;
}
// max / min of a vector and a scalar: the scalar in every lane (API "max_min.hpp"), as the
// front end lowers it (a broadcast, then the element-wise op)
template <typename T, int N> aie_vec<T, N> max(const aie_vec<T, N> &a, typename std::common_type<T>::type s) {
    aie_vec<T, N> b;
    for (int i = 0; i < N; i++)
        b.e[i] = s;
    return max(a, b);
}
template <typename T, int N> aie_vec<T, N> min(const aie_vec<T, N> &a, typename std::common_type<T>::type s) {
    aie_vec<T, N> b;
    for (int i = 0; i < N; i++)
        b.e[i] = s;
    return min(a, b);
}

// mul / mac / msc: element-wise products, vector x vector or vector x scalar
namespace detail {
template <typename T> struct acc_of;
template <> struct acc_of<int16> { static constexpr int bits = 48; };
template <> struct acc_of<int32> { static constexpr int bits = 80; };
// an int32 product issues per lane: lmul8 of 8 lanes (8), the int32 x int16 mul16 of 16 (16)
template <int N, typename T> struct lane_macs { static constexpr long long v = sizeof(T) == 4 ? N : 32; };
template <int N> struct lane_macs<N, float> { static constexpr long long v = N; };
template <typename T, int N> aie_vec<T, N> splat(T s) {
    aie_vec<T, N> r;
    for (int i = 0; i < N; i++)
        r.e[i] = s;
    return r;
}
inline aie_vec<float, 8> fmul(int sign, aie_vec<float, 8> acc, bool accumulate, const aie_vec<float, 8> &a, const aie_vec<float, 8> &b) {
    for (int i = 0; i < 8; i++) {
        float p = a.e[i] * b.e[i];
        acc.e[i] = !accumulate ? p : sign > 0 ? acc.e[i] + p : acc.e[i] - p;
    }
    aie_emul::g_macs += 8;
    return acc;
}
template <int N> aie_vec<float, N> fmulN(int sign, aie_vec<float, N> acc, bool accumulate, const aie_vec<float, N> &a, const aie_vec<float, N> &b) {
    static_assert(N % 8 == 0, "float vectors of 8, 16 or 32 lanes");
    for (int h = 0; h < N / 8; h++) {
        aie_vec<float, 8> x, y, c;
        for (int i = 0; i < 8; i++) {
            x.e[i] = a.e[8 * h + i];
            y.e[i] = b.e[8 * h + i];
            c.e[i] = acc.e[8 * h + i];
        }
        c = fmul(sign, c, accumulate, x, y);
        for (int i = 0; i < 8; i++)
            acc.e[8 * h + i] = c.e[i];
    }
    return acc;
}
} // namespace detail
template <typename T, int N> aie_acc<detail::acc_of<T>::bits, N> mul(const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    return aie_emul::lanewise(aie_acc<detail::acc_of<T>::bits, N>(), a, b, 1, detail::lane_macs<N, T>::v);
}
template <typename T, int N> aie_acc<detail::acc_of<T>::bits, N> mul(const aie_vec<T, N> &a, typename aie_id<T>::type s) {
    return mul(a, detail::splat<T, N>(s));
}
template <typename T, int N> aie_acc<detail::acc_of<T>::bits, N> mul(typename aie_id<T>::type s, const aie_vec<T, N> &a) {
    return mul(detail::splat<T, N>(s), a);
}
template <int B, typename T, int N> aie_acc<B, N> mac(const aie_acc<B, N> &c, const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    return aie_emul::lanewise(c, a, b, 1, detail::lane_macs<N, T>::v);
}
template <int B, typename T, int N> aie_acc<B, N> mac(const aie_acc<B, N> &c, const aie_vec<T, N> &a, typename aie_id<T>::type s) {
    return mac(c, a, detail::splat<T, N>(s));
}
template <int B, typename T, int N> aie_acc<B, N> mac(const aie_acc<B, N> &c, typename aie_id<T>::type s, const aie_vec<T, N> &a) {
    return mac(c, detail::splat<T, N>(s), a);
}
// an int16 and an int32 vector (either order): the int32 x int16 mac16 of 16 lanes
template <int B, typename T, typename U, int N>
typename std::enable_if<!std::is_same<T, U>::value && sizeof(T) + sizeof(U) == 6, aie_acc<B, N>>::type
mac(const aie_acc<B, N> &c, const aie_vec<T, N> &a, const aie_vec<U, N> &b) {
    return aie_emul::lanewise(c, a, b, 1, N);
}
template <int B, typename T, typename U, int N>
typename std::enable_if<!std::is_same<T, U>::value && sizeof(T) + sizeof(U) == 6, aie_acc<B, N>>::type
msc(const aie_acc<B, N> &c, const aie_vec<T, N> &a, const aie_vec<U, N> &b) {
    return aie_emul::lanewise(c, a, b, -1, N);
}
template <int B, typename T, int N> aie_acc<B, N> msc(const aie_acc<B, N> &c, const aie_vec<T, N> &a, const aie_vec<T, N> &b) {
    return aie_emul::lanewise(c, a, b, -1, detail::lane_macs<N, T>::v);
}
template <int B, typename T, int N> aie_acc<B, N> msc(const aie_acc<B, N> &c, const aie_vec<T, N> &a, typename aie_id<T>::type s) {
    return msc(c, a, detail::splat<T, N>(s));
}
template <int B, typename T, int N> aie_acc<B, N> msc(const aie_acc<B, N> &c, typename aie_id<T>::type s, const aie_vec<T, N> &a) {
    return msc(c, detail::splat<T, N>(s), a);
}
template <int N> aie_vec<float, N> mul(const aie_vec<float, N> &a, const aie_vec<float, N> &b) {
    return detail::fmulN<N>(1, aie_vec<float, N>(), false, a, b);
}
template <int N> aie_vec<float, N> mul(const aie_vec<float, N> &a, float s) { return mul(a, detail::splat<float, N>(s)); }
template <int N> aie_vec<float, N> mul(float s, const aie_vec<float, N> &a) { return mul(detail::splat<float, N>(s), a); }
template <int N> aie_vec<float, N> mac(const aie_vec<float, N> &c, const aie_vec<float, N> &a, const aie_vec<float, N> &b) {
    return detail::fmulN<N>(1, c, true, a, b);
}
template <int N> aie_vec<float, N> mac(const aie_vec<float, N> &c, const aie_vec<float, N> &a, float s) {
    return mac(c, a, detail::splat<float, N>(s));
}
template <int N> aie_vec<float, N> mac(const aie_vec<float, N> &c, float s, const aie_vec<float, N> &a) {
    return mac(c, detail::splat<float, N>(s), a);
}
template <int N> aie_vec<float, N> msc(const aie_vec<float, N> &c, const aie_vec<float, N> &a, const aie_vec<float, N> &b) {
    return detail::fmulN<N>(-1, c, true, a, b);
}
template <int N> aie_vec<float, N> msc(const aie_vec<float, N> &c, const aie_vec<float, N> &a, float s) {
    return msc(c, a, detail::splat<float, N>(s));
}
template <int N> aie_vec<float, N> msc(const aie_vec<float, N> &c, float s, const aie_vec<float, N> &a) {
    return msc(c, detail::splat<float, N>(s), a);
}

// to_vector<T>(acc, shift), the free-function form
template <typename T, int B, int N> aie_vec<T, N> to_vector(const aie_acc<B, N> &a, int shift = 0) {
    return a.template to_vector<T>(shift);
}

// mmul<M, K, N, TA, TB>: C (M x N, row-major) = A (M x K) * B (K x N), accumulated in C
// ("mmul.hpp"). MAC counts are those of the AIE1 lowering ("detail/aie1/mmul_*.hpp"): a
// 16-lane int16 accumulator takes K/2 mac16 of 32, an int8 4x8x4 one 8-bit mac16 of 128, a
// float accumulator of 8 lanes K fpmac of 8, an int32 one (acc80, 8 lanes) K lmac8 of 8.
template <unsigned M, unsigned K, unsigned N, typename TA, typename TB> struct mmul {
    // the operand and result tile sizes (API "mmul.hpp": size_A = M*K, size_B = K*N, size_C = M*N)
    static constexpr unsigned size_A = M * K, size_B = K * N, size_C = M * N;
    static constexpr bool flt = std::is_same<TA, float>::value;
    static constexpr bool i32 = !flt && sizeof(TA) == 4;
    typedef typename std::conditional<flt, float, aie_emul::i128>::type lane_t;
    lane_t c[M * N];
    mmul() : c{} {}
    static long long macs() {
        if (flt || i32)
            return (long long)M * N * K; // 8 lanes x 1 per fpmac or lmac8
        if (sizeof(TA) == 1)
            return (long long)(M * N / 16) * (K / 8) * 128;
        return (long long)(M * N / 16) * (K / 2) * 32;
    }
    template <typename VA, typename VB> void run(const VA &a, const VB &b, bool acc) {
        for (unsigned m = 0; m < M; m++)
            for (unsigned n = 0; n < N; n++) {
                if constexpr (flt) {
                    float s = acc ? (float)c[m * N + n] : 0.0f;
                    for (unsigned k = 0; k < K; k++) {
                        float p = (float)a.e[m * K + k] * (float)b.e[k * N + n];
                        s = (acc || k > 0) ? s + p : p;
                    }
                    c[m * N + n] = s;
                } else {
                    aie_emul::i128 s = acc ? (aie_emul::i128)c[m * N + n] : 0;
                    for (unsigned k = 0; k < K; k++)
                        s += (aie_emul::i128)a.e[m * K + k] * (aie_emul::i128)b.e[k * N + n];
                    c[m * N + n] = aie_emul::wrap(s, i32 ? 80 : 48);
                }
            }
        aie_emul::g_macs += macs();
    }
    template <typename VA, typename VB> void mul(const VA &a, const VB &b) { run(a, b, false); }
    template <typename VA, typename VB> void mac(const VA &a, const VB &b) { run(a, b, true); }
    template <typename T> aie_vec<T, (int)(M * N)> to_vector(int shift = 0) const {
        aie_vec<T, (int)(M * N)> r;
        if constexpr (flt) {
            for (unsigned i = 0; i < M * N; i++)
                r.e[i] = (T)c[i];
            return r;
        } else if constexpr (i32) {
            // narrowed 8 lanes (one acc80 register) at a time, as srs does
            for (unsigned h = 0; h < M * N / 8; h++) {
                aie_acc<80, 8> a;
                for (int i = 0; i < 8; i++)
                    a.e[i] = (aie_emul::i128)c[8 * h + i];
                aie_vec<T, 8> v = a.template to_vector<T>(shift);
                for (int i = 0; i < 8; i++)
                    r.e[8 * h + i] = v.e[i];
            }
            return r;
        } else {
            // narrowed 16 lanes (one accumulator register) at a time, as srs does
            for (unsigned h = 0; h < M * N / 16; h++) {
            aie_acc<48, 16> a;
            for (int i = 0; i < 16; i++)
                a.e[i] = (aie_emul::i128)c[16 * h + i];
            aie_vec<T, 16> v = a.template to_vector<T>(shift);
            for (int i = 0; i < 16; i++)
                r.e[16 * h + i] = v.e[i];
            }
            return r;
        }
    }
};

// the tile's cycle counter (UG1079 "Profiling Kernel Code")
struct tile {
    static tile current() { return tile(); }
    unsigned long long cycles() const { return aie_emul::next_cycles(); }
};
template <typename... A> void print(const A &...) {}
template <typename... A> void print_matrix(const A &...) {}
} // namespace aie

#endif // SUMAC_AIE1_EMUL_H
