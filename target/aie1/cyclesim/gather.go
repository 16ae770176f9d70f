package cyclesim

import (
	"unsafe"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// A MAC's operand selection is, per program, a fixed byte gather: output byte i of the
// gathered operand is byte idx[i] of the register (or zero). gatherTab holds it in the form
// the SIMD path runs (one byte-shuffle mask per 32-byte output chunk and 16-byte source
// chunk: VPSHUFB selects within 16 bytes, so each source chunk is broadcast and its bytes
// picked where they belong) and in the plain form the Go fallback and the tests read.
//
// The gathered layout puts the two columns of a column pair next to each other for each lane,
// which is what a pairwise multiply-add (VPMADDWD, after widening the bytes to 16 bits) sums:
// column pair p, lane l = 8h+i, column 2p+c sits at byte 32p + 16h + 2i + c. So 16 lanes x 2
// columns fill one 32-byte chunk.
//
// The 8-bit forms take this path. For 16-bit operands only the GEMM-style mac16 (mac16x2:
// 16 lanes, 2 columns, broadcast Z, in place) does, gathering X's words and adding to the
// accumulator lanes in one assembly function; for the other 16-bit forms the Go loops
// (macSums16) were faster than gathering words and summing in Go (BenchmarkMACSums).
type gatherTab struct {
	nOut int // 32-byte output chunks written, 2, 4 or 8 (the rest of the output is not touched)
	nSrc int // 16-byte source chunks read
	// ents lists the (output chunk o, source chunk s) pairs with bytes to move, grouped by o;
	// an output chunk with none has one entry of s = 0 and an empty mask, so it is still
	// written
	nEnt int
	ents [64]gatherEnt
	// m[o][s]: VPSHUFB mask producing the bytes of output chunk o taken from source chunk s
	// (0x80: not from this chunk, gives zero so the chunks' results can be ORed)
	m   [8][8][32]byte
	idx [256]int16 // source byte of each output byte (-1: zero)
}

// gatherEnt is one step of a gather: output chunk o takes bytes of source chunk src.
type gatherEnt struct {
	mask uint16 // 256*o + 32*src: the offset of mask m[o][src] in m
	last uint8  // 1 on the last entry of an output chunk
	off  uint32 // 16*src: the source chunk's offset
}

// build fills g from idx (-1 marks a zero byte); at least nOut chunks are written, rounded
// up to 2, 4 or 8 (the unrolled forms of gatherBytes).
func (g *gatherTab) build(idx *[256]int16, nOut int) {
	g.idx = *idx
	g.nOut, g.nSrc = nOut, 0
	for i, s := range idx {
		if s < 0 {
			continue
		}
		g.nOut = max(g.nOut, i/32+1)
		g.nSrc = max(g.nSrc, int(s)/16+1)
	}
	switch {
	case g.nOut <= 2:
		g.nOut = 2
	case g.nOut <= 4:
		g.nOut = 4
	default:
		g.nOut = 8
	}
	g.nEnt = 0
	for o := range g.m {
		first := g.nEnt
		for s := range g.m[o] {
			used := false
			for b := range g.m[o][s] {
				g.m[o][s][b] = 0x80
				if i := idx[32*o+b]; i >= 0 && int(i)/16 == s {
					g.m[o][s][b] = byte(i % 16)
					used = true
				}
			}
			if used && o < g.nOut {
				g.ents[g.nEnt] = gatherEnt{mask: uint16(256*o + 32*s), off: uint32(16 * s)}
				g.nEnt++
			}
		}
		if o < g.nOut {
			if g.nEnt == first {
				g.ents[g.nEnt] = gatherEnt{mask: uint16(256 * o)}
				g.nEnt++
			}
			g.ents[g.nEnt-1].last = 1
		}
	}
}

// gatherGo is gatherBytes in Go: the fallback, and the reference the tests compare with.
func gatherGo(g *gatherTab, src *kernel.Vec, dst *[256]byte) {
	for i, s := range g.idx[:32*g.nOut] {
		if s < 0 {
			dst[i] = 0
		} else {
			dst[i] = src[s&127]
		}
	}
}

// macTables holds one copy of each distinct gather table of a program: a kernel's MACs
// mostly repeat a few operand selections (the 8-bit conv kernel: 32 MAC instructions), and
// a table is kilobytes; shared, the ones in use stay in L1.
type macTables struct {
	simd map[simdKey]*macSIMD
	x16  map[[256]int16]*gatherTab
}

type simdKey struct {
	gx, gz       [256]int16
	npairs, mode int
}

// intern replaces t's gather tables by equal ones seen before.
func (mt *macTables) intern(t *macTable) {
	if m := t.simd; m != nil {
		k := simdKey{m.gx.idx, m.gz.idx, m.npairs, m.mode}
		if mt.simd == nil {
			mt.simd = map[simdKey]*macSIMD{}
		}
		if o, ok := mt.simd[k]; ok && o.gx.nOut == m.gx.nOut && o.gz.nOut == m.gz.nOut {
			t.simd = o
		} else if !ok {
			mt.simd[k] = m
		}
	}
	if g := t.x16; g != nil {
		if mt.x16 == nil {
			mt.x16 = map[[256]int16]*gatherTab{}
		}
		if o, ok := mt.x16[g.idx]; ok && o.nOut == g.nOut {
			t.x16 = o
		} else if !ok {
			mt.x16[g.idx] = g
		}
	}
}

// chunks copies the n 16-byte chunks at src into a vector (an operand in pass 2's registers
// may end before a whole vector does).
func chunks(src unsafe.Pointer, n int) *kernel.Vec {
	var v kernel.Vec
	copy(v[:], unsafe.Slice((*byte)(src), 16*min(n, len(v)/16)))
	return &v
}

// madd8Go is madd8 in Go: each lane's sum over npairs column pairs of the products of the
// gathered 8-bit operands, extended as signed (xs, zs) or unsigned. Exact in an int32: at
// most 8 products of magnitude 2^16.
func madd8Go(gx, gz *[256]byte, npairs int, xs, zs bool, out *[16]int32) {
	ext := func(b byte, signed bool) int32 {
		if signed {
			return int32(int8(b))
		}
		return int32(b)
	}
	for l := 0; l < 16; l++ {
		var s int32
		for p := 0; p < npairs; p++ {
			for c := 0; c < 2; c++ {
				i := 32*p + 16*(l/8) + 2*(l%8) + c
				s += ext(gx[i], xs) * ext(gz[i], zs)
			}
		}
		out[l] = s
	}
}

// macSIMD is an 8-bit MAC's operand selection as two gathers into the column-pair layout.
type macSIMD struct {
	gx, gz gatherTab
	npairs int
	mode   int // bit 0 X signed, bit 1 Z signed
}

// macScratch receives the gathered operands and the pair sums (kept out of stack frames,
// one per simulation so that concurrent runs of one program do not share it).
type macScratch struct {
	gx, gz [256]byte
	o8     [16]int32
}

// buildMACSIMD returns the SIMD form of t (built by buildMACTable from d), nil for the
// 16-bit forms.
func buildMACSIMD(d *decoded, t *macTable) *macSIMD {
	if t.mode == fast16 {
		return nil
	}
	m := &macSIMD{npairs: (t.cols + 1) / 2}
	var ix, iz [256]int16
	for i := range ix {
		ix[i], iz[i] = -1, -1
	}
	for l := 0; l < t.lanes; l++ {
		for c := 0; c < t.cols; c++ {
			e := 32*(c/2) + 16*(l/8) + 2*(l%8) + c%2 // element in the gathered layout
			ix[e], iz[e] = int16(t.x[l][c]), int16(t.z[l][c])
		}
	}
	m.gx.build(&ix, m.npairs)
	m.gz.build(&iz, m.npairs)
	if d.xe.Signed() {
		m.mode |= 1
	}
	if d.ze.Signed() {
		m.mode |= 2
	}
	return m
}

// macUnits names the register units of a MAC on an assembly path (global unit indices):
// X's and Z's first units (the others follow), the accumulator inputs and outputs, and for
// mac16x2 the units and byte offsets of Z's two elements.
type macUnits struct {
	x, z                   int32
	acc0, out0, acc1, out1 int32
	zu0, zb0, zu1, zb1     int32
}

// vecAt is the address of unit g's vector value; accAt of its accumulator lanes.
func vecAt(r *regs, g int32) unsafe.Pointer { return unsafe.Pointer(&r.vec[g]) }
func accAt(r *regs, g int32) *[8]num.Acc    { return &r.acc[g] }

// mac8UGo is mac8U in Go (the build's separate steps).
func mac8UGo(m *macSIMD, ug *regs, mu *macUnits) {
	mac8AccGo(m, vecAt(ug, mu.x), vecAt(ug, mu.z), accAt(ug, mu.acc0), accAt(ug, mu.out0), accAt(ug, mu.acc1), accAt(ug, mu.out1))
}

// mac16x2UGo is mac16x2U in Go.
func mac16x2UGo(tab *gatherTab, ug *regs, mu *macUnits) {
	z0, z1 := &ug.vec[mu.zu0], &ug.vec[mu.zu1]
	zpair := uint32(z0[mu.zb0]) | uint32(z0[mu.zb0+1])<<8 | uint32(z1[mu.zb1])<<16 | uint32(z1[mu.zb1+1])<<24
	mac16x2AccGo(tab, chunks(vecAt(ug, mu.x), tab.nSrc), zpair, accAt(ug, mu.acc0), accAt(ug, mu.out0), accAt(ug, mu.acc1), accAt(ug, mu.out1))
}

// mac8AccGo is an 8-bit MAC of the SIMD path in the build's separate steps: gatherBytes of X
// and Z, madd8 and acc48Add16.
func mac8AccGo(m *macSIMD, x, z unsafe.Pointer, src0, dst0, src1, dst1 *[8]num.Acc) {
	var sc macScratch
	gatherBytes(&m.gx, x, &sc.gx)
	gatherBytes(&m.gz, z, &sc.gz)
	madd8(&sc.gx, &sc.gz, m.npairs, m.mode, &sc.o8)
	acc48Add16(&sc.o8, src0, dst0, src1, dst1)
}

// macSumsSIMD is macSums through the gathers and pairwise products.
func macSumsSIMD(t *macTable, x, z *kernel.Vec, sc *macScratch, sums *[16]int64) int {
	m := t.simd
	gatherBytes(&m.gx, unsafe.Pointer(x), &sc.gx)
	gatherBytes(&m.gz, unsafe.Pointer(z), &sc.gz)
	lanes := min(t.lanes, 16)
	madd8(&sc.gx, &sc.gz, m.npairs, m.mode, &sc.o8)
	for l := 0; l < lanes; l++ {
		sums[l] = int64(sc.o8[l])
	}
	return lanes
}

// macSumsAny computes a MAC's lane sums on the SIMD path when this build and machine have
// it, else with macSums's Go loops.
func macSumsAny(t *macTable, x, z *kernel.Vec, sc *macScratch, sums *[16]int64) int {
	if useSIMD && t.simd != nil {
		return macSumsSIMD(t, x, z, sc, sums)
	}
	return macSums(t, x, z, sums)
}

// x16PairTab returns the gather of an int16 16-lane 2-column MAC's X operand (t.x) into
// word pairs: lane l = 8h+i, column c at word 16h + 2i + c (chunk h holds lanes 8h..8h+7).
func x16PairTab(t *macTable) *gatherTab {
	var ix [256]int16
	for i := range ix {
		ix[i] = -1
	}
	for l := 0; l < 16; l++ {
		for c := 0; c < 2; c++ {
			w := 16*(l/8) + 2*(l%8) + c
			ix[2*w], ix[2*w+1] = int16(t.x[l][c]), int16(t.x[l][c])+1
		}
	}
	g := &gatherTab{}
	g.build(&ix, 2)
	return g
}

// mac16x2AccGo is the int16 mac16x2 in Go (mac16x2U in assembly): lane l's X pair gathered
// by tab, times (z0, z1) from zpair's low and high halves, added to lane l%8 of src0 (l < 8)
// or src1, wrapped to 48 bits and stored in dst0 or dst1. src and dst may be the same unit.
func mac16x2AccGo(tab *gatherTab, x *kernel.Vec, zpair uint32, src0, dst0, src1, dst1 *[8]num.Acc) {
	var g [256]byte
	gatherGo(tab, x, &g)
	z0, z1 := int64(int16(zpair)), int64(int16(zpair>>16))
	for l := 0; l < 16; l++ {
		src, dst := src0, dst0
		if l >= 8 {
			src, dst = src1, dst1
		}
		w := 16*(l/8) + 2*(l%8)
		x0 := int64(int16(uint16(g[2*w]) | uint16(g[2*w+1])<<8))
		x1 := int64(int16(uint16(g[2*w+2]) | uint16(g[2*w+3])<<8))
		v := (int64(src[l%8].Lo) + x0*z0 + x1*z1) << 16 >> 16
		dst[l%8] = num.Acc{Hi: v >> 63, Lo: uint64(v)}
	}
}

// acc48Add16Go adds sums[l] (l < 8) to lane l of src0, and sums[8+l] to lane l of src1,
// wrapping to 48 bits, into dst0 and dst1 (which may be the sources). As VPMADDWD results,
// -2^31 stands for 2^31 (pairSum); 8-bit sums never reach it.
func acc48Add16Go(sums *[16]int32, src0, dst0, src1, dst1 *[8]num.Acc) {
	for l := 0; l < 16; l++ {
		src, dst := src0, dst0
		if l >= 8 {
			src, dst = src1, dst1
		}
		v := (int64(src[l%8].Lo) + pairSum(sums[l])) << 16 >> 16
		dst[l%8] = num.Acc{Hi: v >> 63, Lo: uint64(v)}
	}
}

// pairSum reads a VPMADDWD result: its only overflow, 2 x (-2^15)^2 = 2^31, arrives as
// -2^31, a value the sum of two int16 products cannot otherwise take (the least is
// -2^31 + 2^16).
func pairSum(v int32) int64 {
	if v == -1<<31 {
		return 1 << 31
	}
	return int64(v)
}
