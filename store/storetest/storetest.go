// Package storetest is the conformance suite every tuning-store backend passes (as gonum's
// blas/testblas is for BLAS implementations), and a throw-away PostgreSQL server to run it on.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/sumacdev/sumac/store"
)

// Fresh makes a new, empty store location and returns a function that opens a handle on it;
// every call of open is another handle on the same records (as another process would have).
type Fresh func(t *testing.T) (open func() (store.Store, error))

// Run runs the conformance suite on the backend that fresh makes.
func Run(t *testing.T, fresh Fresh) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open func() (store.Store, error))
	}{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"Replace", testReplace},
		{"AllOrNothing", testAllOrNothing},
		{"Query", testQuery},
		{"EachStops", testEachStops},
		{"Stats", testStats},
		{"Concurrent", testConcurrent},
		{"TwoHandles", testTwoHandles},
		{"Reopen", testReopen},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, fresh(t)) })
	}
}

var ctx = context.Background()

func mustOpen(t *testing.T, open func() (store.Store, error)) store.Store {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// at is a fixed time with nanoseconds, to check they are kept.
var at = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

// rec is a record with every field set.
func rec(target, spec, schedule string, cycles int64) store.Record {
	return store.Record{Target: target, Spec: spec, Schedule: schedule, Generator: "gen-1", Model: "model-1",
		Cycles: cycles, Spills: 2, Stalls: 3, Wall: 1234567 * time.Nanosecond, Host: "host-a", Time: at}
}

func testEmpty(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 0 || st.Targets == nil || len(st.Targets) != 0 || st.First != nil {
		t.Errorf("empty store: %+v", st)
	}
	if st.Backend != s.Backend() || s.Backend() == "" || s.Location() == "" {
		t.Errorf("backend %q, stats say %q, location %q", s.Backend(), st.Backend, s.Location())
	}
	if _, ok, err := s.Get(ctx, key("t", "s", "k", "g", "m")); ok || err != nil {
		t.Errorf("Get on an empty store: %v %v", ok, err)
	}
	rs, err := store.Query(ctx, s, store.Filter{})
	if err != nil || len(rs) != 0 {
		t.Errorf("Query on an empty store: %d records, %v", len(rs), err)
	}
	if err := s.Put(ctx); err != nil {
		t.Errorf("Put of nothing: %v", err)
	}
}

func testRoundTrip(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	recs := []store.Record{
		rec("aie1", "conv2d x=32 y=2 r=3 s=3 dtype=int16", "vec=x order=yxk ux=2", 1000),
		rec("aie1", "conv2d x=32 y=2 r=3 s=3 dtype=int16", "vec=k flat=1", 0),
		// Odd text: quotes, a comma, a semicolon, non-ASCII, a long schedule.
		rec("x'y\"z", "spec, with; odd ’text’", fmt.Sprintf("%0500d", 7), 1<<40),
	}
	recs[1].Refusal = "4200 instructions exceed the 4096 of program memory"
	recs[1].Verified = false
	recs[0].Verified = true
	if err := s.Put(ctx, recs...); err != nil {
		t.Fatal(err)
	}
	for _, want := range recs {
		got, ok, err := s.Get(ctx, want.Key())
		if err != nil || !ok {
			t.Fatalf("Get %v: %v %v", want.Key(), ok, err)
		}
		if !got.Time.Equal(want.Time) || got.Time.Location() != time.UTC {
			t.Errorf("time %v, want %v in UTC", got.Time, want.Time)
		}
		got.Time = want.Time
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
		}
	}
	// A key differing in any one part is another record.
	k := recs[0].Key()
	for _, other := range []store.Key{key("aie2", k.Spec, k.Schedule, k.Generator, k.Model), key(k.Target, k.Spec+" ", k.Schedule, k.Generator, k.Model),
		key(k.Target, k.Spec, k.Schedule, "gen-2", k.Model), key(k.Target, k.Spec, k.Schedule, k.Generator, "model-2")} {
		if _, ok, err := s.Get(ctx, other); ok || err != nil {
			t.Errorf("Get %v found a record (%v)", other, err)
		}
	}
}

func testReplace(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	r := rec("aie1", "spec", "sched", 500)
	if err := s.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Cycles, r.Verified, r.Host, r.Time = 400, true, "host-b", at.Add(time.Hour)
	if err := s.Put(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, _, _ := s.Get(ctx, r.Key())
	if got.Cycles != 400 || !got.Verified || got.Host != "host-b" || !got.Time.Equal(r.Time) {
		t.Errorf("after replacing: %+v", got)
	}
	if st, _ := s.Stats(ctx); st.Records != 1 {
		t.Errorf("%d records after replacing one, want 1", st.Records)
	}
	// The same key twice in one Put: one record.
	r2 := r
	r2.Cycles = 300
	if err := s.Put(ctx, r, r2); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Stats(ctx); st.Records != 1 {
		t.Errorf("%d records, want 1", st.Records)
	}
}

func testAllOrNothing(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	good := rec("aie1", "spec", "a", 1)
	for _, bad := range []store.Record{{Spec: "spec", Schedule: "b", Generator: "g", Model: "m"}, rec("aie1", "spec", "c", -1)} {
		if err := s.Put(ctx, good, bad); err == nil {
			t.Errorf("Put of %+v succeeded", bad)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Put(cctx, good); err == nil {
		t.Error("Put with a cancelled context succeeded")
	}
	if st, _ := s.Stats(ctx); st.Records != 0 {
		t.Errorf("%d records after failed Puts, want 0", st.Records)
	}
}

// corpus is a set of records over two targets, three specs, refusals, verified records and two
// hosts, in an order that is not the key order (and with upper case, which sorts first).
func corpus() []store.Record {
	var out []store.Record
	n := int64(0)
	for _, target := range []string{"xdna1", "aie1"} {
		for _, spec := range []string{"conv2d x=64", "Conv2d x=8", "conv2d x=16"} {
			for _, sc := range []string{"vec=y", "vec=x", "vec=k flat=1", "Vec=x"} {
				n++
				r := rec(target, spec, sc, 100+n*7%13)
				if n%3 == 0 {
					r.Cycles, r.Refusal = 0, fmt.Sprintf("refused %d", n)
				}
				r.Verified = n%5 == 1
				if n%2 == 0 {
					r.Host = "host-b"
				}
				r.Time = at.Add(time.Duration(n) * time.Second)
				out = append(out, r)
			}
		}
	}
	return out
}

// want selects and orders records as Each must.
func want(all []store.Record, f store.Filter) []store.Record {
	var out []store.Record
	for _, r := range all {
		eq := func(w, g string) bool { return w == "" || w == g }
		if !eq(f.Target, r.Target) || !eq(f.Spec, r.Spec) || !eq(f.Schedule, r.Schedule) || !eq(f.Generator, r.Generator) || !eq(f.Model, r.Model) || !eq(f.Host, r.Host) {
			continue
		}
		if f.Status == store.OK && r.Refused() || f.Status == store.Refused && !r.Refused() || f.Status == store.Verified && !r.Verified {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Key(), out[j].Key()
		x := []string{a.Target, a.Spec, a.Schedule, a.Generator, a.Model}
		y := []string{b.Target, b.Spec, b.Schedule, b.Generator, b.Model}
		for k := range x {
			if x[k] != y[k] {
				return x[k] < y[k] // byte-wise
			}
		}
		return false
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out
}

func keys(rs []store.Record) []store.Key {
	out := []store.Key{}
	for _, r := range rs {
		out = append(out, r.Key())
	}
	return out
}

func testQuery(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	all := corpus()
	if err := s.Put(ctx, all...); err != nil {
		t.Fatal(err)
	}
	for _, f := range []store.Filter{
		{},
		{Target: "aie1"},
		{Target: "aie1", Spec: "Conv2d x=8"},
		{Schedule: "vec=x"},
		{Host: "host-b", Status: store.OK},
		{Status: store.Refused},
		{Status: store.Verified},
		{Target: "xdna1", Limit: 5},
		{Limit: 1},
		{Generator: "gen-2"},
		{Target: "aie1", Spec: "conv2d x=16", Schedule: "vec=y", Generator: "gen-1", Model: "model-1"},
	} {
		got, err := store.Query(ctx, s, f)
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		if w := want(all, f); !reflect.DeepEqual(keys(got), keys(w)) {
			t.Errorf("filter %+v:\n got %v\nwant %v", f, keys(got), keys(w))
		}
	}
	if _, err := store.Query(ctx, s, store.Filter{Status: "bogus"}); err == nil {
		t.Error("an unknown status was accepted")
	}
}

func testEachStops(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	if err := s.Put(ctx, corpus()...); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	err := s.Each(ctx, store.Filter{}, func(store.Record) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Errorf("Each returned %v after %d records, want the callback's error after 3", err, n)
	}
}

func testStats(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	all := corpus()
	if err := s.Put(ctx, all...); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var refused, verified int64
	first, last := all[0].Time, all[0].Time
	for _, r := range all {
		if r.Refused() {
			refused++
		}
		if r.Verified {
			verified++
		}
		if r.Time.Before(first) {
			first = r.Time
		}
		if r.Time.After(last) {
			last = r.Time
		}
	}
	if st.Records != int64(len(all)) || st.Refused != refused || st.Verified != verified || st.Hosts != 2 {
		t.Errorf("stats %+v, want %d records, %d refused, %d verified, 2 hosts", st, len(all), refused, verified)
	}
	wantT := []store.TargetStats{{Target: "aie1", Records: 12, Specs: 3}, {Target: "xdna1", Records: 12, Specs: 3}}
	if !reflect.DeepEqual(st.Targets, wantT) {
		t.Errorf("targets %+v, want %+v", st.Targets, wantT)
	}
	if st.First == nil || st.Last == nil || !st.First.Equal(first) || !st.Last.Equal(last) {
		t.Errorf("first %v last %v, want %v %v", st.First, st.Last, first, last)
	}
	if st.Backend != s.Backend() || st.Path == "" && st.DSN == "" && s.Backend() != "memory" {
		t.Errorf("stats name backend %q, path %q, dsn %q", st.Backend, st.Path, st.DSN)
	}
}

// testConcurrent: goroutines writing at once, some to the same keys, lose nothing.
func testConcurrent(t *testing.T, open func() (store.Store, error)) {
	s := mustOpen(t, open)
	const workers, puts = 6, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < puts; i++ {
				own := rec("aie1", fmt.Sprintf("spec-%d", w), fmt.Sprintf("s%03d", i), int64(i))
				shared := rec("aie1", "shared", fmt.Sprintf("s%03d", i), int64(w))
				if err := s.Put(ctx, own, shared); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st, _ := s.Stats(ctx); st.Records != workers*puts+puts {
		t.Errorf("%d records, want %d", st.Records, workers*puts+puts)
	}
}

// testTwoHandles: two handles (as two processes) see each other's writes and can write at once.
func testTwoHandles(t *testing.T, open func() (store.Store, error)) {
	a, b := mustOpen(t, open), mustOpen(t, open)
	if err := a.Put(ctx, rec("aie1", "spec", "from-a", 1)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := b.Get(ctx, key("aie1", "spec", "from-a", "gen-1", "model-1")); !ok || err != nil {
		t.Fatalf("the second handle does not see the first's record: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range []store.Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 30 && errs[i] == nil; j++ {
				errs[i] = s.Put(ctx, rec("aie1", "spec", fmt.Sprintf("h%d-%02d", i, j), int64(j)), rec("aie1", "spec", fmt.Sprintf("both-%02d", j), int64(i)))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []store.Store{a, b} {
		if st, _ := s.Stats(ctx); st.Records != 1+60+30 {
			t.Errorf("%d records, want 91", st.Records)
		}
	}
}

func testReopen(t *testing.T, open func() (store.Store, error)) {
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	all := corpus()
	if err := s.Put(ctx, all...); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, open)
	got, err := store.Query(ctx, s, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys(got), keys(want(all, store.Filter{}))) {
		t.Errorf("after reopening: %d records, want %d", len(got), len(all))
	}
}

func testClosed(t *testing.T, open func() (store.Store, error)) {
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Put(ctx, rec("aie1", "spec", "x", 1)); err == nil {
		t.Error("Put on a closed store succeeded")
	}
	if _, _, err := s.Get(ctx, key("aie1", "spec", "x", "gen-1", "model-1")); err == nil {
		t.Error("Get on a closed store succeeded")
	}
}

func key(target, spec, schedule, generator, model string) store.Key {
	return store.Key{Target: target, Spec: spec, Schedule: schedule, Generator: generator, Model: model}
}
