package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// run executes the CLI in-process and returns exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(&cmdEnv{stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestSpecJSON(t *testing.T) {
	code, out, _ := run(t, "spec", "conv2d x=256 y=16 r=3 s=3 dtype=int16", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var v specJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.MACs != 36864 || v.Kind != "2D" || v.DType != "int16" {
		t.Fatalf("%+v", v)
	}
}

func TestSuiteListJSON(t *testing.T) {
	code, out, _ := run(t, "suite", "list", "vyasa36", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 36 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		for _, f := range []string{"name", "kind", "dtype", "macs"} {
			if _, ok := r[f]; !ok {
				t.Fatalf("row lacks %s: %v", f, r)
			}
		}
	}
	code, out, _ = run(t, "suite", "list", "resnet50", "--json")
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 || len(rows) != 20 {
		t.Fatalf("resnet50: exit %d, %d rows, %v", code, len(rows), err)
	}
}

// TestUserErrors: bad input exits 2 with one line on stderr naming the problem, nothing on stdout.
func TestUserErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"spec", "conv2d x=-1 r=3"}, "x=-1"},
		{[]string{"spec", "conv2d x=4 y=4 r=3 s=3 dtype=int7"}, "int7"},
		{[]string{"spec", "einsum [m,k,q],[k,n]->[m,n] m=2 k=2 n=2 q=2 dtype=fp32"}, "one side only"},
		{[]string{"spec", "conv2d x=4 y=4 r=9 s=3 xin=6 yin=6 dtype=int16"}, "larger than the input"},
		{[]string{"spec"}, "missing SPEC"},
		{[]string{"spec", "--bogus"}, "bogus"},
		{[]string{"suite", "list", "nope"}, "unknown suite"},
		{[]string{"suite"}, "suite list"},
		{[]string{"frobnicate"}, "unknown command"},
	}
	for _, c := range cases {
		code, out, errs := run(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", c.args, out)
		}
		if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: stderr %q, want one line mentioning %q", c.args, errs, c.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"spec", "-h"}, {"help", "suite"}} {
		code, out, _ := run(t, args...)
		if code != 0 || !strings.Contains(out, "sumac") {
			t.Errorf("%v: exit %d, output %q", args, code, out)
		}
	}
	for name, c := range commands {
		if c.summary == "" || !strings.Contains(c.usage, "Usage: sumac "+name) {
			t.Errorf("command %s lacks a summary or a usage line", name)
		}
	}
}
