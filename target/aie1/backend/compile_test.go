package backend

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

func parseTestdata(t testing.TB, name string, defines ...string) *kernel.Kernel {
	t.Helper()
	path := filepath.Join("..", "testdata", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s: %v", name, err)
	}
	k, err := cfront.ParseKernel(path, src, defines)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

func TestCompileLeiGemm(t *testing.T) {
	for _, kc := range []string{"64", "128", "256", "290"} {
		k := parseTestdata(t, "lei_gemm_16x4.cc", "Kc="+kc)
		p, err := Compile(k, Options{})
		if err != nil {
			t.Fatalf("Kc=%s: %v", kc, err)
		}
		t.Logf("Kc=%s: %d static cycles, spills %d fills %d, notes %v", kc, p.StaticCycles(), p.Spills, p.Fills, p.Notes)
		if kc == "64" && testing.Verbose() {
			t.Log("\n" + p.String())
			for _, b := range p.Breakdown {
				t.Logf("%4d  %s", b.Cycles, b.What)
			}
		}
	}
}
