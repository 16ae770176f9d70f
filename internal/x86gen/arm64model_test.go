package x86gen

import (
	"os"
	"strings"
	"testing"
)

// TestARM64ModelInDocs: the model's table in docs/cpu-arm64.md is the one the model computes
// from the generated kernels now (print it with -v).
func TestARM64ModelInDocs(t *testing.T) {
	table, err := ARM64ModelTable()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table)
	doc, err := os.ReadFile("../../docs/cpu-arm64.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), table) {
		t.Errorf("docs/cpu-arm64.md does not hold the model's table; the model now gives:\n%s", table)
	}
}

// TestARM64ModelSane: every modelled kernel has a multiply-accumulate class, a fraction of
// peak in (0, 1], and the float32 kernel is bound by its FMLAs on both cores.
func TestARM64ModelSane(t *testing.T) {
	for _, k := range modelKernels() {
		p, err := k.profile()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []armCore{neoverseN1, neoverseV1} {
			r := c.predict(p, modelK)
			if !(r.fraction > 0 && r.fraction <= 1) {
				t.Errorf("%s on %s: fraction %v", k.sym(), c.name, r.fraction)
			}
			if k.Elem == F32 && !k.Strided && (r.bound != "vector pipes" || r.fraction != 1) {
				t.Errorf("%s on %s: %v, %.2f of peak; want bound by the FMLAs", k.sym(), c.name, r.bound, r.fraction)
			}
		}
	}
}
