package x86gen

import (
	"strings"
	"testing"
)

func TestValidateRejects(t *testing.T) {
	bad := map[string]Kernel{
		"too many registers": {Elem: F32, MR: 8, NR: 16, Unroll: 1},
		"int needs a temp":   {Elem: I16, MR: 6, NR: 16 + 8, Unroll: 1},
		"NR not lanes":       {Elem: F64, MR: 6, NR: 6, Unroll: 1},
		"unroll":             {Elem: F32, MR: 6, NR: 16, Unroll: 3},
		"MR zero":            {Elem: F32, MR: 0, NR: 16, Unroll: 1},
		"prefetch":           {Elem: F32, MR: 6, NR: 16, Unroll: 1, PrefetchA: 10},
		"elem":               {Elem: Elem(99), MR: 6, NR: 16, Unroll: 1},
		"avx512 int":         {Elem: I16, MR: 6, NR: 32, Unroll: 1, AVX512: true},
		"avx512 strided":     {Elem: F32, MR: 6, NR: 32, Unroll: 1, AVX512: true, Strided: true},
		"avx512 registers":   {Elem: F32, MR: 10, NR: 48, Unroll: 1, AVX512: true}, // 30 accumulators
		"avx512 NR":          {Elem: F64, MR: 6, NR: 12, Unroll: 1, AVX512: true},
		"indirect strided":   {Elem: F32, MR: 6, NR: 16, Unroll: 1, Indirect: true, Strided: true},
		"strided rows":       {Elem: F32, MR: 7, NR: 8, Unroll: 1, Strided: true},
		"indirect rows":      {Elem: F32, MR: 7, NR: 8, Unroll: 1, Indirect: true},
		"indirect avx512":    {Elem: F32, MR: 6, NR: 32, Unroll: 1, Indirect: true, AVX512: true},
	}
	// The 32 zmm registers take tiles the 16 ymm cannot.
	for _, k := range []Kernel{{Elem: F32, MR: 14, NR: 32, Unroll: 4, AVX512: true}, {Elem: F64, MR: 6, NR: 32, Unroll: 4, AVX512: true}} {
		if err := k.Validate(); err != nil {
			t.Errorf("%+v rejected: %v", k, err)
		}
	}
	for name, k := range bad {
		if err := k.Validate(); err == nil {
			t.Errorf("%s: accepted %+v", name, k)
		}
	}
	if _, err := Generate("p", []Kernel{Catalog()[0], Catalog()[0]}); err == nil {
		t.Error("duplicate kernels accepted")
	}
}

func TestGenerateShape(t *testing.T) {
	files, err := Generate("kernels", Catalog())
	if err != nil {
		t.Fatal(err)
	}
	s := string(files["zkernels_amd64.s"])
	for _, k := range Catalog() {
		if !strings.Contains(s, "TEXT ·"+k.Symbol()+"(SB)") {
			t.Errorf("missing TEXT for %s", k.Symbol())
		}
		for _, f := range []string{"zkernels_amd64.go", "zkernels_other.go"} {
			if !strings.Contains(string(files[f]), "func "+k.Dispatcher()+"(") {
				t.Errorf("%s: missing dispatcher %s", f, k.Dispatcher())
			}
		}
	}
	// The 6x16 float32 kernel does 12 FMAs per k step.
	k := Kernel{Elem: F32, MR: 6, NR: 16, Unroll: 1}
	var a asm
	k.emit(&a)
	if n := strings.Count(a.buf.String(), "VFMADD231PS"); n != 12*2 { // loop body + beta epilogue
		t.Errorf("6x16 unroll 1: %d FMAs, want 12 in the loop and 12 in the epilogue", n)
	}
	// Its AVX-512 counterpart 6x32 does the same on zmm registers, loading 64 bytes of B each.
	k = Kernel{Elem: F32, MR: 6, NR: 32, Unroll: 1, AVX512: true}
	a = asm{}
	k.emit(&a)
	body := a.buf.String()
	if n := strings.Count(body, "VFMADD231PS Z"); n != 12*2 {
		t.Errorf("6x32 zmm unroll 1: %d zmm FMAs, want 24", n)
	}
	if strings.Contains(body, " Y") || !strings.Contains(body, "VMOVUPS 64(BX), Z") {
		t.Errorf("6x32 zmm kernel: ymm registers or no 64-byte B step:\n%s", body)
	}
}

// TestWrappersFollowCatalog: the exported wrappers exist exactly for the kernel forms the
// catalog has, and a form with some of its row counts missing is an error.
func TestWrappersFollowCatalog(t *testing.T) {
	src, err := wrappers("kernels", Catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"F32Tiles", "F32ZTiles", "F64StridedTiles", "I16WindowRowsTiles", "U8S8IndirectTiles", "S8U8Tiles"} {
		if !strings.Contains(string(src), "\nfunc "+f+"(") {
			t.Errorf("no %s", f)
		}
	}
	if strings.Contains(string(src), "func F64StridedRows(") || strings.Contains(string(src), "func S8U8Strided(") {
		t.Error("wrappers for kernels the catalog does not have")
	}
	var noI16Indirect, partial []Kernel
	for _, k := range Catalog() {
		if !(k.Elem == I16 && k.Indirect) {
			noI16Indirect = append(noI16Indirect, k)
		}
		if !(k.Elem == I16 && k.Indirect && k.MR == 3) {
			partial = append(partial, k)
		}
	}
	src, err = wrappers("kernels", noI16Indirect)
	if err != nil || strings.Contains(string(src), "I16IndirectTiles") {
		t.Errorf("without I16 indirect kernels: %v, I16IndirectTiles generated: %v", err, strings.Contains(string(src), "I16IndirectTiles"))
	}
	if _, err := wrappers("kernels", partial); err == nil {
		t.Error("I16 indirect kernels without the 3-row one accepted")
	}
}
