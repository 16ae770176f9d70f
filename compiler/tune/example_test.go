package tune_test

import (
	"fmt"
	"github.com/sumacdev/sumac/target/aie1/compile"

	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/op"
)

// Tune a convolution for one AIE1 tile: every schedule of the pruned space is generated and
// run on the cycle model, the fastest is kept and verified bit for bit against op/ref.
func ExampleRun() {
	w := tune.Workload{Name: "3x3", Spec: op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16")}
	rs, err := tune.Run([]tune.Workload{w}, tune.Options{Target: compile.Target{}, Verify: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := rs[0]
	fmt.Printf("%s: %d MACs in %d cycles (%.1f MACs/cycle of %d), verified %v\n", r.Name, r.MACs, r.Cycles, r.MACsPerCycle, r.Peak, r.Verified)
	fmt.Println(r.Schedule)
	// Output:
	// 3x3: 576 MACs in 53 cycles (10.9 MACs/cycle of 32), verified true
	// vec=x order=kxy u=1,2,1 fuse=taps O=KYX W=KCSR I=CY'X' padr=4
}

// A GEMM on the AI Engine is a point-wise convolution: C[m][n] = sum_k A[m][k] B[k][n] is
// conv2d x=m k=n c=k with a 1x1 filter (seed 000 Table IV's FC row is one).
func ExampleRun_gemm() {
	const m, n, k = 8, 16, 4
	spec := op.MustParse(fmt.Sprintf("conv2d x=%d y=1 k=%d c=%d r=1 s=1 dtype=int16", m, n, k))
	rs, err := tune.Run([]tune.Workload{{Name: "gemm", Spec: spec}}, tune.Options{Target: compile.Target{}, Verify: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%dx%dx%d: %d cycles, verified %v\n", m, n, k, rs[0].Cycles, rs[0].Verified)
	// Output:
	// 8x16x4: 45 cycles, verified true
}

// Explore keeps the whole schedule space instead of only its best point.
func ExampleExplore() {
	w := tune.Workload{Name: "3x3", Spec: op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16")}
	sp, err := tune.Explore(w, tune.Options{Target: compile.Target{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	n := map[string]int{}
	for _, c := range sp.Candidates {
		n[c.Stage]++
	}
	best := sp.Candidates[sp.Best]
	fmt.Printf("%d evaluated, %d refused, %d pruned; best %d cycles\n", n[tune.StageEvaluated], n[tune.StageRefused], n[tune.StagePruned], best.Cycles)
	// Output:
	// 42 evaluated, 0 refused, 276 pruned; best 53 cycles
}
