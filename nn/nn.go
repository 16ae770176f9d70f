// Package nn is sumac's small neural-network library: fp32 layers with forward and backward
// passes over batches (Conv2D, Linear, ReLU, MaxPool2D, Dropout, Flatten, LogSoftmax, NLL loss),
// the SGD-with-momentum and Adadelta optimizers, and the training loop of seed 003's MNIST
// network.
//
// Every layer with a heavy product (Conv2D, Linear) has two algorithms, chosen at run time:
// Base, the plain loops a careful programmer writes without SIMD (each output element is one sum
// in the canonical order of the op/ref reference; loops are ordered for locality only where that
// leaves every sum's order unchanged), and SIMD, which maps the forward product and both backward
// products (gradient of the input, gradient of the weights) onto the CPU backend's kernels.
//
// Activations are NHWC (batch, row, column, channel), the canonical layout of package op;
// convolution weights are [out channel][filter row][filter column][in channel] and linear weights
// [out][in], so both algorithms share one parameter layout and give the same network.
package nn

import (
	"fmt"
	"runtime"

	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/nn/tensor"
)

// Algo selects the implementation of the heavy layers.
type Algo int

const (
	Base Algo = iota // plain loops
	SIMD             // the CPU backend's vector kernels
)

func (a Algo) String() string {
	switch a {
	case Base:
		return "base"
	case SIMD:
		return "simd"
	}
	return fmt.Sprintf("Algo(%d)", int(a))
}

// ParseAlgo parses "base" or "simd".
func ParseAlgo(s string) (Algo, error) {
	switch s {
	case "base":
		return Base, nil
	case "simd":
		return SIMD, nil
	}
	return 0, fmt.Errorf("unknown algorithm %q (want base or simd)", s)
}

// Config is shared by the layers of one network.
type Config struct {
	Algo    Algo
	Threads int // worker goroutines for one layer call; <= 0 means runtime.GOMAXPROCS(0)
}

func (c *Config) threads() int {
	if c == nil || c.Threads <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return c.Threads
}

// Param is a trainable tensor and the gradient the last Backward computed for it.
type Param struct {
	Name  string
	Value *tensor.Tensor
	Grad  *tensor.Tensor
}

func newParam(name string, shape ...int) *Param {
	return &Param{Name: name, Value: tensor.New(shape...), Grad: tensor.New(shape...)}
}

// Layer is one stage of a network. Forward keeps what Backward needs; Backward takes the gradient
// of the loss with respect to the last Forward's output, stores the parameter gradients (replacing,
// not accumulating) and returns the gradient with respect to the input (nil when the layer was
// told not to compute it). Returned tensors are owned by the layer and reused by the next call.
type Layer interface {
	Name() string
	Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error)
	Backward(gy *tensor.Tensor) (*tensor.Tensor, error)
	Params() []*Param
}

// parallelFor splits [0, n) into at most threads contiguous chunks and runs body on each, in
// parallel. Chunks partition outputs, never a reduction, so results do not depend on threads.
func parallelFor(threads, n int, body func(lo, hi int)) {
	if threads > n {
		threads = n
	}
	if threads <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	team.Run(threads, func(t int) {
		if lo, hi := t*n/threads, (t+1)*n/threads; lo < hi {
			body(lo, hi)
		}
	})
}

// shapeErr reports a tensor of the wrong shape given to a layer.
func shapeErr(layer, what string, t *tensor.Tensor, want string) error {
	return fmt.Errorf("%s: %s has shape %v, want %s", layer, what, t.Shape(), want)
}
