package xdna

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/vliw"
)

// bfpDims are the index roles of seed 002's XDNA2 layout
// [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] (any index names).
type bfpDims struct {
	m2, k1, n2 int
}

func matchBFP(e *op.Einsum) (bfpDims, error) {
	bad := func(why string) (bfpDims, error) {
		return bfpDims{}, fmt.Errorf("aie2p kernels take seed 002's layout [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] with m1=n1=2, m0=k0=n0=8 (any index names): %s", why)
	}
	a, b, o := e.In[0], e.In[1], e.Out
	if len(a) != 5 || len(b) != 5 || len(o) != 6 {
		return bad("wrong number of indices")
	}
	M2, K1, M1, M0, K0 := a[0], a[1], a[2], a[3], a[4]
	N2, N1, N0 := b[0], b[2], b[3]
	if b[1] != K1 || b[4] != K0 || o[0] != M1 || o[1] != M2 || o[2] != N2 || o[3] != N1 || o[4] != M0 || o[5] != N0 {
		return bad("index order differs")
	}
	sz := e.Sizes
	if sz[M1] != 2 || sz[N1] != 2 {
		return bad(fmt.Sprintf("%s=%d %s=%d (the 2x2 register blocking)", M1, sz[M1], N1, sz[N1]))
	}
	if sz[M0] != 8 || sz[K0] != 8 || sz[N0] != 8 {
		return bad(fmt.Sprintf("%s=%d %s=%d %s=%d (the bfp16 8x8x8 VMAC.F tile)", M0, sz[M0], K0, sz[K0], N0, sz[N0]))
	}
	d := bfpDims{m2: sz[M2], k1: sz[K1], n2: sz[N2]}
	if d.k1%4 != 0 && (d.m2 > 1 || d.n2 > 1) {
		return d, fmt.Errorf("aie2p: %s=%d: each block's bfp16 operand stream starts a new %d-byte slice, and the fill/pop pipeline fetches 64-byte-aligned lines (seed 002: loads must be 64-byte aligned), so a slice of 2 x %s x 72 bytes must be a multiple of 64: %s must be a multiple of 4 (or m2 = n2 = 1)", K1, d.k1, 144*d.k1, K1, K1)
	}
	return d, nil
}

// genAIE2P builds the XDNA2 bfp16 kernel: one block of 2x2 output tiles per iteration
// (II = 4 k1 VMAC.F), four accumulation chains interleaved one cycle apart so each chain's
// VMAC.F come 4 cycles apart (>= MACDst - MACAcc + 1 = 3), the first k-step a VMUL.F (the
// einsum has no input accumulator), operand tiles streamed through the fill/pop FIFOs of both
// load units and popped 8 cycles ahead of their first VMAC.F, the 16 stores of a block issued
// during the next block as soon as each tile's last VMAC.F lands, and the jump of both
// operand pointers between blocks computed by scalar code in the otherwise idle X/M slots.
func genAIE2P(a *Arch, e *op.Einsum, name string, g genOpts) (*kern, error) {
	prio := g.prio
	if g.acc {
		return nil, fmt.Errorf("aie2p: accumulating into the output (out += A B) is not generated: the 16 output loads per block compete for the five accumulator registers with the chains and the stores (seed 002 solves it by hand)")
	}
	d, err := matchBFP(e)
	if err != nil {
		return nil, err
	}
	if a.Gen != AIE2P {
		return nil, fmt.Errorf("bfp16 kernels need an AIE2P target")
	}
	k1 := d.k1
	// one VMAC.F per bundle, unless the block's 16 stores (one store slot) need more bundles
	ii := max(4*k1, 16) + g.extra
	k := newKern(a, ii, d.m2*d.n2, name)
	L := a.Lat
	M := a.M
	reg := func(f string, v ...any) *vliw.Reg { return M.MustReg(fmt.Sprintf(f, v...)) }
	ex := func(v *tval) vliw.Arg { return vliw.R(reg("ex%d", v.reg)) }
	dm := func(v *tval) vliw.Arg { return vliw.R(reg("dm%d", v.reg)) }
	r0 := vliw.R(reg("r0"))

	// operand tiles and accumulation chains
	A := make([][]*tval, 2)
	B := make([][]*tval, 2)
	for i := 0; i < 2; i++ {
		A[i], B[i] = make([]*tval, k1), make([]*tval, k1)
		for kk := 0; kk < k1; kk++ {
			A[i][kk], B[i][kk] = k.newVal("ex"), k.newVal("ex")
		}
	}
	chain := make([][4]*tval, k1)
	for r := 0; r < k1; r++ {
		for c := 0; c < 4; c++ {
			chain[r][c] = k.newVal("dm")
		}
	}
	// VMAC.F of chain c = (m, n) = (c&1, c>>1), one per bundle, a chain's VMAC.F at least
	// MACDst - MACAcc + 1 = 3 apart; chain 0's tile finishes first so that in the cool-down
	// its stores hide under the other chains' last VMAC.F (output-tile prioritization), else
	// plain round robin (4r + c).
	spacing := L.MACDst - L.MACAcc + 1
	when, ok := chainOrder(4, k1, ii, spacing, prioritized(4, ii, spacing, 4))
	if !ok || !prio {
		when, _ = chainOrder(4, k1, ii, spacing, []int{ii, ii, ii, ii})
	}
	for r := 0; r < k1; r++ {
		for c := 0; c < 4; c++ {
			r, c := r, c
			m, n := c&1, c>>1
			t := when[c][r]
			if r == 0 {
				o := k.add("vec", t, "vmul.f", func() []vliw.Arg {
					return []vliw.Arg{dm(chain[0][c]), ex(A[m][0]), ex(B[n][0]), r0}
				})
				o.defines(chain[0][c], L.MACDst).reads(1, A[m][0], L.MACSrc).reads(2, B[n][0], L.MACSrc)
				continue
			}
			o := k.add("vec", t, "vmac.f", func() []vliw.Arg {
				return []vliw.Arg{dm(chain[r][c]), dm(chain[r-1][c]), ex(A[m][r]), ex(B[n][r]), r0}
			})
			o.defines(chain[r][c], L.MACDst).reads(1, chain[r-1][c], L.MACAcc).reads(2, A[m][r], L.MACSrc).reads(3, B[n][r], L.MACSrc)
		}
	}
	popLead := L.PopDst - L.MACSrc + 1 // a pop issues this many cycles before its tile's first use
	// operand streams: unit A pops A[m][k] in memory order (k-major, m minor), unit B B[n][k]
	type streamOp struct {
		fill     bool
		v        *tval
		deadline int
		t        int
	}
	stream := func(unit string, tiles [][]*tval, firstUse func(i, kk int) int) []*streamOp {
		var s []*streamOp
		for kk := 0; kk < k1; kk++ {
			for i := 0; i < 2; i++ {
				if (2*kk+i)%8 == 0 {
					s = append(s, &streamOp{fill: true, deadline: 1 << 30})
				}
				s = append(s, &streamOp{v: tiles[i][kk], deadline: firstUse(i, kk) - popLead})
			}
		}
		return s
	}
	sa := stream("lda", A, func(i, kk int) int { return min(when[i][kk], when[i+2][kk]) })
	sb := stream("ldb", B, func(i, kk int) int { return min(when[2*i][kk], when[2*i+1][kk]) })
	placeStream := func(unit string, s []*streamOp) (int, error) {
		// ALAP in reverse stream order, the pointer jump (padd) last; the padd must come before
		// the next iteration's first fill: iterate on the first fill's time.
		guess := s[0].deadline
		for _, x := range s {
			if !x.fill {
				guess = x.deadline - 1
				break
			}
		}
		for iter := 0; iter < 8; iter++ {
			saved := k.mrt[unit]
			k.mrt[unit] = append([]bool(nil), saved...)
			if k.mrt[unit] == nil {
				k.mrt[unit] = make([]bool, ii)
			}
			padd := k.alap(unit, ii+guess-1)
			k.take(unit, padd)
			next := padd
			for j := len(s) - 1; j >= 0; j-- {
				x := s[j]
				x.t = k.alap(unit, min(x.deadline, next-1))
				k.take(unit, x.t)
				next = x.t
			}
			if s[0].t == guess {
				if padd-s[0].t >= ii {
					return 0, fmt.Errorf("%s stream does not fit one block period", unit)
				}
				return padd, nil
			}
			guess = s[0].t
			k.mrt[unit] = saved
		}
		return 0, fmt.Errorf("%s stream placement does not settle", unit)
	}
	paddA, err := placeStream("lda", sa)
	if err != nil {
		return nil, err
	}
	paddB, err := placeStream("ldb", sb)
	if err != nil {
		return nil, err
	}
	addStream := func(unit string, s []*streamOp, p, lf, pos string) {
		mem := vliw.MemFifo(M.MustReg(p), M.MustReg(lf), M.MustReg(pos))
		for _, x := range s {
			x := x
			if x.fill {
				o := &top{slot: unit, t: x.t, op: "v" + unit + ".fill.512", uses: map[int]*tval{}}
				o.args = func() []vliw.Arg { return []vliw.Arg{mem} }
				k.ops = append(k.ops, o)
				continue
			}
			o := &top{slot: unit, t: x.t, op: "v" + unit + ".pop.576", uses: map[int]*tval{}}
			o.args = func() []vliw.Arg { return []vliw.Arg{ex(x.v), mem} }
			o.defines(x.v, L.PopDst)
			k.ops = append(k.ops, o)
		}
	}
	addStream("lda", sa, "p0", "lf0", "r24")
	addStream("ldb", sb, "p1", "lf1", "r25")
	k.ops = append(k.ops,
		&top{slot: "lda", t: paddA, op: "padda", args: func() []vliw.Arg { return []vliw.Arg{vliw.MemPostReg(reg("p0"), reg("m0"))} }, uses: map[int]*tval{}},
		&top{slot: "ldb", t: paddB, op: "paddb", args: func() []vliw.Arg { return []vliw.Arg{vliw.MemPostReg(reg("p1"), reg("m1"))} }, uses: map[int]*tval{}})

	// Pointer jumps between blocks (the seed's scheme): r1 counts blocks along n2; after a
	// block, r6 = (r1 < n2): the next block reuses this A slice (m0 = -slice) unless the row of
	// blocks ended (m0 = 0, and B jumps back to its start: m1 = -(n2 slices)).
	t0 := min(paddA-7, paddB-8)
	scal := []struct {
		slot string
		dt   int
		op   string
		args []string
	}{
		{"alu", 0, "add", []string{"r1", "r1", "r3"}},
		{"alu", 1, "ltu", []string{"r6", "r1", "r2"}},
		{"alu", 2, "mul", []string{"r1", "r1", "r6"}},
		{"alu", 3, "sub", []string{"r7", "r3", "r6"}},
		{"alu", 4, "mul", []string{"r6", "r6", "r4"}},
		{"alu", 5, "mul", []string{"r7", "r7", "r5"}},
		{"mv", 6, "mov", []string{"m0", "r6"}},
		{"mv", 7, "mov", []string{"m1", "r7"}},
	}
	for _, s := range scal {
		s := s
		if k.busy(s.slot, t0+s.dt) || k.coversBusy(s.slot, t0+s.dt) {
			return nil, fmt.Errorf("scalar slot %s at %d taken", s.slot, t0+s.dt)
		}
		k.add(s.slot, t0+s.dt, s.op, func() []vliw.Arg {
			var out []vliw.Arg
			for _, r := range s.args {
				out = append(out, vliw.R(M.MustReg(r)))
			}
			return out
		})
	}

	// stores: tiles in the order their chains end, four 64-byte quarters each; m = 0 tiles
	// through p2 (first half of the output), m = 1 through p3.
	storeLead := L.MACDst - L.VSTSrc + 1
	quarters := []string{"bmll", "bmlh", "bmhl", "bmhh"}
	next := 0
	for c := 0; c < 4; c++ {
		c := c
		v := chain[k1-1][c]
		ptr := reg("p2")
		if c&1 == 1 {
			ptr = reg("p3")
		}
		for q := 0; q < 4; q++ {
			q := q
			t := k.asap("st", max(next, when[c][k1-1]+storeLead))
			o := k.add("st", t, "vst", func() []vliw.Arg {
				return []vliw.Arg{vliw.R(reg("%s%d", quarters[q], v.reg)), vliw.MemPost(ptr, 64)}
			})
			o.reads(0, v, L.VSTSrc)
			next = t + 1
		}
	}
	if err := k.allocate(map[string]int{"ex": a.VecRegs, "dm": a.AccRegs}); err != nil {
		return nil, fmt.Errorf("aie2p k1=%d: %v", k1, err)
	}
	// once-only set-up before the first iteration
	slice := int64(2 * k1 * 72)
	k.setup = append(k.setup,
		&setupOp{in: k.isa.Operation("movx", vliw.R(reg("r24")), vliw.Imm(0)), deadline: sa[0].t},
		&setupOp{in: k.isa.Operation("mov", vliw.R(reg("r25")), vliw.Imm(0)), deadline: sb[0].t},
		&setupOp{in: k.isa.Operation("movxm", vliw.R(reg("r0")), vliw.Imm(a.Mode.Config)), deadline: 0},
		&setupOp{in: k.isa.Operation("movx", vliw.R(reg("r1")), vliw.Imm(0)), deadline: t0},
		&setupOp{in: k.isa.Operation("movxm", vliw.R(reg("r2")), vliw.Imm(int64(d.n2))), deadline: t0 + 1},
		&setupOp{in: k.isa.Operation("movx", vliw.R(reg("r3")), vliw.Imm(1)), deadline: t0},
		&setupOp{in: k.isa.Operation("movxm", vliw.R(reg("r4")), vliw.Imm(-slice)), deadline: t0 + 4},
		&setupOp{in: k.isa.Operation("movxm", vliw.R(reg("r5")), vliw.Imm(-slice*int64(d.n2))), deadline: t0 + 5},
	)
	return k, nil
}
