package main

// #cgo CFLAGS: -O2 -Wall
// #cgo LDFLAGS: -ldl
// #include <stdlib.h>
// #include "peers.h"
// #include <dnnl_types.h>
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// peerKinds maps a peer's name to its C enum.
var peerKinds = map[string]C.int{"openblas": C.PEER_OPENBLAS, "blis": C.PEER_BLIS, "onednn": C.PEER_ONEDNN}

const errLen = 512

// onednnISAs maps --onednn-isa's names to oneDNN's dnnl_cpu_isa_t values (dnnl_types.h);
// "all" (0) leaves oneDNN at the full instruction set of the CPU.
var onednnISAs = map[string]C.int{
	"all":              0,
	"avx2":             C.dnnl_cpu_isa_avx2,
	"avx2_vnni":        C.dnnl_cpu_isa_avx2_vnni,
	"avx512_core":      C.dnnl_cpu_isa_avx512_core,
	"avx512_core_vnni": C.dnnl_cpu_isa_avx512_core_vnni,
	"avx512_core_bf16": C.dnnl_cpu_isa_avx512_core_bf16,
	"avx512_core_amx":  C.dnnl_cpu_isa_avx512_core_amx,
}

func loadPeer(name string, threads int, onednnISA string) error {
	kind, ok := peerKinds[name]
	if !ok {
		return fmt.Errorf("unknown peer %q", name)
	}
	isa, ok := onednnISAs[onednnISA]
	if !ok {
		return fmt.Errorf("unknown oneDNN ISA %q", onednnISA)
	}
	buf := (*C.char)(C.calloc(errLen, 1))
	defer C.free(unsafe.Pointer(buf))
	if C.peer_load(kind, C.int(threads), isa, buf, errLen) != 0 {
		return errors.New(C.GoString(buf))
	}
	return nil
}

// peerISA names the instruction set the loaded library runs.
func peerISA() string {
	buf := (*C.char)(C.calloc(errLen, 1))
	defer C.free(unsafe.Pointer(buf))
	C.peer_isa(buf, errLen)
	return C.GoString(buf)
}

func peerInfo() string {
	buf := (*C.char)(C.calloc(errLen, 1))
	defer C.free(unsafe.Pointer(buf))
	C.peer_info(buf, errLen)
	return C.GoString(buf)
}

// cbuf is C memory (64-byte aligned, outside the Go heap, so the garbage collector neither
// scans nor moves it while a library works on it).
type cbuf struct {
	p unsafe.Pointer
	n int // bytes
}

func newCBuf(n int) (cbuf, error) {
	if n == 0 {
		n = 64
	}
	n = (n + 63) &^ 63
	p := C.aligned_alloc(64, C.size_t(n))
	if p == nil {
		return cbuf{}, fmt.Errorf("cannot allocate %d bytes", n)
	}
	return cbuf{p, n}, nil
}

func (b cbuf) free() {
	if b.p != nil {
		C.free(b.p)
	}
}

func cslice[T any](p unsafe.Pointer, n int) []T { return unsafe.Slice((*T)(p), n) }

// errNoOp reports that a peer lacks an operation; the parent leaves its column empty.
var errNoOp = errors.New("operation not provided by this peer")

func status(rc C.int, what string) error {
	switch rc {
	case 0:
		return nil
	case -1:
		return errNoOp
	}
	return fmt.Errorf("%s failed (status %d)", what, int(rc))
}

// peerOp is a prepared operation in a worker: run executes it once, result returns its
// output as float64 (exact for int32), free releases its memory.
type peerOp struct {
	run    func() error
	result func() ([]float64, error)
	free   func()
	impl   string
}

func prepareGEMM(t *Task) (*peerOp, error) {
	m, n, k := C.int64_t(t.M), C.int64_t(t.N), C.int64_t(t.K)
	var size int
	switch t.DType {
	case "float32":
		size = 4
	case "float64":
		size = 8
	case "u8s8":
		size = 1
	default:
		return nil, errNoOp
	}
	a, err := newCBuf(t.aLen() * size)
	if err != nil {
		return nil, err
	}
	b, err := newCBuf(t.bLen() * size)
	if err != nil {
		a.free()
		return nil, err
	}
	cs := size
	if t.DType == "u8s8" {
		cs = 4
	}
	c, err := newCBuf(t.cLen() * cs)
	if err != nil {
		a.free()
		b.free()
		return nil, err
	}
	op := &peerOp{free: func() { a.free(); b.free(); c.free() }}
	switch t.DType {
	case "float32":
		fillF32(cslice[float32](a.p, t.aLen()), t.seedA())
		fillF32(cslice[float32](b.p, t.bLen()), t.seedB())
		op.run = func() error {
			return status(C.peer_sgemm(m, n, k, (*C.float)(a.p), (*C.float)(b.p), (*C.float)(c.p)), "sgemm")
		}
		op.result = func() ([]float64, error) { return widen(cslice[float32](c.p, t.cLen())), nil }
	case "float64":
		fillF64(cslice[float64](a.p, t.aLen()), t.seedA())
		fillF64(cslice[float64](b.p, t.bLen()), t.seedB())
		op.run = func() error {
			return status(C.peer_dgemm(m, n, k, (*C.double)(a.p), (*C.double)(b.p), (*C.double)(c.p)), "dgemm")
		}
		op.result = func() ([]float64, error) { return widen(cslice[float64](c.p, t.cLen())), nil }
	case "u8s8":
		fillU8(cslice[uint8](a.p, t.aLen()), t.seedA(), u8Max)
		fillI8(cslice[int8](b.p, t.bLen()), t.seedB())
		op.run = func() error {
			return status(C.peer_gemm_u8s8s32(m, n, k, (*C.uint8_t)(a.p), (*C.int8_t)(b.p), (*C.int32_t)(c.p)), "gemm_u8s8s32")
		}
		op.result = func() ([]float64, error) { return widen(cslice[int32](c.p, t.cLen())), nil }
	}
	// One call up front: a peer without the operation says so here, and the first call's
	// one-time costs (thread start, JIT) stay out of the measurement.
	if err := op.run(); err != nil {
		op.free()
		return nil, err
	}
	return op, nil
}

func prepareConv(t *Task) (*peerOp, error) {
	var dt C.int
	switch t.DType {
	case "float32":
		dt = C.CONV_F32
	case "u8s8":
		dt = C.CONV_U8S8
	default:
		return nil, errNoOp
	}
	fmtTag := C.int(C.FMT_NHWC)
	switch t.Variant {
	case "nhwc":
	case "any":
		fmtTag = C.FMT_ANY
	default:
		return nil, fmt.Errorf("unknown convolution variant %q (want nhwc or any)", t.Variant)
	}
	s := t.Conv
	ws := s.weightStrides()
	cws := (*C.int64_t)(C.malloc(5 * 8))
	defer C.free(unsafe.Pointer(cws))
	for i, v := range ws {
		cslice[C.int64_t](unsafe.Pointer(cws), 5)[i] = C.int64_t(v)
	}
	buf := (*C.char)(C.calloc(errLen, 1))
	defer C.free(unsafe.Pointer(buf))
	i64 := func(v int) C.int64_t { return C.int64_t(v) }
	// oneDNN names height before width: (h, w) = (Y, X), filter (kh, kw) = (S, R).
	pc := C.peer_conv_create(dt, fmtTag, i64(s.N), i64(s.Groups), i64(s.C), i64(s.YIn), i64(s.XIn),
		i64(s.K), i64(s.S), i64(s.R), i64(s.Stride), i64(s.Stride), i64(s.Pad), i64(s.Pad),
		i64(s.Dilation), i64(s.Dilation), i64(s.Y), i64(s.X), cws, buf, errLen)
	if pc == nil {
		return nil, errors.New(C.GoString(buf))
	}
	var src, wei, dst unsafe.Pointer
	C.peer_conv_buffers(pc, &src, &wei, &dst)
	switch t.DType {
	case "float32":
		fillF32(cslice[float32](src, t.aLen()), t.seedA())
		fillF32(cslice[float32](wei, t.bLen()), t.seedB())
	case "u8s8":
		fillU8(cslice[uint8](src, t.aLen()), t.seedA(), u8Max)
		fillI8(cslice[int8](wei, t.bLen()), t.seedB())
	}
	if C.peer_conv_prepare(pc) != 0 {
		C.peer_conv_destroy(pc)
		return nil, errors.New("oneDNN reorder into the convolution's formats failed")
	}
	op := &peerOp{
		impl: C.GoString(C.peer_conv_impl(pc)),
		run:  func() error { return status(C.peer_conv_run(pc), "convolution") },
		free: func() { C.peer_conv_destroy(pc) },
		result: func() ([]float64, error) {
			if C.peer_conv_result(pc) != 0 {
				return nil, errors.New("oneDNN reorder of the output to NHWC failed")
			}
			if t.DType == "float32" {
				return widen(cslice[float32](dst, t.cLen())), nil
			}
			return widen(cslice[int32](dst, t.cLen())), nil
		},
	}
	if err := op.run(); err != nil {
		op.free()
		return nil, err
	}
	return op, nil
}

func widen[T float32 | float64 | int32](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
