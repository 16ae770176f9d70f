package ref_test

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// The exact reference of an integer GEMM: the accumulators before narrowing and the outputs
// after the spec's shift, rounding and saturation (here int16 out of a 48-bit accumulator).
func ExampleRun() {
	s := op.MustParse("gemm m=2 n=2 k=3 dtype=int16 shift=2 round=floor")
	a := []int64{1000, 2000, 3000, 4000, 5000, 6000} // A is 2x3, row-major
	b := []int64{7, -8, 9, 10, 11, -12}              // B is 3x2
	r, err := ref.Run(s, a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	fmt.Println("accumulators:", r.Acc)
	fmt.Println("outputs:", r.Out, "saturated:", r.Saturated)
	// Output:
	// gemm m=2 n=2 k=3 ta=false tb=false beta=0 dtype=int16 acc=acc48 out=int16 shift=2 round=floor sat=saturate
	// accumulators: [58000 -24000 139000 -54000]
	// outputs: [14500 -6000 32767 -13500] saturated: 1
}
