// Command peers measures sumac's CPU GEMM and direct convolution side by side with OpenBLAS,
// BLIS and oneDNN on the same shapes (op/suite's "gemm" and "resnet50" suites), on this
// machine. It is a separate module because it uses cgo; the main module stays cgo-free.
//
//	bash setup.sh && go run . --suite gemm --threads 1 --json
//
// Each peer library runs in its own worker process (this binary, re-executed) that loads it
// with dlopen(RTLD_LOCAL). Measurements are interleaved - sumac, then each peer, round after
// round - and the median of the rounds is reported. See docs/bench.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	if name := os.Getenv(workerEnv); name != "" {
		os.Exit(workerMain(name))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	suite   string
	specs   []string
	threads int
	rounds  int
	minTime float64
	dtypes  []string
	peers   []string
	json    bool
	check   bool
	match   string
	clock   string
	// onednnISA caps oneDNN's instruction set: "all" (the default: everything the CPU has),
	// "avx2", ... (onednnISAs).
	onednnISA string
	// The mnist suite: epochs, training and test items, thread counts.
	mnistEpochs, mnistTrain, mnistTest int
	mnistThreads                       []int
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, "; ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var specs multiFlag
	var dtypes, peers string
	fs.StringVar(&c.suite, "suite", "", "workload suite: gemm or resnet50 (op/suite), or mnist (training sumac against PyTorch)")
	fs.IntVar(&c.mnistEpochs, "epochs", 3, "mnist suite: epochs per thread count (the median epoch is reported)")
	fs.IntVar(&c.mnistTrain, "train", 8000, "mnist suite: training images")
	fs.IntVar(&c.mnistTest, "test", 2000, "mnist suite: test images")
	fs.Var(&specs, "spec", "an op spec to measure instead of a suite, e.g. 'gemm m=512 n=512 k=512' (repeatable)")
	fs.IntVar(&c.threads, "threads", 1, "threads for sumac and for every peer")
	fs.IntVar(&c.rounds, "rounds", 5, "interleaved rounds per measurement; the median is reported")
	fs.Float64Var(&c.minTime, "min-time", 0.1, "seconds of repeated calls per timed sample")
	fs.StringVar(&dtypes, "dtype", "", "comma-separated element types (float32,float64,int16,u8s8); default: all the op supports")
	fs.StringVar(&peers, "peers", "openblas,blis,onednn", "comma-separated peers to run")
	fs.StringVar(&c.clock, "clock", "wall", "wall: elapsed time; cpu: process CPU time, which leaves out time other processes hold the core (1 thread only)")
	fs.StringVar(&c.onednnISA, "onednn-isa", "all", "oneDNN's instruction set cap: all (the default: AVX-512, VNNI, AMX where the CPU has them), avx2, avx2_vnni, avx512_core, avx512_core_vnni, avx512_core_bf16 or avx512_core_amx")
	fs.StringVar(&c.match, "match", "", "only workloads whose name contains this")
	fs.BoolVar(&c.json, "json", false, "write one JSON array to stdout")
	fs.BoolVar(&c.check, "check", false, "self-test: compare each peer's result with sumac's on small shapes, no timing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run . (--suite gemm|resnet50 | --spec SPEC... | --check) [--threads N] [--json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "peers: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	c.specs = specs
	threadsSet := false
	fs.Visit(func(f *flag.Flag) { threadsSet = threadsSet || f.Name == "threads" })
	c.mnistThreads = []int{1, 2}
	if threadsSet {
		c.mnistThreads = []int{c.threads}
	}
	c.dtypes = splitList(dtypes)
	c.peers = splitList(peers)
	if err := c.validate(); err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		return 2
	}
	var err error
	switch {
	case c.check:
		err = runCheck(&c, stdout, stderr)
	case c.suite == "mnist":
		err = runMNIST(&c, stdout, stderr)
	default:
		err = runBench(&c, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "peers:", err)
		if errors.Is(err, errMismatch) {
			return 1
		}
		return 2
	}
	return 0
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

var allDTypes = []string{"float32", "float64", "int16", "u8s8"}

func (c *config) validate() error {
	if c.threads < 1 || c.threads > 256 {
		return fmt.Errorf("--threads %d out of range 1..256", c.threads)
	}
	if c.rounds < 1 || c.rounds > 1000 {
		return fmt.Errorf("--rounds %d out of range 1..1000", c.rounds)
	}
	if !(c.minTime >= 0 && c.minTime <= 60) {
		return fmt.Errorf("--min-time %v out of range 0..60", c.minTime)
	}
	switch c.clock {
	case "wall":
	case "cpu":
		if c.threads != 1 {
			return errors.New("--clock cpu needs --threads 1")
		}
		// The parent times sumac itself; workers inherit the setting through the environment.
		useCPUClock = true
		os.Setenv(clockEnv, "cpu")
	default:
		return fmt.Errorf("unknown --clock %q (want wall or cpu)", c.clock)
	}
	if _, ok := onednnISAs[c.onednnISA]; !ok {
		var names []string
		for n := range onednnISAs {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("unknown --onednn-isa %q (want one of %s)", c.onednnISA, strings.Join(names, ", "))
	}
	if c.mnistEpochs < 1 || c.mnistEpochs > 100 || c.mnistTrain < 1 || c.mnistTest < 1 {
		return fmt.Errorf("--epochs %d, --train %d, --test %d: want 1..100 epochs and positive counts", c.mnistEpochs, c.mnistTrain, c.mnistTest)
	}
	if !c.check && c.suite == "" && len(c.specs) == 0 {
		return errors.New("give --suite, --spec or --check")
	}
	if c.suite != "" && len(c.specs) > 0 {
		return errors.New("give either --suite or --spec, not both")
	}
	for _, d := range c.dtypes {
		if !contains(allDTypes, d) {
			return fmt.Errorf("unknown --dtype %q (want one of %s)", d, strings.Join(allDTypes, ", "))
		}
	}
	for _, p := range c.peers {
		if _, ok := peerKinds[p]; !ok {
			return fmt.Errorf("unknown peer %q (want openblas, blis, onednn)", p)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
