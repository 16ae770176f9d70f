package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A worker is this same binary started with workerEnv set to a peer's name. It loads that
// one library (dlopen, RTLD_LOCAL) and answers requests, one JSON object per line, on its
// stdin and stdout. One process per library keeps their symbols and thread pools apart.
const (
	workerEnv        = "SUMAC_PEERS_WORKER"
	workerThreadsEnv = "SUMAC_PEERS_THREADS"
	workerISAEnv     = "SUMAC_PEERS_ONEDNN_ISA" // oneDNN's instruction set cap (--onednn-isa)
)

type request struct {
	Cmd        string  `json:"cmd"` // info, prepare, run, result, free
	ID         int     `json:"id,omitempty"`
	Task       *Task   `json:"task,omitempty"`
	MinSeconds float64 `json:"min_seconds,omitempty"`
}

type reply struct {
	Err     string    `json:"err,omitempty"`
	NoOp    bool      `json:"noop,omitempty"` // the peer lacks the operation
	Info    string    `json:"info,omitempty"`
	ISA     string    `json:"isa,omitempty"` // the instruction set the library runs
	Impl    string    `json:"impl,omitempty"`
	Seconds float64   `json:"seconds,omitempty"` // per call
	Reps    int       `json:"reps,omitempty"`
	Data    []float64 `json:"data,omitempty"`
}

// workerMain serves requests until stdin closes.
func workerMain(name string) int {
	threads, err := strconv.Atoi(os.Getenv(workerThreadsEnv))
	if err != nil || threads < 1 {
		threads = 1
	}
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	isa := os.Getenv(workerISAEnv)
	if isa == "" {
		isa = "all"
	}
	loadErr := loadPeer(name, threads, isa)
	ops := map[int]*peerOp{}
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			for _, op := range ops {
				op.free()
			}
			return 0
		}
		var req request
		var rep reply
		if err := json.Unmarshal(line, &req); err != nil {
			rep.Err = "bad request: " + err.Error()
		} else if loadErr != nil {
			rep.Err = loadErr.Error()
		} else {
			rep = serve(&req, ops)
		}
		if err := out.Encode(&rep); err != nil {
			return 1
		}
	}
}

func serve(req *request, ops map[int]*peerOp) reply {
	var rep reply
	var err error
	switch req.Cmd {
	case "info":
		rep.Info = peerInfo()
		rep.ISA = peerISA()
	case "prepare":
		var op *peerOp
		if req.Task == nil {
			err = errors.New("prepare without a task")
		} else if err = req.Task.validate(); err != nil {
			break
		} else if req.Task.Kind == "conv" {
			op, err = prepareConv(req.Task)
		} else {
			op, err = prepareGEMM(req.Task)
		}
		if err == nil {
			if old := ops[req.ID]; old != nil {
				old.free()
			}
			ops[req.ID] = op
			rep.Impl = op.impl
		}
	case "run":
		op := ops[req.ID]
		if op == nil {
			err = fmt.Errorf("no prepared operation %d", req.ID)
			break
		}
		rep.Seconds, rep.Reps, err = timeOp(op.run, req.MinSeconds)
	case "result":
		op := ops[req.ID]
		if op == nil {
			err = fmt.Errorf("no prepared operation %d", req.ID)
			break
		}
		rep.Data, err = op.result()
	case "free":
		if op := ops[req.ID]; op != nil {
			op.free()
			delete(ops, req.ID)
		}
	default:
		err = fmt.Errorf("unknown command %q", req.Cmd)
	}
	if errors.Is(err, errNoOp) {
		rep.NoOp = true
	} else if err != nil {
		rep.Err = err.Error()
	}
	return rep
}

// useCPUClock makes timeOp measure the process's CPU time (user + system) instead of wall
// time: on a shared machine it leaves out the time other processes hold the core. Only
// meaningful with one thread. The parent passes it to the workers in clockEnv.
var useCPUClock = os.Getenv(clockEnv) == "cpu"

const clockEnv = "SUMAC_PEERS_CLOCK"

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// timeOp calls run until at least minSeconds have passed (and at least once) and returns
// the mean time per call of that batch.
func timeOp(run func() error, minSeconds float64) (float64, int, error) {
	start := time.Now()
	cpu0 := 0.0
	if useCPUClock {
		cpu0 = cpuSeconds()
	}
	reps := 0
	for {
		if err := run(); err != nil {
			return 0, reps, err
		}
		reps++
		if el := time.Since(start).Seconds(); el >= minSeconds {
			if useCPUClock {
				el = cpuSeconds() - cpu0
			}
			return el / float64(reps), reps, nil
		}
	}
}

// worker is the parent's handle on one worker process.
type worker struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *json.Decoder
	info string
	isa  string // the instruction set it runs (OpenBLAS core, BLIS arch, oneDNN ISA)
}

// startWorker starts a worker for peer name with threads threads. The thread count goes both
// into the environment each library reads at start (OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS,
// OMP_NUM_THREADS for oneDNN's OpenMP runtime and BLIS's OpenMP build) and into the
// libraries' own calls (openblas_set_num_threads, bli_thread_set_num_threads).
func startWorker(name string, threads int, onednnISA string) (*worker, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	t := strconv.Itoa(threads)
	// The libraries choose their own kernels: settings that would force a lower set
	// (OpenBLAS's core type, BLIS's architecture, oneDNN's ISA cap, which --onednn-isa
	// sets instead) are not passed on.
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "OPENBLAS_CORETYPE", "BLIS_ARCH_TYPE", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "ONEDNN_CPU_ISA_HINTS", "DNNL_CPU_ISA_HINTS":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, workerEnv+"="+name, workerThreadsEnv+"="+t,
		"OPENBLAS_NUM_THREADS="+t, "BLIS_NUM_THREADS="+t, "OMP_NUM_THREADS="+t, "GOMAXPROCS=1", workerISAEnv+"="+onednnISA)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &worker{name: name, cmd: cmd, in: in, out: json.NewDecoder(bufio.NewReader(outPipe))}
	rep, err := w.call(&request{Cmd: "info"})
	if err != nil {
		w.close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	w.info = rep.Info
	w.isa = rep.ISA
	return w, nil
}

// call sends one request and waits for its reply.
func (w *worker) call(req *request) (reply, error) {
	var rep reply
	b, err := json.Marshal(req)
	if err != nil {
		return rep, err
	}
	if _, err := w.in.Write(append(b, '\n')); err != nil {
		return rep, fmt.Errorf("worker %s: %v", w.name, err)
	}
	if err := w.out.Decode(&rep); err != nil {
		return rep, fmt.Errorf("worker %s died: %v", w.name, err)
	}
	if rep.Err != "" {
		return rep, errors.New(rep.Err)
	}
	if rep.NoOp {
		return rep, errNoOp
	}
	return rep, nil
}

func (w *worker) close() {
	w.in.Close()
	_ = w.cmd.Wait()
}
