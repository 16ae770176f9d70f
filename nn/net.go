package nn

import (
	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
)

// Net is a sequence of layers ending in log-probabilities, trained with the NLL loss.
type Net struct {
	Layers []Layer
	Cfg    *Config
	gLogp  *tensor.Tensor
}

// NewMNISTNet builds seed 003's network, the C++ translation (Taura's parallel-distributed,
// seed 003 ref. [1]) of the PyTorch examples' MNIST model: conv 1->32 3x3, ReLU, conv 32->64
// 3x3, ReLU, max-pool 2, dropout 0.25, flatten, fc 9216->128, ReLU, dropout 0.5, fc 128->10,
// log-softmax. Weights come from seed; the two dropout layers get seeds derived from it.
func NewMNISTNet(cfg *Config, seed uint64) *Net {
	src := rng.New(seed)
	conv1 := NewConv2D(cfg, "conv1", 1, 32, 3, src)
	conv1.NoInputGrad = true // its input is the data
	conv2 := NewConv2D(cfg, "conv2", 32, 64, 3, src)
	fc1 := NewLinear(cfg, "fc1", 12*12*64, 128, src)
	fc2 := NewLinear(cfg, "fc2", 128, 10, src)
	return &Net{Cfg: cfg, Layers: []Layer{
		conv1, NewReLU(cfg, "relu1"), conv2, NewReLU(cfg, "relu2"), NewMaxPool2D(cfg, "pool", 2),
		NewDropout(cfg, "dropout1", 0.25, rng.Mix(seed+1)), NewFlatten("flatten"),
		fc1, NewReLU(cfg, "relu3"), NewDropout(cfg, "dropout2", 0.5, rng.Mix(seed+2)), fc2,
		NewLogSoftmax("logsoftmax"),
	}}
}

// Params returns every trainable parameter, in layer order.
func (n *Net) Params() []*Param {
	var ps []*Param
	for _, l := range n.Layers {
		ps = append(ps, l.Params()...)
	}
	return ps
}

// Forward runs every layer and returns the log-probabilities.
func (n *Net) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	var err error
	for _, l := range n.Layers {
		if x, err = l.Forward(x, training); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// Backward propagates the NLL loss gradient of the last Forward (for labels) through every
// layer, leaving each parameter's gradient in its Grad.
func (n *Net) Backward(logp *tensor.Tensor, labels []int) error {
	n.gLogp = tensor.Ensure(n.gLogp, logp.Shape()...)
	NLLLossGrad(logp, labels, n.gLogp)
	g := n.gLogp
	var err error
	for i := len(n.Layers) - 1; i >= 0; i-- {
		if g, err = n.Layers[i].Backward(g); err != nil {
			return err
		}
		if g == nil { // a layer that computes no input gradient must be first
			break
		}
	}
	return nil
}
