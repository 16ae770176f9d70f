// Peer library bindings for bench/peers. Every library is loaded at run time with
// dlopen(RTLD_LOCAL) in its own worker process, so no symbol of one library (OpenBLAS and
// BLIS both export sgemm_ and cblas_sgemm) can bind to another, and nothing here is
// linked against any of them: the binary builds without the peer libraries installed.
#ifndef SUMAC_PEERS_H
#define SUMAC_PEERS_H

#include <stddef.h>
#include <stdint.h>

enum { PEER_OPENBLAS = 1, PEER_BLIS = 2, PEER_ONEDNN = 3 };

// peer_load opens the library of peer kind and resolves the functions it needs; a nonzero
// max_isa (a dnnl_cpu_isa_t value) caps oneDNN's instruction set, 0 lets it use all the CPU
// has. It returns 0 on success, or -1 with a message in err.
int peer_load(int kind, int threads, int max_isa, char *err, size_t errlen);

// peer_info writes a one-line description of the loaded library (version, kernels).
void peer_info(char *out, size_t outlen);

// peer_isa writes the instruction set the loaded library runs (OpenBLAS core, BLIS
// architecture, oneDNN effective ISA).
void peer_isa(char *out, size_t outlen);

// Row-major C = A*B (no transposes, alpha 1, beta 0); A is m x k, B is k x n.
// Return 0 on success, -1 when the loaded peer has no such operation.
int peer_sgemm(int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c);
int peer_dgemm(int64_t m, int64_t n, int64_t k, const double *a, const double *b, double *c);
int peer_gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t *a, const int8_t *b, int32_t *c);

// A oneDNN forward-inference convolution with user buffers in NHWC (input and output);
// the user's weight layout is given by element strides for the logical dimensions
// (group, output channel in group, input channel in group, kh, kw).
typedef struct peer_conv peer_conv;

enum { CONV_F32 = 0, CONV_U8S8 = 1 };
enum { FMT_NHWC = 0, FMT_ANY = 1 };

// peer_conv_create builds the primitive and owns its memories. The user buffers it returns
// through peer_conv_buffers are filled by the caller, then peer_conv_prepare reorders them
// into the primitive's formats (not timed); peer_conv_run executes the convolution only;
// peer_conv_result reorders the output back to NHWC into the user output buffer.
peer_conv *peer_conv_create(int dtype, int fmt, int64_t n, int64_t g, int64_t ci, int64_t h,
                            int64_t w, int64_t co, int64_t kh, int64_t kw, int64_t sh,
                            int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                            int64_t oh, int64_t ow, const int64_t wstrides[5], char *err,
                            size_t errlen);
void peer_conv_buffers(peer_conv *c, void **src, void **wei, void **dst);
int peer_conv_prepare(peer_conv *c);
int peer_conv_run(peer_conv *c);
int peer_conv_result(peer_conv *c);
const char *peer_conv_impl(peer_conv *c);
void peer_conv_destroy(peer_conv *c);

#endif
