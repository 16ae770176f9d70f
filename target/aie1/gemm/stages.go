package gemm

import (
	"fmt"
	"strings"
)

// Stage prints the middle's stages of a contraction: "triplets" (the updates of one
// iteration of the pipelined loop: accumulator, X block, Z group, k range), "graphs" (the
// registers an iteration fills, their 256-bit loads and the layouts they read) and "fused"
// (the plan with every MAC's operand-selection parameters).
func (p *Program) Stage(name string) (string, error) {
	pl := p.Plan
	s := p.Sched
	var sb strings.Builder
	xop, zop := p.operands()
	switch name {
	case "triplets":
		fmt.Fprintf(&sb, "# one iteration of the pipelined loop over k (%d values of k); C block %dx%d\n", s.KB, s.MR, s.NR)
		for _, m := range pl.MACs {
			xr, zr := pl.XRegs[m.X], pl.ZRegs[m.Z]
			k0 := m.KG * pl.D.Shape.Cols
			fmt.Fprintf(&sb, "acc%d[%d lanes] += %s[block %d][k %d..%d] * %s[group %d][k %d..%d]\n", m.Acc, pl.D.Shape.Lanes,
				xop, xr.Blk, k0, k0+pl.D.Shape.Cols-1, zop, zr.Blk, k0, k0+pl.D.Shape.Cols-1)
		}
	case "graphs":
		fmt.Fprintf(&sb, "layouts: %s; %s; %s\n", describe("A", p.Lay["A"], pl, map[bool]string{true: "X", false: "Z"}[xop == "A"]),
			describe("B", p.Lay["B"], pl, map[bool]string{true: "X", false: "Z"}[xop == "B"]), describe("C", p.Lay["C"], pl, "C"))
		for i, r := range pl.XRegs {
			fmt.Fprintf(&sb, "x%d %v: %s block %d, k %d..%d:", i, pl.XType, xop, r.Blk, r.KG*s.XK, r.KG*s.XK+s.XK-1)
			for _, a := range p.xAcc[i] {
				fmt.Fprintf(&sb, " load %s[%d + %d*it]", xop, a.Base, a.SK)
			}
			sb.WriteString("\n")
		}
		for i, r := range pl.ZRegs {
			a := p.zAcc[i][0]
			fmt.Fprintf(&sb, "z%d %v: %s group %d, k %d..%d: load %s[%d + %d*it]\n", i, pl.ZType, zop, r.Blk, r.KG*s.ZK, r.KG*s.ZK+s.ZK-1, zop, a.Base, a.SK)
		}
		for a, c := range p.cAcc {
			fmt.Fprintf(&sb, "acc%d %v -> C[%d] (tile strides m %d, n %d)\n", a, pl.D.Acc, c.Base, c.SM, c.SN)
		}
	case "fused":
		sb.WriteString(pl.String())
	default:
		return "", fmt.Errorf("no contraction stage %q", name)
	}
	return sb.String(), nil
}
