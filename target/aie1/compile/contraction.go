package compile

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/gemm"
	"github.com/sumacdev/sumac/target/aie1/shuffle"
)

var _ compiler.Contractions = Target{}

// ContractionDatapath is gemm.DatapathFor as the middle sees it.
func (Target) ContractionDatapath(t op.Types) (triplet.Datapath, int, error) {
	d, err := gemm.DatapathFor(t)
	if err != nil {
		return triplet.Datapath{}, 0, err
	}
	return shuffle.Datapath(d.Sel, d.Shape), d.Peak, nil
}

// DefaultGEMM is the seeds' block for the type: seed 001 Fig. 4 for int16 (16 rows of A
// along the lanes, 4 columns of B, k 4 per iteration), seed 004 Fig. 5 for 8-bit types (8
// rows and 2 columns per accumulator, 8x8 block, k 16 per iteration), and an 8x4 block of
// 8-lane accumulators for int32 and fp32.
func (Target) DefaultGEMM(spec *op.Spec) (sched.GEMM, error) {
	d, err := gemm.DatapathFor(spec.Types)
	if err != nil {
		return sched.GEMM{}, err
	}
	switch d.DType {
	case op.Int16:
		return sched.GEMM{X: "A", LX: 16, MR: 16, NR: 4, KB: 4, XK: 2, ZK: 4, Inner: "xz", Order: "nm"}, nil
	case op.Int8, op.UInt8:
		return sched.GEMM{X: "A", LX: 8, MR: 8, NR: 8, KB: 16, XK: 8, ZK: 8, Inner: "xz", Order: "nm"}, nil
	}
	return sched.GEMM{X: "A", LX: 8, MR: 8, NR: 4, KB: 2, XK: 2, ZK: 2, Inner: "xz", Order: "nm"}, nil
}

// MaxAccs: twice the four 768-bit accumulator registers (aie1: bm0..bm3), so that the space
// holds the blocks that spill (seed 001's 32x4).
func (Target) MaxAccs() int { return 8 }

func (Target) GenerateGEMM(spec *op.Spec, s sched.GEMM) (compiler.Program, error) {
	p, err := gemm.Generate(spec, s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func gemmBundles(p *gemm.Program) (*backend.Program, error) {
	bp, _, err := timed(p.Kernel, p.Sizes(), p.Spec)
	return bp, err
}

func gemmRun(p *gemm.Program) (*cyclesim.Result, error) {
	_, r, err := timed(p.Kernel, p.Sizes(), p.Spec)
	return r, err
}

func gemmVerify(p *gemm.Program, seed uint64) (compiler.Check, error) {
	ck, err := p.Verify(seed)
	return compiler.Check{OK: ck.OK(), Outputs: ck.Outputs, Saturated: ck.Saturated, First: ck.First, Interpreted: ck.Interpreted}, err
}

// gemmWriteKernel writes the kernel as DIR/NAME.cc and the sumac sim command that runs it.
func gemmWriteKernel(dir, name string, p *gemm.Program) error {
	src, err := cemit.Emit(p.Kernel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sz := p.Sizes()
	head := fmt.Sprintf("%s\n// spec: %s\n// schedule: %s\n// buffers (elements of %v): A %d, B %d, C %d\n\n",
		gemm.SourceHeader, p.Spec, p.Sched.Key(), p.Plan.D.DType, p.Lay["A"].Size, p.Lay["B"].Size, p.Lay["C"].Size)
	if err := os.WriteFile(filepath.Join(dir, name+".cc"), []byte(head+src), 0o644); err != nil {
		return err
	}
	note := fmt.Sprintf("sumac sim %s.cc --window A=%d --window B=%d --window C=%d\n", name, sz["A"], sz["B"], sz["C"])
	return os.WriteFile(filepath.Join(dir, name+".txt"), []byte(note), 0o644)
}
