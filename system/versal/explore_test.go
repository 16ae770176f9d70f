package versal

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/sumacdev/sumac/op"
)

func TestExploreGEMM(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	spec := op.MustParse("gemm m=4096 n=4096 k=290 dtype=int16")
	for _, o := range []GEMMOptions{{Placement: "seed", Rates: "seed"}, {Placement: "seed"}, {Placement: "best"}} {
		t0 := time.Now()
		r, err := RunGEMM(DefaultMachine(), spec, o)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(r, "", " ")
		t.Logf("%s %v", b, time.Since(t0))
	}
}

func TestExploreSweeps(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	spec := op.MustParse("gemm m=4096 n=4096 k=290 dtype=int16")
	t0 := time.Now()
	kp, err := SweepKC(DefaultMachine(), spec, DefaultKCs, GEMMOptions{Rates: "seed"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range kp {
		t.Logf("%+v", p)
	}
	t.Log(time.Since(t0))
	for _, rates := range []string{"seed", "real"} {
		mp, err := SweepMC(DefaultMachine(), spec, DefaultMCs, GEMMOptions{Rates: rates})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range mp {
			t.Logf("%s %d %.1f %s %v", rates, p.MC, p.PctPeak, p.Limit, p.Verified)
		}
	}
	mp, err := SweepMC(DefaultMachine(), spec, DefaultMCs, GEMMOptions{Placement: "best"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range mp {
		t.Logf("best %d %.1f %s %v %s", p.MC, p.PctPeak, p.Limit, p.Verified, p.VerifyError)
	}
	t.Log(time.Since(t0))
}
