package tune

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/store"
)

// StoreVersion is the generator's version in the store's records: it changes when the
// generator changes in a way that can change a candidate's cycles for the same spec and
// schedule (the evaluator's Version covers the cycle model).
const StoreVersion = "vyasa-gen-3"

// Prefixes of a record's refusal: which stage refused the candidate.
const (
	refusedGenerator = "generator: " // the generator could not build the schedule
	refusedModel     = "model: "     // the cost model refused the program
	refusedPruned    = "pruned: "    // not built: the tuner's bounds exclude it
)

// OpenStore opens the store at loc, resolved as store.Resolve does (a flag, then
// $SUMAC_STORE, then the SQLite file under the user cache directory). When that default store
// is empty, the evaluations of the old JSON cache (tune.json beside it), if there is one, are
// imported into it as records of target t (ev nil: t's own cycle model); the JSON file is left as it is, and once the store has records it is not
// read again. note says what was imported, if anything.
func OpenStore(ctx context.Context, loc string, t compiler.Target, ev Evaluator) (st store.Store, note string, err error) {
	loc, err = store.Resolve(loc)
	if err != nil {
		return nil, "", err
	}
	if st, err = store.Open(ctx, loc); err != nil {
		return nil, "", err
	}
	def, err := store.DefaultPath()
	if err != nil || loc != "sqlite:"+def {
		return st, "", nil
	}
	old := strings.TrimSuffix(def, ".db") + ".json"
	if _, err := os.Stat(old); err != nil {
		return st, "", nil
	}
	some, err := store.Query(ctx, st, store.Filter{Limit: 1})
	if err != nil {
		st.Close()
		return nil, "", err
	}
	if len(some) > 0 {
		return st, "", nil
	}
	n, left, err := ImportJSON(ctx, st, old, t, ev)
	if err != nil {
		return st, fmt.Sprintf("the old cache %s was not imported: %v", old, err), nil
	}
	return st, fmt.Sprintf("imported %d evaluations of the old cache %s into %s (%d of other specs or versions left out)", n, old, def, left), nil
}

// tuneStore is a run's view of the store: the records of its workloads, loaded at the start,
// and the writes of this run.
type tuneStore struct {
	st            store.Store
	target, model string
	host          string
	mu            sync.Mutex
	have          map[store.Key]store.Record
	err           error // the first failed read or write
	none          bool  // no store: every candidate is evaluated
}

func newTuneStore(opt Options, subs []*op.Spec) (*tuneStore, error) {
	t := &tuneStore{st: opt.Store, target: opt.Target.Name(), model: opt.Eval.Version(), host: store.Host(),
		have: map[store.Key]store.Record{}, none: opt.Store == nil}
	if t.none {
		return t, nil
	}
	seen := map[string]bool{}
	for _, s := range subs {
		spec := s.String()
		if seen[spec] {
			continue
		}
		seen[spec] = true
		f := store.Filter{Target: t.target, Spec: spec, Generator: StoreVersion, Model: t.model}
		if err := t.st.Each(context.Background(), f, func(r store.Record) error {
			t.have[r.Key()] = r
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *tuneStore) key(spec *op.Spec, s sched.Schedule) store.Key {
	return store.Key{Target: t.target, Spec: spec.String(), Schedule: s.Key(), Generator: StoreVersion, Model: t.model}
}

// get returns the stored record of a candidate: loaded at the start, or written since by
// another tuner sharing the store.
func (t *tuneStore) get(spec *op.Spec, s sched.Schedule) (store.Record, bool) {
	if t.none {
		return store.Record{}, false
	}
	k := t.key(spec, s)
	t.mu.Lock()
	r, ok := t.have[k]
	t.mu.Unlock()
	if ok {
		return r, true
	}
	r, ok, err := t.st.Get(context.Background(), k)
	if err != nil {
		t.fail(err)
		return store.Record{}, false
	}
	return r, ok
}

// put writes a record (in its own transaction, so that a tuner killed later keeps it).
func (t *tuneStore) put(r store.Record) {
	if t.none {
		return
	}
	if err := t.st.Put(context.Background(), r); err != nil {
		t.fail(err)
		return
	}
	t.mu.Lock()
	t.have[r.Key()] = r
	t.mu.Unlock()
}

func (t *tuneStore) fail(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.mu.Unlock()
}

// record makes the record of a candidate evaluated now.
func (t *tuneStore) record(spec *op.Spec, s sched.Schedule, ev Eval, refusal string, wall time.Duration) store.Record {
	k := t.key(spec, s)
	return store.Record{Target: k.Target, Spec: k.Spec, Schedule: k.Schedule, Generator: k.Generator, Model: k.Model,
		Cycles: ev.Cycles, Spills: int64(ev.Spills), Stalls: ev.Stalls, Refusal: refusal,
		Wall: wall, Host: t.host, Time: time.Now().UTC()}
}

// outcome is what a record says about a candidate: its cost, or the refusal as an error (the
// stage's prefix removed).
func outcome(r store.Record) (Eval, error) {
	if !r.Refused() {
		return Eval{Cycles: r.Cycles, Spills: int(r.Spills), Stalls: r.Stalls}, nil
	}
	msg := r.Refusal
	for _, p := range []string{refusedGenerator, refusedModel, refusedPruned} {
		msg = strings.TrimPrefix(msg, p)
	}
	return Eval{}, errors.New(msg)
}

// variant returns the outcome of one schedule of a candidate: from the store, or generated and
// evaluated now (then stored). prog, if not nil, is the schedule's program already generated.
// fresh reports that the record was made now.
func (t *tuneStore) variant(opt Options, spec *op.Spec, s sched.Schedule) (rec store.Record, prog compiler.Program, fresh bool) {
	if r, ok := t.get(spec, s); ok {
		return r, nil, false
	}
	start := time.Now()
	p, err := opt.Target.Generate(spec, s)
	if err != nil {
		rec = t.record(spec, s, Eval{}, refusedGenerator+err.Error(), time.Since(start))
	} else if ev, err := opt.Eval.Evaluate(p); err != nil {
		rec = t.record(spec, s, Eval{}, refusedModel+err.Error(), time.Since(start))
	} else {
		rec = t.record(spec, s, ev, "", time.Since(start))
	}
	t.put(rec)
	return rec, p, true
}

// candidate settles one candidate of the space: the schedule itself, then, where the back end
// has nested loops to flatten, the variant with the outer loops unrolled into straight-line
// copies of the pipelined loop (no outer-loop set-up; bounded by program memory), or only that
// for a back end without nested loops. The faster is kept in j. Every variant's record is read
// from the store or written to it, so that a second run generates and evaluates nothing.
func (t *tuneStore) candidate(opt Options, spec *op.Spec, j *job) {
	if opt.StoredOnly {
		t.storedOnly(spec, j)
		return
	}
	base, prog, fresh := t.variant(opt, spec, j.s)
	j.fresh = fresh
	j.rec = base
	j.ev, j.err = outcome(base)
	if strings.HasPrefix(base.Refusal, refusedGenerator) {
		return
	}
	nested := j.err != nil && strings.Contains(j.err.Error(), "nested loops")
	if j.err != nil && !nested {
		return
	}
	fs := j.s
	fs.Flat = true
	flat, ok := t.get(spec, fs)
	if !ok {
		if prog == nil {
			var err error
			if prog, err = opt.Target.Generate(spec, j.s); err != nil {
				return // the generator refused now what it built before: keep the record
			}
		}
		if nested || len(prog.LoopNest()) > 1 && prog.OuterIterations() <= MaxFlatCopies {
			flat, _, _ = t.variant(opt, spec, fs)
		} else {
			why := "the pipelined loop is the only loop"
			if len(prog.LoopNest()) > 1 {
				why = fmt.Sprintf("%d copies of the pipelined loop exceed the %d flattening allows", prog.OuterIterations(), MaxFlatCopies)
			}
			flat = t.record(spec, fs, Eval{}, refusedPruned+why, 0)
			t.put(flat)
		}
		j.fresh = true
	}
	if ev, err := outcome(flat); err == nil && (j.err != nil || ev.Cycles < j.ev.Cycles) {
		j.s, j.ev, j.err, j.rec = fs, ev, nil, flat
	}
}

// verified records the verification of a winner in its record.
func (t *tuneStore) verified(r store.Record, ok bool) {
	if t.none || r.Verified == ok || r.Target == "" {
		return
	}
	r.Verified = ok
	t.put(r)
}

// StoredSpec is a spec under which the store keeps a workload's records for target t: its first
// block's (the whole spec when the data fit the target's memory; see Result.Block).
func StoredSpec(s *op.Spec, t compiler.Target) string {
	bs, err := blocks(s, t.MemLimit())
	if err != nil || len(bs) == 0 {
		return s.String()
	}
	return bs[0].spec.String()
}

// storedOnly settles a candidate from its records alone (Options.StoredOnly): the schedule and,
// if recorded, its flattened variant; a candidate without a record of its own is missing.
func (t *tuneStore) storedOnly(spec *op.Spec, j *job) {
	base, ok := t.get(spec, j.s)
	if !ok {
		j.missing = true
		return
	}
	j.rec = base
	j.ev, j.err = outcome(base)
	fs := j.s
	fs.Flat = true
	if flat, ok := t.get(spec, fs); ok {
		if ev, err := outcome(flat); err == nil && (j.err != nil || ev.Cycles < j.ev.Cycles) {
			j.s, j.ev, j.err, j.rec = fs, ev, nil, flat
		}
	}
}
