// Package tune is seed 000's auto-tuner (section III-E): for each workload it enumerates the
// schedule space (package sched), prunes it (reduction loops unrolled, bodies bounded by the
// target's program memory), generates every candidate through the target (compiler.Target),
// evaluates the legal ones on the target's cycle model in parallel, keeps the fastest, and
// verifies it bit for bit against the exact reference. Every evaluation is a record in a tuning
// store (package store) keyed by target, spec, schedule, generator and model version: a second
// run evaluates nothing the store has, and a run can be split into shards (Options.Shard) that
// fill a shared store for a final run. The tuner knows no target: the registry (package target)
// hands the command one.
package tune

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
	"github.com/sumacdev/sumac/store"
)

// Eval is the cost of one kernel call on the cycle model.
type Eval = compiler.Eval

// Evaluator runs a generated program on a cycle model.
type Evaluator interface {
	Evaluate(p compiler.Program) (Eval, error)
	// Version identifies the model: records are stored under it.
	Version() string
}

// targetEval is a target's own cycle model as an Evaluator.
type targetEval struct{ t compiler.Target }

func (e targetEval) Evaluate(p compiler.Program) (Eval, error) { return e.t.Evaluate(p) }
func (e targetEval) Version() string                           { return e.t.ModelVersion() }

// Options control a tuning run.
type Options struct {
	Target  compiler.Target
	Eval    Evaluator   // nil: the target's cycle model
	Workers int         // parallel evaluations (0: all cores)
	Store   store.Store // nil: evaluate everything, keep nothing
	// Shard of Shards (Shards > 1): evaluate only the candidates whose index in the run's list
	// (workloads in order, each one's schedule space in order) is Shard modulo Shards, into the
	// store, and choose no winners: a later run without shards chooses them from the store.
	Shard, Shards int
	// StoredOnly: take every candidate from the store and evaluate none; a candidate the store
	// lacks is counted in Result.Missing and left out (for readers such as sumac report, which
	// must not start a tuning run).
	StoredOnly bool
	MaxVectors int // pruning bounds (0: the target's Bounds)
	MaxBody    int
	Verify     bool // verify the chosen kernel against op/ref (Target.Verify)
	// Progress, if set, is called after each evaluation (from one goroutine at a time).
	Progress func(done, total int, workload string)
	// MemLimit is the data a call may place in memory (0: the target's MemLimit).
	MemLimit int
}

// MaxFlatCopies bounds the copies of the pipelined loop a flattened candidate may have (beyond
// that the program memory is nearly always exceeded and compiling it only costs time).
const MaxFlatCopies = 8

// Result is the tuned outcome of one workload.
type Result struct {
	Name         string               `json:"name"`
	Spec         string               `json:"spec"`
	DType        string               `json:"dtype"`
	Kind         string               `json:"kind"`
	MACs         int64                `json:"macs"`
	Cycles       int64                `json:"cycles"`
	MACsPerCycle float64              `json:"macs_per_cycle"`
	Peak         int                  `json:"peak_macs_per_cycle"`
	PctPeak      float64              `json:"pct_peak"`
	Roofline     float64              `json:"roofline_macs_per_cycle"`
	Verified     bool                 `json:"verified"`
	Schedule     string               `json:"schedule"`
	SWLoop       string               `json:"sw_loop"` // the software-pipelined loop as emitted (loops of one iteration dropped)
	Sched        sched.Schedule       `json:"-"`
	BlockSpec    *op.Spec             `json:"-"` // the spec of one call
	Calls        int                  `json:"calls"`
	CallNote     string               `json:"call_note,omitempty"`
	Spills       int                  `json:"spills"`
	Candidates   int                  `json:"candidates"`
	Legal        int                  `json:"legal"`
	Evaluated    int                  `json:"evaluated"`         // candidates evaluated in this run
	Stored       int                  `json:"stored"`            // candidates whose records were in the store
	Shard        string               `json:"shard,omitempty"`   // I/N of a sharded run (no winner chosen)
	Missing      int                  `json:"missing,omitempty"` // candidates not in the store (StoredOnly)
	Paper        *suite.PaperSchedule `json:"paper_schedule,omitempty"`
	VerifyNote   string               `json:"verify_note,omitempty"`
	Saturated    float64              `json:"saturated_fraction"`
	// Block is the part of the workload one call computes (the whole workload, or a block of
	// output columns, rows and channels that fits the memory), Bytes the memory the chosen
	// kernel's buffers take and DupBytes how much of it duplicates input data (an 8-bit
	// input duplicated along D); BlocksTried the blocks the tuner compared.
	Block       string `json:"block"`
	Bytes       int    `json:"bytes,omitempty"`
	DupBytes    int    `json:"dup_bytes,omitempty"`
	BlocksTried int    `json:"blocks_tried,omitempty"`
	// GEMM is the chosen schedule of a contraction (gemm, einsum); Refused counts the
	// candidates its target refused, by reason (tune/gemm.go).
	GEMM    *sched.GEMM `json:"-"`
	Refused []Refusal   `json:"refused,omitempty"`
	call    *op.Spec    // a contraction split into calls: one call's spec
	// The peeled form of a padded workload (ComparePeel): its cycles over PeelRegions kernel
	// calls, whether they all verified, and the bytes of the packed form's zero border.
	PeelCycles   int64 `json:"peel_cycles,omitempty"`
	PeelRegions  int   `json:"peel_regions,omitempty"`
	PeelVerified bool  `json:"peel_verified,omitempty"`
	PadBytes     int   `json:"pad_bytes,omitempty"`
}

// Workload is one thing to tune.
type Workload struct {
	Name  string
	Spec  *op.Spec
	Paper *suite.PaperSchedule
}

// split divides a convolution whose data do not fit the memory into calls over output
// channels (each call reads the whole input and its share of weights, seed 000 Table II
// preloads all data; where they do not fit, the weights are windowed). It returns the spec of
// one call and the number of calls.
func split(s *op.Spec, limit int) (*op.Spec, int, error) {
	c := s.Conv
	bytes := func(k int) int {
		eb := s.Types.A.Bits() / 8
		cc := c.C
		if c.Groups > 1 {
			cc = c.C * k / c.K
		}
		return eb*(c.N*c.YIn*c.XIn*cc+k*c.S*c.R*(c.C/c.Groups)) + s.Types.Out.Bits()/8*c.N*c.Y*c.X*k
	}
	for n := 1; n <= c.K; n++ {
		if c.K%n != 0 {
			continue
		}
		if bytes(c.K/n) <= limit {
			if n == 1 {
				return s, 1, nil
			}
			return subSpec(s, n), n, nil
		}
	}
	return nil, 0, fmt.Errorf("%s: even one output channel's data exceed the %d bytes of memory", s, limit)
}

type job struct {
	w       int // workload index
	b       int // block index
	s       sched.Schedule
	ev      Eval
	err     error
	rec     store.Record // the record of s
	fresh   bool         // evaluated in this run (else every record came from the store)
	missing bool         // StoredOnly and the store lacks a record of the candidate
}

// Run tunes every workload. Results are in workload order; the choice is deterministic
// (fewest cycles, ties broken by the schedule's key).
func Run(ws []Workload, opt Options) ([]Result, error) {
	t := opt.Target
	if t == nil {
		return nil, fmt.Errorf("tune: no target")
	}
	if opt.Eval == nil {
		opt.Eval = targetEval{t}
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
	sharded := opt.Shards > 1
	if opt.Shards < 0 || opt.Shard < 0 || opt.Shards > 0 && opt.Shard >= opt.Shards || opt.Shards == 0 && opt.Shard != 0 {
		return nil, fmt.Errorf("tune: shard %d of %d", opt.Shard, opt.Shards)
	}
	loadBW, storeBW := t.Bandwidth()
	if hasContraction(ws) {
		return runMixed(ws, opt)
	}
	results := make([]Result, len(ws))
	subs := make([]*op.Spec, len(ws))
	blks := make([][]block, len(ws))
	var jobs []*job
	for i, w := range ws {
		r := &results[i]
		r.Name, r.Spec, r.MACs, r.Paper = w.Name, w.Spec.String(), w.Spec.MACs(), w.Paper
		r.DType, r.Kind = w.Spec.Types.A.String(), string(w.Spec.Kind())
		if w.Spec.Conv == nil {
			return nil, fmt.Errorf("%s: tune handles conv2d workloads", w.Name)
		}
		d, peak, err := t.Datapath(w.Spec.Types)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", w.Name, err)
		}
		r.Peak = peak
		r.Roofline = roofline(w.Spec, peak, loadBW, storeBW)
		bs, err := blocks(w.Spec, opt.MemLimit)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", w.Name, err)
		}
		blks[i] = bs
		if len(bs) > 1 {
			r.BlocksTried = len(bs)
		}
		for bi, b := range bs {
			cands, _ := sched.Space(b.spec.Conv, d.Shape, opt.MaxVectors, opt.MaxBody)
			r.Candidates += len(cands)
			for _, s := range cands {
				jobs = append(jobs, &job{w: i, b: bi, s: s})
			}
		}
	}
	if sharded {
		var share []*job
		for k, j := range jobs {
			if k%opt.Shards == opt.Shard {
				share = append(share, j)
			}
		}
		jobs = share
		for i := range results {
			results[i].Shard = fmt.Sprintf("%d/%d", opt.Shard, opt.Shards)
		}
	}
	var specs []*op.Spec
	for _, bs := range blks {
		for _, b := range bs {
			specs = append(specs, b.spec)
		}
	}
	ts, err := newTuneStore(opt, specs)
	if err != nil {
		return nil, fmt.Errorf("tune: reading the store: %v", err)
	}
	// Generate and evaluate in parallel.
	var mu sync.Mutex
	done := 0
	ch := make(chan *job)
	var wg sync.WaitGroup
	for k := 0; k < opt.Workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				ts.candidate(opt, blks[j.w][j.b].spec, j)
				mu.Lock()
				done++
				if opt.Progress != nil {
					opt.Progress(done, len(jobs), ws[j.w].Name)
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	if ts.err != nil {
		return nil, fmt.Errorf("tune: store %s: %v", opt.Store.Location(), ts.err)
	}
	best := make([]*job, len(ws))
	total := func(j *job) int64 { return j.ev.Cycles * int64(blks[j.w][j.b].calls) }
	for _, j := range jobs {
		r := &results[j.w]
		switch {
		case j.missing:
			r.Missing++
			continue
		case j.fresh:
			r.Evaluated++
		default:
			r.Stored++
		}
		if j.err != nil {
			continue
		}
		r.Legal++
		// fewest cycles for the whole workload (blocks times calls); ties: the earlier
		// (larger) block, then the smaller schedule key
		b := best[j.w]
		if b == nil || total(j) < total(b) || total(j) == total(b) && (j.b < b.b || j.b == b.b && j.s.Key() < b.s.Key()) {
			best[j.w] = j
		}
	}
	if sharded {
		return results, nil // the run without shards chooses
	}
	for i := range ws {
		r := &results[i]
		b := best[i]
		if b == nil {
			return results, fmt.Errorf("%s: no legal schedule fits %s (%d candidates, all pruned%s)", ws[i].Name, ws[i].Spec, r.Candidates, commonReason(jobs, i))
		}
		blk := blks[i][b.b]
		subs[i], r.Calls, r.CallNote, r.BlockSpec = blk.spec, blk.calls, blk.note, blk.spec
		r.Block = fmt.Sprintf("x=%d y=%d k=%d", blk.x, blk.y, blk.spec.Conv.K)
		r.Sched, r.Schedule = b.s, b.s.Key()
		r.Cycles = b.ev.Cycles * int64(r.Calls)
		r.Spills = b.ev.Spills
		r.MACsPerCycle = float64(r.MACs) / float64(r.Cycles)
		r.PctPeak = 100 * r.MACsPerCycle / float64(r.Peak)
	}
	if !opt.Verify {
		return results, nil
	}
	// Verify the winners, in parallel like the evaluations (each result is its own).
	errs := make([]error, len(ws))
	next := make(chan int)
	var vwg sync.WaitGroup
	for k := 0; k < opt.Workers; k++ {
		vwg.Add(1)
		go func() {
			defer vwg.Done()
			for i := range next {
				errs[i] = verifyWinner(t, &results[i], subs[i], best[i].s, uint64(i+1))
			}
		}()
	}
	for i := range ws {
		next <- i
	}
	close(next)
	vwg.Wait()
	for i, err := range errs {
		if err != nil {
			return results, fmt.Errorf("%s: regenerating the chosen kernel: %v", ws[i].Name, err)
		}
		ts.verified(best[i].rec, results[i].Verified)
	}
	if ts.err != nil {
		return results, fmt.Errorf("tune: store %s: %v", opt.Store.Location(), ts.err)
	}
	return results, nil
}

// verifyWinner regenerates the chosen kernel and checks it bit for bit (Target.Verify),
// recording the outcome in r.
func verifyWinner(t compiler.Target, r *Result, spec *op.Spec, s sched.Schedule, seed uint64) error {
	p, err := t.Generate(spec, s)
	if err != nil {
		return err
	}
	if loops := p.LoopNest(); len(loops) > 0 {
		r.SWLoop = loops[len(loops)-1]
	}
	if m, ok := p.(interface{ Footprint() (bytes, dup int) }); ok {
		r.Bytes, r.DupBytes = m.Footprint()
	}
	ck, err := t.Verify(p, seed)
	switch {
	case err != nil:
		r.VerifyNote = err.Error()
	case !ck.OK:
		r.VerifyNote = ck.First
	case !ck.Interpreted:
		r.VerifyNote = "kernel IR not interpreted"
	default:
		r.Verified = true
	}
	r.Saturated = ck.Saturated
	return nil
}

// roofline is the bound on MACs per cycle from the peak and the minimum memory traffic: every
// input and weight read once at the target's load bandwidth, every output written once at its
// store bandwidth (bytes per cycle; AIE1: two 256-bit load units, 64 B/cycle, one 256-bit store
// unit, 32 B/cycle; seed 000 Table II, Fig. 8).
func roofline(s *op.Spec, peak, loadBytes, storeBytes int) float64 {
	return math.Min(float64(peak), float64(s.MACs())/MemoryCycles(s, loadBytes, storeBytes))
}

// MemoryCycles is the least time a convolution's data take to move: every input and weight
// read once at the target's load bandwidth, every output written once at its store bandwidth
// (bytes per cycle), the two overlapping (seed 000 Table II). MACs / MemoryCycles is the
// memory roof.
func MemoryCycles(s *op.Spec, loadBytes, storeBytes int) float64 {
	c := s.Conv
	eb := float64(s.Types.A.Bits() / 8)
	load := eb * float64(c.InLen()+c.WLen())
	store := float64(s.Types.Out.Bits()/8) * float64(c.OutLen())
	return math.Max(load/float64(loadBytes), store/float64(storeBytes))
}

// Geomean returns the geometric mean of MACs per cycle per dtype (in order of first appearance).
func Geomean(rs []Result) (dtypes []string, g map[string]float64) {
	g = map[string]float64{}
	n := map[string]int{}
	for _, r := range rs {
		if _, ok := n[r.DType]; !ok {
			dtypes = append(dtypes, r.DType)
		}
		n[r.DType]++
		g[r.DType] += math.Log(r.MACsPerCycle)
	}
	for d := range g {
		g[d] = math.Exp(g[d] / float64(n[d]))
	}
	return dtypes, g
}

// FromSuite turns a suite's conv2d workloads into tuner workloads.
func FromSuite(s *suite.Suite) ([]Workload, error) {
	var out []Workload
	for _, w := range s.Workloads {
		if w.Spec.Conv == nil {
			return nil, fmt.Errorf("suite %s: %s is not a conv2d", s.Name, w.Name)
		}
		out = append(out, Workload{Name: w.Name, Spec: w.Spec, Paper: w.Paper})
	}
	return out, nil
}

// subSpec is the spec of one of calls equal calls over output channels.
func subSpec(s *op.Spec, calls int) *op.Spec {
	c := *s.Conv
	c.K /= calls
	if c.Groups > 1 {
		c.Groups, c.C = c.Groups/calls, c.C/calls
	}
	return &op.Spec{Conv: &c, Types: s.Types}
}

// Generate regenerates the kernel of one call of a tuned workload.
func Generate(t compiler.Target, w Workload, r Result) (compiler.Program, error) {
	if r.GEMM != nil {
		ct, ok := t.(compiler.Contractions)
		if !ok {
			return nil, fmt.Errorf("target %s compiles no contractions", t.Name())
		}
		spec := w.Spec
		if r.call != nil {
			spec = r.call
		}
		return ct.GenerateGEMM(spec, *r.GEMM)
	}
	sub := w.Spec
	switch {
	case r.BlockSpec != nil:
		sub = r.BlockSpec
	case r.Calls > 1:
		sub = subSpec(w.Spec, r.Calls)
	}
	return t.Generate(sub, r.Sched)
}

// commonReason names the most frequent reason the candidates of workload w were refused
// (the rule part of the error, after the schedule's name), for the no-legal-schedule error.
func commonReason(jobs []*job, w int) string {
	count := map[string]int{}
	best := ""
	for _, j := range jobs {
		if j.w != w || j.err == nil {
			continue
		}
		msg := j.err.Error()
		if i := strings.Index(msg, "fusing "); i >= 0 {
			if k := strings.Index(msg[i:], ": "); k >= 0 {
				msg = msg[i+k+2:] // the shuffle-network rule, without the operation's text
			}
		}
		count[msg]++
		if count[msg] > count[best] || count[msg] == count[best] && msg < best {
			best = msg
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; most often: %s", best)
}
