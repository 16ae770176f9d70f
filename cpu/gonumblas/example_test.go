package gonumblas_test

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/sumacdev/sumac/cpu/gonumblas"
)

func Example() {
	blas64.Use(gonumblas.Implementation{}) // the one line: gonum/mat now multiplies with sumac
	defer blas64.Use(gonum.Implementation{})

	a := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	var c mat.Dense
	c.Mul(a, a)
	fmt.Println(mat.Formatted(&c))
	// Output:
	// ⎡ 7  10⎤
	// ⎣15  22⎦
}
