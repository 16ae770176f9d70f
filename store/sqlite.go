package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver "sqlite"
)

// busyMillis is how long a writer waits for another process's transaction to finish before
// giving up (SQLite's busy timeout).
const busyMillis = 60000

// openSQLite opens or creates the SQLite store in the file at path. Every connection runs in
// WAL mode (readers do not block the writer, and a transaction is either in the file or rolled
// back after a crash), with synchronous=NORMAL (a commit survives the process being killed; only
// an operating-system crash can lose the last commits) and a busy timeout; write transactions
// begin IMMEDIATE, so that two processes queue for the write lock instead of failing on an
// upgrade from a read lock.
func openSQLite(ctx context.Context, path string) (Store, error) {
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("store: SQLite path %q contains '?'", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate", abs, busyMillis)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &sqlStore{db: db, location: "sqlite:" + abs,
		d:     dialect{name: "sqlite", text: "TEXT", integer: "INTEGER"},
		stats: func(st *Stats) { st.Path = abs }}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: opening %s: %w", abs, err)
	}
	return s, nil
}
