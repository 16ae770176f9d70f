package conv

import (
	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
)

// BF16 is a bf16 x bf16 -> float32 convolution plan (bf16 stored as uint16, the top half of
// a float32; ref.BF16Bound bounds each output's error). Where the AMX tile kernels run, a
// stride-1, undilated, ungrouped layer of a multiple of 32 input channels runs the direct
// tile convolution (amxdirect.go, TDPBF16PS on A tiles loaded in place). Otherwise it lowers
// the convolution to cpu/gemm's bf16 GEMM (gemmConv: in place for 1x1, filter rows over the
// padded input for stride 1, else through an im2col buffer), whose kernels it runs
// (gemm.KernelISA("bf16"): AMX, AVX512_BF16, or the fp32 kernels on widened operands); the
// weights are packed into the direct kernels' or the GEMM's B layout once, when the plan is
// built. Run may be called from several goroutines at once.
type BF16 struct {
	shape op.Conv2D
	g     *gemmConv[uint16, uint16, float32]
	amx   convRunner[uint16, float32] // the direct AMX tile kernels, where they run and fit
}

// NewBF16 takes canonical weights [K][S][R][C/Groups].
func NewBF16(c *op.Conv2D, weights []uint16, o Options) (*BF16, error) {
	if err := validate(c); err != nil {
		return nil, err
	}
	if err := checkLen("weights", len(weights), c.WLen()); err != nil {
		return nil, err
	}
	if gemm.AMXInUse() && amxDirectFits(c, 2) {
		// TDPBF16PS on A tiles loaded in place (amxdirect.go)
		return &BF16{shape: *c, amx: newAMXDirect(c, weights, o.threads(), 2, kernels.AMXConvBF16)}, nil
	}
	opt := gemm.Options{Threads: o.threads(), OverlapA: true}
	p := &BF16{shape: *c, g: newGemmConv[uint16, uint16, float32](c, weights, 2)}
	// The weights go into the GEMM's packed B layout once (gemm.PackBF16).
	var packed []*gemm.PackedBF16
	for _, b := range p.g.blocks() {
		pb, err := opt.PackBF16(gemm.NoTrans, b.n, b.k, b.b, b.n)
		if err != nil {
			return nil, err
		}
		packed = append(packed, pb)
	}
	p.g.gemm = func(blk, m, n, k int, a []uint16, lda int, c []float32, ldc int, acc bool) error {
		beta := float32(0)
		if acc {
			beta = 1
		}
		return packed[blk].Gemm(gemm.NoTrans, m, 1, a, lda, beta, c, ldc)
	}
	return p, nil
}

// ISA names the instruction set of the GEMM kernels the plan runs.
func (p *BF16) ISA() string { return gemm.KernelISA("bf16") }

// Run computes out = conv(in) for canonical NHWC in (bf16) and out (float32).
func (p *BF16) Run(in []uint16, out []float32) error {
	if err := checkLen("input", len(in), p.shape.InLen()); err != nil {
		return err
	}
	if err := checkLen("output", len(out), p.shape.OutLen()); err != nil {
		return err
	}
	if p.amx != nil {
		return p.amx.run(in, out)
	}
	return p.g.run(in, out)
}
