package gemm

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/cpu/kernels"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"32K": 32 << 10, "512K": 512 << 10, "32768K": 32 << 20, "8M": 8 << 20, "1G": 1 << 30, "4096": 4096} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "K", "-1K", "12Q", "99999999999999999999M", "1.5M"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"32K", "8M", "", "1G", "-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseSize(s)
		if err == nil && v < 0 {
			t.Fatalf("parseSize(%q) = %d", s, v)
		}
	})
}

// TestSysfsCaches reads a fabricated sysfs tree, including entries to skip.
func TestSysfsCaches(t *testing.T) {
	dir := t.TempDir()
	write := func(idx, name, val string) {
		p := filepath.Join(dir, idx)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, name), []byte(val+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for idx, v := range map[string][3]string{
		"index0": {"Data", "1", "48K"}, "index1": {"Instruction", "1", "32K"},
		"index2": {"Unified", "2", "1024K"}, "index3": {"Unified", "3", "16M"}, "index4": {"Unified", "x", "1M"},
	} {
		write(idx, "type", v[0])
		write(idx, "level", v[1])
		write(idx, "size", v[2])
		write(idx, "ways_of_associativity", "12")
	}
	ci := merge(sysfsCaches(dir), "sysfs")
	if ci.Source != "sysfs" || ci.L1.Size != 48<<10 || ci.L2.Size != 1<<20 || ci.L3.Size != 16<<20 || ci.L1.Line != 64 || ci.L1.Ways != 12 {
		t.Errorf("got %+v", ci)
	}
	if ci := merge(sysfsCaches(filepath.Join(dir, "missing")), "sysfs"); ci != defaultCaches {
		t.Errorf("missing sysfs: %+v, want defaults", ci)
	}
}

// TestCachesAndBlocking checks the detected caches are plausible and the derived blockings
// are valid for their kernels.
func TestCachesAndBlocking(t *testing.T) {
	ci := Caches()
	t.Logf("caches (%s): L1 %d, L2 %d, L3 %d", ci.Source, ci.L1.Size, ci.L2.Size, ci.L3.Size)
	if ci.L1.Size < 4<<10 || ci.L2.Size < ci.L1.Size || ci.L1.Line <= 0 {
		t.Errorf("implausible caches %+v", ci)
	}
	// A valid blocking for s is positive and a fixed point of validate's rounding.
	valid := func(b Blocking, s shape) error {
		r, err := b.validate(s)
		if err == nil && r != b {
			err = fmt.Errorf("%v is not aligned to the kernel (rounds to %v)", b, r)
		}
		return err
	}
	for _, s := range []shape{shapeF32, shapeF64, shapeI16, shapeU8, shapeF32Z, shapeF64Z} {
		b := derive(ci, s)
		if err := valid(b, s); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
		for _, mnk := range [][3]int{{1, 1, 1}, {7, 300, 5}, {4096, 4096, 290}} {
			f := b.fit(s, mnk[0], mnk[1], mnk[2])
			if err := valid(f, s); err != nil {
				t.Errorf("%+v fit %v: %v", s, mnk, err)
			}
		}
	}
	if got, err := (Blocking{MC: 7, KC: 9, NC: 17}).validate(shapeU8); err != nil || got != (Blocking{MC: 12, KC: 12, NC: 32}) {
		t.Errorf("mc=7 kc=9 nc=17 for u8s8 rounded to %v, %v; want mc=12 kc=12 nc=32", got, err)
	}
	for _, c := range [][2]int{{290, 290}, {400, 200}, {2048, 256}, {100, 100}, {700, 234}} {
		if got := (Blocking{MC: 252, KC: 256, NC: 4096}).fit(shapeF32, 4096, 4096, c[0]).KC; got != c[1] {
			t.Errorf("k=%d with kc=256 cut into blocks of %d, want %d", c[0], got, c[1])
		}
	}
}

func TestParseBlocking(t *testing.T) {
	if b, err := ParseBlocking(" 96, 256,4096"); err != nil || b != (Blocking{96, 256, 4096}) {
		t.Errorf("got %v, %v", b, err)
	}
	for _, s := range []string{"", "1,2", "a,b,c", "1,2,-3", "1,2,3,4"} {
		if _, err := ParseBlocking(s); err == nil {
			t.Errorf("ParseBlocking(%q) accepted", s)
		}
	}
	t.Setenv(BlockingEnv, "0,8,16")
	if err := Sgemm(NoTrans, NoTrans, 1, 1, 1, 1, []float32{1}, 1, []float32{1}, 1, 0, []float32{0}, 1); err == nil {
		t.Error("mc=0 accepted from the environment")
	}
	t.Setenv(BlockingEnv, "7,8,20") // rounded up to the kernel's multiples
	c := []float32{0}
	if err := Sgemm(NoTrans, NoTrans, 1, 1, 1, 1, []float32{2}, 1, []float32{3}, 1, 0, c, 1); err != nil || c[0] != 6 {
		t.Errorf("with %s: %v, C = %v", BlockingEnv, err, c)
	}
}

func FuzzParseBlocking(f *testing.F) {
	f.Add("96,256,4096")
	f.Add(",,")
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := ParseBlocking(s); err == nil && (b.MC <= 0 || b.KC <= 0 || b.NC <= 0) {
			t.Fatalf("ParseBlocking(%q) = %v", s, b)
		}
	})
}

// TestKernelISA: the float GEMMs report the float kernel set in use, the integer ones the
// integer set (AVX-512 VNNI, AVX-VNNI or AVX2, or the Go fallbacks), and an unknown type is
// not claimed by the AVX-512 set.
func TestKernelISA(t *testing.T) {
	want := kernels.ForDType("").String() // avx2, neon or go
	if got := KernelISA("int4"); got != want {
		t.Errorf("KernelISA(int4) = %q, want %q", got, want)
	}
	wantI := kernels.ForDType("int16").String()
	for _, dt := range []string{"int16", "u8s8", "u8s8-exact"} {
		w := wantI
		if d := kernels.ForDType("u8s8"); dt == "u8s8" && d == kernels.ISANEONDot {
			w = d.String()
		}
		if got := KernelISA(dt); got != w {
			t.Errorf("KernelISA(%q) = %q, want %q", dt, got, w)
		}
	}
	wantF := want
	if kernels.AVX512() {
		wantF = "avx512"
	}
	for _, dt := range []string{"float32", "float64"} {
		if got := KernelISA(dt); got != wantF {
			t.Errorf("KernelISA(%q) = %q, want %q", dt, got, wantF)
		}
		withFloatKernels(false, func() {
			if got := KernelISA(dt); got != want {
				t.Errorf("with the AVX2 set, KernelISA(%q) = %q, want %q", dt, got, want)
			}
		})
	}
	if b, _ := DefaultBlocking("float32"); kernels.AVX512() && b.KC != derive(Caches(), shapeF32Z).KC {
		t.Errorf("DefaultBlocking(float32) = %v, not the AVX-512 kernel's", b)
	}
}
