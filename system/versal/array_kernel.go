package versal

import (
	"fmt"
	"strings"
	"sync"
)

// Variant is the role of a compute tile's call in a reduction over tiles (a K split).
type Variant int

const (
	Solo  Variant = iota // the whole reduction: narrows to the output type
	First                // starts a partial sum and passes it on (int32 / fp32)
	Mid                  // takes a partial sum, adds its products, passes it on
	Last                 // takes a partial sum, adds its products, narrows
	numVariants
)

func (v Variant) String() string { return [...]string{"solo", "first", "mid", "last"}[v] }

// KernelSpec names a tile kernel family and its parameters.
type KernelSpec struct {
	// Family: "mm8" (sumac's 8-bit block, kernels/mm8_co.cc for K <= 256, else mm8_block.cc),
	// "f32" (kernels/gemm_f32_32x32.cc), "i8mmul" (MaxEVA's int8 structure,
	// kernels/gemm_i8_mmul.cc, int32 out), "i16" (the one-tile model's gemm_16x4_block.cc).
	Family string `json:"family"`
	DType  string `json:"dtype"` // int8, uint8, int16, fp32
	// mm8: NT x NQ blocks of 8 x 8; i16: NT micro-tiles of 16 x 4; f32: 32 x 32; i8mmul: M x N.
	NT int `json:"nt,omitempty"`
	NQ int `json:"nq,omitempty"`
	TM int `json:"tm"`
	TK int `json:"tk"`
	TN int `json:"tn"`
}

// Normalized fills the per-call shape the family fixes (mm8: 8*NT x 8*NQ; f32: 32 x 32;
// i16: 16*NT x 4).
func (s KernelSpec) Normalized() KernelSpec {
	switch s.Family {
	case "mm8":
		s.TM, s.TN = 8*s.NT, 8*s.NQ
	case "f32":
		s.TM, s.TN = 32, 32
	case "i16":
		s.TM, s.TN = 16*s.NT, 4
	}
	return s
}

func (s KernelSpec) String() string {
	return fmt.Sprintf("%s %s %dx%dx%d", s.Family, s.DType, s.TM, s.TK, s.TN)
}

// TileKernel is a kernel family resolved to its configurations, each timed on the cycle
// simulator.
type TileKernel struct {
	Spec      KernelSpec
	ABytes    int // A window of one call (rows x k)
	BBytes    int // B window of one call (k x columns)
	OutBytes  int // the narrowed output of one call
	PartBytes int // the partial sum of one call; 0: no partial-sum variants
	Peak      int // MACs per cycle of the datapath
	MACs      int64
	Variants  [numVariants]*Kernel // nil: the family has no such variant
	// AName, BName, PName, OName: the kernel's window parameters
	AName, BName, PName, OName string
	// NarrowsPartials: the partial sums are the output type (i16), not int32
	NarrowsPartials bool
}

// Cycles of a variant's call.
func (k *TileKernel) Cycles(v Variant) int64 {
	if k.Variants[v] == nil {
		return 0
	}
	return k.Variants[v].Cycles
}

// HasPartials reports whether the family passes partial sums between tiles.
func (k *TileKernel) HasPartials() bool { return k.Variants[Mid] != nil }

var (
	tileKernelMu    sync.Mutex
	tileKernelCache = map[KernelSpec]*TileKernel{}
)

// LoadTileKernel compiles and times every variant of a family configuration.
func LoadTileKernel(s KernelSpec) (*TileKernel, error) {
	tileKernelMu.Lock()
	defer tileKernelMu.Unlock()
	s = s.Normalized()
	key := s
	if k := tileKernelCache[key]; k != nil {
		return k, nil
	}
	k := &TileKernel{Spec: s}
	load := func(v Variant, file string, defs ...string) error {
		kk, err := LoadKernel(file, defs...)
		if err != nil {
			return fmt.Errorf("%s (%s): %v", s, v, err)
		}
		k.Variants[v] = kk
		return nil
	}
	switch s.Family {
	case "mm8":
		if s.DType != "int8" && s.DType != "uint8" {
			return nil, fmt.Errorf("mm8 kernel: dtype %s (want int8 or uint8)", s.DType)
		}
		if s.TK%16 != 0 || s.TK < 32 || s.NT < 1 || s.NQ < 1 {
			return nil, fmt.Errorf("mm8 kernel %s: K a multiple of 16, at least 32; NT, NQ >= 1", s)
		}
		s.TM, s.TN = 8*s.NT, 8*s.NQ
		k.Spec = s
		file := "kernels/mm8_block.cc"
		if s.TK <= 256 {
			file = "kernels/mm8_co.cc"
		}
		base := []string{fmt.Sprintf("K=%d", s.TK), fmt.Sprintf("NT=%d", s.NT), fmt.Sprintf("NQ=%d", s.NQ)}
		if s.DType == "int8" {
			base = append(base, "SIGNED8=1")
		}
		for v, d := range map[Variant][]string{Solo: nil, First: {"POUT=1"}, Mid: {"PIN=1", "POUT=1"}, Last: {"PIN=1"}} {
			if err := load(v, file, append(append([]string(nil), base...), d...)...); err != nil {
				return nil, err
			}
		}
		k.ABytes, k.BBytes = s.TM*s.TK, s.TK*s.TN
		k.OutBytes, k.PartBytes, k.Peak = s.TM*s.TN, 4*s.TM*s.TN, 128
		k.AName, k.BName, k.PName, k.OName = "I", "W", "P", "O"
	case "f32":
		if s.DType != "fp32" || s.TK < 2 {
			return nil, fmt.Errorf("f32 kernel %s: dtype fp32, K >= 2", s)
		}
		s.TM, s.TN = 32, 32
		k.Spec = s
		kd := fmt.Sprintf("K=%d", s.TK)
		if err := load(Solo, "kernels/gemm_f32_32x32.cc", kd); err != nil {
			return nil, err
		}
		if err := load(Mid, "kernels/gemm_f32_32x32.cc", kd, "ACC=1"); err != nil {
			return nil, err
		}
		k.Variants[First], k.Variants[Last] = k.Variants[Solo], k.Variants[Mid]
		k.ABytes, k.BBytes = 4*s.TM*s.TK, 4*s.TK*s.TN
		k.OutBytes, k.PartBytes, k.Peak = 4*s.TM*s.TN, 4*s.TM*s.TN, 8
		k.AName, k.BName, k.PName, k.OName = "A", "B", "C_IN", "C_OUT"
	case "i8mmul":
		if s.DType != "int8" || s.TM%8 != 0 || s.TN%8 != 0 || s.TK%8 != 0 || s.TK < 16 {
			return nil, fmt.Errorf("i8mmul kernel %s: int8, M and N multiples of 8, K of 8 (at least 16)", s)
		}
		if err := load(Solo, "kernels/gemm_i8_mmul.cc", fmt.Sprintf("M=%d", s.TM), fmt.Sprintf("K=%d", s.TK), fmt.Sprintf("N=%d", s.TN)); err != nil {
			return nil, err
		}
		k.Variants[First] = k.Variants[Solo]
		k.ABytes, k.BBytes = s.TM*s.TK, s.TK*s.TN
		k.OutBytes, k.PartBytes, k.Peak = 4*s.TM*s.TN, 4*s.TM*s.TN, 128
		k.AName, k.BName, k.OName = "A", "B", "C"
	case "i16":
		if s.DType != "int16" || s.NT < 1 || s.TK%4 != 0 {
			return nil, fmt.Errorf("i16 kernel %s: int16, NT >= 1, K a multiple of 4", s)
		}
		s.TM, s.TN = 16*s.NT, 4
		k.Spec = s
		if err := load(Solo, "kernels/gemm_16x4_block.cc", fmt.Sprintf("Kc=%d", s.TK), fmt.Sprintf("NT=%d", s.NT)); err != nil {
			return nil, err
		}
		// the kernel adds C_IN and narrows to int16 once per call: a partial sum kept in the
		// tile across K iterations (output stationary) is narrowed per call, exact only while no
		// partial sum saturates (seed 001's C_r between kc blocks); the first call adds zeros
		k.Variants[First], k.Variants[Mid], k.Variants[Last] = k.Variants[Solo], k.Variants[Solo], k.Variants[Solo]
		k.ABytes, k.BBytes = 2*s.TM*s.TK, 2*s.TK*s.TN
		k.OutBytes, k.PartBytes, k.Peak = 2*s.TM*s.TN, 2*s.TM*s.TN, 32
		k.AName, k.BName, k.PName, k.OName = "A", "Br", "C_IN", "C_OUT"
		k.NarrowsPartials = true
	default:
		return nil, fmt.Errorf("kernel family %q (want mm8, f32, i8mmul or i16)", s.Family)
	}
	k.MACs = int64(k.Spec.TM) * int64(k.Spec.TK) * int64(k.Spec.TN)
	tileKernelCache[key] = k
	return k, nil
}

// Describe names the configurations and cycles of the variants present.
func (k *TileKernel) Describe() string {
	var parts []string
	for v := Variant(0); v < numVariants; v++ {
		if kk := k.Variants[v]; kk != nil {
			parts = append(parts, fmt.Sprintf("%s %d cycles", v, kk.Cycles))
		}
	}
	return fmt.Sprintf("%s (%s)", k.Spec, strings.Join(parts, ", "))
}

// adderKernel is the adder tree's kernel: n 32-bit values (int32 or float) added.
func adderKernel(dtype string, n int) (*Kernel, error) {
	defs := []string{fmt.Sprintf("N=%d", n)}
	if dtype == "fp32" {
		defs = append(defs, "FLOAT=1")
	}
	if n%16 != 0 {
		return nil, fmt.Errorf("adder: %d values, want a multiple of 16", n)
	}
	return LoadKernel("kernels/vadd.cc", defs...)
}
