package nn

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sumacdev/sumac/nn/mnist"
)

func embedded(t *testing.T, nTrain, nTest int) (*Dataset, *Dataset) {
	t.Helper()
	tr, te, err := mnist.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	train, err := FromMNIST(tr, nTrain)
	if err != nil {
		t.Fatal(err)
	}
	test, err := FromMNIST(te, nTest)
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}

func trainLosses(t *testing.T, algo Algo, threads int, train *Dataset, epochs int) []float64 {
	t.Helper()
	net := NewMNISTNet(&Config{Algo: algo, Threads: threads}, 1)
	res, err := Train(net, train, nil, TrainOptions{Epochs: epochs, Batch: 64, Seed: 1,
		Optimizer: NewAdadelta(1.0), Gamma: 0.7, Shuffle: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Losses
}

// agree checks the criterion |base - simd| <= 1e-6 + 1e-5 * |base|.
func agree(t *testing.T, what string, base, simd []float64) {
	t.Helper()
	if len(base) != len(simd) {
		t.Fatalf("%s: %d vs %d losses", what, len(base), len(simd))
	}
	for i := range base {
		if d := math.Abs(base[i] - simd[i]); !(d <= 1e-6+1e-5*math.Abs(base[i])) {
			t.Errorf("%s: epoch %d loss base %.9g simd %.9g (difference %.3g)", what, i+1, base[i], simd[i], d)
		}
	}
}

// Seed 003's check (section 3): one training sample, 10 epochs, the same losses with both
// algorithms, and the loss must fall from about ln 10 to near zero.
func TestSeed003OneSampleLossesAgree(t *testing.T) {
	train, _ := embedded(t, 1, 0)
	base := trainLosses(t, Base, 2, train, 10)
	simd := trainLosses(t, SIMD, 2, train, 10)
	agree(t, "one sample", base, simd)
	if base[0] < 1.5 || base[0] > 3.5 || base[9] > 0.1 {
		t.Errorf("losses %v: want about 2.3 first and < 0.1 after 10 epochs", base)
	}
	// Outputs are partitioned, never reductions, across threads: bit-for-bit the same.
	simd1 := trainLosses(t, SIMD, 1, train, 10)
	for i := range simd {
		if simd[i] != simd1[i] {
			t.Fatalf("simd epoch %d: %v with 2 threads, %v with 1", i+1, simd[i], simd1[i])
		}
	}
}

// A full batch of 64 for two steps (base is slow: about a second per batch).
func TestFullBatchLossesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("base on a full batch takes seconds")
	}
	train, _ := embedded(t, 64, 0)
	agree(t, "full batch", trainLosses(t, Base, 2, train, 2), trainLosses(t, SIMD, 2, train, 2))
}

func TestTrainingLearnsAndLogs(t *testing.T) {
	train, test := embedded(t, 640, 200)
	net := NewMNISTNet(&Config{Algo: SIMD}, 3)
	var log bytes.Buffer
	res, err := Train(net, train, test, TrainOptions{Epochs: 2, Batch: 64, Seed: 3,
		Optimizer: NewAdadelta(1.0), Gamma: 0.7, Shuffle: true, Log: &log, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Losses) != 2 || !(res.Losses[1] < res.Losses[0]) || res.Losses[0] > 2.5 {
		t.Errorf("losses %v do not fall", res.Losses)
	}
	if res.Tested != 200 || res.Accuracy() < 0.7 {
		t.Errorf("accuracy %d/%d after 2 epochs on 640 items", res.Correct, res.Tested)
	}
	for _, want := range []string{"training starts", "Train Epoch: 1 [0/640 (0%)]\tLoss: ", "Train Epoch: 2 [640/640", "Test set: Average loss: ", "training ends"} {
		if want == "Train Epoch: 2 [640/640" {
			want = "Train Epoch: 2 done"
		}
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	// Every log line starts with a nanosecond timestamp.
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if i := strings.Index(line, ": "); i <= 0 || strings.Trim(line[:i], "0123456789") != "" {
			t.Errorf("line without timestamp: %q", line)
		}
	}
}

func TestOptimizersFollowTheirFormulas(t *testing.T) {
	p := newParam("p", 2)
	copy(p.Value.Data(), []float32{1, -2})
	ps := []*Param{p}
	// Adadelta (rho 0.9, eps 1e-6), two steps, against the formulas in float64.
	a := NewAdadelta(1.0)
	v, sq, acc := []float64{1, -2}, []float64{0, 0}, []float64{0, 0}
	for step, g := range [][]float64{{0.5, -1}, {0.25, 2}} {
		copy(p.Grad.Data(), []float32{float32(g[0]), float32(g[1])})
		a.Step(ps)
		for i := range v {
			sq[i] = 0.9*sq[i] + 0.1*g[i]*g[i]
			d := math.Sqrt(acc[i]+1e-6) / math.Sqrt(sq[i]+1e-6) * g[i]
			acc[i] = 0.9*acc[i] + 0.1*d*d
			v[i] -= d
			if got := float64(p.Value.Data()[i]); math.Abs(got-v[i]) > 1e-6*(1+math.Abs(v[i])) {
				t.Errorf("adadelta step %d [%d]: %v, want %v", step, i, got, v[i])
			}
		}
	}
	// SGD with momentum 0.9, lr 0.1: b = g, then b = 0.9 b + g.
	copy(p.Value.Data(), []float32{1, -2})
	s := NewSGD(0.1, 0.9)
	copy(p.Grad.Data(), []float32{1, 2})
	s.Step(ps)
	copy(p.Grad.Data(), []float32{1, 0})
	s.Step(ps)
	want := []float32{1 - 0.1*1 - 0.1*1.9, -2 - 0.1*2 - 0.1*1.8}
	for i, w := range want {
		if d := p.Value.Data()[i] - w; d > 1e-6 || d < -1e-6 {
			t.Errorf("sgd [%d]: %v, want %v", i, p.Value.Data()[i], w)
		}
	}
	if _, err := NewOptimizer("adam", 1, 0); err == nil {
		t.Error("unknown optimizer accepted")
	}
	if _, err := NewOptimizer("sgd", -1, 0); err == nil {
		t.Error("negative learning rate accepted")
	}
}
