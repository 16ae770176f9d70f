package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver "pgx"
)

// openPostgres opens the store in the PostgreSQL database that dsn names (a URL such as
// postgres://user:password@host:5432/db or, on a Unix socket, postgres:///db?host=/run/dir),
// creating its tables if needed. Several tuners may write at once: every write is a
// transaction of upserts in key order.
func openPostgres(ctx context.Context, dsn string) (Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	shown := redact(dsn)
	s := &sqlStore{db: db, location: shown,
		d: dialect{name: "postgres", dollar: true, text: `TEXT COLLATE "C"`, integer: "BIGINT",
			// 0x73756d6163 is "sumac": one lock for the schema, held to the end of its transaction.
			lock: "SELECT pg_advisory_xact_lock(495891341667)"},
		stats: func(st *Stats) { st.DSN = shown }}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: opening %s: %w", shown, err)
	}
	return s, nil
}

// redact removes the password from a connection URL.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unparsable)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return strings.Replace(u.String(), "xxxxx", "***", -1)
}
