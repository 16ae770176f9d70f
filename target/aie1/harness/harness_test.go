package harness

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/emul"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

func needGXX(t *testing.T) {
	t.Helper()
	if _, err := emul.Compiler(); err != nil {
		t.Skip("no C++ compiler (g++): the emulation check needs one")
	}
}

// parse reads and parses a kernel of target/aie1/testdata.
func parse(t *testing.T, name string, defines ...string) (*kernel.Kernel, Source) {
	t.Helper()
	file := "../testdata/" + name
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	k, err := cfront.ParseKernel(file, src, defines)
	if err != nil {
		t.Fatal(err)
	}
	return k, Source{File: file, Text: src, Defines: defines}
}

// TestSeedKernels is the acceptance run: both seed kernels are ok, bit-exact against the g++
// emulation, with fewer than 1% of narrowed lanes saturated, and the cycle simulator agrees.
func TestSeedKernels(t *testing.T) {
	needGXX(t)
	for _, c := range []struct {
		file   string
		define string
		macs   int64
	}{
		{"lei_gemm_16x4.cc", "Kc=256", 16 * 4 * 256},
		{"lei_conv_8x8_u8.cc", "cib=64", 8 * 8 * 64},
	} {
		k, src := parse(t, c.file, c.define)
		r, err := Run(k, src, Options{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !r.OK || r.MACs != c.macs || r.OutputsChecked != 64 || r.AccumulatorLanesChecked != 64 || r.SaturatedFraction >= MaxSaturated {
			t.Errorf("%s: ok %v macs %d outputs %d acc lanes %d saturated %.3f; mismatches %v",
				c.file, r.OK, r.MACs, r.OutputsChecked, r.AccumulatorLanesChecked, r.SaturatedFraction, r.Mismatches)
		}
		if len(r.Uninitialized) == 0 {
			t.Errorf("%s: the accumulators are read before written, the report lists none", c.file)
		}
		if r.Cycles == nil || *r.Cycles <= 0 {
			t.Errorf("%s: no cycles (timing error %q)", c.file, r.TimingError)
		}
	}
}

// TestDetectsMismatch checks that the comparison with the emulation fails when the two
// disagree: the interpreter's output is altered in one element and one accumulator lane.
func TestDetectsMismatch(t *testing.T) {
	needGXX(t)
	k, src := parse(t, "lei_gemm_16x4.cc", "Kc=16")
	s := &run{k: k, src: src, opt: Options{Seed: 3}}
	if err := s.configure(); err != nil {
		t.Fatal(err)
	}
	data := s.fill(8)
	cfg := s.config(data)
	var trace [][]num.Acc
	cfg.OnNarrow = func(_ *kernel.Instr, l []num.Acc) { trace = append(trace, append([]num.Acc(nil), l...)) }
	res, err := interp.Run(k, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{}
	if err := s.checkEmul(rep, res, data, trace); err != nil || len(rep.Mismatches) != 0 {
		t.Fatalf("untouched run: err %v, mismatches %v", err, rep.Mismatches)
	}
	res.Data["out"][6] ^= 1 // element 3 of out
	trace[2][5] = trace[2][5].Add(num.AccFrom(1), 48)
	rep = &Report{}
	if err := s.checkEmul(rep, res, data, trace); err != nil {
		t.Fatal(err)
	}
	if len(rep.Mismatches) != 2 || !strings.Contains(rep.Mismatches[0], "out element 3") || !strings.Contains(rep.Mismatches[1], "accumulator before narrowing") {
		t.Errorf("mismatches %q", rep.Mismatches)
	}
}

// TestInputRange: the first step that saturates few enough lanes (or narrows none) wins; the
// last step is taken untried when none does; errors stop the search.
func TestInputRange(t *testing.T) {
	var tried []int
	sat := []int64{50, 2, 0, 0} // of 100 narrowed lanes
	step, err := InputRange(4, func(i int) (int64, int64, error) { tried = append(tried, i); return 100, sat[i], nil })
	if err != nil || step != 2 || len(tried) != 3 {
		t.Errorf("step %d (tried %v), err %v; want step 2", step, tried, err)
	}
	step, _ = InputRange(3, func(i int) (int64, int64, error) { return 100, 1, nil }) // 1% is too many
	if step != 2 {
		t.Errorf("nothing below 1%%: step %d, want the last, 2", step)
	}
	if step, _ = InputRange(5, func(int) (int64, int64, error) { return 0, 0, nil }); step != 0 {
		t.Errorf("no narrowing: step %d, want 0", step)
	}
	if step, _ = InputRange(0, nil); step != 0 {
		t.Errorf("no steps: step %d", step)
	}
	boom := errors.New("boom")
	if _, err := InputRange(3, func(int) (int64, int64, error) { return 0, 0, boom }); err != boom {
		t.Errorf("error %v, want boom", err)
	}
}

// TestOptionErrors: options that do not fit the kernel are errors naming the parameter.
func TestOptionErrors(t *testing.T) {
	k, src := parse(t, "lei_gemm_16x4.cc", "Kc=16")
	for i, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Sizes: map[string]int{"nosuch": 4}}, "has no parameter nosuch"},
		{Options{Inputs: map[string][]byte{"out": make([]byte, 200)}, Sizes: map[string]int{"out": 128}}, "input out: 200 bytes for a 128-byte region"},
		{Options{Scalars: map[string]int64{"out": 1}}, "not a scalar parameter"},
	} {
		if _, err := Run(k, src, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: error %v, want %q", i, err, c.want)
		}
	}
}

// TestReferee: the referee's outcome lands in the report, and its mismatch fails it; without
// the emulation the report says why and counts nothing as compared with it.
func TestReferee(t *testing.T) {
	k, src := parse(t, "lei_gemm_16x4.cc", "Kc=16")
	ref := func(text []byte, seed uint64) Reference {
		if string(text) != string(src.Text) || seed != 7 {
			t.Errorf("referee called with other source or seed %d", seed)
		}
		return Reference{Note: "checked against a fake", Outputs: 64, Mismatch: "fake: output 0 differs"}
	}
	r, err := Run(k, src, Options{Seed: 7, SkipEmulation: "test", Reference: ref})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || r.Reference != "checked against a fake" || r.ReferenceOutputs != 64 || len(r.Mismatches) != 1 {
		t.Errorf("report: ok %v, reference %q (%d), mismatches %v", r.OK, r.Reference, r.ReferenceOutputs, r.Mismatches)
	}
	if r.Emulation != "skipped (test)" || r.OutputsChecked != 0 || r.AccumulatorLanesChecked != 0 {
		t.Errorf("emulation %q, %d outputs and %d lanes compared", r.Emulation, r.OutputsChecked, r.AccumulatorLanesChecked)
	}
}

// TestGroupedSpills runs the 32x4 kernel, whose eight accumulators spill: the backend groups
// them (backend/group.go) and re-chains the window reads; the cycle simulator's final memory
// must equal the interpreter's, the spills are counted, and the bundles say how the loop was
// compiled.
func TestGroupedSpills(t *testing.T) {
	k, src := parse(t, "lei_gemm_32x4.cc", "Kc=64")
	r, err := Run(k, src, Options{Seed: 2, SkipEmulation: "timing test", Bundles: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK || r.Spills == nil || *r.Spills == 0 || r.TimingError != "" {
		t.Fatalf("ok %v spills %v timing error %q mismatches %v", r.OK, r.Spills, r.TimingError, r.Mismatches)
	}
}

// TestStreamWriteConversions pins writeincr's implicit conversion of an int value to the
// stream's type (testdata/adf/stream_convert.cc): the interpreter's outputs are C++'s, and the
// cycle simulator's (whose program encodes the constant values in the stream moves) equal them.
// It needs no C++ compiler; TestADFKernels runs the same kernel under the g++ emulation too.
func TestStreamWriteConversions(t *testing.T) {
	path := filepath.Join("..", "testdata", "adf", "stream_convert.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := cfront.ParseKernel(path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(k, Source{File: path, Text: src}, Options{Seed: 3, SkipEmulation: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cycles == nil || !rep.OK {
		t.Fatalf("timing %q, mismatches %v", rep.TimingError, rep.Mismatches)
	}
	in := rep.Initial["sin"]
	var wantF, wantH []byte
	f32 := func(f float32) { wantF = binary.LittleEndian.AppendUint32(wantF, math.Float32bits(f)) }
	i16 := func(x int32) { wantH = binary.LittleEndian.AppendUint16(wantH, uint16(int16(x))) }
	i16(100000)
	f32(3)
	f32(7)
	for i := int32(0); i < 4; i++ {
		f32(float32(i))
		i16(i * 20000)
	}
	for i := 0; i < 4; i++ {
		x := int32(binary.LittleEndian.Uint32(in[4*i:]))
		f32(float32(x))
		i16(x)
	}
	if !bytes.Equal(rep.Outputs["fout"], wantF) || !bytes.Equal(rep.Outputs["hout"], wantH) {
		t.Errorf("fout %x, want %x\nhout %x, want %x", rep.Outputs["fout"], wantF, rep.Outputs["hout"], wantH)
	}
}

// TestLoopStartConverted pins a loop counter's constant start converted to the counter's
// type (int i = 0xffffffff starts at -1, C's initialization): the interpreter and the cycle
// simulator (whose trip count comes from the start) run the same iterations.
func TestLoopStartConverted(t *testing.T) {
	src := []byte("void k(output_window<int32> *out) { for (int i = 0xffffffff; i < 2; i++) window_writeincr(out, i); }")
	k, err := cfront.ParseKernel("loop.cc", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(k, Source{File: "loop.cc", Text: src}, Options{Seed: 1, SkipEmulation: "test", Sizes: map[string]int{"out": 12}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cycles == nil || !rep.OK {
		t.Fatalf("timing %q, mismatches %v", rep.TimingError, rep.Mismatches)
	}
	want := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0}
	if !bytes.Equal(rep.Outputs["out"], want) {
		t.Errorf("out %x, want %x", rep.Outputs["out"], want)
	}
}
