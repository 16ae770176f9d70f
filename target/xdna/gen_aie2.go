package xdna

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/vliw"
)

// bf16Dims are the index roles of the XDNA1 layout [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0]
// (the xdna repository's BF16 kernel; any index names).
type bf16Dims struct {
	m1, k1, n1 int
}

// The AIE2 blocking: 2 x 4 output tiles per block, as [XD1] chose ("for example, we could not
// achieve this with a 2x2 blocking": each A tile then feeds four VMAC.F and each B tile two,
// so operand loads need 12 of the 16 load slots per 8 VMAC.F).
const bm2, bn2 = 2, 4

func matchBF16(e *op.Einsum) (bf16Dims, error) {
	bad := func(why string) (bf16Dims, error) {
		return bf16Dims{}, fmt.Errorf("aieml kernels take the layout [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] with m0=4, k0=8, n0=4 (any index names): %s", why)
	}
	a, b, o := e.In[0], e.In[1], e.Out
	if len(a) != 4 || len(b) != 4 || len(o) != 4 {
		return bad("wrong number of indices")
	}
	M1, K1, M0, K0 := a[0], a[1], a[2], a[3]
	N1, N0 := b[1], b[3]
	if b[0] != K1 || b[2] != K0 || o[0] != M1 || o[1] != N1 || o[2] != M0 || o[3] != N0 {
		return bad("index order differs")
	}
	sz := e.Sizes
	if sz[M0] != 4 || sz[K0] != 8 || sz[N0] != 4 {
		return bad(fmt.Sprintf("%s=%d %s=%d %s=%d (the bf16 4x8x4 VMAC.F tile)", M0, sz[M0], K0, sz[K0], N0, sz[N0]))
	}
	d := bf16Dims{m1: sz[M1], k1: sz[K1], n1: sz[N1]}
	if d.m1%bm2 != 0 || d.n1%bn2 != 0 {
		return d, fmt.Errorf("aieml: the kernel blocks %d x %d output tiles: %s=%d must be a multiple of %d and %s=%d of %d", bm2, bn2, M1, d.m1, bm2, N1, d.n1, bn2)
	}
	return d, nil
}

// genAIE2 builds the XDNA1 bf16 kernel: one block of 2x4 output tiles per iteration (II = 8
// k1 VMAC.F), eight chains a cycle apart (each chain's VMAC.F 8 cycles apart, >= MACDst -
// MACAcc + 1 = 4), the first k-step a VMUL.F, operand tiles loaded as two 32-byte halves on
// whichever load unit is free (ALAP, 7 cycles ahead of their first VMAC.F, never two loads of
// one buffer in a cycle), the 16 stores of a block issued as each tile lands, pointer jumps
// between blocks by scalar code.
func genAIE2(a *Arch, e *op.Einsum, name string, prio bool) (*kern, error) {
	d, err := matchBF16(e)
	if err != nil {
		return nil, err
	}
	if a.Gen != AIE2 {
		return nil, fmt.Errorf("bf16 kernels need an AIE2 target")
	}
	k1, n1 := d.k1, d.n1
	// one VMAC.F per bundle, unless the store slot (16 stores per block) needs more bundles
	ii := max(8*k1, 2*bm2*bn2)
	k := newKern(a, ii, (d.m1/bm2)*(d.n1/bn2), name)
	L := a.Lat
	M := a.M
	reg := M.MustReg
	xr := func(v *tval) *vliw.Reg { return reg(fmt.Sprintf("x%d", v.reg)) }
	half := func(v *tval, h int) vliw.Arg { return vliw.R(reg(fmt.Sprintf("%s%d", []string{"wl", "wh"}[h], v.reg))) }
	bmName := func(v *tval) string { return fmt.Sprintf("%s%d", []string{"bml", "bmh"}[v.reg%2], v.reg/2) }
	bmq := func(v *tval, q int) vliw.Arg {
		p := [][]string{{"amll", "amlh"}, {"amhl", "amhh"}}[v.reg%2][q]
		return vliw.R(reg(fmt.Sprintf("%s%d", p, v.reg/2)))
	}
	r0 := vliw.R(reg("r0"))

	A := make([][]*tval, bm2)
	for i := range A {
		A[i] = make([]*tval, k1)
		for kk := range A[i] {
			A[i][kk] = k.newVal("x")
		}
	}
	B := make([][]*tval, bn2)
	for j := range B {
		B[j] = make([]*tval, k1)
		for kk := range B[j] {
			B[j][kk] = k.newVal("x")
		}
	}
	nc := bm2 * bn2
	chain := make([][]*tval, k1)
	for r := range chain {
		chain[r] = make([]*tval, nc)
		for c := range chain[r] {
			chain[r][c] = k.newVal("bm")
		}
	}
	// VMAC.F of chain c = 2j + i, one per bundle, a chain's VMAC.F at least MACDst - MACAcc
	// + 1 = 4 apart; the first four tiles finish early so that in the cool-down their stores
	// hide under the last four chains' VMAC.F (output-tile prioritization), else round robin.
	spacing := L.MACDst - L.MACAcc + 1
	// chain numbering = store order: column-major (c = 2j + i, tiles finish column by column)
	// for round robin; row-major (c = 4i + j) when prioritized, so the early chains are row 0's
	// and share its A tiles (each B tile then serves one early and one late chain)
	row := func(c int) int { return c % bm2 }
	col := func(c int) int { return c / bm2 }
	if prio {
		row = func(c int) int { return c / bn2 }
		col = func(c int) int { return c % bn2 }
	}
	when, ok := chainOrder(nc, k1, ii, spacing, prioritized(nc, ii, spacing, 2))
	if !ok || !prio {
		flat := make([]int, nc)
		for c := range flat {
			flat[c] = ii
		}
		when, _ = chainOrder(nc, k1, ii, spacing, flat)
	}
	for r := 0; r < k1; r++ {
		for c := 0; c < nc; c++ {
			r, c := r, c
			i, j := row(c), col(c)
			t := when[c][r]
			acc := func(v *tval) vliw.Arg { return vliw.R(reg(bmName(v))) }
			if r == 0 {
				k.add("vec", t, "vmul.f", func() []vliw.Arg {
					return []vliw.Arg{acc(chain[0][c]), vliw.R(xr(A[i][0])), vliw.R(xr(B[j][0])), r0}
				}).defines(chain[0][c], L.MACDst).reads(1, A[i][0], L.MACSrc).reads(2, B[j][0], L.MACSrc)
				continue
			}
			k.add("vec", t, "vmac.f", func() []vliw.Arg {
				return []vliw.Arg{acc(chain[r][c]), acc(chain[r-1][c]), vliw.R(xr(A[i][r])), vliw.R(xr(B[j][r])), r0}
			}).defines(chain[r][c], L.MACDst).reads(1, chain[r-1][c], L.MACAcc).reads(2, A[i][r], L.MACSrc).reads(3, B[j][r], L.MACSrc)
		}
	}
	// loads: streams in pointer order; a tile is two 32-byte halves.
	lead := L.VLDDst - L.MACSrc + 1
	type ld struct {
		v        *tval
		h        int
		deadline int
		t        int
		slot     string
		modReg   string // post-modify by this register instead of #32
	}
	bank := make(map[string][]bool) // buffer -> modulo cycles with an access
	free := func(buf string, t int) bool { return bank[buf] == nil || !bank[buf][mod(t, ii)] }
	use := func(buf string, t int) {
		if bank[buf] == nil {
			bank[buf] = make([]bool, ii)
		}
		bank[buf][mod(t, ii)] = true
	}
	units := []string{"lda", "ldb"}
	// place a stream ALAP with its pointer jump (padd) last, before the next iteration's first
	// load of the stream.
	place := func(buf string, s []*ld, withPadd bool) (int, string, error) {
		guess := s[0].deadline
		for iter := 0; iter < 10; iter++ {
			saved := map[string][]bool{}
			for _, u := range append(units, "st") {
				saved[u] = append([]bool(nil), k.mrt[u]...)
			}
			savedBank := append([]bool(nil), bank[buf]...)
			restore := func() {
				for u, row := range saved {
					if len(row) == 0 {
						k.mrt[u] = nil
					} else {
						k.mrt[u] = row
					}
				}
				bank[buf] = savedBank
				if len(savedBank) == 0 {
					bank[buf] = nil
				}
			}
			// the padd may use either load unit
			pt, pslot := ii+guess, ""
			if withPadd {
				pt = -1 << 30
				for _, u := range units {
					if t := k.alap(u, ii+guess-1); t > pt {
						pt, pslot = t, u
					}
				}
				k.take(pslot, pt)
			}
			next := pt
			ok := true
			for x := len(s) - 1; x >= 0; x-- {
				l := s[x]
				t := min(l.deadline, next-1)
				for ; t > next-1-ii; t-- {
					if !free(buf, t) {
						continue
					}
					l.slot = ""
					for _, u := range units {
						if !k.busy(u, t) {
							l.slot = u
							break
						}
					}
					if l.slot != "" {
						break
					}
				}
				if l.slot == "" {
					ok = false
					break
				}
				l.t = t
				k.take(l.slot, t)
				use(buf, t)
				next = t
			}
			if ok && s[0].t == guess {
				if withPadd && pt-s[0].t >= ii {
					return 0, "", fmt.Errorf("%s stream does not fit one block period", buf)
				}
				return pt, pslot, nil
			}
			if ok {
				guess = s[0].t
			} else {
				guess--
			}
			restore()
		}
		return 0, "", fmt.Errorf("%s stream placement does not settle", buf)
	}
	stream := func(tiles [][]*tval, firstUse func(idx, kk int) int, kMajor bool) []*ld {
		var s []*ld
		for kk := 0; kk < k1; kk++ {
			for idx := range tiles {
				for h := 0; h < 2; h++ {
					s = append(s, &ld{v: tiles[idx][kk], h: h, deadline: firstUse(idx, kk) - lead})
				}
			}
		}
		return s
	}
	// A: one pointer walks both rows of the block: per k, row 0's halves (+32, then m4 = one
	// row ahead minus 32) and row 1's (+32, then m5 = back to row 0's next tile); the block's
	// last load jumps to the next block by m1 (per block). B: one pointer walks the four tiles
	// of each k (+32, the last by m0 to the next k row); the block's last load jumps by m2.
	// One pointer per buffer: never two accesses to one buffer's bank in a cycle, and no
	// separate pointer add (B carries a load in every cycle of the block).
	firstUse := func(kk int, pick func(c int) bool) int {
		f := 1 << 30
		for c := 0; c < nc; c++ {
			if pick(c) {
				f = min(f, when[c][kk])
			}
		}
		return f
	}
	sA := stream(A, func(i, kk int) int { return firstUse(kk, func(c int) bool { return row(c) == i }) }, true)
	for x := range sA {
		switch x % 4 {
		case 1:
			sA[x].modReg = "m4"
		case 3:
			sA[x].modReg = "m5"
		}
	}
	sA[len(sA)-1].modReg = "m1"
	sB := stream(B, func(j, kk int) int { return firstUse(kk, func(c int) bool { return col(c) == j }) }, true)
	for x := 2*bn2 - 1; x < len(sB); x += 2 * bn2 {
		sB[x].modReg = "m0"
	}
	sB[len(sB)-1].modReg = "m2"
	streams := []struct {
		ptr, buf string
		s        []*ld
	}{{"p0", "in0", sA}, {"p1", "in1", sB}}
	// B first: it needs the most slots
	for _, si := range []int{1, 0} {
		if _, _, err := place(streams[si].buf, streams[si].s, false); err != nil {
			return nil, fmt.Errorf("aieml k1=%d: %v", k1, err)
		}
	}
	for _, st := range streams {
		ptr := reg(st.ptr)
		for _, l := range st.s {
			l := l
			mem := vliw.MemPost(ptr, 32)
			if l.modReg != "" {
				mem = vliw.MemPostReg(ptr, reg(l.modReg))
			}
			o := &top{slot: l.slot, t: l.t, op: "v" + l.slot, uses: map[int]*tval{}}
			o.args = func() []vliw.Arg { return []vliw.Arg{half(l.v, l.h), mem} }
			o.defines(l.v, L.VLDDst)
			k.ops = append(k.ops, o)
		}
	}

	// stores: tiles in the order their chains end, two 32-byte halves each; row i of the
	// block through p2 (i = 0) or p5 (i = 1); a row's last store post-modifies its pointer by
	// m3 instead of 32 (32, or 32 plus one row of tiles when the block row wraps).
	storeLead := L.MACDst - L.VSTSrc + 1
	next := 0
	lastStore := make([]int, bm2)
	firstStore := []int{-1, -1}
	for c := 0; c < nc; c++ {
		c := c
		v := chain[k1-1][c]
		ptr := reg([]string{"p2", "p5"}[row(c)])
		for q := 0; q < 2; q++ {
			q := q
			mem := vliw.MemPost(ptr, 32)
			if col(c) == bn2-1 && q == 1 {
				mem = vliw.MemPostReg(ptr, reg("m3"))
			}
			t := k.asap("st", max(next, when[c][k1-1]+storeLead))
			k.add("st", t, "vst", func() []vliw.Arg { return []vliw.Arg{bmq(v, q), mem} }).reads(0, v, L.VSTSrc)
			next = t + 1
			lastStore[row(c)] = t
			if firstStore[row(c)] < 0 {
				firstStore[row(c)] = t
			}
		}
	}
	cPadd := lastStore

	// scalar code: r1 counts blocks along n1; r27 = (r1 < n1/4) after a block: the next block
	// is in the same block row (A jumps back, B moves to the next 4 columns) or not (A moves
	// on, B jumps back to its start). The output pointers jump a block later (their stores
	// drain during the next block), so a second counter r15 gives C's jump: 0 within a block
	// row, one row of tiles (skipping the block row's second tile row) when it wraps.
	R := func(n string) vliw.Arg { return vliw.R(reg(n)) }
	type sc struct {
		slot string
		dt   int
		op   string
		args []vliw.Arg
	}
	abChain := []sc{
		{"alu", 0, "add", []vliw.Arg{R("r1"), R("r1"), vliw.Imm(1)}},
		{"alu", 1, "ltu", []vliw.Arg{R("r27"), R("r1"), R("r2")}},
		{"alu", 2, "mul", []vliw.Arg{R("r1"), R("r1"), R("r27")}},
		{"alu", 3, "sel.nez", []vliw.Arg{R("r6"), R("r8"), R("r9"), R("r27")}},
		{"alu", 4, "sel.nez", []vliw.Arg{R("r7"), R("r10"), R("r11"), R("r27")}},
		{"mv", 4, "mov", []vliw.Arg{R("m1"), R("r6")}},
		{"mv", 5, "mov", []vliw.Arg{R("m2"), R("r7")}},
	}
	cChain := []sc{
		{"alu", 0, "add", []vliw.Arg{R("r15"), R("r15"), vliw.Imm(1)}},
		{"alu", 1, "ltu", []vliw.Arg{R("r16"), R("r15"), R("r2")}},
		{"alu", 2, "mul", []vliw.Arg{R("r15"), R("r15"), R("r16")}},
		{"alu", 3, "sub", []vliw.Arg{R("r17"), R("r3"), R("r16")}},
		{"alu", 4, "mul", []vliw.Arg{R("r17"), R("r17"), R("r14")}},
		{"alu", 6, "add", []vliw.Arg{R("r17"), R("r17"), vliw.Imm(32)}},
		{"mv", 7, "mov", []vliw.Arg{R("m3"), R("r17")}},
	}
	// placeChain puts a chain at the latest base time whose slots are all free, with its
	// last move landing before deadline.
	placeChain := func(ch []sc, deadline int) (int, error) {
		last := 0
		for _, c := range ch {
			last = max(last, c.dt)
		}
		for base := deadline - last - 1; base > deadline-last-1-ii; base-- {
			ok := true
			for _, c := range ch {
				if k.busy(c.slot, base+c.dt) || k.coversBusy(c.slot, base+c.dt) {
					ok = false
				}
			}
			if ok {
				for _, c := range ch {
					c := c
					k.add(c.slot, base+c.dt, c.op, func() []vliw.Arg { return c.args })
				}
				return base, nil
			}
		}
		return 0, fmt.Errorf("aieml k1=%d: no free scalar slots for the pointer code", k1)
	}
	padds := []int{sA[len(sA)-1].t, sA[len(sA)-1].t, sB[len(sB)-1].t}
	t0, err := placeChain(abChain, min(padds[0], padds[2]))
	if err != nil {
		return nil, err
	}
	tc, err := placeChain(cChain, min(cPadd[0], cPadd[1]))
	if err != nil {
		return nil, err
	}
	// each modifier must be read by its own block's jump before the next block rewrites it
	for i, p := range []int{padds[0], padds[1], padds[2], cPadd[0], cPadd[1]} {
		w := []int{t0 + 4, t0 + 4, t0 + 5, tc + 7, tc + 7}[i] // cycle the mov lands
		if p <= w || p > w+ii {
			return nil, fmt.Errorf("aieml k1=%d: a pointer jump at %d does not read the modifier written at %d", k1, p, w)
		}
	}
	if err := k.allocate(map[string]int{"x": a.VecRegs, "bm": 2 * a.AccRegs}); err != nil {
		return nil, fmt.Errorf("aieml k1=%d: %v", k1, err)
	}
	// once-only set-up
	tile := int64(64)
	rowA := int64(k1) * tile
	rowB := int64(n1) * tile
	nb := int64(n1 / bn2)
	ms := func(op, r string, v int64, dl int) *setupOp {
		return &setupOp{in: k.isa.Operation(op, R(r), vliw.Imm(v)), deadline: dl}
	}
	imm := func(r string, v int64, dl int) *setupOp {
		if v >= -128 && v < 128 {
			return ms("movx", r, v, dl)
		}
		return ms("movxm", r, v, dl)
	}
	movP5 := &setupOp{in: k.isa.Operation("mov", R("p5"), R("p2")), deadline: firstStore[1] - 1}
	k.setup = append(k.setup,
		imm("r0", a.Mode.Config, 0),
		imm("m0", rowB-int64(bn2)*tile+32, sB[2*bn2-1].t),
		imm("m4", rowA-32, sA[1].t), imm("m5", 32-rowA, sA[3].t),
		movP5,
		&setupOp{in: k.isa.Operation("padds", vliw.MemPost(reg("p5"), rowB)), deadline: firstStore[1], after: movP5, gap: 1},
		imm("r1", 0, t0),
		imm("r2", nb, t0+1),
		// A's block jump from row 1's last half: back to row 0 of this block row, or on to
		// the next block row
		imm("r8", 32-2*rowA, t0+3), imm("r9", 32, t0+3),
		// block jumps of B from the block's last tile (folded into its post-modify): to the
		// next 4 columns, or back to the start of in1 when the block row wraps
		imm("r10", (int64(bn2)-int64(k1)*int64(n1))*tile+rowB-int64(bn2)*tile+32, t0+4),
		imm("r11", -(int64(k1)*int64(n1)+int64(n1)-int64(bn2))*tile+rowB-int64(bn2)*tile+32, t0+4),
		imm("r15", 0, tc), imm("r3", 1, tc+3), imm("r14", rowB, tc+4),
	)
	return k, nil
}
