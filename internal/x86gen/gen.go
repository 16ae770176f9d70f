// Package x86gen generates the AVX2/FMA (and, for the float GEMMs, AVX-512) micro-kernels
// of cpu/kernels as Go assembly, and from the same catalog their arm64 NEON versions
// (arm64.go; docs/cpu-arm64.md).
//
// A kernel is a parameter set (Kernel: element types, register block MR x NR, k unrolling,
// packed or strided A, prefetch distance); Generate turns a list of them into the assembly
// and Go declarations (a dispatcher per kernel) for amd64 and for arm64, the dispatchers for
// other architectures and -tags noasm, which call the pure-Go fallbacks, and the exported
// wrappers.
// The register block follows the BLIS micro-kernel design (seed 001, Fig. 2; Van Zee and
// van de Geijn, "BLIS: A Framework for Rapidly Instantiating BLAS Functionality", TOMS 2015):
// the MR x NR tile of C lives in registers for the whole k loop, A is broadcast one element
// (or one k group) at a time and B is loaded as full vectors.
package x86gen

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
)

// Catalog is the kernel set that cpu/kernels ships. The shapes follow from the 16 ymm
// registers of AVX2 (HOST-ZEN3: 2 FMA per cycle with latency 4 needs at least 8
// independent accumulators; 12 are used): 6x16 for 32-bit lanes, 6x8 for float64.
func Catalog() []Kernel {
	var ks []Kernel
	// A convolution streams its packed weights (B) through the strided kernels once per run
	// of tiles; the fp32 ones prefetch them 2 KB ahead (ResNet-50's C16, 8 MB of weights for
	// 49 pixels: +12%; the integer kernels, with half or a quarter of the bytes, measured no
	// gain).
	const pfB = 2048
	for _, strided := range []bool{false, true} {
		pf, pb := 512, 0
		if strided {
			pf, pb = 0, pfB
		}
		ks = append(ks,
			Kernel{Elem: F32, MR: 6, NR: 16, Unroll: 4, Strided: strided, PrefetchA: pf, PrefetchB: pb},
			Kernel{Elem: F64, MR: 6, NR: 8, Unroll: 4, Strided: strided, PrefetchA: pf},
			Kernel{Elem: I16, MR: 6, NR: 16, Unroll: 4, Strided: strided, PrefetchA: pf},
			Kernel{Elem: U8S8, MR: 6, NR: 16, Unroll: 4, Strided: strided, PrefetchA: pf},
		)
	}
	ks = append(ks, Kernel{Elem: S8U8, MR: 6, NR: 16, Unroll: 4, PrefetchA: 512})
	// Tail kernels: strided kernels of 1 to 5 rows for the last pixels of a convolution
	// (ResNet-50's 7x7 layers have 49 pixels: eight tiles of 6 and one of 1, which fp32 runs
	// as four of 6 and five of 5, cpu/conv's splitTail).
	for _, e := range []Elem{F32, I16, U8S8} {
		for mr := 1; mr < 6; mr++ {
			k := Kernel{Elem: e, MR: mr, NR: 16, Unroll: 4, Strided: true}
			if e == F32 {
				k.PrefetchB = pfB
			}
			ks = append(ks, k)
		}
	}
	// Window kernels: a convolution's filter rows in one call (cpu/conv, short rows), of 6
	// rows and, for the end of an output row read from a padded input, 1 to 5.
	for _, e := range []Elem{F32, I16, U8S8} {
		for mr := 6; mr >= 1; mr-- {
			ks = append(ks, Kernel{Elem: e, MR: mr, NR: 16, Unroll: 4, Strided: true, Window: true})
		}
	}
	// Indirect kernels of 1 to 6 rows: a convolution's tiles whose rows are not evenly
	// spaced (pixels across an output row, border pixels read from a copy or a zero row).
	for _, e := range []Elem{F32, I16, U8S8} {
		for mr := 1; mr <= 6; mr++ {
			k := Kernel{Elem: e, MR: mr, NR: 16, Unroll: 4, Indirect: true}
			if e == F32 {
				k.PrefetchB = pfB
			}
			ks = append(ks, k)
		}
	}
	// AVX-512 GEMM kernels for CPUs that have it: the same six rows (so A packs as for
	// AVX2) and twelve accumulators, each a zmm register of 16 float32 or 8 float64.
	ks = append(ks,
		Kernel{Elem: F32, MR: 6, NR: 32, Unroll: 4, PrefetchA: 512, AVX512: true},
		Kernel{Elem: F64, MR: 6, NR: 16, Unroll: 4, PrefetchA: 512, AVX512: true},
		// A 10-row float32 tile (20 accumulators) for products with ten rows: nn's fc2
		// weight gradient, whose A (the output gradient, N x 10 row-major) is already this
		// kernel's packed layout. Tagged: no family wrappers (cpu/kernels' F32ZTilesR10).
		Kernel{Elem: F32, MR: 10, NR: 32, Unroll: 4, AVX512: true, Tag: "R10"},
	)
	// The integer GEMMs and every convolution kernel form on the wider instruction sets:
	// AVX-512 (float32, 6x32 on zmm), AVX-512 VNNI (int16 and uint8 x int8, 6x32: VPDPWSSD
	// and VPDPBUSD, one instruction per k group and vector where AVX2 needs two or three)
	// and AVX-VNNI (the same instructions on the 16 ymm registers, 6x16, for CPUs that have
	// VNNI but not AVX-512). VPDPBUSD does not saturate, so its uint8 kernels are exact.
	for _, w := range []struct {
		e           Elem
		nr          int
		avx512, vnn bool
	}{{F32, 32, true, false}, {I16, 32, true, true}, {U8S8, 32, true, true}, {I16, 16, false, true}, {U8S8, 16, false, true}} {
		pb := 0
		if w.e == F32 {
			pb = pfB
		}
		base := Kernel{Elem: w.e, NR: w.nr, Unroll: 4, AVX512: w.avx512, VNNI: w.vnn}
		if w.e != F32 { // the float32 one is above
			k := base
			k.MR, k.PrefetchA = 6, 512
			ks = append(ks, k)
			if w.e == U8S8 {
				k.Elem = S8U8
				ks = append(ks, k)
			}
		}
		for mr := 1; mr <= 6; mr++ {
			k := base
			k.MR, k.Strided, k.PrefetchB = mr, true, pb
			ks = append(ks, k)
		}
		for mr := 6; mr >= 1; mr-- {
			k := base
			k.MR, k.Strided, k.Window = mr, true, true
			ks = append(ks, k)
		}
		for mr := 1; mr <= 6; mr++ {
			k := base
			k.MR, k.Indirect, k.PrefetchB = mr, true, pb
			ks = append(ks, k)
		}
	}
	// A 6 x 64 float32 AVX-512 family for convolutions whose groups are a multiple of 64
	// channels wide (cpu/conv): 24 zmm accumulators, four B vectors a k step, so that each
	// B byte and each broadcast serves twice the FMAs of the 6 x 32 tile and a tile's
	// streamed weights cost half the load bandwidth. Tagged W64 (no family wrappers: the
	// F32Z family keeps its 32-column shape; cpu/kernels' F32Z64* wrap these).
	for mr := 1; mr <= 6; mr++ {
		ks = append(ks,
			Kernel{Elem: F32, MR: mr, NR: 64, Unroll: 4, AVX512: true, Strided: true, PrefetchB: pfB, Tag: "W64"},
			Kernel{Elem: F32, MR: mr, NR: 64, Unroll: 4, AVX512: true, Strided: true, Window: true, Tag: "W64"},
			Kernel{Elem: F32, MR: mr, NR: 64, Unroll: 4, AVX512: true, Indirect: true, PrefetchB: pfB, Tag: "W64"},
		)
	}
	// Depthwise kernels (depthwise.go): 4, 2 and 1 pixels x one or two vectors of channels,
	// for every type and set of the convolution.
	for _, w := range []struct {
		e           Elem
		avx512, vnn bool
	}{{F32, false, false}, {F32, true, false}, {I16, false, false}, {I16, false, true}, {I16, true, true},
		{U8S8, false, false}, {U8S8, false, true}, {U8S8, true, true}} {
		lanes := 8
		if w.avx512 {
			lanes = 16
		}
		for _, nv := range []int{1, 2} {
			for _, mr := range []int{1, 2, 4} {
				ks = append(ks, Kernel{Elem: w.e, MR: mr, NR: nv * lanes, Depthwise: true, AVX512: w.avx512, VNNI: w.vnn})
			}
		}
	}
	return ks
}

// sets lists the kernel sets in a stable order, with the flag of cpu/kernels that says
// whether the CPU runs it and the words its dispatchers' documentation uses.
var sets = []struct{ name, flag, doc string }{
	{SetAVX2, "useAsm", "AVX2 and FMA"},
	{SetAVX2VNNI, "useAVXVNNI", "AVX-VNNI"},
	{SetAVX512, "useAVX512", "AVX-512F"},
	{SetAVX512VNNI, "useAVX512VNNI", "AVX-512F and AVX512_VNNI"},
}

func setFlag(set string) (flag, doc string) {
	for _, s := range sets {
		if s.name == set {
			return s.flag, s.doc
		}
	}
	panic("x86gen: unknown set " + set)
}

// peaks returns the first packed, untagged kernel of each element type in set: the ones
// whose arithmetic the peak loops reproduce.
func peaks(ks []Kernel, set string) []Kernel {
	var out []Kernel
	seen := map[Elem]bool{}
	for _, k := range ks {
		if k.form() == "P" && k.Tag == "" && k.Set() == set && !seen[k.Elem] {
			seen[k.Elem] = true
			out = append(out, k)
		}
	}
	return out
}

// allPeaks is peaks of every set.
func allPeaks(ks []Kernel) []Kernel {
	var out []Kernel
	for _, s := range sets {
		out = append(out, peaks(ks, s.name)...)
	}
	return out
}

// isaConst names each set's constant of cpu/kernels' ISA type.
var isaConst = map[string]string{SetAVX2: "ISAAVX2", SetAVX2VNNI: "ISAAVX2VNNI", SetAVX512: "ISAAVX512", SetAVX512VNNI: "ISAAVX512VNNI"}

// Files are the generated sources, keyed by file name.
type Files map[string][]byte

// Names returns the file names in a stable order.
func (f Files) Names() []string {
	var n []string
	for k := range f {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

const header = "// Code generated by internal/x86gen (go generate ./cpu/kernels); DO NOT EDIT.\n\n"

// Generate returns the assembly, amd64 Go declarations, portable dispatchers and the
// exported per-type wrappers (wrappers.go) for ks, for a Go package named pkg.
func Generate(pkg string, ks []Kernel) (Files, error) {
	seen := map[string]bool{}
	for _, k := range ks {
		if err := k.Validate(); err != nil {
			return nil, err
		}
		if seen[k.Symbol()] {
			return nil, fmt.Errorf("x86gen: duplicate kernel %s", k.Symbol())
		}
		seen[k.Symbol()] = true
	}

	var s asm
	s.buf.WriteString(header)
	s.line("//go:build amd64 && !noasm")
	s.blank()
	s.line(`#include "textflag.h"`)
	s.blank()
	s.line("// Sixteen int16 ones: VPMADDWD by them sums adjacent int16 pairs into int32 lanes.")
	for i := 0; i < 4; i++ {
		s.line("DATA onesw<>+%d(SB)/8, $0x0001000100010001", 8*i)
	}
	s.line("GLOBL onesw<>(SB), RODATA|NOPTR, $32")
	s.blank()
	for _, k := range ks {
		k.emit(&s)
	}
	for _, k := range allPeaks(ks) {
		k.emitPeak(&s)
	}
	emitPackA6F32(&s)
	emitPackA6F64(&s)
	emitPackBRows(&s, 64)
	emitPackBRows(&s, 128)
	emitPackBGroups(&s, "asmPackBPairs16", 2)
	emitPackBGroups(&s, "asmPackBQuads8", 4)
	emitPackBPairsWiden(&s, "asmPackBPairsS8", true)
	emitPackBPairsWiden(&s, "asmPackBPairsU8", false)
	emitPackA6Widen(&s, "asmPackA6S8", true)
	emitPackA6Widen(&s, "asmPackA6U8", false)
	emitPackA6TransF32(&s)
	emitPackB16TransF32(&s)
	emitReLU(&s)
	emitReLUGrad(&s)
	emitMaxPool2(&s)
	emitAdadelta(&s)
	emitDropout(&s)

	var decl bytes.Buffer
	decl.WriteString(header)
	fmt.Fprintf(&decl, "//go:build amd64 && !noasm\n\npackage %s\n\nimport \"unsafe\"\n\n", pkg)
	for _, k := range ks {
		use, isa := setFlag(k.Set())
		fmt.Fprintf(&decl, "// %s runs %s when the CPU has %s, else its Go fallback.\n", k.Dispatcher(), k.Symbol(), isa)
		fmt.Fprintf(&decl, "func %s(%s) {\n", k.Dispatcher(), k.goSignature())
		fmt.Fprintf(&decl, "\tif %s {\n\t\t%s(%s)\n\t\treturn\n\t}\n", use, k.Symbol(), k.goArgNames())
		fmt.Fprintf(&decl, "\t%s(%d, %d, %s)\n}\n\n", k.fallback(), k.MR, k.NR, k.goArgNames())
		fmt.Fprintf(&decl, "//go:noescape\nfunc %s(%s)\n\n", k.Symbol(), k.goSignature())
	}

	for _, k := range allPeaks(ks) {
		fmt.Fprintf(&decl, "// %s runs n iterations of the %s kernel's arithmetic (%d MACs each) on registers.\n", k.PeakSymbol(), elems[k.Elem].tag, k.MR*k.NR*elems[k.Elem].group)
		fmt.Fprintf(&decl, "//\n//go:noescape\nfunc %s(n int)\n\n", k.PeakSymbol())
	}
	decl.WriteString(packDecls)
	decl.WriteString(elementDecls)
	decl.WriteString("// peaks maps a kernel set and an element type to the set's peak loop and the MACs of one\n// iteration.\nvar peaks = map[ISA]map[string]peak{\n")
	for _, set := range sets {
		ps := peaks(ks, set.name)
		if len(ps) == 0 {
			continue
		}
		fmt.Fprintf(&decl, "\t%s: {\n", isaConst[set.name])
		for _, k := range ps {
			fmt.Fprintf(&decl, "\t\t%q: {%s, %d},\n", elems[k.Elem].dtype, k.PeakSymbol(), k.MR*k.NR*elems[k.Elem].group)
		}
		decl.WriteString("\t},\n")
	}
	decl.WriteString("}\n\n")

	var other bytes.Buffer
	other.WriteString(header)
	fmt.Fprintf(&other, "//go:build (!amd64 && !arm64) || noasm\n\npackage %s\n\nimport \"unsafe\"\n\n", pkg)
	for _, k := range ks {
		fmt.Fprintf(&other, "func %s(%s) {\n", k.Dispatcher(), k.goSignature())
		fmt.Fprintf(&other, "\t%s(%d, %d, %s)\n}\n\n", k.fallback(), k.MR, k.NR, k.goArgNames())
	}

	other.WriteString(packOther)
	other.WriteString(elementOther)

	wrap, err := wrappers(pkg, ks)
	if err != nil {
		return nil, err
	}

	armAsm, armGo, err := generateARM64(pkg, ks)
	if err != nil {
		return nil, err
	}

	bfAsm, bfGo, err := generateBF16(pkg, BF16Catalog())
	if err != nil {
		return nil, err
	}

	amxAsm, amxGo, amxProg := generateAMX(pkg, AMXCatalog())

	files := Files{"zkernels_amd64.s": s.buf.Bytes(), "zkernels_arm64.s": armAsm, "zbf16_amd64.s": bfAsm, "zamx_amd64.s": amxAsm}
	for name, src := range map[string][]byte{"zkernels_amd64.go": decl.Bytes(), "zkernels_arm64.go": armGo, "zkernels_other.go": other.Bytes(), "zwrappers.go": wrap,
		"zbf16_amd64.go": bfGo, "zamx_amd64.go": amxGo, "zamxprog.go": amxProg} {
		out, err := format.Source(src)
		if err != nil {
			return nil, fmt.Errorf("x86gen: formatting %s: %v", name, err)
		}
		files[name] = out
	}
	return files, nil
}

// packDecls and packOther are the Go sides of the packing routines in pack.go.
const packDecls = `// packA6F32 packs k8 blocks of 8 k of six float32 rows into dst[k][6].
func packA6F32(k8 int, src *float32, lda int, dst *float32) {
	if useAsm {
		asmPackA6F32(k8, src, lda, dst)
		return
	}
	goPackA6F32(k8, src, lda, dst)
}

//go:noescape
func asmPackA6F32(k8 int, src *float32, lda int, dst *float32)

// packA6F64 packs k4 blocks of 4 k of six float64 rows into dst[k][6].
func packA6F64(k4 int, src *float64, lda int, dst *float64) {
	if useAsm {
		asmPackA6F64(k4, src, lda, dst)
		return
	}
	goPackA6F64(k4, src, lda, dst)
}

//go:noescape
func asmPackA6F64(k4 int, src *float64, lda int, dst *float64)

// packBRows copies w-byte panel rows, w 64 or 128 (strides in bytes).
func packBRows(w, k, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int) {
	switch {
	case useAsm && w == 64:
		asmPackB64(k, np, src, ldb, dst, panel)
	case useAsm && w == 128:
		asmPackB128(k, np, src, ldb, dst, panel)
	default:
		goPackBRows(w, k, np, src, ldb, dst, panel)
	}
}

//go:noescape
func asmPackB64(k, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int)

//go:noescape
func asmPackB128(k, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int)

// packBGroups interleaves g rows (2 of int16 or 4 of bytes) of B into 16-column panels,
// k groups gstep bytes apart in dst.
func packBGroups(g, kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int) {
	switch {
	case useAsm && g == 2:
		asmPackBPairs16(kg, np, src, ldb, dst, panel, gstep)
	case useAsm:
		asmPackBQuads8(kg, np, src, ldb, dst, panel, gstep)
	default:
		goPackBGroups(g, kg, np, src, ldb, dst, panel, gstep)
	}
}

//go:noescape
func asmPackBPairs16(kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int)

//go:noescape
func asmPackBQuads8(kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int)

// packBPairsWiden packs pairs of byte rows of B widened to int16 panels.
func packBPairsWiden(signed bool, kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int) {
	switch {
	case useAsm && signed:
		asmPackBPairsS8(kg, np, src, ldb, dst, panel, gstep)
	case useAsm:
		asmPackBPairsU8(kg, np, src, ldb, dst, panel, gstep)
	default:
		goPackBPairsWiden(signed, kg, np, src, ldb, dst, panel, gstep)
	}
}

//go:noescape
func asmPackBPairsS8(kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int)

//go:noescape
func asmPackBPairsU8(kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int)

// packA6Widen packs six byte rows widened to int16 k pairs, 16 k per block.
func packA6Widen(signed bool, k16 int, src unsafe.Pointer, lda int, dst *int16) {
	switch {
	case useAsm && signed:
		asmPackA6S8(k16, src, lda, dst)
	case useAsm:
		asmPackA6U8(k16, src, lda, dst)
	default:
		goPackA6Widen(signed, k16, src, lda, dst)
	}
}

//go:noescape
func asmPackA6S8(k16 int, src unsafe.Pointer, lda int, dst *int16)

//go:noescape
func asmPackA6U8(k16 int, src unsafe.Pointer, lda int, dst *int16)

// packA6TransF32 copies six contiguous float32 per k into dst[k][6].
func packA6TransF32(k int, src *float32, lda int, dst *float32) {
	if useAsm {
		asmPackA6TransF32(k, src, lda, dst)
		return
	}
	goPackA6TransF32(k, src, lda, dst)
}

//go:noescape
func asmPackA6TransF32(k int, src *float32, lda int, dst *float32)

// packB16TransF32 transposes 16 stored rows per panel into packed B, 8 k at a time.
func packB16TransF32(k8, np int, src *float32, ldb int, dst *float32, panel int) {
	if useAsm {
		asmPackB16TransF32(k8, np, src, ldb, dst, panel)
		return
	}
	goPackB16TransF32(k8, np, src, ldb, dst, panel)
}

//go:noescape
func asmPackB16TransF32(k8, np int, src *float32, ldb int, dst *float32, panel int)

`

const packOther = `func packA6F32(k8 int, src *float32, lda int, dst *float32) { goPackA6F32(k8, src, lda, dst) }

func packA6F64(k4 int, src *float64, lda int, dst *float64) { goPackA6F64(k4, src, lda, dst) }

func packBRows(w, k, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel int) {
	goPackBRows(w, k, np, src, ldb, dst, panel)
}

func packBGroups(g, kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int) {
	goPackBGroups(g, kg, np, src, ldb, dst, panel, gstep)
}

func packBPairsWiden(signed bool, kg, np int, src unsafe.Pointer, ldb int, dst unsafe.Pointer, panel, gstep int) {
	goPackBPairsWiden(signed, kg, np, src, ldb, dst, panel, gstep)
}

func packA6Widen(signed bool, k16 int, src unsafe.Pointer, lda int, dst *int16) {
	goPackA6Widen(signed, k16, src, lda, dst)
}

func packA6TransF32(k int, src *float32, lda int, dst *float32) { goPackA6TransF32(k, src, lda, dst) }

func packB16TransF32(k8, np int, src *float32, ldb int, dst *float32, panel int) {
	goPackB16TransF32(k8, np, src, ldb, dst, panel)
}
`
