package conv

import (
	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
)

// amxConv reports whether a uint8 x int8 plan of shape c runs on the AMX tile kernels: where
// cpu/gemm's AMX paths are in use (gemm.AMXInUse) and the groups are wide enough for the
// 32-column tile blocks to be mostly real channels (depth-wise layers keep their vector
// kernels). The convolution is then lowered to the AMX GEMM (gemmConv), exact for every
// input (TDPBUSD sums in int32).
func amxConv(c *op.Conv2D) bool { return gemm.AMXInUse() && c.K/c.Groups >= minPanelFill }

func newAMXU8S8(c *op.Conv2D, weights []int8, threads int) convRunner[uint8, int32] {
	if amxDirectFits(c, 1) {
		return newAMXDirect(c, weights, threads, 1, kernels.AMXConvU8S8)
	}
	opt := gemm.Options{Threads: threads, OverlapA: true}
	g := newGemmConv[uint8, int8, int32](c, weights, 4)
	// The weights go into the AMX kernels' VNNI tiles once (gemm.PackU8S8).
	var packed []*gemm.PackedU8S8
	for _, b := range g.blocks() {
		p, err := opt.PackU8S8(gemm.NoTrans, b.n, b.k, b.b, b.n)
		if err != nil {
			panic(err) // the shapes were validated: an error here is a bug
		}
		packed = append(packed, p)
	}
	g.gemm = func(blk, m, n, k int, a []uint8, lda int, out []int32, ldc int, acc bool) error {
		return packed[blk].Gemm(gemm.NoTrans, m, 1, a, lda, int32(b2i(acc)), out, ldc)
	}
	return g
}

// convRunner is an AMX plan's convolution: gemmConv (the GEMM lowering) or amxDirect.
type convRunner[A, O any] interface {
	run(in []A, out []O) error
}

func newAMXS8S8(c *op.Conv2D, weights []int8, threads int) convRunner[int8, int32] {
	if amxDirectFits(c, 1) {
		return newAMXDirect(c, weights, threads, 1, kernels.AMXConvS8S8)
	}
	opt := gemm.Options{Threads: threads, OverlapA: true}
	g := newGemmConv[int8, int8, int32](c, weights, 4)
	var packed []*gemm.PackedS8S8
	for _, b := range g.blocks() {
		p, err := opt.PackS8S8(gemm.NoTrans, b.n, b.k, b.b, b.n)
		if err != nil {
			panic(err) // the shapes were validated: an error here is a bug
		}
		packed = append(packed, p)
	}
	g.gemm = func(blk, m, n, k int, a []int8, lda int, out []int32, ldc int, acc bool) error {
		return packed[blk].Gemm(gemm.NoTrans, m, 1, a, lda, int32(b2i(acc)), out, ldc)
	}
	return g
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
