package gemm_test

import (
	"fmt"

	"github.com/sumacdev/sumac/cpu/gemm"
)

func ExampleSgemm() {
	// C (2x2) = A (2x3) * B (3x2), row-major.
	a := []float32{1, 2, 3, 4, 5, 6}
	b := []float32{1, 0, 0, 1, 1, 1}
	c := make([]float32, 4)
	if err := gemm.Sgemm(gemm.NoTrans, gemm.NoTrans, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2); err != nil {
		fmt.Println(err)
	}
	fmt.Println(c)
	// Output: [4 5 10 11]
}

func ExampleOptions_GemmU8S8() {
	// Activations above 127 with large weights: U8Auto (the default, kernels.U8Auto) notices and stays exact.
	a := []uint8{200, 255, 3, 4}
	b := []int8{-128, -128, 1, 2}
	c := make([]int32, 4)
	if err := (gemm.Options{}).GemmU8S8(gemm.NoTrans, gemm.NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2); err != nil {
		fmt.Println(err)
	}
	fmt.Println(c)
	// Output: [-25345 -25090 -380 -376]
}

func ExampleOptions_Sgemm_errors() {
	err := gemm.Sgemm(gemm.NoTrans, gemm.NoTrans, 2, 2, 3, 1, make([]float32, 5), 3, make([]float32, 6), 2, 0, make([]float32, 4), 2)
	fmt.Println(err)
	// Output: gemm: A has 5 elements, 2 x 3 with ld=3 needs 6
}
