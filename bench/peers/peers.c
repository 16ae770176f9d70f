// Run-time bindings to OpenBLAS, BLIS and oneDNN (see peers.h). The oneDNN function
// pointer types are taken from its own header (dnnl.h, from libdnnl-dev) with __typeof__,
// so the calls are type-checked; the CBLAS prototypes are the standard CBLAS interface.
#include "peers.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dnnl.h>

static int peer_kind;
static void *lib;

// CBLAS row-major/no-transpose enum values are fixed by the CBLAS standard.
enum { CblasRowMajor = 101, CblasNoTrans = 111 };
typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                               const float *, int, float, float *, int);
typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                               const double *, int, double, double *, int);
static cblas_sgemm_fn p_cblas_sgemm;
static cblas_dgemm_fn p_cblas_dgemm;
static char *(*p_openblas_get_corename)(void);
static char *(*p_openblas_get_config)(void);
static void (*p_openblas_set_num_threads)(int);
static void (*p_bli_thread_set_num_threads)(long);
static const char *(*p_bli_arch_string)(int);
static int (*p_bli_arch_query_id)(void);
static char *(*p_bli_info_get_version_str)(void);

#define DNNL_FN(name) static __typeof__(name) *p_##name
DNNL_FN(dnnl_sgemm);
DNNL_FN(dnnl_gemm_u8s8s32);
DNNL_FN(dnnl_engine_create);
DNNL_FN(dnnl_stream_create);
DNNL_FN(dnnl_stream_wait);
DNNL_FN(dnnl_memory_desc_init_by_tag);
DNNL_FN(dnnl_memory_desc_init_by_strides);
DNNL_FN(dnnl_memory_create);
DNNL_FN(dnnl_memory_destroy);
DNNL_FN(dnnl_memory_get_data_handle);
DNNL_FN(dnnl_memory_desc_get_size);
DNNL_FN(dnnl_dilated_convolution_forward_desc_init);
DNNL_FN(dnnl_primitive_desc_create);
DNNL_FN(dnnl_primitive_desc_destroy);
DNNL_FN(dnnl_primitive_desc_query_md);
DNNL_FN(dnnl_primitive_desc_query);
DNNL_FN(dnnl_reorder_primitive_desc_create);
DNNL_FN(dnnl_primitive_create);
DNNL_FN(dnnl_primitive_destroy);
DNNL_FN(dnnl_primitive_execute);
DNNL_FN(dnnl_version);
DNNL_FN(dnnl_get_effective_cpu_isa);
DNNL_FN(dnnl_set_max_cpu_isa);

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static int sym(void **dst, const char *name, char *err, size_t errlen) {
	*dst = dlsym(lib, name);
	if (*dst == NULL) {
		snprintf(err, errlen, "symbol %s not found: %s", name, dlerror());
		return -1;
	}
	return 0;
}

#define SYM(p, name) \
	if (sym((void **)&(p), name, err, errlen)) return -1

int peer_load(int kind, int threads, int max_isa, char *err, size_t errlen) {
	const char *soname = NULL;
	switch (kind) {
	case PEER_OPENBLAS: soname = "libopenblas.so.0"; break;
	case PEER_BLIS: soname = "libblis.so.4"; break;
	case PEER_ONEDNN: soname = "libdnnl.so.2"; break;
	default: snprintf(err, errlen, "unknown peer kind %d", kind); return -1;
	}
	// RTLD_LOCAL keeps the library's symbols out of the global scope; RTLD_NOW fails early
	// on a broken install instead of in the middle of a measurement.
	lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		snprintf(err, errlen, "dlopen %s: %s (run bench/peers/setup.sh)", soname, dlerror());
		return -1;
	}
	peer_kind = kind;
	switch (kind) {
	case PEER_OPENBLAS:
		SYM(p_cblas_sgemm, "cblas_sgemm");
		SYM(p_cblas_dgemm, "cblas_dgemm");
		SYM(p_openblas_get_corename, "openblas_get_corename");
		SYM(p_openblas_get_config, "openblas_get_config");
		SYM(p_openblas_set_num_threads, "openblas_set_num_threads");
		p_openblas_set_num_threads(threads);
		break;
	case PEER_BLIS:
		SYM(p_cblas_sgemm, "cblas_sgemm");
		SYM(p_cblas_dgemm, "cblas_dgemm");
		SYM(p_bli_thread_set_num_threads, "bli_thread_set_num_threads");
		SYM(p_bli_arch_string, "bli_arch_string");
		SYM(p_bli_arch_query_id, "bli_arch_query_id");
		SYM(p_bli_info_get_version_str, "bli_info_get_version_str");
		p_bli_thread_set_num_threads(threads);
		break;
	case PEER_ONEDNN:
		SYM(p_dnnl_sgemm, "dnnl_sgemm");
		SYM(p_dnnl_gemm_u8s8s32, "dnnl_gemm_u8s8s32");
		SYM(p_dnnl_engine_create, "dnnl_engine_create");
		SYM(p_dnnl_stream_create, "dnnl_stream_create");
		SYM(p_dnnl_stream_wait, "dnnl_stream_wait");
		SYM(p_dnnl_memory_desc_init_by_tag, "dnnl_memory_desc_init_by_tag");
		SYM(p_dnnl_memory_desc_init_by_strides, "dnnl_memory_desc_init_by_strides");
		SYM(p_dnnl_memory_create, "dnnl_memory_create");
		SYM(p_dnnl_memory_destroy, "dnnl_memory_destroy");
		SYM(p_dnnl_memory_get_data_handle, "dnnl_memory_get_data_handle");
		SYM(p_dnnl_memory_desc_get_size, "dnnl_memory_desc_get_size");
		SYM(p_dnnl_dilated_convolution_forward_desc_init,
		    "dnnl_dilated_convolution_forward_desc_init");
		SYM(p_dnnl_primitive_desc_create, "dnnl_primitive_desc_create");
		SYM(p_dnnl_primitive_desc_destroy, "dnnl_primitive_desc_destroy");
		SYM(p_dnnl_primitive_desc_query_md, "dnnl_primitive_desc_query_md");
		SYM(p_dnnl_primitive_desc_query, "dnnl_primitive_desc_query");
		SYM(p_dnnl_reorder_primitive_desc_create, "dnnl_reorder_primitive_desc_create");
		SYM(p_dnnl_primitive_create, "dnnl_primitive_create");
		SYM(p_dnnl_primitive_destroy, "dnnl_primitive_destroy");
		SYM(p_dnnl_primitive_execute, "dnnl_primitive_execute");
		SYM(p_dnnl_version, "dnnl_version");
		SYM(p_dnnl_get_effective_cpu_isa, "dnnl_get_effective_cpu_isa");
		SYM(p_dnnl_set_max_cpu_isa, "dnnl_set_max_cpu_isa");
		// oneDNN runs at the full instruction set the CPU offers (max_isa 0, "all"), as a
		// user's program does; a nonzero max_isa (a dnnl_cpu_isa_t value, e.g. avx2) caps it
		// for comparisons. Must precede the first primitive.
		if (max_isa != 0 && p_dnnl_set_max_cpu_isa((dnnl_cpu_isa_t)max_isa) != dnnl_success) {
			snprintf(err, errlen, "dnnl_set_max_cpu_isa(0x%x) failed", (unsigned)max_isa);
			return -1;
		}
		// oneDNN's OpenMP runtime takes its thread count from OMP_NUM_THREADS, which the
		// parent sets in this worker's environment before it starts.
		if (p_dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) {
			snprintf(err, errlen, "dnnl_engine_create failed");
			return -1;
		}
		if (p_dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
			snprintf(err, errlen, "dnnl_stream_create failed");
			return -1;
		}
		break;
	}
	return 0;
}

// onednn_isa_name names a dnnl_cpu_isa_t value (oneDNN's dnnl_types.h).
static const char *onednn_isa_name(unsigned isa) {
	switch (isa) {
	case dnnl_cpu_isa_sse41: return "sse41";
	case dnnl_cpu_isa_avx: return "avx";
	case dnnl_cpu_isa_avx2: return "avx2";
	case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
	case dnnl_cpu_isa_avx512_core: return "avx512_core";
	case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
	case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
	case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
	}
	return "unknown";
}

// peer_isa names the instruction set the loaded library runs: OpenBLAS's core, BLIS's
// architecture, oneDNN's effective ISA.
void peer_isa(char *out, size_t outlen) {
	switch (peer_kind) {
	case PEER_OPENBLAS: snprintf(out, outlen, "%s", p_openblas_get_corename()); break;
	case PEER_BLIS: snprintf(out, outlen, "%s", p_bli_arch_string(p_bli_arch_query_id())); break;
	case PEER_ONEDNN:
		snprintf(out, outlen, "%s", onednn_isa_name((unsigned)p_dnnl_get_effective_cpu_isa()));
		break;
	default: snprintf(out, outlen, "none");
	}
}

void peer_info(char *out, size_t outlen) {
	switch (peer_kind) {
	case PEER_OPENBLAS:
		snprintf(out, outlen, "%s; core %s", p_openblas_get_config(), p_openblas_get_corename());
		break;
	case PEER_BLIS:
		snprintf(out, outlen, "BLIS %s; arch %s", p_bli_info_get_version_str(),
		         p_bli_arch_string(p_bli_arch_query_id()));
		break;
	case PEER_ONEDNN: {
		const dnnl_version_t *v = p_dnnl_version();
		unsigned isa = (unsigned)p_dnnl_get_effective_cpu_isa();
		snprintf(out, outlen, "oneDNN %d.%d.%d; ISA %s", v->major, v->minor, v->patch,
		         onednn_isa_name(isa));
		break;
	}
	default: snprintf(out, outlen, "no peer loaded");
	}
}

int peer_sgemm(int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c) {
	if (p_cblas_sgemm) {
		p_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f,
		              a, (int)k, b, (int)n, 0.0f, c, (int)n);
		return 0;
	}
	if (p_dnnl_sgemm) {
		// dnnl_sgemm is row-major (oneDNN C API reference, "BLAS functions").
		return p_dnnl_sgemm('N', 'N', m, n, k, 1.0f, a, k, b, n, 0.0f, c, n) == dnnl_success ? 0
		                                                                               : -2;
	}
	return -1;
}

int peer_dgemm(int64_t m, int64_t n, int64_t k, const double *a, const double *b, double *c) {
	if (p_cblas_dgemm) {
		p_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, a,
		              (int)k, b, (int)n, 0.0, c, (int)n);
		return 0;
	}
	return -1;
}

int peer_gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t *a, const int8_t *b,
                      int32_t *c) {
	if (p_dnnl_gemm_u8s8s32) {
		int32_t co = 0;
		return p_dnnl_gemm_u8s8s32('N', 'N', 'F', m, n, k, 1.0f, a, k, 0, b, n, 0, 0.0f, c, n,
		                           &co) == dnnl_success
		           ? 0
		           : -2;
	}
	return -1;
}

struct peer_conv {
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t prim;
	dnnl_memory_t usr_src, usr_wei, usr_dst; // the caller's layouts
	dnnl_memory_t src, wei, dst;             // the primitive's layouts (may alias user ones)
	dnnl_primitive_t r_src, r_wei, r_dst;    // reorders between them, NULL when equal
	char impl[128];
};

static int mem_for(dnnl_memory_t *m, const dnnl_memory_desc_t *md) {
	return p_dnnl_memory_create(m, md, engine, DNNL_MEMORY_ALLOCATE) == dnnl_success ? 0 : -1;
}

static int same_md(const dnnl_memory_desc_t *a, const dnnl_memory_desc_t *b) {
	return memcmp(a, b, sizeof(*a)) == 0;
}

// reorder_for makes a reorder primitive from src to dst memory descriptors.
static int reorder_for(dnnl_primitive_t *r, const dnnl_memory_desc_t *from,
                       const dnnl_memory_desc_t *to) {
	dnnl_primitive_desc_t rpd;
	if (p_dnnl_reorder_primitive_desc_create(&rpd, from, engine, to, engine, NULL) !=
	    dnnl_success)
		return -1;
	dnnl_status_t s = p_dnnl_primitive_create(r, rpd);
	p_dnnl_primitive_desc_destroy(rpd);
	return s == dnnl_success ? 0 : -1;
}

static int exec_reorder(dnnl_primitive_t r, dnnl_memory_t from, dnnl_memory_t to) {
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
	if (p_dnnl_primitive_execute(r, stream, 2, args) != dnnl_success) return -1;
	return p_dnnl_stream_wait(stream) == dnnl_success ? 0 : -1;
}

#define CONV_FAIL(msg)                          \
	do {                                        \
		snprintf(err, errlen, "%s", msg);       \
		peer_conv_destroy(c);                   \
		return NULL;                            \
	} while (0)

peer_conv *peer_conv_create(int dtype, int fmt, int64_t n, int64_t g, int64_t ci, int64_t h,
                            int64_t w, int64_t co, int64_t kh, int64_t kw, int64_t sh,
                            int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                            int64_t oh, int64_t ow, const int64_t wstrides[5], char *err,
                            size_t errlen) {
	if (engine == NULL) {
		snprintf(err, errlen, "convolution needs the oneDNN peer");
		return NULL;
	}
	peer_conv *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	dnnl_data_type_t st = dtype == CONV_U8S8 ? dnnl_u8 : dnnl_f32;
	dnnl_data_type_t wt = dtype == CONV_U8S8 ? dnnl_s8 : dnnl_f32;
	dnnl_data_type_t dt = dtype == CONV_U8S8 ? dnnl_s32 : dnnl_f32;

	dnnl_dims_t sdims = {n, ci, h, w}, ddims = {n, co, oh, ow};
	dnnl_memory_desc_t usrc, udst, uwei, csrc, cwei, cdst;
	if (p_dnnl_memory_desc_init_by_tag(&usrc, 4, sdims, st, dnnl_nhwc) != dnnl_success ||
	    p_dnnl_memory_desc_init_by_tag(&udst, 4, ddims, dt, dnnl_nhwc) != dnnl_success)
		CONV_FAIL("memory_desc_init_by_tag (nhwc) failed");
	// Weights: 4D {oc, ic, kh, kw} without groups, 5D {g, oc/g, ic/g, kh, kw} with.
	if (g == 1) {
		dnnl_dims_t wd = {co, ci, kh, kw};
		dnnl_dims_t ws = {wstrides[1], wstrides[2], wstrides[3], wstrides[4]};
		if (p_dnnl_memory_desc_init_by_strides(&uwei, 4, wd, wt, ws) != dnnl_success)
			CONV_FAIL("weights memory desc failed");
		if (p_dnnl_memory_desc_init_by_tag(&cwei, 4, wd, wt, dnnl_format_tag_any) != dnnl_success)
			CONV_FAIL("weights any desc failed");
	} else {
		dnnl_dims_t wd = {g, co / g, ci / g, kh, kw};
		dnnl_dims_t ws = {wstrides[0], wstrides[1], wstrides[2], wstrides[3], wstrides[4]};
		if (p_dnnl_memory_desc_init_by_strides(&uwei, 5, wd, wt, ws) != dnnl_success)
			CONV_FAIL("weights memory desc failed");
		if (p_dnnl_memory_desc_init_by_tag(&cwei, 5, wd, wt, dnnl_format_tag_any) != dnnl_success)
			CONV_FAIL("weights any desc failed");
	}
	dnnl_format_tag_t iotag = fmt == FMT_ANY ? dnnl_format_tag_any : dnnl_nhwc;
	if (p_dnnl_memory_desc_init_by_tag(&csrc, 4, sdims, st, iotag) != dnnl_success ||
	    p_dnnl_memory_desc_init_by_tag(&cdst, 4, ddims, dt, iotag) != dnnl_success)
		CONV_FAIL("memory_desc_init_by_tag (conv) failed");

	// oneDNN dilation counts the gaps between taps: 0 is a dense filter.
	dnnl_dims_t strides = {sh, sw}, dil = {dh - 1, dw - 1}, pl = {ph, pw};
	// Right padding so that oh = (h + pl + pr - ((kh-1)*dh + 1)) / sh + 1 holds exactly.
	dnnl_dims_t pr = {(oh - 1) * sh + (kh - 1) * dh + 1 - h - ph,
	                  (ow - 1) * sw + (kw - 1) * dw + 1 - w - pw};
	dnnl_convolution_desc_t cd;
	if (p_dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
	                                                 dnnl_convolution_direct, &csrc, &cwei, NULL,
	                                                 &cdst, strides, dil, pl, pr) != dnnl_success)
		CONV_FAIL("dnnl_dilated_convolution_forward_desc_init failed");
	if (p_dnnl_primitive_desc_create(&c->pd, &cd, NULL, engine, NULL) != dnnl_success)
		CONV_FAIL("dnnl_primitive_desc_create (convolution) failed: no implementation");
	const char *impl = NULL;
	if (p_dnnl_primitive_desc_query(c->pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
	    impl != NULL)
		snprintf(c->impl, sizeof(c->impl), "%s", impl);
	if (p_dnnl_primitive_create(&c->prim, c->pd) != dnnl_success)
		CONV_FAIL("dnnl_primitive_create (convolution) failed");

	const dnnl_memory_desc_t *psrc = p_dnnl_primitive_desc_query_md(c->pd, dnnl_query_src_md, 0);
	const dnnl_memory_desc_t *pwei =
	    p_dnnl_primitive_desc_query_md(c->pd, dnnl_query_weights_md, 0);
	const dnnl_memory_desc_t *pdst = p_dnnl_primitive_desc_query_md(c->pd, dnnl_query_dst_md, 0);
	if (mem_for(&c->usr_src, &usrc) || mem_for(&c->usr_wei, &uwei) || mem_for(&c->usr_dst, &udst))
		CONV_FAIL("user memory allocation failed");
	if (same_md(psrc, &usrc)) {
		c->src = c->usr_src;
	} else if (mem_for(&c->src, psrc) || reorder_for(&c->r_src, &usrc, psrc)) {
		CONV_FAIL("source reorder failed");
	}
	if (same_md(pwei, &uwei)) {
		c->wei = c->usr_wei;
	} else if (mem_for(&c->wei, pwei) || reorder_for(&c->r_wei, &uwei, pwei)) {
		CONV_FAIL("weights reorder failed");
	}
	if (same_md(pdst, &udst)) {
		c->dst = c->usr_dst;
	} else if (mem_for(&c->dst, pdst) || reorder_for(&c->r_dst, pdst, &udst)) {
		CONV_FAIL("destination reorder failed");
	}
	return c;
}

void peer_conv_buffers(peer_conv *c, void **src, void **wei, void **dst) {
	p_dnnl_memory_get_data_handle(c->usr_src, src);
	p_dnnl_memory_get_data_handle(c->usr_wei, wei);
	p_dnnl_memory_get_data_handle(c->usr_dst, dst);
}

int peer_conv_prepare(peer_conv *c) {
	if (c->r_src && exec_reorder(c->r_src, c->usr_src, c->src)) return -1;
	if (c->r_wei && exec_reorder(c->r_wei, c->usr_wei, c->wei)) return -1;
	return 0;
}

int peer_conv_run(peer_conv *c) {
	dnnl_exec_arg_t args[3] = {
	    {DNNL_ARG_SRC, c->src}, {DNNL_ARG_WEIGHTS, c->wei}, {DNNL_ARG_DST, c->dst}};
	if (p_dnnl_primitive_execute(c->prim, stream, 3, args) != dnnl_success) return -1;
	return p_dnnl_stream_wait(stream) == dnnl_success ? 0 : -1;
}

int peer_conv_result(peer_conv *c) {
	if (c->r_dst) return exec_reorder(c->r_dst, c->dst, c->usr_dst);
	return 0;
}

const char *peer_conv_impl(peer_conv *c) { return c->impl; }

void peer_conv_destroy(peer_conv *c) {
	if (c == NULL) return;
	if (c->r_src) p_dnnl_primitive_destroy(c->r_src);
	if (c->r_wei) p_dnnl_primitive_destroy(c->r_wei);
	if (c->r_dst) p_dnnl_primitive_destroy(c->r_dst);
	if (c->prim) p_dnnl_primitive_destroy(c->prim);
	if (c->pd) p_dnnl_primitive_desc_destroy(c->pd);
	if (c->src && c->src != c->usr_src) p_dnnl_memory_destroy(c->src);
	if (c->wei && c->wei != c->usr_wei) p_dnnl_memory_destroy(c->wei);
	if (c->dst && c->dst != c->usr_dst) p_dnnl_memory_destroy(c->dst);
	if (c->usr_src) p_dnnl_memory_destroy(c->usr_src);
	if (c->usr_wei) p_dnnl_memory_destroy(c->usr_wei);
	if (c->usr_dst) p_dnnl_memory_destroy(c->usr_dst);
	free(c);
}
