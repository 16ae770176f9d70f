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
