package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// schemaVersion is the layout of the tables; a store written by a later layout is refused.
const schemaVersion = 1

// dialect is what differs between the SQL backends.
type dialect struct {
	name    string
	dollar  bool   // placeholders $1, $2, ... instead of ?
	text    string // the type of the key columns (byte-wise order on PostgreSQL: COLLATE "C")
	integer string
	// lock, if set, runs first in the schema transaction (PostgreSQL: an advisory lock, as two
	// CREATE TABLE IF NOT EXISTS at once can collide in the catalog).
	lock string
}

// sqlStore is a Store over database/sql.
type sqlStore struct {
	db       *sql.DB
	d        dialect
	location string // as Open accepts it
	stats    func(*Stats)
}

const columns = "target, spec, schedule, generator, model, cycles, spills, stalls, verified, refusal, wall_ns, host, at_ns"

// q rewrites ? placeholders for the dialect.
func (s *sqlStore) q(query string) string {
	if !s.d.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// init creates the tables if needed and checks the layout version.
func (s *sqlStore) init(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.d.lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
			return err
		}
	}
	t, i := s.d.text, s.d.integer
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS sumac_meta (key ` + t + ` PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS tuning_records (
			target ` + t + ` NOT NULL, spec ` + t + ` NOT NULL, schedule ` + t + ` NOT NULL,
			generator ` + t + ` NOT NULL, model ` + t + ` NOT NULL,
			cycles ` + i + ` NOT NULL, spills ` + i + ` NOT NULL, stalls ` + i + ` NOT NULL,
			verified BOOLEAN NOT NULL, refusal TEXT NOT NULL,
			wall_ns ` + i + ` NOT NULL, host TEXT NOT NULL, at_ns ` + i + ` NOT NULL,
			PRIMARY KEY (target, spec, schedule, generator, model))`,
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return err
		}
	}
	var v string
	switch err := tx.QueryRowContext(ctx, s.q(`SELECT value FROM sumac_meta WHERE key = ?`), "schema").Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO sumac_meta (key, value) VALUES (?, ?)`), "schema", strconv.Itoa(schemaVersion)); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if n, err := strconv.Atoi(v); err != nil || n > schemaVersion {
			return fmt.Errorf("store %s has layout %q, newer than this sumac's %d", s.location, v, schemaVersion)
		}
	}
	return tx.Commit()
}

func (s *sqlStore) Put(ctx context.Context, recs ...Record) error {
	for i := range recs {
		if err := recs[i].check(); err != nil {
			return err
		}
	}
	if len(recs) == 0 {
		return nil
	}
	// Rows are written in key order so that two transactions over the same keys cannot
	// deadlock.
	recs = append([]Record(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool { return keyLess(recs[i].Key(), recs[j].Key()) })
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, s.q(`INSERT INTO tuning_records (`+columns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (target, spec, schedule, generator, model) DO UPDATE SET
			cycles = excluded.cycles, spills = excluded.spills, stalls = excluded.stalls,
			verified = excluded.verified, refusal = excluded.refusal, wall_ns = excluded.wall_ns,
			host = excluded.host, at_ns = excluded.at_ns`))
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer st.Close()
	for _, r := range recs {
		if _, err := st.ExecContext(ctx, r.Target, r.Spec, r.Schedule, r.Generator, r.Model, r.Cycles, r.Spills, r.Stalls,
			r.Verified, r.Refusal, int64(r.Wall), r.Host, r.Time.UnixNano()); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

func scanRecord(row scanner) (Record, error) {
	var r Record
	var wall, at int64
	err := row.Scan(&r.Target, &r.Spec, &r.Schedule, &r.Generator, &r.Model, &r.Cycles, &r.Spills, &r.Stalls,
		&r.Verified, &r.Refusal, &wall, &r.Host, &at)
	r.Wall, r.Time = time.Duration(wall), time.Unix(0, at).UTC()
	return r, err
}

func (s *sqlStore) Get(ctx context.Context, k Key) (Record, bool, error) {
	row := s.db.QueryRowContext(ctx, s.q(`SELECT `+columns+` FROM tuning_records
		WHERE target = ? AND spec = ? AND schedule = ? AND generator = ? AND model = ?`),
		k.Target, k.Spec, k.Schedule, k.Generator, k.Model)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("store: %w", err)
	}
	return r, true, nil
}

// where is the WHERE clause (with ? placeholders) and arguments selecting f's records.
func where(f Filter) (string, []any, error) {
	var conds []string
	var args []any
	for _, c := range []struct{ col, v string }{{"target", f.Target}, {"spec", f.Spec}, {"schedule", f.Schedule},
		{"generator", f.Generator}, {"model", f.Model}, {"host", f.Host}} {
		if c.v != "" {
			conds = append(conds, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	switch f.Status {
	case Any:
	case OK:
		conds = append(conds, "refusal = ''")
	case Refused:
		conds = append(conds, "refusal <> ''")
	case Verified:
		conds = append(conds, "verified")
	default:
		return "", nil, fmt.Errorf("store: unknown status %q", f.Status)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

func (s *sqlStore) Each(ctx context.Context, f Filter, fn func(Record) error) error {
	w, args, err := where(f)
	if err != nil {
		return err
	}
	query := `SELECT ` + columns + ` FROM tuning_records` + w + ` ORDER BY target, spec, schedule, generator, model`
	if f.Limit > 0 {
		query += " LIMIT " + strconv.Itoa(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func (s *sqlStore) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Backend: s.d.name, Targets: []TargetStats{}}
	s.stats(&st)
	var first, last sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT count(*),
			coalesce(sum(CASE WHEN refusal <> '' THEN 1 ELSE 0 END), 0),
			coalesce(sum(CASE WHEN verified THEN 1 ELSE 0 END), 0),
			count(DISTINCT host), min(at_ns), max(at_ns)
		FROM tuning_records`).Scan(&st.Records, &st.Refused, &st.Verified, &st.Hosts, &first, &last)
	if err != nil {
		return st, fmt.Errorf("store: %w", err)
	}
	if first.Valid {
		f, l := time.Unix(0, first.Int64).UTC(), time.Unix(0, last.Int64).UTC()
		st.First, st.Last = &f, &l
	}
	rows, err := s.db.QueryContext(ctx, `SELECT target, count(*), count(DISTINCT spec) FROM tuning_records GROUP BY target ORDER BY target`)
	if err != nil {
		return st, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t TargetStats
		if err := rows.Scan(&t.Target, &t.Records, &t.Specs); err != nil {
			return st, fmt.Errorf("store: %w", err)
		}
		st.Targets = append(st.Targets, t)
	}
	return st, rows.Err()
}

func (s *sqlStore) Backend() string  { return s.d.name }
func (s *sqlStore) Location() string { return s.location }
func (s *sqlStore) Close() error     { return s.db.Close() }
