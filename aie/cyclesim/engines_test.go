package cyclesim

import (
	"reflect"
	"strings"
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

// TestMemoryOrderViolation: the caller stores each window's start into its descriptor and the
// kernel loads it back; moving that load above the store (into an earlier bundle with a free
// load slot, where no register dependence stops it) must be reported, not run with the stale
// value.
func TestMemoryOrderViolation(t *testing.T) {
	k := parse(t, "lei_gemm_16x4.cc", "Kc=64")
	data, sizes := randomData(t, k, 2)
	p, err := backend.Compile(k, backend.Options{Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	// (no run before the change: a program's trace is kept once built)
	// the first store, then the first later load from the same pointer register and offset
	si, li, lj := -1, -1, -1
	var st *backend.Instr
	for i, b := range p.Bundles {
		for j, in := range b.Instrs {
			if in.Mem == nil {
				continue
			}
			if st == nil && in.Mem.Store {
				st, si = in, i
			} else if st != nil && !in.Mem.Store && in.Mem.Ptr.String() == st.Mem.Ptr.String() && in.Mem.Offset == st.Mem.Offset && li < 0 {
				li, lj = i, j
			}
		}
	}
	if si < 0 || li < 0 {
		t.Fatal("no store followed by a load of the same address")
	}
	ld := p.Bundles[li].Instrs[lj]
	moved := false
	for b := si - 1; b >= 0 && !moved; b-- {
		free := true
		for _, x := range p.Bundles[b].Instrs {
			free = free && x.Slot != ld.Slot
		}
		if free {
			p.Bundles[b].Instrs = append(p.Bundles[b].Instrs, ld)
			p.Bundles[li].Instrs = append(p.Bundles[li].Instrs[:lj], p.Bundles[li].Instrs[lj+1:]...)
			moved = true
		}
	}
	if !moved {
		t.Fatal("no bundle to move the load to")
	}
	_, err = Run(p, Config{Data: data, Sizes: sizes})
	if err == nil || !strings.Contains(err.Error(), "memory-order violation") {
		t.Fatalf("want a memory-order violation, got %v", err)
	}
	t.Log(err)
}
