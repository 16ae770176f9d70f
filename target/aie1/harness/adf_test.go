package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/emul"
)

// adfKernels are the kernels of testdata/adf with the instance and sizes the graph would give.
var adfKernels = []struct {
	file, instance string
	sizes          map[string]int
	timing         bool // the backend compiles it and the cycle simulator runs it
}{
	{file: "scale_bias.cc", instance: "ScaleBias<int16, 64, 3, true>(5)"},
	{file: "stream_scale.cc", timing: true},
	{file: "stream_convert.cc", timing: true},
	{file: "cascade_mac.cc", timing: true},
	{file: "circular.cc", sizes: map[string]int{"in": 64}, timing: true},
	{file: "profiled.cc", timing: true},
	{file: "flat_fir.cc", timing: true},
	{file: "weighted.cc", instance: "weighted<64, 2>", timing: true},
	{file: "api_mix.cc", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 4, 4, int16, int16, 16>", timing: true},
	{file: "mmul.cc", instance: "matmul<2, 4, 8, int16, int16, 16>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 4, 8, int16, int16, 16>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 2, 8, int16, int16, 8>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 8, 4, int8, int8, 32>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 8, 4, uint8, int8, 32>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 2, 4, float, float, 8>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 2, 2, float, float, 8>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 4, 2, float, float, 16>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 2, 4, int32, int32, 8>", timing: true},
	{file: "mmul.cc", instance: "matmul<4, 4, 2, int32, int32, 16>", timing: true},
	{file: "blocked.cc", timing: true},
	{file: "strided.cc", timing: true},
	{file: "shadow.cc", timing: true},
	{file: "shuffle_fp.cc", timing: true},
	{file: "lane_view.cc", timing: true},
	{file: "outer_index.cc", timing: true},
	{file: "upd_chain.cc", timing: true},
	{file: "five_windows.cc", timing: true},
	{file: "const_store.cc", timing: true},
	{file: "pick_method.cc", instance: "Deal<int32, 24, 8>", timing: true},
	{file: "ctor_body.cc", instance: "Requant<int8, 64>(0.05, 0.2, 3)", timing: true},
	{file: "ctor_body.cc", instance: "Requant<uint8, 64>(0.05, 0.2, -3)", timing: true},
	{file: "ctor_body.cc", instance: "Requant<int8, 64>(0.05, 1, 3)", timing: true}, // an int for a float parameter
	{file: "row3.cc", instance: "row3<32>", timing: true},
	{file: "widen.cc", timing: true},
	{file: "ports.cc", timing: true},
	{file: "scale32.cc", timing: true},
	{file: "overread.cc", instance: "BiasRelu<10>", timing: true},
	{file: "loop_array_init.cc", timing: true},
	{file: "if_select.cc", timing: true},
	{file: "narrow_read.cc", timing: true},
	{file: "port_streams.cc", timing: true},
	{file: "pointwise.cc", instance: "pointwise<8, 24, 2, 2>", timing: true},
}

// TestADFKernels runs every ADF test kernel as `sumac sim` does (interpreter, g++ emulation
// of the source, cycle simulator where the backend compiles it), then emits it as C++, reads
// the emitted text back and runs that too: both runs must pass every check and leave the same
// outputs, and emit -> parse -> emit must be a fixed point.
func TestADFKernels(t *testing.T) {
	if _, err := emul.Compiler(); err != nil {
		t.Skip("no C++ compiler")
	}
	for _, c := range adfKernels {
		t.Run(c.file+"/"+c.instance, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "adf", c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{Instance: c.instance})
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Seed: 7, Sizes: c.sizes}
			rep, err := Run(k, Source{File: path, Text: src}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK || rep.OutputsChecked == 0 {
				t.Fatalf("original: ok %v, %d outputs checked, mismatches %v", rep.OK, rep.OutputsChecked, rep.Mismatches)
			}
			if c.timing && rep.Cycles == nil {
				t.Errorf("no cycles: %s", rep.TimingError)
			}
			text, err := cemit.Emit(k)
			if err != nil {
				t.Fatal(err)
			}
			epath := filepath.Join(t.TempDir(), "emitted_"+c.file)
			if err := os.WriteFile(epath, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			k2, err := cfront.ParseKernel(epath, []byte(text), nil)
			if err != nil {
				t.Fatalf("emitted text does not parse: %v\n%s", err, text)
			}
			text2, err := cemit.Emit(k2)
			if err != nil {
				t.Fatal(err)
			}
			if text2 != text {
				t.Errorf("emit -> parse -> emit is not a fixed point:\n%s\n----\n%s", text, text2)
			}
			opt2 := opt
			opt2.Inputs = rep.Initial // the same inputs (the emitted kernel's buffers are plain pointers)
			if len(rep.OutsideReads) > 0 {
				// the same sizes: a plain pointer would be measured, past what the source declared
				opt2.Sizes = map[string]int{}
				for _, w := range rep.Windows {
					opt2.Sizes[w.Name] = w.Bytes
				}
			}
			rep2, err := Run(k2, Source{File: epath, Text: []byte(text)}, opt2)
			if err != nil {
				t.Fatal(err)
			}
			if !rep2.OK {
				t.Fatalf("emitted: mismatches %v", rep2.Mismatches)
			}
			for name, b := range rep.Outputs {
				// a kernel that stores cycle counter reads may store other values: the
				// emitted kernel orders independent statements differently, and the
				// scheduler's schedule (so the counter) depends on that order
				if !bytes.Equal(b, rep2.Outputs[name]) && !readsCycles(k) {
					t.Errorf("%s differs between the source and the emitted kernel", name)
				}
			}
			if (rep.Cycles == nil) != (rep2.Cycles == nil) {
				t.Errorf("cycles: source %v, emitted %v", rep.Cycles, rep2.Cycles)
			}
		})
	}
}
