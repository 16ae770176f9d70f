package cyclesim

import (
	"reflect"
	"testing"

	"github.com/sumacdev/sumac/aie/backend"
)

// TestTraceEngineMatchesReference runs every test kernel with the three-pass engine (trace.go)
// and the single-pass reference engine that carries values through the cycles, and requires
// identical results: cycles, stalls, slot use, counters and the final memory.
func TestTraceEngineMatchesReference(t *testing.T) {
	for _, c := range []struct{ file, def string }{
		{"lei_gemm_16x4.cc", "Kc=64"}, {"lei_gemm_16x4.cc", "Kc=290"}, {"lei_gemm_32x4.cc", "Kc=128"}, {"lei_conv_8x8_u8.cc", ""},
	} {
		var defs []string
		if c.def != "" {
			defs = append(defs, c.def)
		}
		k := parse(t, c.file, defs...)
		data, sizes := randomData(t, k, 3)
		p, err := backend.Compile(k, backend.Options{Sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		if tr := prepare(p).traced(p); tr.err != nil {
			t.Fatalf("%s %s: no trace: %v", c.file, c.def, tr.err)
		}
		got, err := Run(p, Config{Data: data, Sizes: sizes})
		if err != nil {
			t.Fatalf("%s %s: %v", c.file, c.def, err)
		}
		useReference = true
		want, err := Run(p, Config{Data: data, Sizes: sizes})
		useReference = false
		if err != nil {
			t.Fatalf("%s %s: reference: %v", c.file, c.def, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s: trace engine %+v\nreference %+v", c.file, c.def, *got, *want)
		}
	}
}
