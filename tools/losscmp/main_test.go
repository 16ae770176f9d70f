package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLosscmp(t *testing.T) {
	dir := t.TempDir()
	ref := write(t, dir, "ref.json", `{"algorithm": "base", "losses": [2.383457899093628, 1.0139297246932983, 0.005695819854736328]}`)
	near := write(t, dir, "near.json", `{"algorithm": "simd", "losses": [2.383458137512207, 1.0139299631118774, 0.005695819854736328]}`)
	far := write(t, dir, "far.json", `{"algorithm": "simd", "losses": [2.3835, 1.0139299631118774, 0.005695819854736328]}`)
	short := write(t, dir, "short.json", `{"algorithm": "simd", "losses": [2.3835]}`)
	bad := write(t, dir, "bad.json", `{"losses": `)
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{ref, near}, 0, "within"},
		{[]string{ref, near, far}, 1, "OUTSIDE"},
		{[]string{ref, short}, 2, ""},
		{[]string{ref, bad}, 2, ""},
		{[]string{ref}, 2, ""},
		{[]string{ref, filepath.Join(dir, "missing.json")}, 2, ""},
	} {
		var out, errb bytes.Buffer
		if code := cmd(c.args, &out, &errb); code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("%v: exit %d, want %d; output %q, stderr %q", c.args, code, c.code, out.String(), errb.String())
		}
	}
}
