package store

import (
	"context"
	"errors"
	"sort"
	"sync"
)

// memData is the content of a memory store, shared by its handles.
type memData struct {
	mu sync.Mutex
	m  map[Key]Record
}

// Memory is a store in memory: nothing outlives the process. Reopen gives another handle on
// the same records (as a second Open of a file or server would).
type Memory struct {
	d      *memData
	mu     sync.Mutex
	closed bool
}

// NewMemory returns an empty memory store.
func NewMemory() *Memory { return &Memory{d: &memData{m: map[Key]Record{}}} }

// Reopen returns a new handle on the same records.
func (s *Memory) Reopen() *Memory { return &Memory{d: s.d} }

var errClosed = errors.New("store: closed")

func (s *Memory) open() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	return nil
}

func (s *Memory) Put(ctx context.Context, recs ...Record) error {
	if err := s.open(); err != nil {
		return err
	}
	for i := range recs {
		if err := recs[i].check(); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	for _, r := range recs {
		r.Time = r.Time.UTC()
		s.d.m[r.Key()] = r
	}
	return nil
}

func (s *Memory) Get(ctx context.Context, k Key) (Record, bool, error) {
	if err := s.open(); err != nil {
		return Record{}, false, err
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	r, ok := s.d.m[k]
	return r, ok, nil
}

func (s *Memory) Each(ctx context.Context, f Filter, fn func(Record) error) error {
	if err := s.open(); err != nil {
		return err
	}
	if _, _, err := where(f); err != nil {
		return err
	}
	s.d.mu.Lock()
	var sel []Record
	for _, r := range s.d.m {
		if f.match(&r) {
			sel = append(sel, r)
		}
	}
	s.d.mu.Unlock()
	sort.Slice(sel, func(i, j int) bool { return keyLess(sel[i].Key(), sel[j].Key()) })
	if f.Limit > 0 && len(sel) > f.Limit {
		sel = sel[:f.Limit]
	}
	for _, r := range sel {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func (s *Memory) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Backend: "memory", Targets: []TargetStats{}}
	if err := s.open(); err != nil {
		return st, err
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	hosts := map[string]bool{}
	specs := map[string]map[string]bool{}
	recs := map[string]int64{}
	for _, r := range s.d.m {
		st.Records++
		if r.Refused() {
			st.Refused++
		}
		if r.Verified {
			st.Verified++
		}
		hosts[r.Host] = true
		if specs[r.Target] == nil {
			specs[r.Target] = map[string]bool{}
		}
		specs[r.Target][r.Spec] = true
		recs[r.Target]++
		t := r.Time
		if st.First == nil || t.Before(*st.First) {
			st.First = &t
		}
		if st.Last == nil || t.After(*st.Last) {
			st.Last = &t
		}
	}
	st.Hosts = int64(len(hosts))
	for t, n := range recs {
		st.Targets = append(st.Targets, TargetStats{Target: t, Records: n, Specs: int64(len(specs[t]))})
	}
	sort.Slice(st.Targets, func(i, j int) bool { return st.Targets[i].Target < st.Targets[j].Target })
	return st, nil
}

func (s *Memory) Backend() string  { return "memory" }
func (s *Memory) Location() string { return "memory:" }

func (s *Memory) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// match reports whether f selects r (the memory backend's version of the SQL WHERE clause).
func (f *Filter) match(r *Record) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	if !eq(f.Target, r.Target) || !eq(f.Spec, r.Spec) || !eq(f.Schedule, r.Schedule) ||
		!eq(f.Generator, r.Generator) || !eq(f.Model, r.Model) || !eq(f.Host, r.Host) {
		return false
	}
	switch f.Status {
	case OK:
		return !r.Refused()
	case Refused:
		return r.Refused()
	case Verified:
		return r.Verified
	}
	return true
}

// keyLess orders keys as the SQL backends do (byte-wise: COLLATE "C" on PostgreSQL).
func keyLess(a, b Key) bool {
	for _, p := range [][2]string{{a.Target, b.Target}, {a.Spec, b.Spec}, {a.Schedule, b.Schedule}, {a.Generator, b.Generator}, {a.Model, b.Model}} {
		if p[0] != p[1] {
			return p[0] < p[1]
		}
	}
	return false
}
