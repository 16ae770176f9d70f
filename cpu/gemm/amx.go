package gemm

import (
	"fmt"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/team"
)

// AMX GEMM (docs/cpu-amx.md): the loops around kernels' 32 x 32 tile kernels (AMXU8S8,
// AMXS8S8, AMXBF16). The blocking follows the tile geometry: a k step is one tile row of 64
// bytes (64 int8 or 32 bf16 values of k), the kernel's C block is 2 x 2 tiles, so packed A
// is cut into 32-row panels of 16 x 64-byte tiles and packed B into 32-column panels of VNNI
// tiles (4 int8 or 2 bf16 values of k per 4-byte lane). KC = 16 steps (1 KiB of k): a packed
// A panel and a packed B panel are then 32 KiB each, L1-sized (48 KiB on Sapphire Rapids,
// cpu.md); NC = 512 columns (512 KiB of packed B per block, within the 2 MiB L2), MC = 256
// rows of A per block.
const (
	amxKCBytes = 1024
	amxNC      = 512
	amxMC      = 256
)

// amxKernel is one of kernels' AMX tile functions on typed packed panels.
type amxKernel[TA, TB, C number] func(tiles, kg int, a []TA, b []TB, c []C, ldc int, load bool)

// amxPacked is B packed once for many AMX GEMMs (PackedU8S8, PackedBF16): its blocks of
// amxNC columns and amxKCBytes of k, in amxRows' order.
type amxPacked[TB number] struct {
	blocks [][]TB
	pcs    int // k blocks per column block
}

func packAMXAll[TB number](vb view[TB], n, k, eb int) *amxPacked[TB] {
	kc := amxKCBytes / eb
	p := &amxPacked[TB]{pcs: (k + kc - 1) / kc}
	kps := kernels.AMXKStep / eb
	for jc := 0; jc < n; jc += amxNC {
		nb := min(amxNC, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			steps := (kb + kps - 1) / kps
			buf := make([]TB, (nb+kernels.AMXBlock-1)/kernels.AMXBlock*steps*2*kernels.AMXTileBytes/eb)
			packBAMX(buf, vb, pc, kb, steps, jc, nb, eb)
			p.blocks = append(p.blocks, buf)
		}
	}
	return p
}

// amxGEMM computes C = alpha*op(A)*op(B) + beta*C (row-major C, op(A) m x k through va, op(B)
// k x n through vb) with elements of eb bytes (1: int8 types, 2: bf16 as uint16).
func amxGEMM[TA, TB, C number](kern amxKernel[TA, TB, C], eb, threads int, m, n, k int, alpha C, va view[TA], vb view[TB], beta C, c []C, ldc int) {
	amxGEMMPacked(kern, eb, threads, m, n, k, alpha, va, vb, nil, beta, c, ldc)
}

// amxGEMMPacked is amxGEMM with B already packed when pre is not nil (vb unused then).
func amxGEMMPacked[TA, TB, C number](kern amxKernel[TA, TB, C], eb, threads int, m, n, k int, alpha C, va view[TA], vb view[TB], pre *amxPacked[TB], beta C, c []C, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scale(m, n, beta, c, ldc)
		return
	}
	if alpha != 1 || (beta != 0 && beta != 1) {
		// The tile kernels compute C = A*B or C += A*B: other scalings combine afterwards.
		t := make([]C, m*n)
		amxGEMMPacked(kern, eb, threads, m, n, k, 1, va, vb, pre, 0, t, n)
		for i := 0; i < m; i++ {
			row := c[i*ldc:][:n]
			for j, v := range t[i*n : (i+1)*n] {
				if beta == 0 {
					row[j] = alpha * v
				} else {
					row[j] = alpha*v + beta*row[j]
				}
			}
		}
		return
	}
	panels := (m + kernels.AMXBlock - 1) / kernels.AMXBlock
	if m*n*k < minParallelMACs {
		threads = 1
	}
	threads = max(1, min(threads, panels))
	team.Run(threads, func(t int) {
		p0, p1 := share(panels, threads, t)
		i0, i1 := p0*kernels.AMXBlock, min(m, p1*kernels.AMXBlock)
		if i1 > i0 {
			amxRows(kern, eb, i0, i1, n, k, va, vb, pre, beta, c, ldc)
		}
	})
}

// amxRows runs rows i0..i1 of C (beta 0 or 1, alpha 1).
func amxRows[TA, TB, C number](kern amxKernel[TA, TB, C], eb, i0, i1, n, k int, va view[TA], vb view[TB], pre *amxPacked[TB], beta C, c []C, ldc int) {
	const blk = kernels.AMXBlock
	kps := kernels.AMXKStep / eb // k values per step
	kc := amxKCBytes / eb
	tileElems := kernels.AMXTileBytes / eb
	var scratch [blk * blk]C
	var bufB []TB
	if pre == nil {
		bufB = make([]TB, (amxNC/blk)*(kc/kps)*2*tileElems)
	}
	bufA := make([]TA, (amxMC/blk)*(kc/kps)*2*tileElems)
	for jc := 0; jc < n; jc += amxNC {
		nb := min(amxNC, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			steps := (kb + kps - 1) / kps
			panel := steps * 2 * tileElems
			bB := bufB
			if pre != nil {
				bB = pre.blocks[jc/amxNC*pre.pcs+pc/kc]
			} else {
				packBAMX(bufB, vb, pc, kb, steps, jc, nb, eb)
			}
			load := pc > 0 || beta == 1
			for ic := i0; ic < i1; ic += amxMC {
				mb := min(amxMC, i1-ic)
				packAAMX(bufA, va, ic, mb, pc, kb, steps, eb)
				for jp := 0; jp*blk < nb; jp++ {
					cols := min(blk, nb-jp*blk)
					bp := bB[jp*panel:][:panel]
					ip := 0
					if full := mb / blk; cols == blk && full > 0 {
						// Every whole block of this column panel in one call.
						kern(full, steps, bufA[:full*panel], bp, c[ic*ldc+jc+jp*blk:], ldc, load)
						ip = full
					}
					for ; ip*blk < mb; ip++ {
						rows := min(blk, mb-ip*blk)
						ap := bufA[ip*panel:][:panel]
						off := (ic+ip*blk)*ldc + jc + jp*blk
						// An edge block: through a full 32 x 32 scratch block.
						if load {
							for i := 0; i < rows; i++ {
								copy(scratch[i*blk:][:cols], c[off+i*ldc:][:cols])
							}
						}
						kern(1, steps, ap, bp, scratch[:], blk, load)
						for i := 0; i < rows; i++ {
							copy(c[off+i*ldc:][:cols], scratch[i*blk:][:cols])
						}
					}
				}
			}
		}
	}
}

// packAAMX packs rows i0..i0+mb, k p0..p0+kb of A into 32-row panels of steps k steps, each
// step two tiles (rows 0-15, 16-31) of 16 rows x kps values; zero past m and k.
func packAAMX[TA number](dst []TA, a view[TA], i0, mb, p0, kb, steps, eb int) {
	const blk = kernels.AMXBlock
	kps := kernels.AMXKStep / eb
	tile := 16 * kps
	panel := steps * 2 * tile
	for ip := 0; ip*blk < mb; ip++ {
		d := dst[ip*panel:][:panel]
		for s := 0; s < steps; s++ {
			klen := min(kps, kb-s*kps)
			for r := 0; r < blk; r++ {
				row := d[(s*2+r/16)*tile+(r%16)*kps:][:kps]
				i := ip*blk + r
				if i >= mb {
					clear(row)
					continue
				}
				p := p0 + s*kps
				if a.cs == 1 {
					copy(row, a.data[(i0+i)*a.rs+p:][:klen])
				} else {
					for q := 0; q < klen; q++ {
						row[q] = a.data[(i0+i)*a.rs+(p+q)*a.cs]
					}
				}
				clear(row[klen:])
			}
		}
	}
}

// packBAMX packs k p0..p0+kb, columns j0..j0+nb of B into 32-column panels of steps k steps,
// each step two VNNI tiles (columns 0-15, 16-31): tile row r holds for each column its g =
// 4/eb values of k = r*g.. (zero past n and k).
func packBAMX[TB number](dst []TB, b view[TB], p0, kb, steps, j0, nb, eb int) {
	const blk = kernels.AMXBlock
	kps := kernels.AMXKStep / eb
	g := 4 / eb
	tile := 16 * kps
	panel := steps * 2 * tile
	for jp := 0; jp*blk < nb; jp++ {
		d := dst[jp*panel:][:panel]
		clear(d)
		cols := min(blk, nb-jp*blk)
		for s := 0; s < steps; s++ {
			for q := 0; q < min(kps, kb-s*kps); q++ {
				p := p0 + s*kps + q
				r, i := q/g, q%g
				src := b.data[p*b.rs+(j0+jp*blk)*b.cs:]
				for col := 0; col < cols; col++ {
					d[(s*2+col/16)*tile+r*16*g+(col%16)*g+i] = src[col*b.cs]
				}
			}
		}
	}
}

// Typed adapters of kernels' AMX functions.
func amxU8S8(tiles, kg int, a []uint8, b []int8, c []int32, ldc int, load bool) {
	kernels.AMXU8S8(tiles, kg, a, b, c, ldc, load)
}
func amxS8S8(tiles, kg int, a []int8, b []int8, c []int32, ldc int, load bool) {
	kernels.AMXS8S8(tiles, kg, a, b, c, ldc, load)
}
func amxBF16(tiles, kg int, a []int16, b []int16, c []float32, ldc int, load bool) {
	kernels.AMXBF16(tiles, kg, asU16(a), asU16(b), c, ldc, load)
}

// forceAMX (tests) runs the AMX paths where the CPU has no AMX: the kernels then run their
// Go model of the tile instructions.
var forceAMX bool

// useAMX: AMX where it runs, unless a test forces an integer kernel set (forceInts).
func useAMX() bool { return forceAMX || kernels.AMX() && forceInts == nil }

// GemmS8S8 computes C = alpha*op(A)*op(B) + beta*C with int8 A and B and int32 C (wrapping)
// for row-major matrices on all cores.
func GemmS8S8(tA, tB Transpose, m, n, k int, alpha int32, a []int8, lda int, b []int8, ldb int, beta int32, c []int32, ldc int) error {
	return Options{}.GemmS8S8(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// GemmS8S8 is the int8 x int8 -> int32 GEMM with these options: AMX's TDPBSSD where the
// AMX kernels run, else the int16 kernels on operands widened to int16 (exact either way).
func (o Options) GemmS8S8(tA, tB Transpose, m, n, k int, alpha int32, a []int8, lda int, b []int8, ldb int, beta int32, c []int32, ldc int) error {
	ar, err := o.check(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if err != nil {
		return err
	}
	if !useAMX() {
		wa, wb := make([]int16, len(a)), make([]int16, len(b))
		for i, v := range a {
			wa[i] = int16(v)
		}
		for i, v := range b {
			wb[i] = int16(v)
		}
		return o.GemmI16(tA, tB, m, n, k, alpha, wa, lda, wb, ldb, beta, c, ldc)
	}
	if ar.swapped {
		a, b = b, a
	}
	threads, err := o.threads()
	if err != nil {
		return err
	}
	va, vb := views(ar, a, b)
	amxGEMM(amxS8S8, 1, threads, ar.m, ar.n, ar.k, alpha, va, vb, beta, c, ar.ldc)
	return nil
}

// AMXInUse reports whether GemmU8S8 (row-major), GemmS8S8 and GemmBF16 take the AMX tile
// kernels: the CPU and OS allow them (kernels.AMX), or a test forced them (ForceAMXModel).
func AMXInUse() bool { return useAMX() }

// ForceAMXModel makes the GEMMs take the AMX paths until restore is called, on the Go model
// of the tile instructions where the CPU has no AMX: for the tests of packages built on the
// AMX GEMM (cpu/conv). Not for concurrent use with GEMM calls.
func ForceAMXModel() (restore func()) {
	old := forceAMX
	forceAMX = true
	return func() { forceAMX = old }
}

// packedInt8 is an int8 B operand (k x n) packed once for many calls that share it (a
// convolution's weights): where the AMX kernels run, B goes into their VNNI tiles once;
// elsewhere the calls run the unpacked GEMM on the original B. A is uint8 (PackedU8S8) or
// int8 (PackedS8S8).
type packedInt8 struct {
	o    Options
	tB   Transpose
	n, k int
	b    []int8
	ldb  int
	amx  *amxPacked[int8]
}

// PackedU8S8 is B packed for GemmU8S8 calls (uint8 A).
type PackedU8S8 struct{ packedInt8 }

// PackedS8S8 is B packed for GemmS8S8 calls (int8 A).
type PackedS8S8 struct{ packedInt8 }

func (o Options) packInt8(name string, tB Transpose, n, k int, b []int8, ldb int) (packedInt8, error) {
	if o.Layout != RowMajor {
		return packedInt8{}, fmt.Errorf("gemm: %s takes row-major operands", name)
	}
	if _, err := o.check(NoTrans, tB, 1, n, k, max(1, k), ldb, max(1, n), k, len(b), n); err != nil {
		return packedInt8{}, err
	}
	p := packedInt8{o: o, tB: tB, n: n, k: k, b: b, ldb: ldb}
	if useAMX() && n > 0 && k > 0 {
		_, vb := views(args{ldb: ldb, transB: tB == Trans}, []int8(nil), b)
		p.amx = packAMXAll(vb, n, k, 1)
	}
	return p, nil
}

// PackU8S8 packs B (k x n, op(B) per tB, row stride ldb) for Gemm calls (row-major only). B
// must not change while the PackedU8S8 is in use.
func (o Options) PackU8S8(tB Transpose, n, k int, b []int8, ldb int) (*PackedU8S8, error) {
	p, err := o.packInt8("PackU8S8", tB, n, k, b, ldb)
	if err != nil {
		return nil, err
	}
	return &PackedU8S8{p}, nil
}

// PackS8S8 is PackU8S8 for GemmS8S8 calls.
func (o Options) PackS8S8(tB Transpose, n, k int, b []int8, ldb int) (*PackedS8S8, error) {
	p, err := o.packInt8("PackS8S8", tB, n, k, b, ldb)
	if err != nil {
		return nil, err
	}
	return &PackedS8S8{p}, nil
}

// Gemm computes C = alpha*op(A)*B + beta*C for uint8 op(A) m x k (row stride lda).
func (p *PackedU8S8) Gemm(tA Transpose, m int, alpha int32, a []uint8, lda int, beta int32, c []int32, ldc int) error {
	if p.amx == nil {
		return p.o.GemmU8S8(tA, p.tB, m, p.n, p.k, alpha, a, lda, p.b, p.ldb, beta, c, ldc)
	}
	return gemmPackedInt8(&p.packedInt8, amxU8S8, tA, m, alpha, a, lda, beta, c, ldc)
}

// Gemm computes C = alpha*op(A)*B + beta*C for int8 op(A) m x k (row stride lda).
func (p *PackedS8S8) Gemm(tA Transpose, m int, alpha int32, a []int8, lda int, beta int32, c []int32, ldc int) error {
	if p.amx == nil {
		return p.o.GemmS8S8(tA, p.tB, m, p.n, p.k, alpha, a, lda, p.b, p.ldb, beta, c, ldc)
	}
	return gemmPackedInt8(&p.packedInt8, amxS8S8, tA, m, alpha, a, lda, beta, c, ldc)
}

// gemmPackedInt8 runs the AMX kernel on the packed B.
func gemmPackedInt8[TA uint8 | int8](p *packedInt8, kern amxKernel[TA, int8, int32], tA Transpose, m int, alpha int32, a []TA, lda int, beta int32, c []int32, ldc int) error {
	ar, err := p.o.check(tA, p.tB, m, p.n, p.k, lda, p.ldb, ldc, len(a), len(p.b), len(c))
	if err != nil {
		return err
	}
	threads, err := p.o.threads()
	if err != nil {
		return err
	}
	va, vb := views(ar, a, p.b)
	amxGEMMPacked(kern, 1, threads, ar.m, ar.n, ar.k, alpha, va, vb, p.amx, beta, c, ar.ldc)
	return nil
}
