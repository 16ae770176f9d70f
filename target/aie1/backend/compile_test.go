package backend

import (
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
)

func TestCompileLeiGemm(t *testing.T) {
	for _, kc := range []string{"64", "128", "256", "290"} {
		k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc="+kc)
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
