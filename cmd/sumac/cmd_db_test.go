package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDB: after a tune, the store's records can be counted, listed, queried, exported and
// imported into another store.
func TestDB(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			loc := "sqlite:" + filepath.Join(t.TempDir(), "tune.db")
			if backend == "postgres" {
				loc = postgresStore(t)
			}
			spec := "conv2d x=32 y=2 r=3 s=3 dtype=int16"
			code, out, errs := run(t, "tune", spec, "--store", loc, "--json")
			if code != 0 {
				t.Fatalf("tune: exit %d: %s", code, errs)
			}
			tuned := decodeTune(t, out)[0]

			code, out, errs = run(t, "db", "stats", "--store", loc, "--json")
			var st struct {
				Backend, Path, DSN string
				Records            int
				Targets            []struct {
					Target  string
					Records int
				}
			}
			if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
				t.Fatalf("stats: exit %d, %v: %s", code, err, errs)
			}
			if st.Backend != backend || st.Records == 0 || len(st.Targets) != 1 || st.Targets[0].Target != "aie1" || st.Targets[0].Records != st.Records ||
				backend == "sqlite" && st.Path == "" || backend == "postgres" && st.DSN == "" {
				t.Errorf("stats %+v", st)
			}

			code, out, _ = run(t, "db", "list", "--store", loc, "--json")
			var ls []map[string]any
			if err := json.Unmarshal([]byte(out), &ls); code != 0 || err != nil || len(ls) != 1 {
				t.Fatalf("list: exit %d, %v: %s", code, err, out)
			}
			if ls[0]["best_schedule"] != tuned["schedule"] || ls[0]["best_cycles"] != tuned["cycles"] || ls[0]["best_verified"] != true {
				t.Errorf("list %v; tune chose %v, %v cycles", ls[0], tuned["schedule"], tuned["cycles"])
			}

			code, out, _ = run(t, "db", "query", "--store", loc, "--status", "verified", "--json")
			var rs []map[string]any
			if err := json.Unmarshal([]byte(out), &rs); code != 0 || err != nil || len(rs) != 1 || rs[0]["schedule"] != tuned["schedule"] {
				t.Errorf("query of the verified records: exit %d, %v: %s", code, err, out)
			}
			code, out, _ = run(t, "db", "query", "--store", loc, "--limit", "3")
			if code != 0 || strings.Count(out, "\n") != 4 || !strings.HasPrefix(out, "TARGET") {
				t.Errorf("query table: exit %d: %s", code, out)
			}

			file := filepath.Join(t.TempDir(), "all.jsonl")
			if code, _, errs := run(t, "db", "export", "--store", loc, "--out", file); code != 0 {
				t.Fatalf("export: %s", errs)
			}
			b, _ := os.ReadFile(file)
			if n := strings.Count(string(b), "\n"); n != st.Records {
				t.Errorf("exported %d lines of %d records", n, st.Records)
			}
			other := "sqlite:" + filepath.Join(t.TempDir(), "copy.db")
			if code, _, errs := run(t, "db", "import", "--store", other, file); code != 0 {
				t.Fatalf("import: %s", errs)
			}
			code, out, _ = run(t, "tune", spec, "--store", other, "--json")
			if again := decodeTune(t, out)[0]; code != 0 || again["evaluated"] != 0.0 || again["schedule"] != tuned["schedule"] {
				t.Errorf("tune on the imported copy: exit %d, evaluated %v, schedule %v", code, again["evaluated"], again["schedule"])
			}
		})
	}
}

func TestDBErrors(t *testing.T) {
	loc := "sqlite:" + filepath.Join(t.TempDir(), "tune.db")
	junk := filepath.Join(t.TempDir(), "junk.jsonl")
	os.WriteFile(junk, []byte("{\"target\": 1}\n"), 0o644)
	for _, args := range [][]string{
		{"db"},
		{"db", "bogus", "--store", loc},
		{"db", "query", "--status", "maybe", "--store", loc},
		{"db", "query", "--limit", "-1", "--store", loc},
		{"db", "import", "--store", loc},
		{"db", "import", "--store", loc, junk},
		{"db", "stats", "extra", "--store", loc},
		{"db", "stats", "--store", "nope:"},
	} {
		code, out, errs := run(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}
