// Package gemm is sumac's general matrix multiply for the host CPU:
//
//	C = alpha * op(A) * op(B) + beta * C
//
// for float32, float64, int16 -> int32 and uint8 x int8 -> int32, in row- or column-major
// order with optional transposes, any m, n, k. It follows the BLIS design (seed 001,
// Fig. 2): five loops around a register-blocked micro-kernel (cpu/kernels, generated AVX2/FMA
// assembly), operands packed into cache-sized blocks derived from the CPU's caches, and the
// work split over goroutines.
//
// Semantics follow BLAS: when beta is zero C is not read (it may hold NaN); when alpha is
// zero or k is zero A and B are not read and C = beta*C. Integer results wrap modulo 2^32
// (the int32 lanes of the hardware), which is exact whenever the true result fits in int32.
// Bad arguments (negative sizes, too-small leading dimensions, short slices, unknown enum
// values) are returned as errors; nothing is written to C then.
package gemm

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/cpu/kernels"
)

// Layout is the storage order of all three matrices.
type Layout uint8

const (
	RowMajor Layout = iota // element (i, j) at i*ld + j (C, Go, gonum)
	ColMajor               // element (i, j) at j*ld + i (Fortran BLAS)
)

// Transpose says whether an operand is used as stored or transposed.
type Transpose uint8

const (
	NoTrans Transpose = iota
	Trans
)

// Options configure a GEMM call. The zero value is row-major, all cores, blocking from the
// detected caches and the automatic uint8 path.
type Options struct {
	Layout   Layout
	Threads  int            // goroutines; 0 means runtime.GOMAXPROCS(0)
	Blocking *Blocking      // nil: derived from Caches(); set to experiment with block sizes
	U8Path   kernels.U8Path // the uint8 x int8 path; the zero value, kernels.U8Auto, is exact
	// OverlapA lets A's rows overlap (lda smaller than A's row length; A is only read): a
	// convolution's filter rows read in place from the input (cpu/conv).
	OverlapA bool
}

func (o Options) threads() (int, error) {
	switch {
	case o.Threads < 0:
		return 0, fmt.Errorf("gemm: Threads=%d is negative", o.Threads)
	case o.Threads == 0:
		return runtime.GOMAXPROCS(0), nil
	}
	return o.Threads, nil
}

// Sgemm computes C = alpha*op(A)*op(B) + beta*C in float32 for row-major matrices on all cores.
func Sgemm(tA, tB Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	return Options{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm computes C = alpha*op(A)*op(B) + beta*C in float64 for row-major matrices on all cores.
func Dgemm(tA, tB Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) error {
	return Options{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// GemmI16 computes C = alpha*op(A)*op(B) + beta*C with int16 operands and int32 C
// (wrapping) for row-major matrices on all cores.
func GemmI16(tA, tB Transpose, m, n, k int, alpha int32, a []int16, lda int, b []int16, ldb int, beta int32, c []int32, ldc int) error {
	return Options{}.GemmI16(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// GemmU8S8 computes C = alpha*op(A)*op(B) + beta*C with uint8 A, int8 B and int32 C
// (wrapping) for row-major matrices on all cores, exactly (kernels.U8Auto).
func GemmU8S8(tA, tB Transpose, m, n, k int, alpha int32, a []uint8, lda int, b []int8, ldb int, beta int32, c []int32, ldc int) error {
	return Options{}.GemmU8S8(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// args is a validated call normalized to row-major C: when the layout is column-major the
// product is computed as C^T = op(B)^T op(A)^T, which swaps the roles of A and B.
type args struct {
	m, n, k        int
	lda, ldb, ldc  int
	transA, transB bool
	swapped        bool // A and B trade places (column-major input)
}

// check validates a call against BLAS rules and normalizes it.
func (o Options) check(tA, tB Transpose, m, n, k, lda, ldb, ldc, lenA, lenB, lenC int) (args, error) {
	if o.Layout != RowMajor && o.Layout != ColMajor {
		return args{}, fmt.Errorf("gemm: unknown layout %d", o.Layout)
	}
	if tA != NoTrans && tA != Trans {
		return args{}, fmt.Errorf("gemm: unknown transpose %d for A", tA)
	}
	if tB != NoTrans && tB != Trans {
		return args{}, fmt.Errorf("gemm: unknown transpose %d for B", tB)
	}
	if m < 0 || n < 0 || k < 0 {
		return args{}, fmt.Errorf("gemm: negative dimension m=%d n=%d k=%d", m, n, k)
	}
	// Stored shapes (rows x cols in the storage order's own sense).
	type stored struct {
		name       string
		rows, cols int // in row-major terms: rows are strided by ld
		ld, length int
	}
	aR, aC := m, k
	if tA == Trans {
		aR, aC = k, m
	}
	bR, bC := k, n
	if tB == Trans {
		bR, bC = n, k
	}
	mats := []stored{{"A", aR, aC, lda, lenA}, {"B", bR, bC, ldb, lenB}, {"C", m, n, ldc, lenC}}
	for _, s := range mats {
		rows, cols := s.rows, s.cols
		if o.Layout == ColMajor {
			rows, cols = cols, rows
		}
		if s.ld < max(1, cols) && !(o.OverlapA && s.name == "A" && s.ld >= 1) {
			return args{}, fmt.Errorf("gemm: ld%s=%d is smaller than max(1, %d)", lowerName(s.name), s.ld, cols)
		}
		if rows == 0 || cols == 0 {
			continue
		}
		if rows-1 > (math.MaxInt-cols)/s.ld {
			return args{}, fmt.Errorf("gemm: %s of %d x %d with ld=%d is too large", s.name, rows, cols, s.ld)
		}
		if need := (rows-1)*s.ld + cols; s.length < need {
			return args{}, fmt.Errorf("gemm: %s has %d elements, %d x %d with ld=%d needs %d", s.name, s.length, rows, cols, s.ld, need)
		}
	}
	if m > 0 && n > 0 && k > 0 && (m > math.MaxInt/n || m*n > math.MaxInt/k) {
		return args{}, fmt.Errorf("gemm: m*n*k overflows")
	}
	ar := args{m: m, n: n, k: k, lda: lda, ldb: ldb, ldc: ldc, transA: tA == Trans, transB: tB == Trans}
	if o.Layout == ColMajor {
		ar = args{m: n, n: m, k: k, lda: ldb, ldb: lda, ldc: ldc, transA: tB == Trans, transB: tA == Trans, swapped: true}
	}
	return ar, nil
}

func lowerName(s string) string { return string(rune(s[0]) + 'a' - 'A') }

// views returns op(A) (m x k) and op(B) (k x n) of a normalized call as strided views.
func views[TA, TB number](ar args, a []TA, b []TB) (view[TA], view[TB]) {
	va := view[TA]{data: a, rs: ar.lda, cs: 1}
	if ar.transA {
		va = view[TA]{data: a, rs: 1, cs: ar.lda}
	}
	vb := view[TB]{data: b, rs: ar.ldb, cs: 1}
	if ar.transB {
		vb = view[TB]{data: b, rs: 1, cs: ar.ldb}
	}
	return va, vb
}

func (o Options) blocking(s shape) (Blocking, error) {
	if o.Blocking != nil {
		return o.Blocking.validate(s)
	}
	if env := os.Getenv(BlockingEnv); env != "" {
		b, err := ParseBlocking(env)
		if err == nil {
			b, err = b.validate(s)
		}
		if err != nil {
			return Blocking{}, fmt.Errorf("gemm: %s=%q: %v", BlockingEnv, env, err)
		}
		return b, nil
	}
	return derive(Caches(), s), nil
}

// BlockingEnv names an environment variable that overrides the derived block sizes of
// every GEMM without Options.Blocking, as "mc,kc,nc" (for tuning experiments; each call
// rounds the sizes up to its kernel's multiples, as for Options.Blocking).
const BlockingEnv = "SUMAC_GEMM_BLOCKING"

// ParseBlocking parses "mc,kc,nc".
func ParseBlocking(s string) (Blocking, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return Blocking{}, fmt.Errorf("want mc,kc,nc")
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 {
			return Blocking{}, fmt.Errorf("%q is not a positive integer", p)
		}
		v[i] = n
	}
	return Blocking{MC: v[0], KC: v[1], NC: v[2]}, nil
}

// Kernel shapes: register block, k group and packed element sizes (cpu/kernels).
var (
	shapeF32 = shape{mr: kernels.F32MR, nr: kernels.F32NR, group: 1, sizeA: 4, sizeB: 4, l1Share: 1, l2Share: 0.5}
	shapeF64 = shape{mr: kernels.F64MR, nr: kernels.F64NR, group: 1, sizeA: 8, sizeB: 8, l1Share: 0.5, l2Share: 0.5}
	shapeI16 = shape{mr: kernels.I16MR, nr: kernels.I16NR, group: kernels.I16KGroup, sizeA: 2, sizeB: 2, l1Share: 0.5, l2Share: 0.5}
	shapeU8  = shape{mr: kernels.U8MR, nr: kernels.U8NR, group: kernels.U8KGroup, sizeA: 1, sizeB: 1, l1Share: 0.5, l2Share: 0.5}

	// The AVX-512 kernels: the same six rows, twice the columns.
	shapeF32Z = shape{mr: kernels.F32MR, nr: kernels.F32ZNR, group: 1, sizeA: 4, sizeB: 4, l1Share: 2, l2Share: 0.5}
	shapeF64Z = shape{mr: kernels.F64MR, nr: kernels.F64ZNR, group: 1, sizeA: 8, sizeB: 8, l1Share: 1, l2Share: 0.5}
	// The AVX-512 VNNI integer kernels (6x32): the B micro-panel fills L1, as for the float
	// AVX-512 kernels (64-byte vectors read B at half the rate per multiply-add).
	shapeI16ZV = shape{mr: kernels.I16ZVMR, nr: kernels.I16ZVNR, group: kernels.I16KGroup, sizeA: 2, sizeB: 2, l1Share: 1, l2Share: 0.5}
	shapeU8ZV  = shape{mr: kernels.U8ZVMR, nr: kernels.U8ZVNR, group: kernels.U8KGroup, sizeA: 1, sizeB: 1, l1Share: 1, l2Share: 0.5}
)

// floatKernels are the micro-kernels Sgemm and Dgemm run, with their shapes.
type floatKernels struct {
	avx512   bool // the AVX-512 set
	f32      shape
	f32Tiles kernelFn[float32, float32, float32]
	f64      shape
	f64Tiles kernelFn[float64, float64, float64]
}

// floatKernelSet returns the AVX-512 kernels (6x32 float32, 6x16 float64) or the AVX2 ones
// (6x16, 6x8). Both compute the same on any CPU (the Go fallbacks stand in for missing
// instructions); the choice is speed.
func floatKernelSet(avx512 bool) floatKernels {
	if avx512 {
		return floatKernels{true, shapeF32Z, kernels.F32ZTiles, shapeF64Z, kernels.F64ZTiles}
	}
	return floatKernels{false, shapeF32, kernels.F32Tiles, shapeF64, kernels.F64Tiles}
}

// intKernels are the micro-kernels GemmI16 and GemmU8S8 run, with their shapes.
type intKernels struct {
	isa       kernels.ISA // the set: AVX2, AVX-VNNI or AVX-512 VNNI
	i16       shape
	i16Tiles  kernelFn[int16, int16, int32]
	u8        shape
	u8s8Tiles kernelFn[uint8, int8, int32]
	s8u8Tiles kernelFn[int8, uint8, int32]
}

// exactBytes reports whether the byte kernels are exact for every input: VPDPBUSD sums
// uint8 x int8 products without saturation, VPMADDUBSW saturates pair sums to int16.
func (k intKernels) exactBytes() bool { return kernels.ExactBytes(k.isa) }

// intKernelSet returns the integer kernels of set isa: AVX-512 VNNI (6x32, VPDPWSSD and
// VPDPBUSD), AVX-VNNI (6x16, the same instructions on ymm) or AVX2 (6x16, VPMADDWD and
// VPMADDUBSW). Each computes the same on any CPU (the Go fallbacks stand in for missing
// instructions), except that only the VNNI byte kernels are exact for every input.
func intKernelSet(isa kernels.ISA) intKernels {
	switch isa {
	case kernels.ISAAVX512VNNI:
		return intKernels{isa, shapeI16ZV, kernels.I16ZVTiles, shapeU8ZV, kernels.U8S8ZVTiles, kernels.S8U8ZVTiles}
	case kernels.ISAAVX2VNNI:
		return intKernels{isa, shapeI16, kernels.I16VTiles, shapeU8, kernels.U8S8VTiles, kernels.S8U8VTiles}
	}
	// AVX2 on amd64; on arm64 the same functions run NEON (isa names which), else Go.
	return intKernels{isa, shapeI16, kernels.I16Tiles, shapeU8, kernels.U8S8Tiles, kernels.S8U8Tiles}
}

// KernelISA names the instruction set of the micro-kernel the GEMM of dtype ("float32",
// "float64", "int16", "u8s8"; "u8s8-exact" for the exact path, which widens to int16; "s8s8",
// which widens to int16 where AMX does not run; "bf16") runs on this machine: "amx",
// "avx512", "avx512-vnni", "avx2-vnni", "avx2", or "go" for the pure-Go
// fallbacks (other architectures, -tags noasm, CPUs without AVX2/FMA, SUMAC_MAX_ISA=go).
func KernelISA(dtype string) string {
	base := kernels.ForDType("") // the set of every form: AVX2, NEON or the Go fallbacks
	var s kernels.ISA
	switch dtype {
	case "float32", "float64":
		s = base
		if floats().avx512 {
			s = kernels.ISAAVX512
		}
	case "bf16":
		s = bf16Set()
		if useAMX() {
			return kernels.ISAAMX.String()
		}
	case "int16", "u8s8-exact":
		s = ints().isa
	case "s8s8":
		if useAMX() {
			return kernels.ISAAMX.String()
		}
		s = ints().isa // the int16 kernels on widened operands
	case "u8s8":
		if useAMX() {
			return kernels.ISAAMX.String()
		}
		s = ints().isa
		if d := kernels.ForDType("u8s8"); d == kernels.ISANEONDot {
			s = d // the byte kernels on the Arm dot-product instructions
		}
	default:
		s = base
	}
	if !kernels.Runs(s) {
		return "go"
	}
	return s.String()
}

// forceFloats and forceInts, when set (by tests), replace the kernel sets of the machine.
var (
	forceFloats *floatKernels
	forceInts   *intKernels
)

// floats is the float set in use: AVX-512 where kernels.AVX512 reports it (the CPU has it
// and kernels.MaxISAEnv does not cap it), else AVX2.
func floats() floatKernels {
	if forceFloats != nil {
		return *forceFloats
	}
	return floatKernelSet(kernels.AVX512())
}

// ints is the integer set in use: the best the machine runs (kernels.ForDType).
func ints() intKernels {
	if forceInts != nil {
		return *forceInts
	}
	return intKernelSet(kernels.ForDType("int16"))
}

// Workspace pools, one per (packed A, packed B, C) type combination.
var (
	wsF32  wsPool[float32, float32, float32]
	wsF64  wsPool[float64, float64, float64]
	wsI16  wsPool[int16, int16, int32] // int16 and the exact uint8 x int8 path
	wsU8S8 wsPool[uint8, int8, int32]
	wsS8U8 wsPool[int8, uint8, int32]
)

// DefaultBlocking returns the block sizes derived from the caches for each element type
// ("float32", "float64", "int16", "u8s8"; the exact u8s8 path uses int16's).
func DefaultBlocking(dtype string) (Blocking, error) {
	switch dtype {
	case "float32":
		return derive(Caches(), floats().f32), nil
	case "float64":
		return derive(Caches(), floats().f64), nil
	case "int16":
		return derive(Caches(), ints().i16), nil
	case "u8s8":
		return derive(Caches(), ints().u8), nil
	case "bf16":
		return derive(Caches(), shapeBF16Z), nil
	}
	return Blocking{}, fmt.Errorf("gemm: unknown element type %q", dtype)
}

// Sgemm is the float32 GEMM with these options.
func (o Options) Sgemm(tA, tB Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	ar, err := o.check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if err != nil {
		return err
	}
	if ar.swapped {
		a, b = b, a
	}
	f := floats()
	return runFloat(o, ar, f.f32, f.f32Tiles, &wsF32, alpha, a, b, beta, c)
}

// Dgemm is the float64 GEMM with these options.
func (o Options) Dgemm(tA, tB Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) error {
	ar, err := o.check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if err != nil {
		return err
	}
	if ar.swapped {
		a, b = b, a
	}
	f := floats()
	return runFloat(o, ar, f.f64, f.f64Tiles, &wsF64, alpha, a, b, beta, c)
}

func runFloat[T float32 | float64](o Options, ar args, s shape, kern kernelFn[T, T, T], ws *wsPool[T, T, T], alpha T, a, b []T, beta T, c []T) error {
	blk, err := o.blocking(s)
	if err != nil {
		return err
	}
	threads, err := o.threads()
	if err != nil {
		return err
	}
	va, vb := views(ar, a, b)
	pl := plan[T, T, T, T, T]{s: s, kern: kern, blk: blk, threads: threads, ws: ws}
	pl.run(ar.m, ar.n, ar.k, alpha, va, vb, beta, c, ar.ldc)
	return nil
}

// GemmI16 is the int16 -> int32 GEMM with these options.
func (o Options) GemmI16(tA, tB Transpose, m, n, k int, alpha int32, a []int16, lda int, b []int16, ldb int, beta int32, c []int32, ldc int) error {
	ar, err := o.check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if err != nil {
		return err
	}
	if ar.swapped {
		a, b = b, a
	}
	ks := ints()
	return runInt(o, ar, ks.i16, ks.i16Tiles, &wsI16, alpha, a, b, beta, c)
}

func runInt[TA, TB, PA, PB number](o Options, ar args, s shape, kern kernelFn[PA, PB, int32], ws *wsPool[PA, PB, int32], alpha int32, a []TA, b []TB, beta int32, c []int32) error {
	blk, err := o.blocking(s)
	if err != nil {
		return err
	}
	threads, err := o.threads()
	if err != nil {
		return err
	}
	va, vb := views(ar, a, b)
	pl := plan[TA, TB, PA, PB, int32]{s: s, kern: kern, blk: blk, threads: threads, ws: ws}
	pl.run(ar.m, ar.n, ar.k, alpha, va, vb, beta, c, ar.ldc)
	return nil
}

// GemmU8S8 is the uint8 x int8 -> int32 GEMM with these options; o.U8Path picks the kernel.
func (o Options) GemmU8S8(tA, tB Transpose, m, n, k int, alpha int32, a []uint8, lda int, b []int8, ldb int, beta int32, c []int32, ldc int) error {
	ar, err := o.check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if err != nil {
		return err
	}
	if p := o.U8Path; useAMX() && !ar.swapped && (p == kernels.U8Auto || p == kernels.U8Exact || p == kernels.U8Fast) {
		// The AMX tile kernels (TDPBUSD, exact for every input). Column-major C would put the
		// signed operand first, which the catalog's TDPBUSD kernel does not take.
		threads, err := o.threads()
		if err != nil {
			return err
		}
		va, vb := views(ar, a, b)
		amxGEMM(amxU8S8, 1, threads, ar.m, ar.n, ar.k, alpha, va, vb, beta, c, ar.ldc)
		return nil
	}
	ks := ints()
	path := o.U8Path
	switch path {
	case kernels.U8Auto:
		// The VNNI byte kernels are exact for every input; VPMADDUBSW only where no pair
		// sum can saturate.
		path = kernels.U8Exact
		if ks.exactBytes() || m > 0 && n > 0 && k > 0 && alpha != 0 && fastIsExact(o.Layout, tA, tB, m, n, k, a, lda, b, ldb) {
			path = kernels.U8Fast
		}
	case kernels.U8Exact, kernels.U8Fast:
	default:
		return fmt.Errorf("gemm: %v", path.Check())
	}
	switch {
	case path == kernels.U8Exact && !ar.swapped:
		return runInt(o, ar, ks.i16, ks.i16Tiles, &wsI16, alpha, a, b, beta, c)
	case path == kernels.U8Exact:
		return runInt(o, ar, ks.i16, ks.i16Tiles, &wsI16, alpha, b, a, beta, c)
	case !ar.swapped:
		return runInt(o, ar, ks.u8, ks.u8s8Tiles, &wsU8S8, alpha, a, b, beta, c)
	default:
		// Column-major: C^T = B^T A^T puts the signed operand on the broadcast side.
		return runInt(o, ar, ks.u8, ks.s8u8Tiles, &wsS8U8, alpha, b, a, beta, c)
	}
}

// fastIsExact reports whether VPMADDUBSW cannot saturate for these operands: every value of
// op(A) is at most 127, or every value of op(B) is within -64..64 (kernels.ActsFitU8Fast,
// kernels.WeightsFitU8Fast).
func fastIsExact(l Layout, tA, tB Transpose, m, n, k int, a []uint8, lda int, b []int8, ldb int) bool {
	rowsA, colsA := m, k
	if tA == Trans {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if tB == Trans {
		rowsB, colsB = n, k
	}
	if l == ColMajor {
		rowsA, colsA, rowsB, colsB = colsA, rowsA, colsB, rowsB
	}
	small := true
	for i := 0; i < rowsA && small; i++ {
		small = kernels.ActsFitU8Fast(a[i*lda:][:colsA])
	}
	if small {
		return true
	}
	for i := 0; i < rowsB; i++ {
		if !kernels.WeightsFitU8Fast(b[i*ldb:][:colsB]) {
			return false
		}
	}
	return true
}
