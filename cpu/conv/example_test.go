package conv_test

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/cpu/conv"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// Run a float32 convolution on the CPU (NHWC, padding 1) and check it against the exact
// reference within the float32 error bound.
func ExampleF32_Run() {
	s := op.MustParse("conv2d x=8 y=8 k=16 c=8 r=3 s=3 pad=1 dtype=fp32")
	c := s.Conv
	in, w := make([]float32, c.InLen()), make([]float32, c.WLen())
	in64, w64 := make([]float64, len(in)), make([]float64, len(w))
	for i := range in {
		in[i] = float32(i%7) - 3
		in64[i] = float64(in[i])
	}
	for i := range w {
		w[i] = float32(i%5) * 0.25
		w64[i] = float64(w[i])
	}
	plan, err := conv.NewF32(c, w, conv.Options{Threads: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]float32, c.OutLen())
	if err := plan.Run(in, out); err != nil {
		fmt.Println(err)
		return
	}
	want, err := ref.Conv2DFloat(c, s.Types, in64, w64)
	if err != nil {
		fmt.Println(err)
		return
	}
	abs := ref.Conv2DAbs(c, in64, w64)
	taps := c.R * c.S * c.C
	ok := true
	for i := range out {
		ok = ok && math.Abs(float64(out[i])-want[i]) <= ref.FloatBound(taps, abs[i], s.Types.Acc)
	}
	fmt.Printf("%d outputs (NHWC), within the fp32 bound of op/ref: %v\n", len(out), ok)
	// Output: 1024 outputs (NHWC), within the fp32 bound of op/ref: true
}
