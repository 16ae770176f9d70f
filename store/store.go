// Package store keeps tuning records: one row per evaluated candidate (target, spec, schedule,
// generator and model versions, cycles, verification, refusal reason, wall time, host, time),
// behind one interface with three backends:
//
//   - SQLite (modernc.org/sqlite, pure Go): the embedded default, one file under the user cache
//     directory, in WAL mode with a busy timeout, so that several tuners (processes) can share
//     it and a process killed mid-write leaves it consistent (the unfinished transaction is
//     rolled back when the file is next opened);
//   - PostgreSQL (github.com/jackc/pgx/v5): a store shared by tuners on several machines;
//   - memory: for tests and runs that keep nothing.
//
// A store is named by a location: "sqlite:PATH", "postgres://..." (or "postgresql://..."),
// or "memory:". Resolve picks the location from a flag, then $SUMAC_STORE, then the default.
// The conformance suite that every backend passes is in package store/storetest.
package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Record is the outcome of evaluating one candidate (a schedule of a spec) for one target with
// one version of the generator and of the cost model.
type Record struct {
	Target    string `json:"target"`
	Spec      string `json:"spec"`
	Schedule  string `json:"schedule"`
	Generator string `json:"generator"` // the generator's version
	Model     string `json:"model"`     // the cost model's version
	Cycles    int64  `json:"cycles"`
	Spills    int64  `json:"spills"`
	Stalls    int64  `json:"stalls"`
	Verified  bool   `json:"verified"` // checked bit for bit against the reference
	// Refusal is why the candidate has no cycles (the generator or the model refused it, or it
	// was pruned); empty for an evaluated candidate.
	Refusal string        `json:"refusal,omitempty"`
	Wall    time.Duration `json:"wall_ns"` // time spent producing the record
	Host    string        `json:"host"`
	Time    time.Time     `json:"time"` // when the record was produced
}

// Key identifies a record: a store holds at most one record per key.
type Key struct {
	Target, Spec, Schedule, Generator, Model string
}

// Key returns the record's key.
func (r *Record) Key() Key { return Key{r.Target, r.Spec, r.Schedule, r.Generator, r.Model} }

// Refused reports whether the candidate has no cycles.
func (r *Record) Refused() bool { return r.Refusal != "" }

// check reports a record that cannot be stored.
func (r *Record) check() error {
	k := r.Key()
	for _, f := range []struct{ name, v string }{{"target", k.Target}, {"spec", k.Spec}, {"schedule", k.Schedule}, {"generator", k.Generator}, {"model", k.Model}} {
		if f.v == "" {
			return fmt.Errorf("store: record without %s", f.name)
		}
	}
	if r.Cycles < 0 || r.Spills < 0 || r.Stalls < 0 || r.Wall < 0 {
		return fmt.Errorf("store: record %v has negative counts", k)
	}
	return nil
}

// Status selects records by outcome in a Filter.
type Status string

const (
	Any      Status = ""
	OK       Status = "ok"       // evaluated (no refusal)
	Refused  Status = "refused"  // refused or pruned
	Verified Status = "verified" // verified bit for bit
)

// ParseStatus parses a Status ("", "any", "ok", "refused", "verified").
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case Any, "any":
		return Any, nil
	case OK, Refused, Verified:
		return Status(s), nil
	}
	return "", fmt.Errorf("status %q: want any, ok, refused or verified", s)
}

// Filter selects records; empty fields match everything.
type Filter struct {
	Target, Spec, Schedule, Generator, Model, Host string
	Status                                         Status
	Limit                                          int // at most this many records (0: all)
}

// TargetStats counts the records of one target.
type TargetStats struct {
	Target  string `json:"target"`
	Records int64  `json:"records"`
	Specs   int64  `json:"specs"`
}

// Stats summarizes a store.
type Stats struct {
	Backend  string        `json:"backend"`
	Path     string        `json:"path,omitempty"` // SQLite: the database file
	DSN      string        `json:"dsn,omitempty"`  // PostgreSQL: the connection string, password removed
	Records  int64         `json:"records"`
	Refused  int64         `json:"refused"`
	Verified int64         `json:"verified"`
	Hosts    int64         `json:"hosts"`
	Targets  []TargetStats `json:"targets"`
	First    *time.Time    `json:"first,omitempty"` // the oldest and newest record
	Last     *time.Time    `json:"last,omitempty"`
}

// Store is a tuning store. Its methods are safe for concurrent use, and several processes may
// open the same store at once.
type Store interface {
	// Put writes records in one transaction: all or none are stored. A record whose key is
	// already stored replaces it.
	Put(ctx context.Context, recs ...Record) error
	// Get returns the record stored under k.
	Get(ctx context.Context, k Key) (Record, bool, error)
	// Each calls fn for every record that f selects, in key order (target, spec, schedule,
	// generator, model), and stops at fn's first error, which it returns.
	Each(ctx context.Context, f Filter, fn func(Record) error) error
	// Stats summarizes the store.
	Stats(ctx context.Context) (Stats, error)
	// Backend is "sqlite", "postgres" or "memory".
	Backend() string
	// Location names the store as Open accepts it (a PostgreSQL password removed).
	Location() string
	Close() error
}

// Query returns the records that f selects, in key order.
func Query(ctx context.Context, s Store, f Filter) ([]Record, error) {
	var out []Record
	err := s.Each(ctx, f, func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Env is the environment variable that names the store when no flag does.
const Env = "SUMAC_STORE"

// DefaultPath is the SQLite default: tune.db in the sumac folder of the user cache directory.
func DefaultPath() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("store: no user cache directory (%v); name a store with --store or $%s", err, Env)
	}
	return filepath.Join(d, "sumac", "tune.db"), nil
}

// Resolve returns the location to open: loc if given, else $SUMAC_STORE, else the SQLite
// default.
func Resolve(loc string) (string, error) {
	if loc != "" {
		return loc, nil
	}
	if e := os.Getenv(Env); e != "" {
		return e, nil
	}
	p, err := DefaultPath()
	if err != nil {
		return "", err
	}
	return "sqlite:" + p, nil
}

// ErrLocation reports a location Open does not understand.
var ErrLocation = errors.New("store: want sqlite:PATH, postgres://... or memory:")

// Open opens (creating if needed) the store at loc.
func Open(ctx context.Context, loc string) (Store, error) {
	switch {
	case strings.HasPrefix(loc, "sqlite:"):
		p := strings.TrimPrefix(loc, "sqlite:")
		if p == "" {
			return nil, fmt.Errorf("%w: %q has no path", ErrLocation, loc)
		}
		return openSQLite(ctx, p)
	case strings.HasPrefix(loc, "postgres://"), strings.HasPrefix(loc, "postgresql://"):
		return openPostgres(ctx, loc)
	case loc == "memory:":
		return NewMemory(), nil
	}
	return nil, fmt.Errorf("%w (got %q)", ErrLocation, loc)
}

// Host names this machine in records (the host name, or "unknown").
func Host() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return h
}

// SpecSummary is the records of one spec for one target and versions, and its fastest
// candidate.
type SpecSummary struct {
	Target    string `json:"target"`
	Spec      string `json:"spec"`
	Generator string `json:"generator"`
	Model     string `json:"model"`
	Records   int    `json:"records"`
	Refused   int    `json:"refused"`
	Best      string `json:"best_schedule,omitempty"` // fewest cycles, ties broken by the schedule
	Cycles    int64  `json:"best_cycles,omitempty"`
	Verified  bool   `json:"best_verified"`
}

// Summarize groups the records f selects by target, spec and versions.
func Summarize(ctx context.Context, s Store, f Filter) ([]SpecSummary, error) {
	f.Limit = 0
	idx := map[[4]string]int{}
	var out []SpecSummary
	err := s.Each(ctx, f, func(r Record) error {
		k := [4]string{r.Target, r.Spec, r.Generator, r.Model}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, SpecSummary{Target: r.Target, Spec: r.Spec, Generator: r.Generator, Model: r.Model})
		}
		g := &out[i]
		g.Records++
		if r.Refused() {
			g.Refused++
			return nil
		}
		if g.Best == "" || r.Cycles < g.Cycles || r.Cycles == g.Cycles && r.Schedule < g.Best {
			g.Best, g.Cycles, g.Verified = r.Schedule, r.Cycles, r.Verified
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.Spec < b.Spec
	})
	return out, err
}
