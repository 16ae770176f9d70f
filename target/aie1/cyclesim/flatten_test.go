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
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// TestFlattenExact: the flattened kernel (backend.Flatten: small constant loops unrolled
// completely, pointer additions forwarded into the accesses) computes what the source does,
// on the interpreter and compiled and simulated, and has the loops it should.
func TestFlattenExact(t *testing.T) {
	for _, c := range []struct {
		file     string
		loops    int  // loops left after flattening
		narrowed bool // MAC operands loaded in place
	}{
		{"blocked.cc", 0, true},
		{"upd_chain.cc", 0, true},     // *w loaded once per list
		{"five_windows.cc", 0, false}, // remat and split live ranges in the allocator
		{"strided.cc", 1, false},      // the 16-iteration pipelined loop stays
		{"flat_fir.cc", -1, false},
		{"weighted.cc", -1, false},
		// the 2-iteration channel loop, marked for pipelining, and the column loop around it
		// flatten; the map and row loops stay
		{"pointwise.cc", 2, false},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "adf", c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg := &cfront.Config{}
			switch c.file {
			case "weighted.cc":
				cfg.Instance = "weighted<64, 2>"
			case "pointwise.cc":
				cfg.Instance = "pointwise<8, 24, 2, 2>"
			}
			k, err := cfront.ParseKernelConfig(path, src, cfg)
			if err != nil {
				t.Fatal(err)
			}
			k2 := backend.Flatten(k)
			if k2 == nil {
				if c.loops >= 0 {
					t.Fatal("nothing flattened")
				}
				return
			}
			if c.narrowed && backend.Narrow(k) == nil {
				t.Error("no operand narrowed")
			}
			if c.loops >= 0 {
				n := 0
				kernel.Walk(k2.Body, func(s kernel.Stmt, _ int) {
					if _, ok := s.(*kernel.Loop); ok {
						n++
					}
				})
				if n != c.loops {
					t.Errorf("%d loops left, want %d:\n%s", n, c.loops, k2)
				}
			}
			data, sizes := randomData(t, k, 5)
			want, err := interp.Run(k, interp.Config{Data: data, Sizes: sizes})
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range []*kernel.Kernel{k2, backend.Narrow(k)} {
				if kv == nil {
					continue
				}
				flat, err := interp.Run(kv, interp.Config{Data: data, Sizes: sizes})
				if err != nil {
					t.Fatal(err)
				}
				p, err := backend.CompileTransformed(kv, backend.Options{Sizes: sizes})
				if err != nil {
					t.Fatal(err)
				}
				if c.file == "five_windows.cc" && kv == k2 && !strings.Contains(strings.Join(p.Notes, "\n"), "rematerialized") {
					t.Errorf("the array's address was not rematerialized: %v", p.Notes)
				}
				got, err := Run(p, Config{Data: data, Sizes: sizes})
				if err != nil {
					t.Fatalf("%v\n%s", err, p)
				}
				for name, w := range want.Data {
					if !bytes.Equal(flat.Data[name], w) {
						t.Errorf("%s: the transformed kernel's interpreter run differs", name)
					}
					if !bytes.Equal(got.Data[name], w) {
						t.Errorf("%s: the transformed kernel's simulation differs\n%s", name, p)
					}
				}
				if p0, err := backend.Compile(k, backend.Options{Sizes: sizes, NoFlatten: true}); err == nil {
					t.Logf("%d cycles as written, %d transformed", p0.StaticCycles(), p.StaticCycles())
				} else {
					t.Logf("as written: %v; transformed: %d cycles", err, p.StaticCycles())
				}
			}
		})
	}
}

// TestFlattenMarkedInner: a loop marked chess_prepare_for_pipelining that runs fewer than 9
// times flattens like an unmarked one, and the loop around it is software-pipelined
// (backend/flatten.go); Compile keeps that program, which is faster than the one that keeps
// the marked loop as written.
func TestFlattenMarkedInner(t *testing.T) {
	path := filepath.Join("..", "testdata", "adf", "pointwise.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{Instance: "pointwise<8, 24, 2, 2>"})
	if err != nil {
		t.Fatal(err)
	}
	data, sizes := randomData(t, k, 3)
	want, err := interp.Run(k, interp.Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	p, err := backend.Compile(k, backend.Options{Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(p.Notes, "\n")
	if !strings.Contains(notes, "loops marked chess_prepare_for_pipelining flattened too") {
		t.Errorf("the marked channel loop was not flattened:\n%s", notes)
	}
	if !strings.Contains(notes, "pointwise.cc:13:9: modulo scheduled") {
		t.Errorf("the row loop was not software-pipelined:\n%s", notes)
	}
	got, err := Run(p, Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range want.Data {
		if !bytes.Equal(got.Data[name], w) {
			t.Errorf("%s: the simulation differs from the interpreter", name)
		}
	}
	p0, err := backend.Compile(k, backend.Options{Sizes: sizes, NoFlatten: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.StaticCycles() >= p0.StaticCycles() {
		t.Errorf("%d cycles flattened, %d as written", p.StaticCycles(), p0.StaticCycles())
	}
}
