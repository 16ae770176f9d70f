package tune

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
	"github.com/sumacdev/sumac/store"
)

// legacyKey is the key of the old JSON cache: a hash of generator version, model version, spec
// and schedule.
func legacyKey(s *op.Spec, sc sched.Schedule, model string) string {
	h := sha256.Sum256([]byte(StoreVersion + "\x00" + model + "\x00" + s.String() + "\x00" + sc.Key()))
	return hex.EncodeToString(h[:16])
}

// ImportJSON copies the evaluations of the old JSON cache at path into st as records of
// target t. The cache kept only a hash of each evaluation's spec and schedule, so the keys are
// found again by hashing every candidate (and its flattened variant) of every conv2d workload
// of the built-in suites with the default bounds, under ev's model version; the entries of
// other specs (tuned from a SPEC), bounds or versions are left out and counted in left. The file
// is only read.
func ImportJSON(ctx context.Context, st store.Store, path string, t compiler.Target, ev Evaluator) (imported, left int, err error) {
	if ev == nil {
		ev = targetEval{t}
	}
	maxVectors, maxBody := t.Bounds()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var old map[string]Eval
	if err := json.Unmarshal(b, &old); err != nil {
		return 0, 0, fmt.Errorf("%s is not the old cache: %v", path, err)
	}
	when := time.Now().UTC()
	if fi, err := os.Stat(path); err == nil {
		when = fi.ModTime().UTC()
	}
	model := ev.Version()
	var recs []store.Record
	seen := map[string]bool{}
	for _, name := range suite.Names() {
		s, err := suite.Get(name)
		if err != nil {
			return 0, 0, err
		}
		for _, w := range s.Workloads {
			if w.Spec.Conv == nil {
				continue
			}
			d, _, err := t.Datapath(w.Spec.Types)
			if err != nil {
				continue
			}
			sub, _, err := split(w.Spec, t.MemLimit())
			if err != nil {
				continue
			}
			cands, _ := sched.Space(sub.Conv, d.Shape, maxVectors, maxBody)
			for _, c := range cands {
				fc := c
				fc.Flat = true
				for _, v := range []sched.Schedule{c, fc} {
					k := legacyKey(sub, v, model)
					e, ok := old[k]
					if !ok || seen[k] {
						continue
					}
					seen[k] = true
					r := store.Record{Target: t.Name(), Spec: sub.String(), Schedule: v.Key(), Generator: StoreVersion, Model: model,
						Cycles: e.Cycles, Spills: int64(e.Spills), Stalls: e.Stalls, Host: "imported:" + path, Time: when}
					if e.Err != "" {
						r.Cycles, r.Refusal = 0, refusedModel+e.Err
					}
					recs = append(recs, r)
				}
			}
		}
	}
	if err := st.Put(ctx, recs...); err != nil {
		return 0, 0, err
	}
	return len(recs), len(old) - len(recs), nil
}
