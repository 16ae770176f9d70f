package vyasa

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// paramName is the kernel parameter of each tensor.
var paramName = map[string]string{triplet.In: "in", triplet.W: "w", triplet.Out: "out"}

// Bytes encodes integer elements little-endian (the interpreter's memory, target/aie1/interp).
func intBytes(bits int, v []int64) []byte {
	b := make([]byte, len(v)*bits/8)
	for i, x := range v {
		switch bits {
		case 8:
			b[i] = byte(x)
		case 16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case 32:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
	}
	return b
}

func bytesInt(bits int, signed bool, b []byte) []int64 {
	v := make([]int64, len(b)*8/bits)
	for i := range v {
		switch bits {
		case 8:
			v[i] = int64(int8(b[i]))
			if !signed {
				v[i] = int64(b[i])
			}
		case 16:
			v[i] = int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
		case 32:
			v[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	}
	return v
}

func floatBytes(v []float64) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	return b
}

func bytesFloat(b []byte) []float64 {
	v := make([]float64, len(b)/4)
	for i := range v {
		v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return v
}

// Memory returns the interpreter's data regions for packed tensors (integers or floats).
func (p *Program) Memory(inI, wI []int64, inF, wF []float64) map[string][]byte {
	bits := p.Datapath.DType.Bits()
	out := make([]byte, p.Elems[triplet.Out]*bits/8)
	if p.Datapath.DType == op.FP32 {
		return map[string][]byte{"in": floatBytes(inF), "w": floatBytes(wF), "out": out}
	}
	return map[string][]byte{"in": intBytes(bits, inI), "w": intBytes(bits, wI), "out": out}
}

// Interpreted is a run of the kernel IR on the AIE1 interpreter.
type Interpreted struct {
	OutInt   []int64
	OutFloat []float64
	AccSeq   [][]num.Acc
	Result   *interp.Result
}

// Interpret runs the generated kernel IR on the interpreter (target/aie1/interp: the exact semantics
// of every intrinsic) with the given memory.
func (p *Program) Interpret(mem map[string][]byte) (*Interpreted, error) {
	r := &Interpreted{}
	cfg := interp.Config{Data: mem, Round: p.Spec.Types.Round, Sat: p.Spec.Types.Sat,
		OnNarrow: func(_ *kernel.Instr, lanes []num.Acc) { r.AccSeq = append(r.AccSeq, append([]num.Acc(nil), lanes...)) }}
	res, err := interp.Run(p.Kernel, cfg)
	if err != nil {
		return nil, err
	}
	r.Result = res
	if p.Datapath.DType == op.FP32 {
		r.OutFloat = bytesFloat(res.Data["out"])
	} else {
		r.OutInt = bytesInt(p.Datapath.DType.Bits(), p.Datapath.DType.Signed(), res.Data["out"])
	}
	return r, nil
}

// checkInterp compares an interpreter run with the emulated fused program: the whole output
// region bit for bit, the accumulators of every narrowing, the MAC count, and no read of an
// uninitialized register.
func checkInterp(p *Program, e *Emulated, r *Interpreted) error {
	if len(r.Result.Uninit) > 0 {
		return fmt.Errorf("kernel reads %v", r.Result.Uninit[0])
	}
	if r.Result.MACs != p.IssuedMACs {
		return fmt.Errorf("interpreter counts %d MACs, the compiler issued %d", r.Result.MACs, p.IssuedMACs)
	}
	if p.Datapath.DType == op.FP32 {
		for i := range e.OutFloat {
			if math.Float64bits(e.OutFloat[i]) != math.Float64bits(r.OutFloat[i]) && math.Abs(e.OutFloat[i]-r.OutFloat[i]) > 1e-3*math.Abs(e.OutFloat[i])+1e-6 {
				return fmt.Errorf("output element %d: kernel %g, fused program %g", i, r.OutFloat[i], e.OutFloat[i])
			}
		}
		return nil
	}
	for i := range e.OutInt {
		if e.OutInt[i] != r.OutInt[i] {
			return fmt.Errorf("output element %d: kernel %d, fused program %d", i, r.OutInt[i], e.OutInt[i])
		}
	}
	if len(r.AccSeq) != len(e.AccSeq) {
		return fmt.Errorf("kernel narrows %d accumulators, fused program %d", len(r.AccSeq), len(e.AccSeq))
	}
	for i := range e.AccSeq {
		for l := range e.AccSeq[i] {
			if e.AccSeq[i][l] != r.AccSeq[i][l] {
				return fmt.Errorf("narrowing %d lane %d: kernel accumulator %v, fused program %v", i, l, r.AccSeq[i][l], e.AccSeq[i][l])
			}
		}
	}
	return nil
}
