package nn

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/mnist"
	"github.com/sumacdev/sumac/nn/tensor"
)

// Dataset is a set of labelled images as an NHWC tensor.
type Dataset struct {
	X      *tensor.Tensor // [N, H, W, 1]
	Labels []int
}

// Len is the number of items.
func (d *Dataset) Len() int { return len(d.Labels) }

// MNIST normalisation of the PyTorch examples' MNIST script (transforms.Normalize((0.1307,),
// (0.3081,)): the training set's mean and standard deviation of pixel/255).
const (
	mnistMean = 0.1307
	mnistStd  = 0.3081
)

// FromMNIST takes the first n items of s (all when n < 0), pixels scaled to [0, 1] and
// normalised.
func FromMNIST(s *mnist.Set, n int) (*Dataset, error) {
	if n < 0 {
		n = s.Len()
	}
	if n > s.Len() {
		return nil, fmt.Errorf("%d items requested, the set has %d", n, s.Len())
	}
	d := &Dataset{X: tensor.New(n, s.Rows, s.Cols, 1), Labels: make([]int, n)}
	x := d.X.Data()
	for i := range x {
		x[i] = float32((float64(s.Images[i])/255 - mnistMean) / mnistStd)
	}
	for i := range d.Labels {
		d.Labels[i] = int(s.Labels[i])
	}
	return d, nil
}

// batch copies items idx into x and labels (resized to len(idx)).
func (d *Dataset) batch(idx []int, x *tensor.Tensor, labels []int) (*tensor.Tensor, []int) {
	item := d.X.Len() / d.Len()
	shape := append([]int{len(idx)}, d.X.Shape()[1:]...)
	x = tensor.Ensure(x, shape...)
	labels = labels[:0]
	for b, i := range idx {
		copy(x.Data()[b*item:][:item], d.X.Data()[i*item:][:item])
		labels = append(labels, d.Labels[i])
	}
	return x, labels
}

// TrainOptions configure Train.
type TrainOptions struct {
	Epochs      int
	Batch       int
	Seed        uint64    // data order (weights and dropout are seeded when the net is built)
	Optimizer   Optimizer // stepped after every batch
	Gamma       float64   // learning rate factor after each epoch (StepLR step 1); 0 or 1 keeps it
	Shuffle     bool      // reshuffle the training set every epoch
	LogInterval int       // batches between log lines (0: 10)
	Log         io.Writer // timestamped progress log (nil: none)
	Start       time.Time // origin of the log's timestamps
}

// Result is what Train measured.
type Result struct {
	Losses       []float64 // mean training loss of each epoch
	EpochSeconds []float64 // wall time of each epoch's training (without testing)
	TestLoss     float64   // after the last epoch (when a test set was given)
	Correct      int
	Tested       int
}

// Accuracy is Correct / Tested.
func (r *Result) Accuracy() float64 { return float64(r.Correct) / float64(r.Tested) }

// Train trains net on train for opts.Epochs epochs, evaluating on test (may be empty) after
// each. The log follows seed 003's Fig. 3.1: nanoseconds since opts.Start, then the message.
func Train(net *Net, train, test *Dataset, opts TrainOptions) (*Result, error) {
	if opts.Batch <= 0 {
		return nil, fmt.Errorf("batch size %d must be positive", opts.Batch)
	}
	if train.Len() == 0 {
		return nil, fmt.Errorf("no training data")
	}
	if opts.LogInterval <= 0 {
		opts.LogInterval = 10
	}
	logf := func(format string, a ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "%d: %s\n", time.Since(opts.Start).Nanoseconds(), fmt.Sprintf(format, a...))
		}
	}
	res := &Result{}
	order := make([]int, train.Len())
	for i := range order {
		order[i] = i
	}
	var x *tensor.Tensor
	var labels []int
	logf("training starts")
	for epoch := 1; epoch <= opts.Epochs; epoch++ {
		t0 := time.Now()
		if opts.Shuffle {
			rng.New(rng.Mix(opts.Seed+uint64(epoch))).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		var sum float64
		for b, start := 0, 0; start < len(order); b, start = b+1, start+opts.Batch {
			end := min(start+opts.Batch, len(order))
			x, labels = train.batch(order[start:end], x, labels)
			logp, err := net.Forward(x, true)
			if err != nil {
				return nil, err
			}
			loss, err := NLLLoss(logp, labels)
			if err != nil {
				return nil, err
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("epoch %d batch %d: loss is %v (training diverged)", epoch, b, loss)
			}
			if err := net.Backward(logp, labels); err != nil {
				return nil, err
			}
			opts.Optimizer.Step(net.Params())
			sum += loss * float64(end-start)
			if b%opts.LogInterval == 0 {
				logf("Train Epoch: %d [%d/%d (%.0f%%)]\tLoss: %.6f", epoch, start, len(order),
					100*float64(start)/float64(len(order)), loss)
			}
		}
		res.EpochSeconds = append(res.EpochSeconds, time.Since(t0).Seconds())
		res.Losses = append(res.Losses, sum/float64(len(order)))
		logf("Train Epoch: %d done in %.3f s\tMean loss: %.6f", epoch, res.EpochSeconds[epoch-1], res.Losses[epoch-1])
		if test != nil && test.Len() > 0 {
			loss, correct, err := Evaluate(net, test, opts.Batch)
			if err != nil {
				return nil, err
			}
			res.TestLoss, res.Correct, res.Tested = loss, correct, test.Len()
			logf("Test set: Average loss: %.4f, Accuracy: %d/%d (%.2f%%)", loss, correct, test.Len(),
				100*float64(correct)/float64(test.Len()))
		}
		if opts.Gamma > 0 {
			opts.Optimizer.SetLR(opts.Optimizer.LR() * opts.Gamma)
		}
	}
	logf("training ends")
	return res, nil
}

// Evaluate returns the mean NLL loss and the number of correct predictions (argmax) on d.
func Evaluate(net *Net, d *Dataset, batch int) (float64, int, error) {
	var x *tensor.Tensor
	var labels []int
	idx := make([]int, 0, batch)
	var sum float64
	correct := 0
	for start := 0; start < d.Len(); start += batch {
		idx = idx[:0]
		for i := start; i < min(start+batch, d.Len()); i++ {
			idx = append(idx, i)
		}
		x, labels = d.batch(idx, x, labels)
		logp, err := net.Forward(x, false)
		if err != nil {
			return 0, 0, err
		}
		loss, err := NLLLoss(logp, labels)
		if err != nil {
			return 0, 0, err
		}
		sum += loss * float64(len(idx))
		c := logp.Dim(1)
		for b, l := range labels {
			row := logp.Data()[b*c:][:c]
			best := 0
			for j, v := range row {
				if v > row[best] {
					best = j
				}
			}
			if best == l {
				correct++
			}
		}
	}
	return sum / float64(d.Len()), correct, nil
}
