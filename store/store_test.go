package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
