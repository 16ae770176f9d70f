package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sumacdev/sumac/store"
	"github.com/sumacdev/sumac/store/storetest"
)

// pg is the server the PostgreSQL conformance run uses (nil: none, pgErr says why).
var (
	pg    *storetest.Postgres
	pgErr error
)

func TestMain(m *testing.M) {
	pg, pgErr = storetest.StartPostgres()
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) func() (store.Store, error) {
		m := store.NewMemory()
		return func() (store.Store, error) { return m.Reopen(), nil }
	})
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) func() (store.Store, error) {
		loc := "sqlite:" + filepath.Join(t.TempDir(), "sub", "tune.db")
		return func() (store.Store, error) { return store.Open(ctx, loc) }
	})
}

func TestPostgres(t *testing.T) {
	if pg == nil {
		if storetest.Required() {
			t.Fatalf("PostgreSQL required ($%s=1): %v", storetest.RequireEnv, pgErr)
		}
		t.Skipf("PostgreSQL conformance not run: %v", pgErr)
	}
	storetest.Run(t, func(t *testing.T) func() (store.Store, error) {
		dsn, err := pg.Fresh()
		if err != nil {
			t.Fatal(err)
		}
		return func() (store.Store, error) { return store.Open(ctx, dsn) }
	})
}

func TestOpenErrors(t *testing.T) {
	for _, loc := range []string{"", "sqlite:", "mysql://x", "/tmp/x.db", "sqlite:/tmp/a?b"} {
		if s, err := store.Open(ctx, loc); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", loc)
		}
	}
	// A file that is not a database is reported, not overwritten.
	p := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(p, []byte("not a database, just text that is long enough to have a header......................................................"), 0o644)
	if s, err := store.Open(ctx, "sqlite:"+p); err == nil {
		s.Close()
		t.Error("opened a file that is not a database")
	}
}

func TestResolve(t *testing.T) {
	t.Setenv(store.Env, "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if loc, _ := store.Resolve(""); loc != "sqlite:/cache/sumac/tune.db" {
		t.Errorf("default %q", loc)
	}
	t.Setenv(store.Env, "postgres://h/db")
	if loc, _ := store.Resolve(""); loc != "postgres://h/db" {
		t.Errorf("from the environment: %q", loc)
	}
	if loc, _ := store.Resolve("sqlite:x.db"); loc != "sqlite:x.db" {
		t.Errorf("from the flag: %q", loc)
	}
}

func TestPostgresLocationHidesPassword(t *testing.T) {
	if pg == nil {
		t.Skip("no PostgreSQL")
	}
	dsn, _ := pg.Fresh()
	s, err := store.Open(ctx, dsn+"&password=secret")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, _ := s.Stats(ctx)
	if loc := fmt.Sprint(s.Location(), st.DSN); strings.Contains(loc, "secret") || st.DSN == "" {
		t.Errorf("location %q, dsn %q", s.Location(), st.DSN)
	}
}

var ctx = context.Background()

// TestExportImport: export then import copies every record, field for field, between backends.
func TestExportImport(t *testing.T) {
	src := store.NewMemory()
	var recs []store.Record
	for i := 0; i < 1234; i++ { // more than one import batch
		r := store.Record{Target: "aie1", Spec: fmt.Sprintf("spec %d", i%7), Schedule: fmt.Sprintf("s%04d", i), Generator: "g", Model: "m",
			Cycles: int64(i), Spills: 1, Stalls: 2, Verified: i%9 == 0, Wall: time.Duration(i) * time.Microsecond, Host: "h",
			Time: time.Unix(1700000000, int64(i)).UTC()}
		if i%5 == 0 {
			r.Cycles, r.Refusal = 0, "model: too big"
		}
		recs = append(recs, r)
	}
	if err := src.Put(ctx, recs...); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := store.Export(ctx, src, store.Filter{}, &buf)
	if err != nil || n != len(recs) {
		t.Fatalf("exported %d, %v", n, err)
	}
	dst, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if n, err := store.Import(ctx, dst, &buf); err != nil || n != len(recs) {
		t.Fatalf("imported %d, %v", n, err)
	}
	a, _ := store.Query(ctx, src, store.Filter{})
	b, _ := store.Query(ctx, dst, store.Filter{})
	if !reflect.DeepEqual(a, b) {
		t.Error("the copy differs")
	}
	if _, err := store.Import(ctx, dst, strings.NewReader(`{"target":"aie1","bogus":1}`)); err == nil {
		t.Error("a line with an unknown field was imported")
	}
}
