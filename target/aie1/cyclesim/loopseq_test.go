package cyclesim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/interp"
)

// TestLoopSetupSeqInTrace: the loop set-up moves (ls, le, lc) of a loop nested in another
// have sequence number -1, which the outer loop's offset turns into the number of a real
// instruction of the iteration before (-1 + SeqStride). That is no duplicate: the trace
// must build, so that the run checks each read against its writer from the program order.
// (It did not: the run fell back to the reference engine, whose few most recent writers per
// unit lost the fill a MAC reads while eight more fills of the same register were in flight,
// and reported a latency violation in a legal schedule: the flattened conv2d below, which
// CompileRun then replaced by the kernel as written.)
func TestLoopSetupSeqInTrace(t *testing.T) {
	path := filepath.Join("..", "testdata", "adf", "conv_fills.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{})
	if err != nil {
		t.Fatal(err)
	}
	data, sizes := randomData(t, k, 7)
	want, err := interp.Run(k, interp.Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{"cluster", "program"} {
		p, err := backend.Compile(k, backend.Options{Sizes: sizes, BodyOrder: order})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(p.Notes, "\n"), "flatten.go") {
			t.Fatalf("%s: the flattened variant was not chosen: %v", order, p.Notes)
		}
		if tr := prepare(p).traced(p); tr.err != nil {
			t.Fatalf("%s: no trace: %v", order, tr.err)
		}
		got, err := Run(p, Config{Data: data, Sizes: sizes})
		if err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		for name, w := range want.Data {
			if !bytes.Equal(got.Data[name], w) {
				t.Errorf("%s: %s differs from the interpreter's", order, name)
			}
		}
		// a run too long for a trace: the reference engine alone, without the trace's
		// writer lists
		p2, err := backend.Compile(k, backend.Options{Sizes: sizes, BodyOrder: order})
		if err != nil {
			t.Fatal(err)
		}
		maxTraceInstrs = 1000
		ref, err := Run(p2, Config{Data: data, Sizes: sizes})
		maxTraceInstrs = 1 << 22
		if err != nil {
			t.Fatalf("%s, without a trace: %v", order, err)
		}
		if ref.Cycles != got.Cycles {
			t.Errorf("%s: %d cycles without a trace, %d with", order, ref.Cycles, got.Cycles)
		}
		for name, w := range want.Data {
			if !bytes.Equal(ref.Data[name], w) {
				t.Errorf("%s, without a trace: %s differs from the interpreter's", order, name)
			}
		}
	}
}
