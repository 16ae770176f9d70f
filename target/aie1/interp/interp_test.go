package interp

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
)

func i16bytes(v []int16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return b
}

func i16s(b []byte) []int16 {
	v := make([]int16, len(b)/2)
	for i := range v {
		v[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return v
}

// gemmInputs packs seed 001's operands: A (16 x kc) by columns, B (kc x 4) row-major, C (16 x 4)
// by columns.
func gemmInputs(rng *rand.Rand, kc, lim int) (a, b, c []int16) {
	r := func() int16 { return int16(rng.IntN(2*lim+1) - lim) }
	a, b, c = make([]int16, 16*kc), make([]int16, 4*kc), make([]int16, 64)
	for i := range a {
		a[i] = r()
	}
	for i := range b {
		b[i] = r()
	}
	for i := range c {
		c[i] = r()
	}
	return
}

func sat16(x int64) int64 { return max(-32768, min(32767, x)) }

// gemmRef: out(m, j) = int16(C(m, j) + srs(sum_k A(m, k) B(k, j), 0)) with saturation in srs
// and wrapping in operator+.
func gemmRef(kc int, a, b, c []int16) []int16 {
	out := make([]int16, 64)
	for j := 0; j < 4; j++ {
		for m := 0; m < 16; m++ {
			var s int64
			for k := 0; k < kc; k++ {
				s += int64(a[k*16+m]) * int64(b[k*4+j])
			}
			out[j*16+m] = int16(int64(c[j*16+m]) + sat16(s))
		}
	}
	return out
}

func TestLeiGEMM(t *testing.T) {
	for _, kc := range []int{4, 64, 256} {
		k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc="+strconv.Itoa(kc))
		rng := rand.New(rand.NewPCG(uint64(kc), 1))
		a, b, c := gemmInputs(rng, kc, 64)
		res, err := Run(k, Config{
			Data:  map[string][]byte{"PL_IN": i16bytes(a), "Br": i16bytes(b), "DDR_IN": i16bytes(c)},
			Sizes: map[string]int{"out": 128},
		})
		if err != nil {
			t.Fatal(err)
		}
		got, want := i16s(res.Data["out"]), gemmRef(kc, a, b, c)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("Kc=%d: out[%d] = %d, want %d", kc, i, got[i], want[i])
			}
		}
		if res.MACs != int64(kc/4*8*32) || res.MACOps != int64(kc/4*8) {
			t.Errorf("Kc=%d: %d MACs in %d ops", kc, res.MACs, res.MACOps)
		}
		// The figure never initializes Cacc0..3, ar0, ar1: they read as zero and are reported.
		var names []string
		for _, u := range res.Uninit {
			names = append(names, u.Var)
		}
		if got := strings.Join(names, ","); got != "ar0,ar1,Cacc0,Cacc1,Cacc2,Cacc3" {
			t.Errorf("Kc=%d: uninitialized reads %q", kc, got)
		}
		if len(res.Accs["Cacc0"]) != 16 || res.Narrowed != 64 {
			t.Errorf("accumulators %d lanes, %d narrowed", len(res.Accs["Cacc0"]), res.Narrowed)
		}
		if res.Saturated == 0 && kc == 256 {
			t.Error("Kc=256 with inputs in +-64 should saturate some lanes")
		}
	}
}

func TestOutOfWindow(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	rng := rand.New(rand.NewPCG(3, 4))
	a, b, c := gemmInputs(rng, 64, 8)
	// ADF windows are circular: a window shorter than what the kernel reads wraps around
	res, err := Run(k, Config{
		Data:  map[string][]byte{"PL_IN": i16bytes(a[:16*60]), "Br": i16bytes(b), "DDR_IN": i16bytes(c)},
		Sizes: map[string]int{"out": 128},
	})
	if err != nil || len(res.Wrapped) != 1 || res.Wrapped[0] != "PL_IN" {
		t.Fatalf("a short PL_IN: err = %v, wrapped %v", err, res)
	}
	// a read that straddles the window's end is an error
	_, err = Run(k, Config{
		Data:  map[string][]byte{"PL_IN": i16bytes(a[:16*60+4]), "Br": i16bytes(b), "DDR_IN": i16bytes(c)},
		Sizes: map[string]int{"out": 128},
	})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("reading past PL_IN: err = %v", err)
	}
	for _, want := range []string{"lei_gemm_16x4.cc:", "window_readincr_v16(PL_IN) at element 960", "outside window PL_IN (1928 bytes)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// a load past a pointer buffer reads the memory image (zeros past Br in its own module)
	// and is noted once per instruction
	res, err = Run(k, Config{
		Data:  map[string][]byte{"PL_IN": i16bytes(a), "Br": i16bytes(b[:200]), "DDR_IN": i16bytes(c)},
		Sizes: map[string]int{"out": 128},
	})
	if err != nil || len(res.OutsideReads) != 1 {
		t.Fatalf("reading past Br: err = %v, outside reads %v", err, res.OutsideReads)
	}
	o := res.OutsideReads[0]
	if s := o.String(); !strings.Contains(s, "load v16int16 at Br[") || !strings.Contains(s, "of buffer Br (400 bytes") || o.Holds != "16 zero bytes (no window or buffer there)" || o.Count != 4 {
		t.Errorf("reading past Br: %v", s)
	}
}

func TestMeasure(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=128")
	ext, err := Measure(k, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"PL_IN": 128 * 32, "Br": 128 * 8, "DDR_IN": 128, "out": 128}
	for n, w := range want {
		if ext[n] != w {
			t.Errorf("extent of %s = %d, want %d", n, ext[n], w)
		}
	}
}

func TestPlacement(t *testing.T) {
	regs := []Region{{Name: "a", Size: 100}, {Name: "b", Size: 40000}}
	if err := Place(regs, 0); err != nil {
		t.Fatal(err)
	}
	if regs[0].Addr != 0 || regs[1].Addr != 128 {
		t.Errorf("packed placement: %+v", regs)
	}
	regs = []Region{{Name: "a", Size: 100}, {Name: "b", Size: 4000}, {Name: "c", Size: 10}}
	if err := Place(regs, 0); err != nil {
		t.Fatal(err)
	}
	if regs[1].Addr != 32<<10 || regs[2].Addr != 64<<10 {
		t.Errorf("one module per region: %+v", regs)
	}
	if err := Place([]Region{{Name: "big", Size: 100000}, {Name: "b", Size: 40000}}, 0); err == nil {
		t.Error("140000 bytes placed in 128 KB")
	}
}
