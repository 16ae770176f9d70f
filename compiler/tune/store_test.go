package tune

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
	"github.com/sumacdev/sumac/store"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

// smallWorkloads have spaces of a few dozen candidates each.
func smallWorkloads() []Workload {
	return []Workload{
		{Name: "a", Spec: op.MustParse("conv2d x=32 y=2 r=3 s=3 dtype=int16")},
		{Name: "b", Spec: op.MustParse("conv2d x=16 y=2 k=8 c=8 r=1 s=1 dtype=int32")},
		{Name: "c", Spec: op.MustParse("conv2d x=16 y=1 k=8 c=8 r=1 s=1 dtype=int16")},
	}
}

func sameWinners(t *testing.T, want, got []Result) {
	t.Helper()
	for i := range want {
		if want[i].Schedule != got[i].Schedule || want[i].Cycles != got[i].Cycles || want[i].Legal != got[i].Legal {
			t.Errorf("%s: %s %d cycles (%d legal), then %s %d (%d legal)", want[i].Name, want[i].Schedule, want[i].Cycles, want[i].Legal,
				got[i].Schedule, got[i].Cycles, got[i].Legal)
		}
	}
}

// TestShardsThenFinal: shards fill the store with disjoint shares of the candidates; the run
// without shards then evaluates nothing and picks the winners of a single run.
func TestShardsThenFinal(t *testing.T) {
	ws := smallWorkloads()
	single, err := Run(ws, Options{Target: aie1, Eval: &countEval{}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	const n = 3
	share := make([]int, len(ws))
	for i := 0; i < n; i++ {
		rs, err := Run(ws, Options{Target: aie1, Eval: &countEval{}, Workers: 2, Store: st.Reopen(), Shard: i, Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		for w, r := range rs {
			if r.Schedule != "" || r.Shard == "" || r.Stored != 0 {
				t.Errorf("shard %d, %s: schedule %q, shard %q, %d stored", i, r.Name, r.Schedule, r.Shard, r.Stored)
			}
			share[w] += r.Evaluated
		}
	}
	ev := &countEval{}
	final, err := Run(ws, Options{Target: aie1, Eval: ev, Workers: 2, Store: st, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if ev.calls.Load() != 0 {
		t.Errorf("the final run evaluated %d candidates", ev.calls.Load())
	}
	for w, r := range final {
		if share[w] != r.Candidates || r.Evaluated != 0 || r.Stored != r.Candidates || !r.Verified {
			t.Errorf("%s: shards evaluated %d of %d; final evaluated %d, stored %d, verified %v", r.Name, share[w], r.Candidates, r.Evaluated, r.Stored, r.Verified)
		}
	}
	sameWinners(t, single, final)
	if _, err := Run(ws, Options{Target: aie1, Eval: ev, Shard: 3, Shards: 3}); err == nil {
		t.Error("shard 3 of 3 accepted")
	}
}

// TestImportJSON: the old cache's entries for suite workloads become records, found again by
// hashing the candidates; a run afterwards evaluates only what the cache did not have.
func TestImportJSON(t *testing.T) {
	s, _ := suite.Get("vyasa36")
	w, _ := s.Find("pw-1x1-int16")
	sub, _, err := split(w.Spec, aie1.MemLimit())
	if err != nil {
		t.Fatal(err)
	}
	d, _, _ := aie1.Datapath(sub.Types)
	cands, _ := sched.Space(sub.Conv, d.Shape, vyasa.MaxVectors, vyasa.MaxBodyMACs)
	ev := &countEval{}
	old := map[string]Eval{"0123456789abcdef0123456789abcdef": {Cycles: 5}} // of a spec no suite has
	const kept = 5
	for _, c := range cands[:kept] {
		p, err := aie1.Generate(sub, c)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := ev.Evaluate(p)
		old[legacyKey(sub, c, ev.Version())] = e
	}
	old[legacyKey(sub, cands[kept], ev.Version())] = Eval{Err: "9999 instructions exceed the program memory"}
	path := filepath.Join(t.TempDir(), "tune.json")
	b, _ := json.Marshal(old)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	n, left, err := ImportJSON(context.Background(), st, path, aie1, ev)
	if err != nil || n != kept+1 || left != 1 {
		t.Fatalf("imported %d, left %d, %v; want %d and 1", n, left, err, kept+1)
	}
	refused, _ := store.Query(context.Background(), st, store.Filter{Status: store.Refused})
	if len(refused) != 1 || refused[0].Refusal != refusedModel+"9999 instructions exceed the program memory" || refused[0].Schedule != cands[kept].Key() {
		t.Errorf("refused records %+v", refused)
	}
	if after, _ := os.ReadFile(path); string(after) != string(b) {
		t.Error("the old cache was changed")
	}
	ev.calls.Store(0)
	rs, err := Run([]Workload{{Name: w.Name, Spec: w.Spec}}, Options{Target: aie1, Eval: ev, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.calls.Load(); got == 0 || got > int64(2*(len(cands)-kept-1)) {
		t.Errorf("after the import the run evaluated %d programs for %d new candidates", got, len(cands)-kept-1)
	}
	if rs[0].Evaluated+rs[0].Stored != rs[0].Candidates {
		t.Errorf("evaluated %d + stored %d != %d candidates", rs[0].Evaluated, rs[0].Stored, rs[0].Candidates)
	}
}

// TestOpenStoreImportsOnce: the default store, while empty, takes in the old cache beside it;
// later opens leave the cache alone.
func TestOpenStoreImportsOnce(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv(store.Env, "")
	s, _ := suite.Get("vyasa36")
	w, _ := s.Find("pw-1x1-int16")
	sub, _, _ := split(w.Spec, aie1.MemLimit())
	d, _, _ := aie1.Datapath(sub.Types)
	cands, _ := sched.Space(sub.Conv, d.Shape, vyasa.MaxVectors, vyasa.MaxBodyMACs)
	ev := &countEval{}
	b, _ := json.Marshal(map[string]Eval{legacyKey(sub, cands[0], ev.Version()): {Cycles: 77}})
	os.MkdirAll(filepath.Join(cache, "sumac"), 0o755)
	if err := os.WriteFile(filepath.Join(cache, "sumac", "tune.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"imported 1 evaluations", ""} {
		st, note, err := OpenStore(context.Background(), "", aie1, ev)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" && note != "" || want != "" && !strings.Contains(note, want) {
			t.Errorf("open %d: note %q, want %q", i, note, want)
		}
		if st.Location() != "sqlite:"+filepath.Join(cache, "sumac", "tune.db") {
			t.Errorf("default store at %s", st.Location())
		}
		r, ok, _ := st.Get(context.Background(), store.Key{Target: "aie1", Spec: sub.String(), Schedule: cands[0].Key(), Generator: StoreVersion, Model: ev.Version()})
		if !ok || r.Cycles != 77 {
			t.Errorf("open %d: imported record %+v, %v", i, r, ok)
		}
		st.Close()
	}
}

// slowEval is countEval taking a while per evaluation, so that a run can be killed midway.
type slowEval struct {
	countEval
	d time.Duration
}

func (s *slowEval) Evaluate(p compiler.Program) (Eval, error) {
	time.Sleep(s.d)
	return s.countEval.Evaluate(p)
}

// killHelperEnv names the store the helper process tunes into.
const killHelperEnv = "SUMAC_TUNE_KILL_HELPER"

// TestKillHelper is the process TestKillMidTune kills (it does nothing in a normal run).
func TestKillHelper(t *testing.T) {
	loc := os.Getenv(killHelperEnv)
	if loc == "" {
		t.Skip("run by TestKillMidTune")
	}
	st, err := store.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(smallWorkloads(), Options{Target: aie1, Eval: &slowEval{d: 10 * time.Millisecond}, Workers: 2, Store: st})
	t.Fatalf("the helper was to be killed before it finished (%v)", err)
}

// TestKillMidTune: a tuner killed with SIGKILL while it writes its records leaves a store that
// opens; the next run evaluates only the candidates without records, and picks the winners of a
// run that was never interrupted.
func TestKillMidTune(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a tuner in another process")
	}
	loc := "sqlite:" + filepath.Join(t.TempDir(), "tune.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+loc)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watch := openStore(t, loc)
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := watch.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Records >= 40 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the helper wrote %d records in 60 s: %s", st.Records, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	watch.Close()

	st := openStore(t, loc) // opens after the kill
	before := map[store.Key]time.Time{}
	if err := st.Each(context.Background(), store.Filter{}, func(r store.Record) error {
		before[r.Key()] = r.Time
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ws := smallWorkloads()
	var total int
	ev := &countEval{}
	rs, err := Run(ws, Options{Target: aie1, Eval: ev, Workers: 2, Store: st, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	var evaluated, stored int
	for _, r := range rs {
		total += r.Candidates
		evaluated += r.Evaluated
		stored += r.Stored
	}
	if evaluated == 0 || stored == 0 || evaluated+stored != total {
		t.Errorf("rerun: evaluated %d, stored %d of %d candidates (the kill came after %d records)", evaluated, stored, total, len(before))
	}
	var rewritten int
	if err := st.Each(context.Background(), store.Filter{}, func(r store.Record) error {
		if at, ok := before[r.Key()]; ok && !at.Equal(r.Time) {
			rewritten++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if rewritten > 0 {
		t.Errorf("the rerun evaluated %d candidates that had records", rewritten)
	}
	t.Logf("killed after %d records; the rerun evaluated %d programs (%d candidates), took %d candidates from the store", len(before), ev.calls.Load(), evaluated, stored)
	whole, err := Run(ws, Options{Target: aie1, Eval: &countEval{}, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	sameWinners(t, whole, rs)
}
