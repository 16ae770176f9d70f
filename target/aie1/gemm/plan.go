package gemm

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"github.com/sumacdev/sumac/target/aie1/shuffle"
)

// A Plan is the register-level design of one iteration of the pipelined loop: which
// elements every X and Z register holds, which accumulator every lane is, and each MAC
// with the operand-selection parameters the shuffle network needs for it.
type Plan struct {
	S      sched.GEMM
	D      Datapath
	LZ     int // lanes along the Z operand's free index
	MX, MZ int // the block's extent along the X and Z operands' free indices
	BX, BZ int // accumulators along them (MX/LX, MZ/LZ)
	NZ     int // Z operand free values per Z register
	XType  kernel.Type
	ZType  kernel.Type
	MACs   []MAC
	// XRegs and ZRegs list the registers one iteration fills, in the order of their first use.
	XRegs, ZRegs []Reg
}

// Reg is one register fill of an iteration: the X register of X block Blk and k group KG
// (XK values of k), or the Z register of free-index group Blk and k group KG (ZK values).
type Reg struct {
	Blk, KG int
	// Elems lists the register's elements in order: the operand's free index (within the
	// block) and k (within the iteration).
	Elems []FK
}

// FK is an element of an operand relative to a block and an iteration: free index F (m of A,
// n of B) and k.
type FK struct{ F, K int }

// MAC is one MAC of an iteration: accumulator Acc (BX x BZ, index bx*BZ + bz), the X and Z
// registers it reads (indices into XRegs, ZRegs), its column group of k, and its parameters.
type MAC struct {
	Acc, X, Z int
	KG        int
	P         shuffle.Params
}

// Lane returns the output of accumulator acc's lane l: the X and Z operands' free indices
// within the block.
func (p *Plan) Lane(acc, l int) (xf, zf int) {
	bx, bz := acc/p.BZ, acc%p.BZ
	return bx*p.S.LX + l%p.S.LX, bz*p.LZ + l/p.S.LX
}

// Out returns the block-relative output (row i, column j) of accumulator acc's lane l.
func (p *Plan) Out(acc, l int) (i, j int) {
	xf, zf := p.Lane(acc, l)
	if p.S.X == "A" {
		return xf, zf
	}
	return zf, xf
}

// Accs is the number of accumulators.
func (p *Plan) Accs() int { return p.BX * p.BZ }

func pos(order string, f, k, nf, nk int) int {
	if order == "kf" {
		return k*nf + f
	}
	return f*nk + k
}

// NewPlan designs the registers and MACs of schedule s for datapath d, solving every MAC's
// parameters; with XOrd or ZOrd empty it takes the first register order ("kf", then "fk")
// the network accepts. The error names the rule that refuses the block.
func NewPlan(s sched.GEMM, d Datapath, c sched.Contraction) (*Plan, error) {
	if err := s.Check(c, d.Shape, d.XBits, d.ZBits); err != nil {
		return nil, err
	}
	xords, zords := []string{s.XOrd}, []string{s.ZOrd}
	if s.XOrd == "" {
		xords = []string{"kf", "fk"}
	}
	if s.ZOrd == "" {
		zords = []string{"kf", "fk"}
	}
	var first error
	for _, xo := range xords {
		for _, zo := range zords {
			t := s
			t.XOrd, t.ZOrd = xo, zo
			p, err := newPlan(t, d)
			if err == nil {
				return p, nil
			}
			if first == nil {
				first = err
			}
		}
	}
	return nil, first
}

func newPlan(s sched.GEMM, d Datapath) (*Plan, error) {
	sh := d.Shape
	p := &Plan{S: s, D: d, LZ: sh.Lanes / s.LX}
	p.MX, p.MZ = s.Free()
	p.BX, p.BZ = p.MX/s.LX, p.MZ/p.LZ
	p.NZ = d.ZElems() / s.ZK
	p.XType = kernel.VecOf(d.Elem, s.LX*s.XK)
	p.ZType = kernel.VecOf(d.Elem, d.ZElems())
	xIndex := map[[2]int]int{}
	zIndex := map[[2]int]int{}
	xReg := func(bx, xg int) int {
		key := [2]int{bx, xg}
		if i, ok := xIndex[key]; ok {
			return i
		}
		r := Reg{Blk: bx, KG: xg, Elems: make([]FK, s.LX*s.XK)}
		for f := 0; f < s.LX; f++ {
			for k := 0; k < s.XK; k++ {
				r.Elems[pos(s.XOrd, f, k, s.LX, s.XK)] = FK{bx*s.LX + f, xg*s.XK + k}
			}
		}
		xIndex[key] = len(p.XRegs)
		p.XRegs = append(p.XRegs, r)
		return xIndex[key]
	}
	zReg := func(zg, kg int) int {
		key := [2]int{zg, kg}
		if i, ok := zIndex[key]; ok {
			return i
		}
		r := Reg{Blk: zg, KG: kg, Elems: make([]FK, p.NZ*s.ZK)}
		for f := 0; f < p.NZ; f++ {
			for k := 0; k < s.ZK; k++ {
				r.Elems[pos(s.ZOrd, f, k, p.NZ, s.ZK)] = FK{zg*p.NZ + f, kg*s.ZK + k}
			}
		}
		zIndex[key] = len(p.ZRegs)
		p.ZRegs = append(p.ZRegs, r)
		return zIndex[key]
	}
	solved := map[string]shuffle.Params{}
	for kg := 0; kg < s.KB/sh.Cols; kg++ {
		var pairs [][2]int
		if s.Inner == "xz" {
			for a := 0; a < p.BX; a++ {
				for b := 0; b < p.BZ; b++ {
					pairs = append(pairs, [2]int{a, b})
				}
			}
		} else {
			for b := 0; b < p.BZ; b++ {
				for a := 0; a < p.BX; a++ {
					pairs = append(pairs, [2]int{a, b})
				}
			}
		}
		for _, ab := range pairs {
			bx, bz := ab[0], ab[1]
			k0 := kg * sh.Cols
			xi := xReg(bx, k0/s.XK)
			zg := bz * p.LZ / p.NZ
			zi := zReg(zg, k0/s.ZK)
			sel := triplet.Selection{Lanes: sh.Lanes, Cols: sh.Cols, XElems: s.LX * s.XK, ZElems: d.ZElems()}
			sel.X = make([][]int, sh.Lanes)
			sel.Z = make([][]int, sh.Lanes)
			for l := 0; l < sh.Lanes; l++ {
				sel.X[l] = make([]int, sh.Cols)
				sel.Z[l] = make([]int, sh.Cols)
				xf, zf := l%s.LX, bz*p.LZ+l/s.LX-zg*p.NZ
				for c := 0; c < sh.Cols; c++ {
					k := k0 + c
					sel.X[l][c] = pos(s.XOrd, xf, k%s.XK, s.LX, s.XK)
					sel.Z[l][c] = pos(s.ZOrd, zf, k%s.ZK, p.NZ, s.ZK)
				}
			}
			key := fmt.Sprint(sel.X, sel.Z)
			prm, ok := solved[key]
			if !ok {
				var err error
				prm, err = shuffle.Solve(d.Sel, sel)
				if err != nil {
					return nil, fmt.Errorf("%s network, X order %s, Z order %s: %v", d.Sel, s.XOrd, s.ZOrd, err)
				}
				solved[key] = prm
			}
			p.MACs = append(p.MACs, MAC{Acc: bx*p.BZ + bz, X: xi, Z: zi, KG: kg, P: prm})
		}
	}
	return p, p.checkRegisters()
}

// checkRegisters refuses plans whose registers cannot all live in the vector file at the
// points of one iteration where they are live (first to last use, in MAC order): Z operands
// only in wc0 and wc1, X operands in ya = xa:xb or yd = xd:xb (so at most 1536 bits, and one
// 1024-bit register), fp32 accumulators in the rest of the 2048 bits (AIE1InstrInfo.td: VMAC's
// VEC1024 X and VECFWC Z operand classes; aie1.VectorViews).
func (p *Plan) checkRegisters() error {
	first := func(n int, reg func(m MAC) int) (lo, hi []int) {
		lo, hi = make([]int, n), make([]int, n)
		for i := range lo {
			lo[i] = -1
		}
		for i, m := range p.MACs {
			r := reg(m)
			if lo[r] < 0 {
				lo[r] = i
			}
			hi[r] = i
		}
		return
	}
	xlo, xhi := first(len(p.XRegs), func(m MAC) int { return m.X })
	zlo, zhi := first(len(p.ZRegs), func(m MAC) int { return m.Z })
	accBits := 0
	if p.D.Acc.IsVector() {
		accBits = p.Accs() * p.D.Acc.Bits()
	}
	for i := range p.MACs {
		xs, zs := 0, 0
		for r := range xlo {
			if xlo[r] <= i && i <= xhi[r] {
				xs++
			}
		}
		for r := range zlo {
			if zlo[r] <= i && i <= zhi[r] {
				zs++
			}
		}
		xbits := xs * p.XType.Bits()
		switch {
		case zs > 2:
			return fmt.Errorf("registers: %d Z registers live at once, the Z operand has wc0 and wc1", zs)
		case p.XType.Bits() == 1024 && xs > 1:
			return fmt.Errorf("registers: %d 1024-bit X registers live at once, ya and yd share xb", xs)
		case xbits > 1536:
			return fmt.Errorf("registers: %d bits of X registers live at once, xa, xb and xd hold 1536", xbits)
		case xbits+zs*p.ZType.Bits()+accBits > 2048:
			return fmt.Errorf("registers: X, Z and fp32 accumulators need %d bits of the 2048-bit vector file", xbits+zs*p.ZType.Bits()+accBits)
		}
	}
	return nil
}

// String describes the plan: registers, accumulators and the MACs of one iteration.
func (p *Plan) String() string {
	var sb strings.Builder
	s := p.S
	xop, zop := "A", "B"
	xf, zf := "m", "n"
	if s.X == "B" {
		xop, zop, xf, zf = "B", "A", "n", "m"
	}
	fmt.Fprintf(&sb, "block %dx%d (%d accumulators %v), k %d per iteration; %d lanes: %d along %s (X operand %s), %d along %s (Z operand %s); %d columns along k\n",
		s.MR, s.NR, p.Accs(), p.D.Acc, s.KB, p.D.Shape.Lanes, s.LX, xf, xop, p.LZ, zf, zop, p.D.Shape.Cols)
	fmt.Fprintf(&sb, "X registers %v: %d %s x %d k, order %s; Z registers %v: %d %s x %d k, order %s\n",
		p.XType, s.LX, xf, s.XK, s.XOrd, p.ZType, p.NZ, zf, s.ZK, s.ZOrd)
	for i, m := range p.MACs {
		fmt.Fprintf(&sb, "mac %2d: acc%d += x%d (%s block %d, k %d..%d) * z%d (%s group %d, k %d..%d): %s\n", i, m.Acc,
			m.X, xf, p.XRegs[m.X].Blk, p.XRegs[m.X].KG*s.XK, p.XRegs[m.X].KG*s.XK+s.XK-1,
			m.Z, zf, p.ZRegs[m.Z].Blk, p.ZRegs[m.Z].KG*s.ZK, p.ZRegs[m.Z].KG*s.ZK+s.ZK-1, m.P)
	}
	return sb.String()
}
