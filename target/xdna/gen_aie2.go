package xdna

import (
	"fmt"
	"sort"

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
// genOpts are a generator's choices.
type genOpts struct {
	prio  bool // output-tile prioritization
	acc   bool // accumulate into the output buffer (out += A B), as the published kernels do
	extra int  // bundles added to the smallest loop body (when placement fails at the bound)
	// spread stores every other cycle (aieml with acc: lets the output loads and A's loads
	// share unit A and the output bank when both are full)
	spread bool
}

func genAIE2(a *Arch, e *op.Einsum, name string, g genOpts) (*kern, error) {
	prio := g.prio
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
	if g.acc {
		// 16 more loads per block (the output tiles, unit A only: only A writes accumulators)
		// next to 12 k1 operand loads on two units, and 16 loads plus 16 stores on the
		// output's bank, one access per cycle
		ii = max(ii, (12*k1+16+1)/2, 4*k1+16, 2*2*bm2*bn2)
	}
	ii += g.extra
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
	var cin []*tval // initial output tiles (accumulate)
	if g.acc {
		for c := 0; c < nc; c++ {
			cin = append(cin, k.newVal("bm"))
		}
	}
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
			if r == 0 && g.acc {
				k.add("vec", t, "vmac.f", func() []vliw.Arg {
					return []vliw.Arg{acc(chain[0][c]), acc(cin[c]), vliw.R(xr(A[i][0])), vliw.R(xr(B[j][0])), r0}
				}).defines(chain[0][c], L.MACDst).reads(1, cin[c], L.MACAcc).reads(2, A[i][0], L.MACSrc).reads(3, B[j][0], L.MACSrc)
				continue
			}
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
	bank := make(map[string][]bool) // buffer -> modulo cycles with an access
	free := func(buf string, t int) bool { return bank[buf] == nil || !bank[buf][mod(t, ii)] }
	use := func(buf string, t int) {
		if bank[buf] == nil {
			bank[buf] = make([]bool, ii)
		}
		bank[buf][mod(t, ii)] = true
	}
	// stores (placed before the loads: they are fixed by the chains, and with an input
	// accumulator the output loads fill the output bank's remaining cycles): tiles in the
	// order their chains end, two 32-byte halves each; row i of the
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
			for !free("out", t) || k.busy("st", t) {
				t++
			}
			use("out", t)
			o := k.add("st", t, "vst", func() []vliw.Arg { return []vliw.Arg{bmq(v, q), mem} }).reads(0, v, L.VSTSrc)
			o.compact, o.ready, o.bank = true, when[c][k1-1]+storeLead, "out"
			next = t + 1
			if g.spread {
				// every other cycle: the output loads (unit A) take the ones between, and
				// the operand loads of A the cycles the stores take on the output's bank
				next = t + 2
			}
			lastStore[row(c)] = t
			if firstStore[row(c)] < 0 {
				firstStore[row(c)] = t
			}
		}
	}
	cPadd := lastStore

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
	both := []string{"lda", "ldb"}
	// place a stream ALAP with its pointer jump (padd) last, before the next iteration's first
	// load of the stream.
	place := func(buf string, s []*ld, withPadd bool, units []string) (int, string, error) {
		guess := s[0].deadline
		for iter := 0; iter < 10; iter++ {
			saved := map[string][]bool{}
			for _, u := range []string{"lda", "ldb", "st"} {
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
				l.slot = ""
				start := min(l.deadline, next-1)
				t := start
				for ; t > start-ii; t-- {
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
	// accumulate (placed first: unit A only): each block row's output tiles come in through unit A, two 32-byte halves
	// into the accumulator register, ALAP before the chain's first VMAC.F reads them
	// (VLDDst - MACAcc + 1 = 5 cycles), one pointer per tile row (p3, p6); the row's last load
	// post-modifies by m6 to the next block.
	var sC [][]*ld
	if g.acc {
		for i := 0; i < bm2; i++ {
			var s []*ld
			for j := 0; j < bn2; j++ {
				c := -1
				for cc := 0; cc < nc; cc++ {
					if row(cc) == i && col(cc) == j {
						c = cc
					}
				}
				for h := 0; h < 2; h++ {
					s = append(s, &ld{v: cin[c], h: h, deadline: when[c][0] - (L.VLDDst - L.MACAcc + 1)})
				}
			}
			s[len(s)-1].modReg = "m6"
			if _, _, err := place("out", s, false, []string{"lda"}); err != nil {
				return nil, fmt.Errorf("aieml k1=%d: %v", k1, err)
			}
			sC = append(sC, s)
			streams = append(streams, struct {
				ptr, buf string
				s        []*ld
			}{[]string{"p3", "p6"}[i], "out", s})
		}
	}
	// B before A (it needs the most slots), unless unit A also carries the output loads:
	// then A fills unit A's remaining slots first and B takes unit B
	order := []int{1, 0}
	if g.acc {
		order = []int{0, 1}
	}
	for _, si := range order {
		units := both
		if g.acc && si == 0 {
			units = []string{"lda"} // keep unit B whole for B's load in every cycle
		}
		if _, _, err := place(streams[si].buf, streams[si].s, false, units); err != nil {
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
			if st.buf == "out" {
				o.args = func() []vliw.Arg { return []vliw.Arg{bmq(l.v, l.h), mem} }
			}
			o.bank = st.buf
			o.defines(l.v, L.VLDDst)
			k.ops = append(k.ops, o)
		}
	}

	// Pointer jumps between blocks: after a block, the next one is in the same block row (A
	// jumps back to the row pair's start, B moves on to the next 4 columns, C continues) or
	// not (A moves on, B jumps back to its start, C skips the block row's second tile row).
	// Each jump is a post-modify by an m register; a chain of scalar code per jump counts
	// blocks along n1 (cnt), tests f = cnt < n1/4, and sets m = base + f * delta. One chain
	// per jump, each placed just before the load or store that reads its modifier, since the
	// four jumps fall at different times of the block (the output's a block later).
	R := func(n string) vliw.Arg { return vliw.R(reg(n)) }
	type sc struct {
		slot string
		dt   int
		op   string
		args []vliw.Arg
	}
	// placeChain puts a chain's operations as late as their slots allow, its last one before
	// deadline, consecutive operations (in dt order) at least as far apart as in the chain's
	// template (which keeps every dependency); it returns each operation's time.
	placeChain := func(ch []sc, deadline int) ([]int, error) {
		idx := make([]int, len(ch))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return ch[idx[a]].dt < ch[idx[b]].dt })
		times := make([]int, len(ch))
		bound := deadline - 1
		for x := len(idx) - 1; x >= 0; x-- {
			c := ch[idx[x]]
			if x < len(idx)-1 {
				bound = times[idx[x+1]] - (ch[idx[x+1]].dt - c.dt)
			}
			t := k.alap(c.slot, bound)
			if t <= bound-ii {
				return nil, fmt.Errorf("aieml k1=%d: no free scalar slots for the pointer code", k1)
			}
			times[idx[x]] = t
			k.take(c.slot, t)
		}
		for i, c := range ch {
			c := c
			k.ops = append(k.ops, &top{slot: c.slot, t: times[i], op: c.op, args: func() []vliw.Arg { return c.args }, uses: map[int]*tval{}})
		}
		return times, nil
	}
	tile := int64(64)
	rowA := int64(k1) * tile
	rowB := int64(n1) * tile
	nb := int64(n1 / bn2)
	type jump struct {
		m                    string // modifier register
		readAt               []int  // the post-modifies that read it
		base, delta          int64  // m = base + f * delta, f = 1 within a block row
		cnt, f, t, rd, rbase string
	}
	jumps := []jump{
		// A, from row 1's last half: to the next block row (+32), or back to the row pair
		{m: "m1", readAt: []int{sA[len(sA)-1].t}, base: 32, delta: -2 * rowA, cnt: "r1", f: "r6", t: "r7", rd: "r8", rbase: "r9"},
		// B, from the block's last tile: back to the start of in1, or on to the next 4 columns
		{m: "m2", readAt: []int{sB[len(sB)-1].t},
			base:  -(int64(k1)*int64(n1)+int64(n1)-int64(bn2))*tile + rowB - int64(bn2)*tile + 32,
			delta: (int64(k1)*int64(n1) + int64(n1) - int64(bn2) + int64(bn2) - int64(k1)*int64(n1)) * tile,
			cnt:   "r10", f: "r11", t: "r12", rd: "r13", rbase: "r14"},
		// C stores, from a tile row's last half: skip the block row's other tile row, or go on
		{m: "m3", readAt: []int{cPadd[0], cPadd[1]}, base: rowB + 32, delta: -rowB, cnt: "r15", f: "r16", t: "r17", rd: "r18", rbase: "r19"},
	}
	if g.acc {
		jumps = append(jumps, jump{m: "m6", readAt: []int{sC[0][len(sC[0])-1].t, sC[1][len(sC[1])-1].t}, base: rowB + 32, delta: -rowB,
			cnt: "r20", f: "r21", t: "r22", rd: "r23", rbase: "r26"})
	}
	var setupJ []*setupOp
	imm := func(r string, v int64, dl int) *setupOp {
		op := "movxm"
		if v >= -128 && v < 128 {
			op = "movx"
		}
		return &setupOp{in: k.isa.Operation(op, R(r), vliw.Imm(v)), deadline: dl}
	}
	firstLtu := 1 << 30
	for _, jp := range jumps {
		ch := []sc{
			{"alu", 0, "add", []vliw.Arg{R(jp.cnt), R(jp.cnt), vliw.Imm(1)}},
			{"alu", 1, "ltu", []vliw.Arg{R(jp.f), R(jp.cnt), R("r2")}},
			{"alu", 2, "mul", []vliw.Arg{R(jp.cnt), R(jp.cnt), R(jp.f)}},
			{"alu", 3, "mul", []vliw.Arg{R(jp.t), R(jp.f), R(jp.rd)}},
			{"alu", 5, "add", []vliw.Arg{R(jp.t), R(jp.t), R(jp.rbase)}},
			{"mv", 6, "mov", []vliw.Arg{R(jp.m), R(jp.t)}},
		}
		first := 1 << 30
		for _, r := range jp.readAt {
			first = min(first, r)
		}
		ts, err := placeChain(ch, first)
		if err != nil {
			return nil, err
		}
		// the modifier must be read by its own block's post-modify before the next block
		// rewrites it
		for _, r := range jp.readAt {
			if r <= ts[5] || r > ts[5]+ii {
				return nil, fmt.Errorf("aieml k1=%d: a pointer jump at %d does not read the modifier written at %d", k1, r, ts[5])
			}
		}
		firstLtu = min(firstLtu, ts[1])
		setupJ = append(setupJ, imm(jp.cnt, 0, ts[0]), imm(jp.rd, jp.delta, ts[3]), imm(jp.rbase, jp.base, ts[4]))
	}
	setupJ = append(setupJ, imm("r2", nb, firstLtu))

	if err := k.allocate(map[string]int{"x": a.VecRegs, "bm": 2 * a.AccRegs}); err != nil {
		return nil, fmt.Errorf("aieml k1=%d: %v", k1, err)
	}
	// once-only set-up
	movP5 := &setupOp{in: k.isa.Operation("mov", R("p5"), R("p2")), deadline: firstStore[1] - 1}
	k.setup = append(k.setup, setupJ...)
	k.setup = append(k.setup,
		imm("r0", a.Mode.Config, 0),
		imm("m0", rowB-int64(bn2)*tile+32, sB[2*bn2-1].t),
		imm("m4", rowA-32, sA[1].t), imm("m5", 32-rowA, sA[3].t),
		movP5,
		&setupOp{in: k.isa.Operation("padds", vliw.MemPost(reg("p5"), rowB)), deadline: firstStore[1], after: movP5, gap: 1},
	)
	if g.acc {
		movP3 := &setupOp{in: k.isa.Operation("mov", R("p3"), R("p2")), deadline: sC[0][0].t}
		movP6 := &setupOp{in: k.isa.Operation("mov", R("p6"), R("p2")), deadline: sC[1][0].t - 1}
		k.setup = append(k.setup, movP3, movP6,
			&setupOp{in: k.isa.Operation("padds", vliw.MemPost(reg("p6"), rowB)), deadline: sC[1][0].t, after: movP6, gap: 1})
	}
	return k, nil
}
