package main

import (
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/sumacdev/sumac/nn"
	"github.com/sumacdev/sumac/nn/mnist"
)

func init() {
	register(&command{
		name:    "train",
		summary: "train seed 003's CNN on MNIST with the base or simd layers; per-layer times",
		usage: `Usage: sumac train mnist [flags]

Trains seed 003's network (conv 1->32 3x3, ReLU, conv 32->64 3x3, ReLU, max-pool 2, dropout 0.25,
fc 9216->128, ReLU, dropout 0.5, fc 128->10, log-softmax) on MNIST, printing a timestamped log
(nanoseconds since start) with the loss of every 10th batch, each epoch's mean loss and the test
accuracy. By default it uses the split embedded in sumac (8,000 training, 2,000 test images).

Flags:
  -a ALGO          base (plain loops) or simd (the CPU backend's kernels) (default simd)
  --epochs N       epochs (default 5)
  --train N        training items, the first N of the set (default: all)
  --test N         test items (default: all; 0: no testing, no accuracy)
  --batch N        mini-batch size (default 64)
  --seed S         seed of the weights, dropout masks and data order (default 1)
  --threads N      threads per layer (default: GOMAXPROCS)
  --optim NAME     adadelta or sgd (momentum) (default adadelta, as seed 003's code)
  --lr R           learning rate (default 1.0 for adadelta, 0.01 for sgd)
  --gamma G        learning-rate factor after each epoch (default 0.7)
  --momentum M     sgd momentum (default 0.9)
  --no-shuffle     keep the training order in every epoch
  --data DIR       read the standard IDX files (raw or .gz) from DIR instead
  --layer-times    time every layer's forward and backward pass on one batch, 1 thread, both
                   algorithms (seed 003 Tables 3.1, 3.2); no training
  --reps N         timed batches for --layer-times (default 3; simd layers run 3 times per
                   batch, right after the base layer, medians reported)
  --json           write one JSON document to stdout (the log goes to stderr): training
                   {"losses": [...], "accuracy": ...} (accuracy omitted with --test 0);
                   --layer-times [{"layer", "pass", "base_ns", "simd_ns", "ratio"}, ...]
`,
		run: runTrain,
	})
}

type trainReport struct {
	Algorithm    string    `json:"algorithm"`
	Threads      int       `json:"threads"`
	Train        int       `json:"train"`
	Test         int       `json:"test"`
	Batch        int       `json:"batch"`
	Epochs       int       `json:"epochs"`
	Seed         uint64    `json:"seed"`
	Losses       []float64 `json:"losses"`
	Accuracy     *float64  `json:"accuracy,omitempty"`
	TestLoss     *float64  `json:"test_loss,omitempty"`
	EpochSeconds []float64 `json:"epoch_seconds"`
}

func runTrain(env *cmdEnv, args []string) error {
	c := commands["train"]
	fs := newFlags(env, c)
	algoName := fs.String("a", "simd", "")
	epochs := fs.Int("epochs", 5, "")
	nTrain := fs.Int("train", -1, "")
	nTest := fs.Int("test", -1, "")
	batch := fs.Int("batch", 64, "")
	seed := fs.Uint64("seed", 1, "")
	threads := fs.Int("threads", 0, "")
	optim := fs.String("optim", "adadelta", "")
	lr := fs.Float64("lr", 0, "")
	gamma := fs.Float64("gamma", 0.7, "")
	momentum := fs.Float64("momentum", 0.9, "")
	noShuffle := fs.Bool("no-shuffle", false, "")
	dataDir := fs.String("data", "", "")
	layerTimes := fs.Bool("layer-times", false, "")
	reps := fs.Int("reps", 3, "")
	asJSON := fs.Bool("json", false, "")
	pos, err := parseFlags(env, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "mnist" {
		return usageErr("want exactly one data set, mnist (see 'sumac train -h')")
	}
	algo, err := nn.ParseAlgo(*algoName)
	if err != nil {
		return err
	}
	switch {
	case *epochs < 0:
		return usageErr("--epochs %d must be >= 0", *epochs)
	case *batch <= 0:
		return usageErr("--batch %d must be positive", *batch)
	case *threads < 0:
		return usageErr("--threads %d must be >= 0", *threads)
	case *nTrain < -1 || *nTest < -1:
		return usageErr("--train %d / --test %d: counts must be >= 0 (-1: all)", *nTrain, *nTest)
	case *reps <= 0:
		return usageErr("--reps %d must be positive", *reps)
	case !(*gamma > 0 && *gamma <= 1):
		return usageErr("--gamma %v must be in (0, 1]", *gamma)
	}
	if *lr == 0 {
		*lr = 1.0
		if *optim == "sgd" {
			*lr = 0.01
		}
	}
	if *threads == 0 {
		*threads = runtime.GOMAXPROCS(0)
	}

	start := time.Now()
	logw := env.stdout
	if *asJSON {
		logw = env.stderr
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(logw, "%d: %s\n", time.Since(start).Nanoseconds(), fmt.Sprintf(format, a...))
	}

	opt, err := nn.NewOptimizer(*optim, *lr, *momentum)
	if err != nil {
		return err
	}
	// Load and check everything before the first log line, so bad input prints only the error.
	source := "embedded data"
	if *dataDir != "" {
		source = *dataDir
	}
	var trainSet, testSet *mnist.Set
	if *dataDir != "" {
		trainSet, testSet, err = mnist.Load(*dataDir)
	} else {
		trainSet, testSet, err = mnist.Embedded()
	}
	if err != nil {
		return err
	}
	if *nTrain > trainSet.Len() || *nTest > testSet.Len() {
		return usageErr("--train %d / --test %d: the data has %d training and %d test items",
			*nTrain, *nTest, trainSet.Len(), testSet.Len())
	}
	if *nTrain == 0 {
		return usageErr("--train 0: nothing to train on")
	}
	train, err := nn.FromMNIST(trainSet, *nTrain)
	if err != nil {
		return err
	}
	test, err := nn.FromMNIST(testSet, *nTest)
	if err != nil {
		return err
	}
	if *layerTimes && *batch > train.Len() {
		return usageErr("--layer-times needs --batch (%d) <= --train (%d)", *batch, train.Len())
	}
	logf("loading data from %s", source)
	logf("use %d data items out of %d", train.Len(), trainSet.Len())

	if *layerTimes {
		return runLayerTimes(env, train, *batch, *reps, *seed, *asJSON, logf)
	}

	logf("use %d data items out of %d", test.Len(), testSet.Len())
	logf("model building starts")
	net := nn.NewMNISTNet(&nn.Config{Algo: algo, Threads: *threads}, *seed)
	logf("model building ends (algorithm %s, %d threads, %s lr %g gamma %g)", algo, *threads, *optim, *lr, *gamma)
	res, err := nn.Train(net, train, test, nn.TrainOptions{
		Epochs: *epochs, Batch: *batch, Seed: *seed, Optimizer: opt, Gamma: *gamma,
		Shuffle: !*noShuffle, Log: logw, Start: start,
	})
	if err != nil {
		return err
	}
	if !*asJSON {
		return nil
	}
	rep := trainReport{Algorithm: algo.String(), Threads: *threads, Train: train.Len(), Test: test.Len(),
		Batch: *batch, Epochs: *epochs, Seed: *seed, Losses: res.Losses, EpochSeconds: res.EpochSeconds}
	if rep.Losses == nil {
		rep.Losses = []float64{}
	}
	if res.Tested > 0 {
		acc, tl := res.Accuracy(), res.TestLoss
		rep.Accuracy, rep.TestLoss = &acc, &tl
	}
	return writeJSON(env.stdout, rep)
}

func runLayerTimes(env *cmdEnv, d *nn.Dataset, batch, reps int, seed uint64, asJSON bool, logf func(string, ...any)) error {
	logf("timing every layer on one batch of %d, 1 thread, base and simd side by side", batch)
	rows, err := nn.LayerTimes(d, nn.LayerTimesOptions{Batch: batch, Reps: reps, SimdReps: 3,
		Seed: seed, Progress: func(s string) { logf("%s", s) }})
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(env.stdout, rows)
	}
	printLayerTimes(env.stdout, rows)
	return nil
}

func printLayerTimes(w io.Writer, rows []nn.LayerTiming) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "layer\tpass\tbase ns\tsimd ns\tratio\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.3f\t\n", r.Layer, r.Pass, r.BaseNs, r.SimdNs, r.Ratio)
	}
	tw.Flush()
}
