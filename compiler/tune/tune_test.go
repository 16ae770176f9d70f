package tune

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
	"github.com/sumacdev/sumac/store"
	"github.com/sumacdev/sumac/target/aie1/compile"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

// aie1 is the target the tests tune for (its generator and exact check; the cost is a stand-in).
var aie1 = compile.Target{}

// countEval is a stand-in cost for testing the tuner's machinery (not a performance model):
// one cycle per vector MAC plus one per register load in the kernel text.
type countEval struct{ calls atomic.Int64 } // the tuner evaluates in parallel

func (c *countEval) Version() string { return "count-1" }
func (c *countEval) Evaluate(cp compiler.Program) (Eval, error) {
	c.calls.Add(1)
	p := cp.(*vyasa.Program)
	return Eval{Cycles: p.VectorMACs + int64(len(p.Fused.XBufs)+len(p.Fused.ZBufs))}, nil
}

func TestSplitFC(t *testing.T) {
	s, err0 := suite.Get("vyasa36")
	if err0 != nil {
		t.Fatal(err0)
	}
	w, _ := s.Find("fc-int32")
	sub, n, err := split(w.Spec, 120<<10)
	if err != nil {
		t.Fatal(err)
	}
	// int32 FC: 128 KiB of weights + 16 KiB of outputs do not fit 120 KB; two calls do.
	if n != 2 || sub.Conv.K != 2048 {
		t.Errorf("split into %d calls of k=%d, want 2 of 2048", n, sub.Conv.K)
	}
	w16, _ := s.Find("fc-int16")
	if _, n, _ := split(w16.Spec, 120<<10); n != 1 {
		t.Errorf("int16 FC split into %d calls, want 1", n)
	}
}

func TestRunDeterministicAndCached(t *testing.T) {
	ws := []Workload{
		{Name: "a", Spec: op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16")},
		{Name: "b", Spec: op.MustParse("conv2d x=16 y=2 k=8 c=8 r=1 s=1 dtype=int32")},
	}
	loc := "sqlite:" + filepath.Join(t.TempDir(), "tune.db")
	st := openStore(t, loc)
	ev := &countEval{}
	r1, err := Run(ws, Options{Target: aie1, Eval: ev, Workers: 2, Store: st, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	first := ev.calls.Load()
	st2 := openStore(t, loc)
	r2, err := Run(ws, Options{Target: aie1, Eval: ev, Workers: 1, Store: st2})
	if err != nil {
		t.Fatal(err)
	}
	if n := ev.calls.Load(); n != first {
		t.Errorf("second run evaluated %d candidates, want all from the store", n-first)
	}
	for i := range r1 {
		if r1[i].Schedule != r2[i].Schedule || r1[i].Cycles != r2[i].Cycles {
			t.Errorf("%s: %s/%d then %s/%d", r1[i].Name, r1[i].Schedule, r1[i].Cycles, r2[i].Schedule, r2[i].Cycles)
		}
		if !r1[i].Verified {
			t.Errorf("%s not verified: %s", r1[i].Name, r1[i].VerifyNote)
		}
		if r1[i].Legal == 0 || r1[i].Evaluated != r1[i].Candidates || r1[i].Stored != 0 || r2[i].Evaluated != 0 || r2[i].Stored != r2[i].Candidates {
			t.Errorf("%s: %d candidates, %d legal; evaluated/stored %d/%d then %d/%d", r1[i].Name, r1[i].Candidates, r1[i].Legal,
				r1[i].Evaluated, r1[i].Stored, r2[i].Evaluated, r2[i].Stored)
		}
	}
	// The winners' records say they were verified.
	for _, r := range r1 {
		k := store.Key{Target: "aie1", Spec: r.Spec, Schedule: r.Schedule, Generator: StoreVersion, Model: ev.Version()}
		if rec, ok, err := st2.Get(context.Background(), k); !ok || err != nil || !rec.Verified || rec.Cycles != r.Cycles {
			t.Errorf("%s: winner's record %+v (%v, %v)", r.Name, rec, ok, err)
		}
	}
}

func TestNoLegalSchedule(t *testing.T) {
	// int16 taps 9 elements apart (dilation 9): every candidate breaks the 16-bit pair rule,
	// and the error says so.
	ws := []Workload{{Name: "d9", Spec: op.MustParse("conv2d x=16 y=1 r=2 s=1 dilation=9 dtype=int16")}}
	if _, err := Run(ws, Options{Target: aie1, Eval: &countEval{}}); err == nil || !strings.Contains(err.Error(), "pair rule") {
		t.Errorf("int16 dilation 9: %v, want the pair rule named", err)
	}
}

func TestRoofline(t *testing.T) {
	// A 3x3 2D convolution reuses every input 9 times: compute-bound at the peak.
	s := op.MustParse("conv2d x=256 y=16 r=3 s=3 xin=264 yin=18 dtype=int16")
	if r := roofline(s, 32, 64, 32); r != 32 {
		t.Errorf("roofline %g, want 32", r)
	}
	// A point-wise layer with one channel has 1 MAC per input and weight load.
	s = op.MustParse("conv2d x=256 y=1 k=1 c=1 r=1 s=1 dtype=int16")
	if r := roofline(s, 32, 64, 32); r != 16 {
		t.Errorf("roofline %g, want 16 (512 output bytes through the 32 B/cycle store unit)", r)
	}
}

func TestGenerateWinner(t *testing.T) {
	s, _ := suite.Get("vyasa36")
	w, _ := s.Find("fc-int32")
	ws := []Workload{{Name: w.Name, Spec: w.Spec}}
	rs, err := Run(ws, Options{Target: aie1, Eval: &countEval{}, MaxBody: 64})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Generate(aie1, ws[0], rs[0])
	if err != nil {
		t.Fatal(err)
	}
	p := cp.(*vyasa.Program)
	if rs[0].Calls != 2 || p.Spec.Conv.K != 2048 || rs[0].CallNote == "" {
		t.Errorf("calls %d, k per call %d, note %q", rs[0].Calls, p.Spec.Conv.K, rs[0].CallNote)
	}
}

// failEval refuses every other candidate, as the model does for kernels too large for the
// program memory; it counts its calls.
type failEval struct {
	mu           sync.Mutex
	calls, fails int
}

func (f *failEval) Version() string { return "fail-1" }
func (f *failEval) Evaluate(cp compiler.Program) (Eval, error) {
	p := cp.(*vyasa.Program)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls%2 == 0 {
		f.fails++
		return Eval{}, fmt.Errorf("%d instructions exceed the program memory", f.calls)
	}
	return Eval{Cycles: p.VectorMACs}, nil
}

// TestRefusalsCached: a candidate the model refused is remembered too, so a second run with
// the same store evaluates nothing and chooses the same schedules.
func TestRefusalsCached(t *testing.T) {
	s, _ := suite.Get("vyasa36")
	var ws []Workload
	for _, name := range []string{"2d-3x3-int16", "pw-1x1-int32"} {
		w, _ := s.Find(name)
		ws = append(ws, Workload{Name: w.Name, Spec: w.Spec})
	}
	loc := "sqlite:" + filepath.Join(t.TempDir(), "tune.db")
	st := openStore(t, loc)
	ev := &failEval{}
	r1, err := Run(ws, Options{Target: aie1, Eval: ev, Workers: 2, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if ev.fails == 0 {
		t.Fatal("no candidate was refused: the test checks nothing")
	}
	st2 := openStore(t, loc)
	ev2 := &failEval{}
	r2, err := Run(ws, Options{Target: aie1, Eval: ev2, Workers: 2, Store: st2})
	if err != nil {
		t.Fatal(err)
	}
	if ev2.calls != 0 {
		t.Errorf("second run evaluated %d candidates, want 0", ev2.calls)
	}
	for i := range r1 {
		if r1[i].Schedule != r2[i].Schedule || r1[i].Cycles != r2[i].Cycles || r1[i].Legal != r2[i].Legal {
			t.Errorf("%s: %s %d cycles (%d legal), then %s %d (%d legal)", r1[i].Name, r1[i].Schedule, r1[i].Cycles, r1[i].Legal, r2[i].Schedule, r2[i].Cycles, r2[i].Legal)
		}
	}
}

func openStore(t *testing.T, loc string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
