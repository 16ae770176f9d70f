package gemm

import (
	"fmt"
	"unsafe"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/num"
)

// bf16 GEMM: operands are bfloat16 values stored as uint16 (the top half of a float32;
// num.ToBF16 rounds to nearest even), C and the accumulation are float32. Each output is
// within ref.BF16Bound of the exact result (products of two bf16 values are exact in fp32;
// the k sum is rounded once per product, in the kernel's order).
//
// Kernels, best first (kernels.ForDType("bf16")): AMX's TDPBF16PS (amx.go), AVX512_BF16's VDPBF16PS on k pairs, whose
// packed layouts are the int16 kernels' (a bf16 pair is a dword, as an int16 pair is), so the
// packing runs as for int16; else the float32 kernels (AVX-512, AVX2 or Go) on operands
// widened to float32 (exact: a bf16 is the top half of a float32).

// shapeBF16Z is the AVX512_BF16 kernel's shape: 6x32, k pairs of 2-byte elements.
var shapeBF16Z = shape{mr: kernels.BF16ZMR, nr: kernels.BF16ZNR, group: kernels.BF16KGroup, sizeA: 2, sizeB: 2, l1Share: 1, l2Share: 0.5}

// wsBF16 holds the bf16 GEMM's workspaces: the packed operands as int16 (the same bits).
var wsBF16 wsPool[int16, int16, float32]

// bf16Tiles is kernels.BF16ZTiles on int16-typed packed panels (the driver packs bf16 bits as
// int16, which the int16 packing routines move unchanged).
func bf16Tiles(tiles, kg int, a []int16, b []int16, c []float32, ldc int, alpha, beta float32) {
	kernels.BF16ZTiles(tiles, kg, asU16(a), asU16(b), c, ldc, alpha, beta)
}

func asU16(s []int16) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
func asI16(s []uint16) []int16 {
	return unsafe.Slice((*int16)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// forceBF16 (tests) replaces the machine's bf16 set: ISAAVX512BF16 or a float set.
var forceBF16 *kernels.ISA

func bf16Set() kernels.ISA {
	if forceBF16 != nil {
		return *forceBF16
	}
	return kernels.ForDType("bf16")
}

// GemmBF16 computes C = alpha*op(A)*op(B) + beta*C with bf16 A and B (uint16 storage) and
// float32 C for row-major matrices on all cores.
func GemmBF16(tA, tB Transpose, m, n, k int, alpha float32, a []uint16, lda int, b []uint16, ldb int, beta float32, c []float32, ldc int) error {
	return Options{}.GemmBF16(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// GemmBF16 is the bf16 GEMM with these options.
func (o Options) GemmBF16(tA, tB Transpose, m, n, k int, alpha float32, a []uint16, lda int, b []uint16, ldb int, beta float32, c []float32, ldc int) error {
	ar, err := o.check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if err != nil {
		return err
	}
	if useAMX() {
		if ar.swapped {
			a, b = b, a
		}
		threads, err := o.threads()
		if err != nil {
			return err
		}
		va, vb := views(ar, asI16(a), asI16(b))
		amxGEMM(amxBF16, 2, threads, ar.m, ar.n, ar.k, alpha, va, vb, beta, c, ar.ldc)
		return nil
	}
	if bf16Set() != kernels.ISAAVX512BF16 {
		// Widen to float32 and run the float kernels (Sgemm checks and normalizes again).
		return o.Sgemm(tA, tB, m, n, k, alpha, WidenBF16(a), lda, WidenBF16(b), ldb, beta, c, ldc)
	}
	if ar.swapped {
		a, b = b, a
	}
	blk, err := o.blocking(shapeBF16Z)
	if err != nil {
		return err
	}
	threads, err := o.threads()
	if err != nil {
		return err
	}
	va, vb := views(ar, asI16(a), asI16(b))
	pl := plan[int16, int16, int16, int16, float32]{s: shapeBF16Z, kern: bf16Tiles, blk: blk, threads: threads, ws: &wsBF16}
	pl.run(ar.m, ar.n, ar.k, alpha, va, vb, beta, c, ar.ldc)
	return nil
}

// WidenBF16 returns the float32 values of bf16 values (exact).
func WidenBF16(h []uint16) []float32 {
	f := make([]float32, len(h))
	for i, v := range h {
		f[i] = num.BF16(v).Float32()
	}
	return f
}

// PackedBF16 is a bf16 B operand (k x n) packed once for many GemmBF16 calls that share it
// (a convolution's weights): on the VDPBF16PS path the calls then pack only A. Other paths
// run GemmBF16 on the original B.
type PackedBF16 struct {
	o      Options
	tB     Transpose
	n, k   int
	b      []uint16
	ldb    int
	base   Blocking  // the blocking before fitting (plan.blk)
	kc, nc int       // the fitted B block sizes (they do not depend on m)
	blocks [][]int16 // B's blocks, (jc/nc)*pcs + pc/kc, each as the driver packs it
	pcs    int
	amx    *amxPacked[int16] // B packed for the AMX driver, where it runs
}

// PackBF16 packs B (k x n, op(B) per tB, row stride ldb) for Gemm calls with these options
// (row-major only). B must not change while the PackedBF16 is in use.
func (o Options) PackBF16(tB Transpose, n, k int, b []uint16, ldb int) (*PackedBF16, error) {
	if o.Layout != RowMajor {
		return nil, fmt.Errorf("gemm: PackBF16 takes row-major operands")
	}
	if _, err := o.check(NoTrans, tB, 1, n, k, max(1, k), ldb, max(1, n), k, len(b), n); err != nil {
		return nil, err
	}
	p := &PackedBF16{o: o, tB: tB, n: n, k: k, b: b, ldb: ldb}
	base, err := o.blocking(shapeBF16Z)
	if err != nil {
		return nil, err
	}
	p.base = base
	if n == 0 || k == 0 {
		return p, nil
	}
	_, vb := views(args{ldb: ldb, transB: tB == Trans}, []int16(nil), asI16(b))
	if useAMX() {
		p.amx = packAMXAll(vb, n, k, 2)
		return p, nil
	}
	s := shapeBF16Z
	blk := base.fit(s, 1, n, k)
	p.kc, p.nc = blk.KC, blk.NC
	p.pcs = (k + p.kc - 1) / p.kc
	for jc := 0; jc < n; jc += p.nc {
		nb := min(p.nc, n-jc)
		for pc := 0; pc < k; pc += p.kc {
			kb := min(p.kc, k-pc)
			kg := (kb + s.group - 1) / s.group
			buf := make([]int16, (nb+s.nr-1)/s.nr*kg*s.group*s.nr)
			packB(buf, vb, pc, kb, jc, nb, s.nr, s.group)
			p.blocks = append(p.blocks, buf)
		}
	}
	return p, nil
}

// Gemm computes C = alpha*op(A)*B + beta*C for op(A) m x k (row stride lda) and the packed B.
// The kernels are the ones of the PackBF16 call's machine state (AMX or not).
func (p *PackedBF16) Gemm(tA Transpose, m int, alpha float32, a []uint16, lda int, beta float32, c []float32, ldc int) error {
	usePacked := p.amx != nil || bf16Set() == kernels.ISAAVX512BF16 && !useAMX() && p.blocks != nil
	if !usePacked {
		return p.o.GemmBF16(tA, p.tB, m, p.n, p.k, alpha, a, lda, p.b, p.ldb, beta, c, ldc)
	}
	ar, err := p.o.check(tA, p.tB, m, p.n, p.k, lda, p.ldb, ldc, len(a), len(p.b), len(c))
	if err != nil {
		return err
	}
	threads, err := p.o.threads()
	if err != nil {
		return err
	}
	va, vb := views(ar, asI16(a), asI16(p.b))
	if p.amx != nil {
		amxGEMMPacked(amxBF16, 2, threads, ar.m, ar.n, ar.k, alpha, va, vb, p.amx, beta, c, ar.ldc)
		return nil
	}
	pl := plan[int16, int16, int16, int16, float32]{s: shapeBF16Z, kern: bf16Tiles, blk: p.base, threads: threads, ws: &wsBF16,
		packedB: func(jc, pc int) []int16 { return p.blocks[jc/p.nc*p.pcs+pc/p.kc] }}
	pl.run(ar.m, ar.n, ar.k, alpha, va, vb, beta, c, ar.ldc)
	return nil
}
