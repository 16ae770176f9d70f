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
		"vnni float":         {Elem: F32, MR: 6, NR: 32, Unroll: 1, AVX512: true, VNNI: true},
		"avx-vnni registers": {Elem: U8S8, MR: 7, NR: 16, Unroll: 1, VNNI: true},
		"avx512 strided MR":  {Elem: F32, MR: 7, NR: 32, Unroll: 1, AVX512: true, Strided: true},
		"avx512 registers":   {Elem: F32, MR: 10, NR: 48, Unroll: 1, AVX512: true}, // 30 accumulators
		"avx512 NR":          {Elem: F64, MR: 6, NR: 12, Unroll: 1, AVX512: true},
		"indirect strided":   {Elem: F32, MR: 6, NR: 16, Unroll: 1, Indirect: true, Strided: true},
		"strided rows":       {Elem: F32, MR: 7, NR: 8, Unroll: 1, Strided: true},
		"indirect rows":      {Elem: F32, MR: 7, NR: 8, Unroll: 1, Indirect: true},
	}
	// The 32 zmm registers take tiles the 16 ymm cannot; VNNI kernels need no product
	// temporary, so AVX-VNNI fits 6x16 with two broadcast registers.
	for _, k := range []Kernel{{Elem: F32, MR: 14, NR: 32, Unroll: 4, AVX512: true}, {Elem: F64, MR: 6, NR: 32, Unroll: 4, AVX512: true},
		{Elem: F32, MR: 6, NR: 32, Unroll: 4, AVX512: true, Indirect: true}, {Elem: U8S8, MR: 6, NR: 16, Unroll: 4, VNNI: true, Strided: true}} {
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

// TestVEXVNNI checks the generator's AVX-VNNI encodings against GNU as ("{vex} vpdpbusd
// %ymm1,%ymm2,%ymm3" and others, objdump -d): Intel order dst, src1, src2.
func TestVEXVNNI(t *testing.T) {
	for _, c := range []struct {
		op              string
		dst, src1, src2 int
		want            []byte
	}{
		{"VPDPBUSD", 3, 2, 1, []byte{0xc4, 0xe2, 0x6d, 0x50, 0xd9}},
		{"VPDPBUSD", 9, 10, 13, []byte{0xc4, 0x42, 0x2d, 0x50, 0xcd}},
		{"VPDPWSSD", 12, 0, 15, []byte{0xc4, 0x42, 0x7d, 0x52, 0xe7}},
		{"VPDPWSSD", 2, 14, 4, []byte{0xc4, 0xe2, 0x0d, 0x52, 0xd4}},
	} {
		if got := vexVNNIBytes(c.op, c.dst, c.src1, c.src2); string(got) != string(c.want) {
			t.Errorf("%s Y%d, Y%d, Y%d: % x, want % x", c.op, c.dst, c.src1, c.src2, got, c.want)
		}
	}
	// An AVX-VNNI kernel's multiply-adds are bytes; its AVX-512 VNNI sibling's are mnemonics.
	var a asm
	Kernel{Elem: U8S8, MR: 6, NR: 16, Unroll: 1, VNNI: true}.emit(&a)
	if s := a.buf.String(); strings.Contains(s, "\tVPDPBUSD") || strings.Count(s, "// VPDPBUSD") != 12 || strings.Contains(s, "onesw") {
		t.Errorf("AVX-VNNI 6x16 kernel: want 12 byte-encoded VPDPBUSD and no VPMADDUBSW path:\n%s", s)
	}
	a = asm{}
	Kernel{Elem: I16, MR: 6, NR: 32, Unroll: 1, VNNI: true, AVX512: true}.emit(&a)
	if s := a.buf.String(); strings.Count(s, "VPDPWSSD Z") != 12 || strings.Contains(s, "VPMADDWD") || strings.Contains(s, " Y") {
		t.Errorf("AVX-512 VNNI 6x32 int16 kernel: want 12 zmm VPDPWSSD:\n%s", s)
	}
}
