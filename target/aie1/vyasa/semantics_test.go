package vyasa

import (
	"testing"

	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"github.com/sumacdev/sumac/target/aie1/shuffle"
)

// The compiler's shuffle-network solver and the kernel IR's semantics (target/aie1/kernel DecodeMAC,
// written independently from the same documents) must agree on every parameter set the
// compiler emits.
func TestSolverMatchesKernelSemantics(t *testing.T) {
	for _, text := range []string{
		"conv2d x=32 y=4 r=3 s=3 dtype=int16",
		"conv2d x=32 y=2 r=7 s=3 dtype=int16",
		"conv2d x=16 y=2 k=16 c=4 r=3 s=3 dtype=int16",
		"conv2d x=16 y=4 r=11 s=2 dtype=int32",
		"conv2d x=8 y=2 k=8 c=8 r=3 s=3 dtype=fp32",
		"conv2d x=4 y=2 k=32 c=16 r=1 s=1 dtype=int8",
		"conv2d x=4 y=2 k=16 c=8 r=3 s=2 dtype=int8",
	} {
		spec := op.MustParse(text)
		n := 0
		for _, s := range schedulesFor(t, spec) {
			p, err := Generate(spec, s)
			if err != nil {
				continue
			}
			form := kernel.Form16x16
			switch p.Datapath.Sel {
			case shuffle.Sel32:
				form = kernel.Form32x32
			case shuffle.Sel8:
				form = kernel.Form8x8
			}
			for _, o := range p.Fused.Ops {
				xLen := o.X.Elems()
				if xLen < 2*o.X.LoadElems {
					xLen = 2 * o.X.LoadElems // one-part X registers are 512-bit values
				}
				if len(o.X.Starts) == 3 {
					xLen = 4 * o.X.LoadElems
				}
				var sel kernel.MACSel
				op := shuffle.Of(o.Params)
				prm := kernel.MACParams{XStart: op.XStart, XOffs: op.XOffs, XOffsHi: op.XOffsHi, XSquare: op.XSquare,
					ZStart: op.ZStart, ZOffs: op.ZOffs, ZOffsHi: op.ZOffsHi, ZStep: op.ZStep,
					XStep: op.XStep, ZSquare: op.ZSquare}
				if err := kernel.DecodeMAC(form, xLen, o.Z.Elems(), prm, &sel); err != nil {
					t.Fatalf("%s: DecodeMAC(%v): %v", text, o.Params, err)
				}
				xs, zs := triplet.Eval(p.Datapath.Sel, o.Params, sel.Lanes, sel.Cols)
				for l := 0; l < sel.Lanes; l++ {
					for c := 0; c < sel.Cols; c++ {
						if int(sel.X[l][c]) != xs[l][c] || int(sel.Z[l][c]) != zs[l][c] {
							t.Fatalf("%s %v lane %d col %d: kernel selects x=%d z=%d, solver x=%d z=%d",
								text, o.Params, l, c, sel.X[l][c], sel.Z[l][c], xs[l][c], zs[l][c])
						}
					}
				}
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: nothing checked", text)
		}
	}
}
