package compiler

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler/triplet"
)

// The middle's stages print themselves here; the target's stages through Target.Emit.

func printSpec(u *Unit) (string, error) {
	return fmt.Sprintf("%s\n# %s, %d MACs\n", u.Spec, u.Spec.Kind(), u.Spec.MACs()), nil
}

// printLoops writes the convolution's loop nest in seed 000's notation (section II-A, package
// op): output loops outermost, then the reduction over the filter and the group's channels.
func printLoops(u *Unit) (string, error) {
	c := u.Spec.Conv
	var sb strings.Builder
	depth := 0
	loop := func(v string, n int) {
		fmt.Fprintf(&sb, "%sfor %s in 0..%d\n", strings.Repeat("  ", depth), v, n-1)
		depth++
	}
	loop("n", c.N)
	loop("k", c.K)
	loop("y", c.Y)
	loop("x", c.X)
	loop("s", c.S)
	loop("r", c.R)
	loop("c", c.C/c.Groups)
	coord := func(out, f string, stride, dil int) string {
		s := out
		if stride != 1 {
			s = fmt.Sprintf("%s*%d", out, stride)
		}
		if dil != 1 {
			s += fmt.Sprintf(" + %s*%d", f, dil)
		} else {
			s += " + " + f
		}
		if c.Pad != 0 {
			s += fmt.Sprintf(" - %d", c.Pad)
		}
		return s
	}
	ch := "c"
	if c.Groups > 1 {
		ch = fmt.Sprintf("k/%d*%d + c", c.K/c.Groups, c.C/c.Groups)
	}
	fmt.Fprintf(&sb, "%sO(x, y, k, n) += W(r, s, c, k) * I(%s, %s, %s, n)\n", strings.Repeat("  ", depth),
		coord("x", "r", c.Stride, c.Dilation), coord("y", "s", c.Stride, c.Dilation), ch)
	return sb.String(), nil
}

func printSchedule(u *Unit) (string, error) {
	sh := u.Datapath.Shape
	return fmt.Sprintf("%s\n# datapath %d lanes x %d columns of %d-bit elements, %d MACs/cycle; software-pipelined loop %s\n",
		u.Sched.Key(), sh.Lanes, sh.Cols, sh.ElemBits, u.Peak, u.Sched.SW()), nil
}

func printTriplets(u *Unit) (string, error) {
	b, err := u.Triplets()
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// printGraphs writes the reuse graphs of the vector and scalar operands and the registers
// (aligned loads) their components become.
func printGraphs(u *Unit) (string, error) {
	var sb strings.Builder
	r := u.Program.Middle()
	for _, g := range []*triplet.Graph{r.XGraph, r.ZGraph} {
		kind := "vector loads"
		if g.Scalar {
			kind = "scalar operands"
		}
		fmt.Fprintf(&sb, "reuse graph of %s (%s): %d nodes, %d edges, %d components\n", g.Tensor, kind, len(g.Nodes), len(g.Edges), len(g.Components()))
		for i, comp := range g.Components() {
			var names []string
			for _, n := range comp {
				names = append(names, g.Nodes[n].Access.String())
			}
			fmt.Fprintf(&sb, "  component %d: %s\n", i, strings.Join(names, " "))
		}
	}
	for _, set := range []struct {
		name string
		bufs []*triplet.Buffer
	}{{"X registers", r.XBufs}, {"Z registers", r.ZBufs}} {
		fmt.Fprintf(&sb, "%s:\n", set.name)
		for _, b := range set.bufs {
			fmt.Fprintf(&sb, "  %d: %v, %d bits\n", b.ID, b, len(b.Starts)*r.Datapath.LoadBits)
		}
	}
	return sb.String(), nil
}

// printFused writes the 2D operations with their selection parameters and what was padded.
func printFused(u *Unit) (string, error) {
	var sb strings.Builder
	r := u.Program.Middle()
	for _, o := range r.Ops {
		var ms []string
		for _, m := range o.Members {
			s := m.Op1.String() + "*" + m.Op2.String()
			if m.Pad {
				s += " (pad)"
			}
			ms = append(ms, s)
		}
		fmt.Fprintf(&sb, "%s += %s   [X%d Z%d] %v\n", r.Plan.Body.Updates[o.U], strings.Join(ms, " + "), o.X.ID, o.Z.ID, o.Params)
	}
	for _, e := range r.Explain {
		fmt.Fprintln(&sb, "# "+e)
	}
	return sb.String(), nil
}
