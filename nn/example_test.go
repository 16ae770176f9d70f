package nn_test

import (
	"fmt"

	"github.com/sumacdev/sumac/nn"
	"github.com/sumacdev/sumac/nn/mnist"
)

// Train seed 003's CNN for one epoch on the first 128 images of the embedded MNIST split, with
// the CPU kernels (simd) on one thread, and test it on 100 images.
func ExampleTrain() {
	trainSet, testSet, err := mnist.Embedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	train, err := nn.FromMNIST(trainSet, 128)
	if err != nil {
		fmt.Println(err)
		return
	}
	test, err := nn.FromMNIST(testSet, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	net := nn.NewMNISTNet(&nn.Config{Algo: nn.SIMD, Threads: 1}, 1)
	res, err := nn.Train(net, train, test, nn.TrainOptions{Epochs: 1, Batch: 32, Seed: 1, Optimizer: nn.NewAdadelta(1.0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Guessing among ten classes scores a loss of ln 10 = 2.30 and 10% accuracy; after 4
	// batches the net does better on images it has not seen.
	fmt.Printf("epochs %d, tested %d\n", len(res.Losses), res.Tested)
	fmt.Printf("test loss below ln 10: %v, accuracy above 10%%: %v\n", res.TestLoss < 2.3026, res.Accuracy() > 0.1)
	// Output:
	// epochs 1, tested 100
	// test loss below ln 10: true, accuracy above 10%: true
}
