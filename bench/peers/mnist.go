package main

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sumacdev/sumac/nn"
	"github.com/sumacdev/sumac/nn/mnist"
)

// The mnist suite trains seed 003's CNN with sumac (nn, the simd layers) and with PyTorch
// (Debian's python3-torch, torch_mnist.py) on the same images, batch, optimizer and
// schedule, at each thread count, epochs alternating between the two, and reports the
// median seconds per epoch of each and the test accuracy after the last epoch.

//go:embed torch_mnist.py
var torchScript []byte

// MNISTRow is one JSON object of the mnist suite: one thread count.
type MNISTRow struct {
	Threads           int       `json:"threads"`
	Epochs            int       `json:"epochs"`
	Train             int       `json:"train"`
	Test              int       `json:"test"`
	Batch             int       `json:"batch"`
	SumacEpochSeconds float64   `json:"sumac_epoch_seconds"` // medians over the epochs
	TorchEpochSeconds float64   `json:"torch_epoch_seconds"`
	SumacAccuracy     float64   `json:"sumac_accuracy"` // after the last epoch
	TorchAccuracy     float64   `json:"torch_accuracy"`
	SumacEpochs       []float64 `json:"sumac_epochs_seconds"`
	TorchEpochs       []float64 `json:"torch_epochs_seconds"`
	SumacISA          string    `json:"sumac_isa"` // the float32 kernel set of sumac's layers
	Torch             string    `json:"torch"`     // PyTorch's version
}

// threadEnv pins every runtime PyTorch may use to n threads.
func threadEnv(n int) []string {
	t := strconv.Itoa(n)
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "GOTO_NUM_THREADS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "OMP_NUM_THREADS="+t, "MKL_NUM_THREADS="+t, "OPENBLAS_NUM_THREADS="+t, "BLIS_NUM_THREADS="+t, "GOTO_NUM_THREADS="+t)
}

type torchWorker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *json.Decoder
}

func (w *torchWorker) call(cmd string, v any) error {
	if _, err := io.WriteString(w.in, cmd+"\n"); err != nil {
		return fmt.Errorf("torch worker: %v", err)
	}
	var raw json.RawMessage
	if err := w.out.Decode(&raw); err != nil {
		return fmt.Errorf("torch worker died: %v", err)
	}
	var e struct {
		Err string `json:"err"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Err != "" {
		return errors.New(e.Err)
	}
	return json.Unmarshal(raw, v)
}

func (w *torchWorker) close() {
	w.in.Close()
	_ = w.cmd.Wait()
}

// torchPython is the interpreter of Debian's python3-torch: /usr/bin/python3 where it
// exists (a python3 earlier on the PATH, e.g. pyenv's, lacks the package), else python3.
func torchPython() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}

func startTorch(dir string, threads int, seed uint64) (*torchWorker, error) {
	cmd := exec.Command(torchPython(), filepath.Join(dir, "torch_mnist.py"), dir, strconv.Itoa(threads), strconv.FormatUint(seed, 10))
	cmd.Env = threadEnv(threads)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("python3: %v (bash setup.sh installs python3-torch)", err)
	}
	return &torchWorker{cmd: cmd, in: in, out: json.NewDecoder(bufio.NewReader(out))}, nil
}

// writeSet writes a set's first n images and labels as raw bytes for the torch worker.
func writeSet(dir, name string, s *mnist.Set, n int) error {
	item := s.Rows * s.Cols
	if err := os.WriteFile(filepath.Join(dir, name+".u8"), s.Images[:n*item], 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".lbl"), s.Labels[:n], 0o644)
}

func runMNIST(c *config, stdout, stderr io.Writer) error {
	trainSet, testSet, err := mnist.Embedded()
	if err != nil {
		return err
	}
	nTrain, nTest := min(c.mnistTrain, trainSet.Len()), min(c.mnistTest, testSet.Len())
	train, err := nn.FromMNIST(trainSet, nTrain)
	if err != nil {
		return err
	}
	test, err := nn.FromMNIST(testSet, nTest)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "sumac-peers-mnist")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "torch_mnist.py"), torchScript, 0o644); err != nil {
		return err
	}
	if err := writeSet(dir, "train", trainSet, nTrain); err != nil {
		return err
	}
	if err := writeSet(dir, "test", testSet, nTest); err != nil {
		return err
	}
	const batch, seed = 64, 1
	var rows []MNISTRow
	for _, threads := range c.mnistThreads {
		tw, err := startTorch(dir, threads, seed)
		if err != nil {
			return err
		}
		var info struct {
			Torch   string `json:"torch"`
			Threads int    `json:"threads"`
		}
		if err := tw.call("info", &info); err != nil {
			tw.close()
			return err
		}
		fmt.Fprintf(stderr, "peers: mnist: %d thread(s); PyTorch %s with %d thread(s)\n", threads, info.Torch, info.Threads)
		cfg := &nn.Config{Algo: nn.SIMD, Threads: threads}
		net := nn.NewMNISTNet(cfg, seed)
		opt := nn.NewAdadelta(1.0)
		row := MNISTRow{Threads: threads, Epochs: c.mnistEpochs, Train: nTrain, Test: nTest, Batch: batch, Torch: info.Torch, SumacISA: nn.KernelISA()}
		var sumacAcc float64
		for e := 1; e <= c.mnistEpochs; e++ {
			res, err := nn.Train(net, train, nil, nn.TrainOptions{Epochs: 1, Batch: batch, Seed: seed + uint64(e), Optimizer: opt, Gamma: 0.7, Shuffle: true})
			if err != nil {
				tw.close()
				return err
			}
			row.SumacEpochs = append(row.SumacEpochs, round3(res.EpochSeconds[0]))
			var te struct {
				Seconds float64 `json:"seconds"`
				Loss    float64 `json:"loss"`
			}
			if err := tw.call("epoch", &te); err != nil {
				tw.close()
				return err
			}
			row.TorchEpochs = append(row.TorchEpochs, round3(te.Seconds))
			fmt.Fprintf(stderr, "peers: mnist threads %d epoch %d: sumac %.2f s (loss %.4f), torch %.2f s (loss %.4f)\n",
				threads, e, res.EpochSeconds[0], res.Losses[0], te.Seconds, te.Loss)
		}
		_, correct, err := nn.Evaluate(net, test, 1000)
		if err != nil {
			tw.close()
			return err
		}
		sumacAcc = float64(correct) / float64(test.Len())
		var tt struct {
			Accuracy float64 `json:"accuracy"`
		}
		if err := tw.call("test", &tt); err != nil {
			tw.close()
			return err
		}
		tw.close()
		row.SumacEpochSeconds, row.TorchEpochSeconds = round3(median(row.SumacEpochs)), round3(median(row.TorchEpochs))
		row.SumacAccuracy, row.TorchAccuracy = sumacAcc, tt.Accuracy
		rows = append(rows, row)
	}
	if c.json {
		return writeJSON(stdout, rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "threads\tsumac s/epoch\ttorch s/epoch\tsumac/torch\tsumac acc\ttorch acc\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%.3fx\t%.4f\t%.4f\t\n", r.Threads, r.SumacEpochSeconds, r.TorchEpochSeconds,
			r.SumacEpochSeconds/r.TorchEpochSeconds, r.SumacAccuracy, r.TorchAccuracy)
	}
	return tw.Flush()
}
