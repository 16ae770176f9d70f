package xdna

import (
	"context"
	"time"

	"github.com/sumacdev/sumac/store"
)

// The tuning store's versions of XDNA records (compiler/tune's conventions: a record per
// target, spec, schedule, generator version and model version). GenVersion changes when the
// generator can produce a different kernel for the same choice, ModelVersion when the cycle
// engine or an Arch's numbers can change a kernel's count.
const (
	GenVersion   = "xdna-gen-2"
	ModelVersion = "xdna-engine-1"
)

// schedule is a choice's store key: the choice and, when the kernel accumulates, "acc".
func schedule(c Choice, opt Options) string {
	if opt.Accumulate {
		return c.String() + " out+=AB"
	}
	return c.String()
}

// TuneStored is Tune with a tuning store: candidates the store has for this target, spec,
// choice and versions are taken from it, the others are evaluated and written to it. st nil:
// every candidate is evaluated and nothing is kept. It returns the candidates best first, how
// many were evaluated here and how many came from the store.
func TuneStored(ctx context.Context, st store.Store, a *Arch, spec string, opt Options) (cands []Candidate, evaluated, stored int, err error) {
	s, err := parseEinsum(a, spec)
	if err != nil {
		return nil, 0, 0, err
	}
	canon := s.String()
	vmacs := s.Einsum.MACs() / int64(a.MACsPerInstr())
	key := func(c Choice) store.Key {
		return store.Key{Target: a.Name, Spec: canon, Schedule: schedule(c, opt), Generator: GenVersion, Model: ModelVersion}
	}
	var have func(Choice) (Candidate, bool)
	if st != nil {
		have = func(c Choice) (Candidate, bool) {
			r, ok, err := st.Get(ctx, key(c))
			if err != nil || !ok {
				return Candidate{}, false
			}
			stored++
			return fromRecord(c, r, vmacs), true
		}
	}
	start := time.Now()
	cands, evaluated, err = Tune(a, canon, opt, have)
	if st != nil && evaluated > 0 {
		wall := time.Since(start) / time.Duration(evaluated)
		var recs []store.Record
		for _, c := range cands {
			if c.Stored {
				continue
			}
			recs = append(recs, toRecord(key(c.Choice), c, wall))
		}
		if perr := st.Put(ctx, recs...); perr != nil && err == nil {
			err = perr
		}
	}
	return cands, evaluated, stored, err
}

func toRecord(k store.Key, c Candidate, wall time.Duration) store.Record {
	return store.Record{Target: k.Target, Spec: k.Spec, Schedule: k.Schedule, Generator: k.Generator, Model: k.Model,
		Cycles: c.Cycles, Stalls: c.Stalls, Verified: c.Verified, Refusal: c.Refusal,
		Wall: wall, Host: store.Host(), Time: time.Now().UTC()}
}

// fromRecord rebuilds a candidate: a record holds cycles and stalls; the bundles issued are
// cycles - stalls and the VMAC.F count is the spec's MACs over the mode's.
func fromRecord(c Choice, r store.Record, vmacs int64) Candidate {
	x := Candidate{Choice: c, Cycles: r.Cycles, Stalls: r.Stalls, Verified: r.Verified, Refusal: r.Refusal, Stored: true}
	if x.Refusal == "" {
		x.Instructions, x.VMACs = r.Cycles-r.Stalls, vmacs
		if x.Instructions > 0 {
			x.Utilization = float64(x.VMACs) / float64(x.Instructions)
		}
	}
	return x
}
