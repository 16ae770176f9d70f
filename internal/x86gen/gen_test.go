package x86gen

import (
	"strings"
	"testing"
)

func TestValidateRejects(t *testing.T) {
	bad := map[string]Kernel{
		"too many registers": {Elem: F32, MR: 8, NR: 16, Unroll: 1},
		"int needs a temp":   {Elem: I16, MR: 6, NR: 16 + 8, Unroll: 1},
		"NR not lanes":       {Elem: F64, MR: 6, NR: 6, Unroll: 1},
		"unroll":             {Elem: F32, MR: 6, NR: 16, Unroll: 3},
		"MR zero":            {Elem: F32, MR: 0, NR: 16, Unroll: 1},
		"prefetch":           {Elem: F32, MR: 6, NR: 16, Unroll: 1, PrefetchA: 10},
		"elem":               {Elem: Elem(99), MR: 6, NR: 16, Unroll: 1},
	}
	for name, k := range bad {
		if err := k.Validate(); err == nil {
			t.Errorf("%s: accepted %+v", name, k)
		}
	}
	if _, err := Generate("p", []Kernel{Catalog()[0], Catalog()[0]}); err == nil {
		t.Error("duplicate kernels accepted")
	}
}

func TestGenerateShape(t *testing.T) {
	files, err := Generate("kernels", Catalog())
	if err != nil {
		t.Fatal(err)
	}
	s := string(files["zkernels_amd64.s"])
	for _, k := range Catalog() {
		if !strings.Contains(s, "TEXT ·"+k.Symbol()+"(SB)") {
			t.Errorf("missing TEXT for %s", k.Symbol())
		}
		for _, f := range []string{"zkernels_amd64.go", "zkernels_other.go"} {
			if !strings.Contains(string(files[f]), "func "+k.Dispatcher()+"(") {
				t.Errorf("%s: missing dispatcher %s", f, k.Dispatcher())
			}
		}
	}
	// The 6x16 float32 kernel does 12 FMAs per k step.
	k := Kernel{Elem: F32, MR: 6, NR: 16, Unroll: 1}
	var a asm
	k.emit(&a)
	if n := strings.Count(a.buf.String(), "VFMADD231PS"); n != 12*2 { // loop body + beta epilogue
		t.Errorf("6x16 unroll 1: %d FMAs, want 12 in the loop and 12 in the epilogue", n)
	}
}
