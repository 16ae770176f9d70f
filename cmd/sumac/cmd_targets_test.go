package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHelpTargets(t *testing.T) {
	code, out, errOut := run(t, "help", "targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"aie1:", "int16 x int16  16 x 2", "int8 x int8    16 x 8        128", "data memory", "VC1902", "host:", "kernel sets (CPUID)", "avx2+fma"} {
		if !strings.Contains(out, want) {
			t.Errorf("help targets lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "help", "targets", "--json")
	var ts []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &ts) != nil || len(ts) < 2 || ts[0]["name"] != "aie1" {
		t.Errorf("help targets --json: exit %d: %s", code, out)
	}
	if code, _, _ := run(t, "help", "targets", "extra"); code != 2 {
		t.Errorf("help targets extra: exit %d, want 2", code)
	}
}

// An unknown --target is a usage error (exit 2) naming the known targets; a target without a
// conv2d compiler says so.
func TestUnknownTarget(t *testing.T) {
	for _, args := range [][]string{
		{"compile", "--target", "nope", "conv2d x=16 y=1 r=4 s=3 dtype=int16"},
		{"tune", "--target", "nope", "--suite", "vyasa36"},
	} {
		code, _, errOut := run(t, args...)
		if code != 2 || !strings.Contains(errOut, `"nope"`) || !strings.Contains(errOut, "aie1") || !strings.Contains(errOut, "host") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	code, _, errOut := run(t, "tune", "--target", "host", "--suite", "vyasa36")
	if code != 2 || !strings.Contains(errOut, "host") {
		t.Errorf("tune --target host: exit %d, %q", code, errOut)
	}
}
