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
	return newAMXInt8(c, weights, threads, kernels.AMXConvU8S8, func(opt gemm.Options, n, k int, b []int8) (packedGemm[uint8], error) {
		p, err := opt.PackU8S8(gemm.NoTrans, n, k, b, n)
		if err != nil {
			return nil, err
		}
		return p.Gemm, nil
	})
}

func newAMXS8S8(c *op.Conv2D, weights []int8, threads int) convRunner[int8, int32] {
	return newAMXInt8(c, weights, threads, kernels.AMXConvS8S8, func(opt gemm.Options, n, k int, b []int8) (packedGemm[int8], error) {
		p, err := opt.PackS8S8(gemm.NoTrans, n, k, b, n)
		if err != nil {
			return nil, err
		}
		return p.Gemm, nil
	})
}

// packedGemm is a packed B's Gemm method (gemm.PackedU8S8, gemm.PackedS8S8).
type packedGemm[A uint8 | int8] func(tA gemm.Transpose, m int, alpha int32, a []A, lda int, beta int32, c []int32, ldc int) error

// newAMXInt8 is the int8-weight AMX plan: the direct tile kernel where it applies, else the
// GEMM lowering with the weights packed into the AMX kernels' VNNI tiles once (pack).
func newAMXInt8[A uint8 | int8](c *op.Conv2D, weights []int8, threads int,
	direct func(tiles, kg int, a []A, lda int, offs []int, b []int8, c []int32, ldc int, load bool),
	pack func(opt gemm.Options, n, k int, b []int8) (packedGemm[A], error)) convRunner[A, int32] {
	if amxDirectFits(c, 1) {
		return newAMXDirect(c, weights, threads, 1, direct)
	}
	opt := gemm.Options{Threads: threads, OverlapA: true}
	g := newGemmConv[A, int8, int32](c, weights, 4)
	var packed []packedGemm[A]
	for _, b := range g.blocks() {
		p, err := pack(opt, b.n, b.k, b.b)
		if err != nil {
			panic(err) // the shapes were validated: an error here is a bug
		}
		packed = append(packed, p)
	}
	g.gemm = func(blk, m, n, k int, a []A, lda int, out []int32, ldc int, acc bool) error {
		return packed[blk](gemm.NoTrans, m, 1, a, lda, int32(b2i(acc)), out, ldc)
	}
	return g
}

// convRunner is an AMX plan's convolution: gemmConv (the GEMM lowering) or amxDirect.
type convRunner[A, O any] interface {
	run(in []A, out []O) error
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
