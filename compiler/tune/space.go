package tune

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
)

// Stages of a candidate in Explore's answer.
const (
	// StagePruned: the space's rules dropped it before generation (sched.Space: the body
	// exceeds the program-memory bound, or the schedule does not apply to the shape).
	StagePruned = "pruned"
	// StageRefused: generated or evaluated, and refused (the generator's shuffle-network
	// rules, the back end, the program memory).
	StageRefused = "refused"
	// StageEvaluated: the cycle model ran it.
	StageEvaluated = "evaluated"
)

// Candidate is one point of a workload's schedule space as the tuner saw it.
type Candidate struct {
	Schedule string `json:"schedule"`
	Stage    string `json:"stage"`
	// Cycles of the whole workload (every call), for evaluated candidates.
	Cycles int64  `json:"cycles,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Sched is the schedule itself (Flat set where the flattened variant was the faster).
	Sched sched.Schedule `json:"-"`
}

// Space is the explored schedule space of one workload: what Run decides among, kept whole.
type Space struct {
	Name       string      `json:"name"`
	Spec       string      `json:"spec"`
	MACs       int64       `json:"macs"`
	Calls      int         `json:"calls"`
	Peak       int         `json:"peak_macs_per_cycle"`
	Roofline   float64     `json:"roofline_macs_per_cycle"`
	Candidates []Candidate `json:"candidates"`
	// Best indexes the candidate Run chooses (fewest cycles, ties by schedule key); -1: none.
	Best int `json:"best"`
}

// Explore enumerates, prunes, generates and evaluates every candidate of one workload as Run
// does (same pruning, same evaluator and store, same flattened variants), and returns them all
// instead of only the fastest. It does not verify. With a store that a Run of the same
// workload filled, every evaluation is a store hit.
func Explore(w Workload, opt Options) (*Space, error) {
	t := opt.Target
	if t == nil {
		return nil, fmt.Errorf("tune: no target")
	}
	if opt.Eval == nil {
		opt.Eval = targetEval{t}
	}
	if w.Spec == nil || w.Spec.Conv == nil {
		return nil, fmt.Errorf("%s: tune handles conv2d workloads", w.Name)
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	maxVectors, maxBody := t.Bounds()
	if opt.MaxVectors == 0 {
		opt.MaxVectors = maxVectors
	}
	if opt.MaxBody == 0 {
		opt.MaxBody = maxBody
	}
	if opt.MemLimit == 0 {
		opt.MemLimit = t.MemLimit()
	}
	load, store := t.Bandwidth()
	d, peak, err := t.Datapath(w.Spec.Types)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", w.Name, err)
	}
	sub, calls, err := split(w.Spec, opt.MemLimit)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", w.Name, err)
	}
	sp := &Space{Name: w.Name, Spec: w.Spec.String(), MACs: w.Spec.MACs(), Calls: calls, Peak: peak,
		Roofline: roofline(w.Spec, peak, load, store), Best: -1}
	cands, pruned := sched.Space(sub.Conv, d.Shape, opt.MaxVectors, opt.MaxBody)
	for _, p := range pruned {
		k, reason, _ := strings.Cut(p, ": ")
		sp.Candidates = append(sp.Candidates, Candidate{Schedule: k, Stage: StagePruned, Reason: reason})
	}
	ts, err := newTuneStore(opt, []*op.Spec{sub})
	if err != nil {
		return nil, fmt.Errorf("tune: reading the store: %v", err)
	}
	evals := make([]Candidate, len(cands))
	next := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < opt.Workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := &job{s: cands[i]}
				ts.candidate(opt, sub, j)
				s, ev, err := j.s, j.ev, j.err
				c := Candidate{Schedule: s.Key(), Sched: s, Stage: StageEvaluated, Cycles: ev.Cycles * int64(calls)}
				if err != nil {
					c = Candidate{Schedule: cands[i].Key(), Sched: cands[i], Stage: StageRefused, Reason: err.Error()}
				}
				evals[i] = c
			}
		}()
	}
	for i := range cands {
		next <- i
	}
	close(next)
	wg.Wait()
	// Evaluated first by cycles (ties by key, Run's choice first), then refused, then pruned.
	sort.SliceStable(evals, func(i, j int) bool {
		a, b := evals[i], evals[j]
		if (a.Stage == StageEvaluated) != (b.Stage == StageEvaluated) {
			return a.Stage == StageEvaluated
		}
		if a.Stage == StageEvaluated && a.Cycles != b.Cycles {
			return a.Cycles < b.Cycles
		}
		return a.Schedule < b.Schedule
	})
	if len(evals) > 0 && evals[0].Stage == StageEvaluated {
		sp.Best = 0
	}
	sp.Candidates = append(evals, sp.Candidates...)
	return sp, nil
}
