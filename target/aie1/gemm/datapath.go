// Package gemm generates AIE1 kernels for matrix multiplications and einsum contractions the
// way seeds 001 and 004 write their micro-kernels by hand (BLIS, seed 001 Fig. 2): an MR x NR
// block of accumulators updated by a software-pipelined loop over k whose body fills X and Z
// registers with 256-bit loads and issues the MACs, the operand-selection parameters of every
// MAC solved by the shuffle network (target/aie1/shuffle) from the registers' contents, the
// operands' layouts chosen with the block (packed micro-panels in the order the kernel reads
// them, or the spec's own layout where the block can read it in place), and an epilogue that
// narrows each accumulator (srs, bsrs, ubsrs: shift, round, saturate), adds C's old value
// for beta=1 and stores it. Tile loops around the pipelined loop cover the whole problem.
package gemm

import (
	"fmt"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"github.com/sumacdev/sumac/target/aie1/shuffle"
)

// Datapath is one operand type on the AIE1 MAC unit.
type Datapath struct {
	DType    op.DType
	Elem     kernel.Elem
	Shape    sched.Shape // lanes x columns, element bits
	Sel      shuffle.Kind
	Mul, Mac kernel.Op
	Acc      kernel.Type // accumulator (fp32: a v8float vector)
	Narrow   kernel.Op   // srs, bsrs, ubsrs; OpInvalid-like zero for fp32 (no narrowing)
	Out      kernel.Type // the narrowed vector
	Peak     int         // MACs per cycle
	// XBits and ZBits are the widest X register (the 1024-bit ya/yd view) and the Z register
	// (256 bits, wc0/wc1) of the MAC intrinsics (aie1.MACShapes).
	XBits, ZBits int
}

// LoadElems is the number of elements one 256-bit load brings (aie1.LoadBits).
func (d Datapath) LoadElems() int { return aie1.LoadBits / d.Elem.Bits() }

// ZElems is the number of elements of the Z register.
func (d Datapath) ZElems() int { return d.ZBits / d.Elem.Bits() }

// DatapathFor returns the datapath of a spec's types: int16 mac16 (16 lanes x 2 columns,
// acc48, srs), int8 and uint8 mac16 (16 x 8, acc48, bsrs / ubsrs as seed 004's kernel), int32
// lmac8 (8 x 1, acc80, srs) and fp32 fpmac (8 x 1, fp32 accumulation). UG1079 "MAC Intrinsics";
// the shapes and peaks are aie1.MACShapes and aie1.PeakMACsPerCycle.
func DatapathFor(t op.Types) (Datapath, error) {
	if t.A != t.B {
		return Datapath{}, fmt.Errorf("aie1 gemm: operands %v x %v: both operands must have one type", t.A, t.B)
	}
	var d Datapath
	var shapeX string
	switch t.A {
	case op.Int16:
		d = Datapath{Elem: kernel.Int16, Sel: shuffle.Sel16, Mul: kernel.OpMul16, Mac: kernel.OpMac16, Acc: kernel.AccOf(kernel.Acc48, 16), Narrow: kernel.OpSRS, Out: kernel.VecOf(kernel.Int16, 16)}
		shapeX = "int16"
	case op.Int8:
		d = Datapath{Elem: kernel.Int8, Sel: shuffle.Sel8, Mul: kernel.OpMul16, Mac: kernel.OpMac16, Acc: kernel.AccOf(kernel.Acc48, 16), Narrow: kernel.OpBSRS, Out: kernel.VecOf(kernel.Int8, 16)}
		shapeX = "int8"
	case op.UInt8:
		d = Datapath{Elem: kernel.UInt8, Sel: shuffle.Sel8, Mul: kernel.OpMul16, Mac: kernel.OpMac16, Acc: kernel.AccOf(kernel.Acc48, 16), Narrow: kernel.OpUBSRS, Out: kernel.VecOf(kernel.UInt8, 16)}
		shapeX = "uint8"
	case op.Int32:
		d = Datapath{Elem: kernel.Int32, Sel: shuffle.Sel32, Mul: kernel.OpLMul8, Mac: kernel.OpLMac8, Acc: kernel.AccOf(kernel.Acc80, 8), Narrow: kernel.OpSRS, Out: kernel.VecOf(kernel.Int32, 8)}
		shapeX = "int32"
	case op.FP32:
		d = Datapath{Elem: kernel.Float32, Sel: shuffle.Sel32, Mul: kernel.OpFPMul, Mac: kernel.OpFPMac, Acc: kernel.VecOf(kernel.Float32, 8), Out: kernel.VecOf(kernel.Float32, 8)}
		shapeX = "float"
	default:
		return d, fmt.Errorf("aie1 gemm: %v operands are not supported (int8, uint8, int16, int32, fp32)", t.A)
	}
	d.DType = t.A
	switch {
	case t.A.IsInt() && t.A.Bits() < 32 && t.Acc != op.Acc48:
		return d, fmt.Errorf("aie1 %v MACs accumulate in acc48, spec asks for %v", t.A, t.Acc)
	case t.A == op.Int32 && t.Acc != op.Acc80:
		return d, fmt.Errorf("aie1 int32 MACs accumulate in acc80, spec asks for %v", t.Acc)
	case t.A == op.FP32 && (t.Acc != op.AccF32 || t.Out != op.FP32):
		return d, fmt.Errorf("aie1 fpmac accumulates and stores fp32, spec asks for acc=%v out=%v", t.Acc, t.Out)
	case t.A.IsInt() && t.Out != t.A:
		return d, fmt.Errorf("aie1 gemm: the output is narrowed back to the operand type %v (%v), spec asks for %v", t.A, opName(d.Narrow), t.Out)
	}
	for _, s := range aie1.MACShapes {
		if s.X == shapeX && s.Z == shapeX && (shapeX != "int16" || s.Intrinsic == "mac16") {
			d.Shape = sched.Shape{Lanes: s.Lanes, Cols: s.Cols, ElemBits: t.A.Bits()}
			d.Peak = s.MACsPerCycle()
			d.XBits, d.ZBits = s.XBits, s.ZBits
		}
	}
	if d.Shape.Lanes == 0 {
		return d, fmt.Errorf("aie1: no MAC shape for %v", t.A)
	}
	return d, nil
}

func opName(o kernel.Op) string {
	if o == 0 {
		return "no narrowing"
	}
	return o.String()
}
