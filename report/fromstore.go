package report

import (
	"context"
	"encoding/json"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/tune"
	"github.com/sumacdev/sumac/op/suite"
	"github.com/sumacdev/sumac/store"
)

// TuneFromStore rebuilds the tune document of a suite from the tuning store, so that a report
// drawn after `sumac tune --suite NAME` needs no JSON file of it: the store holds every
// candidate's record, so choosing the winners again evaluates nothing. It does so only when the
// store has the record of every candidate of every workload of the suite for target t (found
// false otherwise): a report never starts a tuning run, and a partial space could choose other
// winners than the tune run did.
func TuneFromStore(ctx context.Context, st store.Store, t compiler.Target, suiteName string, workers int) (doc *Doc, found bool, err error) {
	s, err := suite.Get(suiteName)
	if err != nil {
		return nil, false, err
	}
	ws, err := tune.FromSuite(s)
	if err != nil {
		return nil, false, err
	}
	for _, w := range ws {
		rs, err := store.Query(ctx, st, store.Filter{Target: t.Name(), Spec: tune.StoredSpec(w.Spec, t), Limit: 1})
		if err != nil {
			return nil, false, err
		}
		if len(rs) == 0 {
			return nil, false, nil
		}
	}
	rs, err := tune.Run(ws, tune.Options{Target: t, Store: st, Workers: workers, Verify: true, StoredOnly: true})
	if err != nil {
		return nil, false, nil // some workload has no stored candidate that fits
	}
	for _, r := range rs {
		if r.Missing > 0 {
			return nil, false, nil // a partial space could choose another winner
		}
	}
	b, err := json.Marshal(rs)
	if err != nil {
		return nil, false, err
	}
	doc, err = Parse(st.Location()+" ("+suiteName+")", b)
	return doc, err == nil, err
}
