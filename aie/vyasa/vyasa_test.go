package vyasa

import (
	"os"
	"testing"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/sched"
)

// schedulesFor returns every applicable schedule of the space with small unroll factors.
func schedulesFor(t *testing.T, spec *op.Spec) []sched.Schedule {
	t.Helper()
	d, err := DatapathFor(spec.Types)
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := sched.Space(spec.Conv, d.Shape, 4, 4000)
	return ss
}

func TestGenerateAndVerify(t *testing.T) {
	specs := []string{
		"conv2d x=32 y=4 r=3 s=3 dtype=int16",
		"conv2d x=32 y=2 r=4 s=2 dtype=int16",
		"conv2d x=16 y=2 k=16 c=4 r=3 s=3 dtype=int16",
		"conv2d x=16 y=2 k=16 c=3 r=3 s=1 dtype=int16",
		"conv2d x=16 y=2 k=16 c=16 groups=16 r=3 s=3 dtype=int16",
		"conv2d x=16 y=4 r=5 s=5 dtype=int32",
		"conv2d x=8 y=2 k=16 c=8 r=3 s=3 dtype=int32",
		"conv2d x=1 y=1 k=32 c=8 r=1 s=1 dtype=int32",
		"conv2d x=8 y=2 k=8 c=8 r=3 s=3 dtype=fp32",
		"conv2d x=16 y=2 k=8 c=2 r=2 s=2 n=2 dtype=int16",
	}
	for _, text := range specs {
		spec := op.MustParse(text)
		ss := schedulesFor(t, spec)
		if len(ss) == 0 {
			t.Errorf("%s: no schedules", text)
			continue
		}
		ok := 0
		for i, s := range ss {
			// Every fifth candidate by default (every one with SUMAC_VYASA_ALL=1), every
			// 20th in -short mode: all fusions, orders and flattening still appear.
			stride := 5
			if os.Getenv("SUMAC_VYASA_ALL") != "" {
				stride = 1
			} else if testing.Short() {
				stride = 20
			}
			if i%stride != 0 {
				continue
			}
			p, err := GenerateOpt(spec, s, i%2 == 1)
			if err != nil {
				continue // pruned: illegal candidates are expected
			}
			ck, err := Verify(p, uint64(i+1))
			if err != nil {
				t.Fatalf("%s %s: %v", text, s.Key(), err)
			}
			if !ck.OK() {
				t.Fatalf("%s %s: %d/%d outputs and %d accumulators differ; %s", text, s.Key(), ck.Mismatches, ck.Outputs, ck.AccMismatches, ck.First)
			}
			if !ck.Interpreted {
				t.Fatalf("%s %s: the kernel IR was not run on the interpreter", text, s.Key())
			}
			if ck.Saturated >= 0.01 {
				t.Errorf("%s: %.3f of outputs saturate", text, ck.Saturated)
			}
			ok++
		}
		if ok == 0 {
			t.Errorf("%s: no schedule generated", text)
		}
	}
}
