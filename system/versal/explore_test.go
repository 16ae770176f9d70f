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

func TestExploreConv(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	for _, s := range []string{"conv2d x=14 y=2 k=16 c=64 r=3 s=3 pad=1 dtype=uint8", "conv2d x=7 y=7 k=32 c=32 r=1 s=1 dtype=uint8", "conv2d x=12 y=3 k=16 c=3 r=7 s=7 stride=2 pad=3 dtype=uint8"} {
		for _, o := range []ConvOptions{{Placement: "seed", Rates: "seed"}, {Placement: "seed"}, {Placement: "best"}} {
			t0 := time.Now()
			r, err := RunConv(DefaultMachine(), op.MustParse(s), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s/%s: %d cycles %.1f%% (compute %.1f%%) %s verified %v %s %s %v %v", s, r.Placement, r.Rates, r.Cycles, r.PctPeak, r.PctPeakCompute, r.Limit, r.Verified, r.VerifyError, r.VerifyInputs, r.Notes, time.Since(t0))
		}
	}
}

func TestExploreSuite(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	pl := os.Getenv("PL")
	rates := os.Getenv("RATES")
	t0 := time.Now()
	sr, err := RunSuite(DefaultMachine(), "resnet50", "uint8", ConvOptions{Placement: pl, Rates: rates})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sr.Layers {
		t.Logf("%s %6.1f MAC/c (compute %6.1f) %5.1f%% %s %v %s %v", r.Layer, r.MACsPerCycle, r.MACsPerCycleCompute, r.PctPeak, r.Limit, r.Verified, r.VerifyError, r.Notes)
	}
	t.Logf("geo %.1f compute %.1f dm %.1f min %.1f %s verified %v %v", sr.GeomeanPctPeak, sr.GeomeanPctPeakCompute, sr.DataMovementPct, sr.MinMACsPerCycle, sr.MinLayer, sr.Verified, time.Since(t0))
}
