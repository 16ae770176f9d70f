package op_test

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
)

// A spec names an operation, its shape and its number formats in one line; Parse fills in
// the defaults and validates it.
func ExampleParse() {
	s, err := op.Parse("conv2d x=256 y=16 r=3 s=3 dtype=int16")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Op(), s.Kind(), s.MACs())
	fmt.Println(s)
	_, err = op.Parse("conv2d x=256 y=16 r=3 s=3 dtype=int7")
	fmt.Println(err)
	// Output:
	// conv2d 2D 36864
	// conv2d x=256 y=16 k=1 c=1 r=3 s=3 n=1 stride=1 pad=0 dilation=1 groups=1 xin=258 yin=18 dtype=int16 acc=acc48 out=int16 shift=0 round=floor sat=saturate
	// dtype=int7: unknown type "int7" (want one of int8, uint8, int16, int32, fp32, fp64, bf16, bfp16)
}
