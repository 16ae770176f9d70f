package compiler_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/compile"
)

// Every stage prints its IR for a convolution on AIE1; triplets is seed 000's running example.
func TestEveryStagePrints(t *testing.T) {
	spec := op.MustParse("conv2d x=16 y=1 r=4 s=3 dtype=int16")
	u, err := compiler.New(compile.Target{}, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"spec":     "conv2d x=16 y=1",
		"loops":    "O(x, y, k, n) += W(r, s, c, k) * I(x + r, y + s, c, n)",
		"schedule": "vec=x order=kyx",
		"graphs":   "reuse graph of I",
		"fused":    "xsquare=0x2110",
		"kernel":   "vyasa_conv2d",
		"bundles":  "vec: ",
		"cycles":   "cycles ",
		"cpp":      "mac16",
	}
	for _, st := range compiler.Stages {
		text, err := u.Emit(st.Name)
		if err != nil {
			t.Errorf("%s: %v", st.Name, err)
			continue
		}
		if st.NeedsProgram && u.Program == nil {
			t.Errorf("%s: printed without generating the program", st.Name)
		}
		if text == "" || !strings.Contains(text, want[st.Name]) {
			t.Errorf("%s: %q lacks %q", st.Name, text, want[st.Name])
		}
	}
	golden, err := os.ReadFile("triplet/testdata/running_example.triplets")
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := u.Emit("triplets"); text != string(golden) {
		t.Errorf("triplets differ from the running example:\n%s", text)
	}
}

// A schedule given in part keeps the default's other fields; its layouts follow the vector
// loop and fusion.
func TestNewSchedule(t *testing.T) {
	spec := op.MustParse("conv2d x=32 y=4 r=3 s=3 dtype=int16")
	u, err := compiler.New(compile.Target{}, spec, "u=1,2,1")
	if err != nil {
		t.Fatal(err)
	}
	if u.Sched.UY != 2 || u.Sched.Vec != "x" || u.Sched.Out == "" {
		t.Errorf("schedule %s", u.Sched.Key())
	}
	if _, err := compiler.New(compile.Target{}, op.MustParse("maxpool x=4 y=4 c=4 size=2 dtype=fp32"), ""); err == nil {
		t.Error("maxpool accepted")
	}
	u, err = compiler.New(compile.Target{}, op.MustParse("gemm m=4 n=4 k=4 dtype=int16"), "mr=16 nr=2")
	if err != nil || u.GEMM == nil || u.GEMM.MR != 16 || u.GEMM.NR != 2 {
		t.Errorf("gemm: %v %+v", err, u)
	}
}
