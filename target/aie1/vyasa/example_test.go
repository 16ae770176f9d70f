package vyasa_test

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/compile"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

// Compile one convolution with one schedule, check the kernel against the exact reference and
// count its cycles on the AIE1 model (the back end and the cycle simulator).
func ExampleGenerate() {
	spec := op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int32")
	s, err := vyasa.DefaultSchedule(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := vyasa.Generate(spec, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	ck, err := vyasa.Verify(p, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	ev, err := compile.Target{}.Evaluate(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Key())
	fmt.Printf("%d outputs match op/ref: %v; %d cycles\n", ck.Outputs, ck.OK(), ev.Cycles)
	// Output:
	// vec=x order=kyx u=1,1,1 fuse=none O=KYX W=KCSR I=CY'X' padr=3
	// 64 outputs match op/ref: true; 110 cycles
}
