package bench

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
)

func mustSpec(t *testing.T, s string) *op.Spec {
	t.Helper()
	spec, err := op.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestTypesFor: convolutions have no float64 kernels; a request keeps only what the operation has.
func TestTypesFor(t *testing.T) {
	g, c := mustSpec(t, "gemm m=8 n=8 k=8 dtype=fp32"), mustSpec(t, "conv2d x=4 y=4 k=2 c=2 r=3 s=3 dtype=fp32")
	if got := TypesFor(g, nil); !slices.Equal(got, DTypes) {
		t.Errorf("gemm: %v, want all of %v", got, DTypes)
	}
	if got := TypesFor(c, nil); slices.Contains(got, "float64") || len(got) != len(DTypes)-1 {
		t.Errorf("conv: %v", got)
	}
	if got := TypesFor(c, []string{"float64", "u8s8"}); !slices.Equal(got, []string{"u8s8"}) {
		t.Errorf("conv, asked float64 and u8s8: %v", got)
	}
}

// TestMedianTime: the median of the samples, and a failing call stops the measurement.
func TestMedianTime(t *testing.T) {
	calls := 0
	sec, err := MedianTime(func() error { calls++; return nil }, 4, 0)
	if err != nil || sec < 0 || calls != 5 { // one warm-up, one call per sample at min time 0
		t.Errorf("sec %v, err %v, %d calls", sec, err, calls)
	}
	boom := errors.New("boom")
	if _, err := MedianTime(func() error { return boom }, 3, 0); err != boom {
		t.Errorf("error %v, want boom", err)
	}
}

// TestRun: one small GEMM in two types gives two rows with the reference peaks and positive
// rates; pooling layers are skipped with a note, and no matching workload is an error.
func TestRun(t *testing.T) {
	s := &suite.Suite{Name: "t", Workloads: []suite.Workload{
		{Name: "g", Spec: mustSpec(t, "gemm m=16 n=16 k=16 dtype=fp32")},
	}}
	var notes []string
	rows, err := Run(s, Config{Threads: 1, Rounds: 1, DTypes: []string{"float32", "u8s8-exact"},
		Log: func(f string, a ...any) { notes = append(notes, f) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].DType != "float32" || rows[1].DType != "u8s8-exact" || len(notes) != 2 {
		t.Fatalf("rows %+v, notes %v", rows, notes)
	}
	for _, r := range rows {
		if r.GFLOP != 2*16*16*16/1e9 || r.GFLOPS <= 0 || r.RefPeak != RefPeakPerCore[r.DType] || r.ISA == "" {
			t.Errorf("row %+v", r)
		}
	}
	if _, err := Run(s, Config{Threads: 1, Rounds: 1, Match: "nothing"}); err == nil || !strings.Contains(err.Error(), "no workload") {
		t.Errorf("no match: %v", err)
	}
}
