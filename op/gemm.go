package op

import "fmt"

// GEMM is C(m x n) = op(A) * op(B) with op(A) m x k and op(B) k x n, all row-major.
// TA stores A as k x m (A transposed), TB stores B as n x k. Beta 1 accumulates into C as
// the micro-kernels of seeds 001 (Fig. 4) and 004 (Fig. 5) do: the product is narrowed to the
// output type first (shift, round, saturate) and then added to C's old value lane by lane,
// wrapping modulo 2^bits for integers (the vector add of the AI Engine does not saturate);
// floating-point results are C + A*B.
type GEMM struct {
	M, N, K int
	TA, TB  bool
	Beta    int // 0: C = A*B; 1: C += A*B
}

// MACs is m*n*k.
func (g *GEMM) MACs() int64 { return prod(g.M, g.N, g.K) }

// AIndex is the offset of op(A)[i][p]; BIndex of op(B)[p][j]; CIndex of C[i][j].
func (g *GEMM) AIndex(i, p int) int {
	if g.TA {
		return p*g.M + i
	}
	return i*g.K + p
}

func (g *GEMM) BIndex(p, j int) int {
	if g.TB {
		return j*g.K + p
	}
	return p*g.N + j
}

func (g *GEMM) CIndex(i, j int) int { return i*g.N + j }

func (g *GEMM) String() string {
	return fmt.Sprintf("gemm m=%d n=%d k=%d ta=%v tb=%v beta=%d", g.M, g.N, g.K, g.TA, g.TB, g.Beta)
}

func (p *kvParser) gemm() (*GEMM, error) {
	g := &GEMM{}
	var err error
	for _, f := range []struct {
		dst *int
		k   string
	}{{&g.M, "m"}, {&g.N, "n"}, {&g.K, "k"}} {
		if *f.dst, err = p.size(f.k, 0, 1); err != nil {
			return nil, err
		}
	}
	if g.TA, err = p.flag("ta"); err != nil {
		return nil, err
	}
	if g.TB, err = p.flag("tb"); err != nil {
		return nil, err
	}
	if v, ok := p.get("beta"); ok {
		switch v {
		case "0":
		case "1":
			g.Beta = 1
		default:
			return nil, fmt.Errorf("beta=%s: want 0 (C = A*B) or 1 (C += A*B)", v)
		}
	}
	if err := checkSizes([]int{g.M, g.K}, []int{g.K, g.N}, []int{g.M, g.N}, []int{g.M, g.N, g.K}); err != nil {
		return nil, err
	}
	return g, nil
}
