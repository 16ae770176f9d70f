package versal

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
)

// KCPoint is one point of seed 001's Fig. 5 (the micro-kernel alone) with the whole GEMM at
// that kc beside it.
type KCPoint struct {
	KC            int     `json:"kc"`
	KernelCycles  int64   `json:"kernel_cycles"`
	KernelMACs    int64   `json:"kernel_macs"`
	KernelPctPeak float64 `json:"kernel_pct_peak"`
	Cycles        int64   `json:"cycles"`
	PctPeak       float64 `json:"pct_peak"`
	Limit         string  `json:"limit"`
	Verified      bool    `json:"verified"`
	VerifiedOn    string  `json:"verified_shape"`
	VerifyError   string  `json:"verify_error,omitempty"`
}

// DefaultKCs are Fig. 5's points and a few between them.
var DefaultKCs = []int{64, 128, 192, 256, 290}

// SweepKC runs seed 001's Fig. 4 kernel alone at each kc (-D Kc=kc, as the seed compiled it:
// its loop runs Kc/4 times, so kc = 290 executes 288 k steps; kernel_pct_peak counts the MACs
// it executes) and the whole GEMM in the seed's placement with that kc.
func SweepKC(m *Machine, spec *op.Spec, kcs []int, o GEMMOptions) ([]KCPoint, error) {
	if o.Placement == "" {
		o.Placement = PlacementSeed
	}
	if o.Placement != PlacementSeed {
		return nil, fmt.Errorf("the kc sweep reproduces seed 001's Fig. 5 in the seed's placement (the best placement keeps the whole k in one block)")
	}
	var pts []KCPoint
	for _, kc := range kcs {
		if kc < 4 || kc%4 != 0 && kc != spec.GEMM.K {
			return nil, fmt.Errorf("kc = %d: the seed kernel's loop takes 4 k per iteration (want a multiple of 4, or k)", kc)
		}
		k, err := LoadKernel("lei_gemm_16x4.cc", fmt.Sprintf("Kc=%d", kc))
		if err != nil {
			return nil, err
		}
		pt := KCPoint{KC: kc, KernelCycles: k.Cycles, KernelMACs: k.MACs, KernelPctPeak: pct(float64(k.MACs) / float64(k.Cycles) / 32)}
		oo := o
		oo.KC = kc
		oo.Trace = nil
		r, err := RunGEMM(m, spec, oo)
		if err != nil {
			return nil, err
		}
		pt.Cycles, pt.PctPeak, pt.Limit = r.Cycles, r.PctPeak, r.Limit
		pt.Verified, pt.VerifiedOn, pt.VerifyError = r.Verified, r.VerifiedOn, r.VerifyError
		pts = append(pts, pt)
	}
	return pts, nil
}

// MCPoint is one point of seed 001's Fig. 6.
type MCPoint struct {
	MC          int              `json:"mc"`
	Cycles      int64            `json:"cycles"`
	PctPeak     float64          `json:"pct_peak"`
	Limit       string           `json:"limit"`
	Breakdown   map[string]int64 `json:"breakdown"`
	Verified    bool             `json:"verified"`
	VerifiedOn  string           `json:"verified_shape"`
	VerifyError string           `json:"verify_error,omitempty"`
	Error       string           `json:"error,omitempty"` // the point's blocks do not fit
}

// DefaultMCs are powers of two up to 4096 (Fig. 6's range).
var DefaultMCs = []int{16, 32, 64, 128, 256, 512, 1024, 2048, 4096}

// SweepMC runs the whole GEMM at each mc (seed 001 s.V-D: nc = n, kc = k).
func SweepMC(m *Machine, spec *op.Spec, mcs []int, o GEMMOptions) ([]MCPoint, error) {
	if o.Placement == "" {
		o.Placement = PlacementSeed
	}
	var pts []MCPoint
	for _, mc := range mcs {
		if mc > roundUp(spec.GEMM.M, gemmMR) {
			continue
		}
		oo := o
		oo.MC = mc
		oo.Trace = nil
		r, err := RunGEMM(m, spec, oo)
		if err != nil {
			pts = append(pts, MCPoint{MC: mc, Error: err.Error()})
			continue
		}
		pts = append(pts, MCPoint{MC: mc, Cycles: r.Cycles, PctPeak: r.PctPeak, Limit: r.Limit, Breakdown: r.Breakdown,
			Verified: r.Verified, VerifiedOn: r.VerifiedOn, VerifyError: r.VerifyError})
	}
	return pts, nil
}

// SweepResult is a kc or mc sweep as one document.
type SweepResult struct {
	Sweep     string `json:"sweep"`
	Spec      string `json:"spec"`
	Placement string `json:"placement"`
	Rates     string `json:"rates"`
	Points    any    `json:"points"` // []KCPoint or []MCPoint
	Verified  bool   `json:"verified"`
}

// SweepGEMM runs the kc or the mc sweep with the default points.
func SweepGEMM(m *Machine, spec *op.Spec, what string, o GEMMOptions) (*SweepResult, error) {
	if spec.GEMM == nil {
		return nil, fmt.Errorf("a %s sweep needs a gemm spec", what)
	}
	if o.Placement == "" {
		o.Placement = PlacementSeed
	}
	if o.Rates == "" {
		o.Rates = RatesReal
	}
	sr := &SweepResult{Sweep: what, Spec: spec.String(), Placement: o.Placement, Rates: o.Rates, Verified: true}
	switch what {
	case "kc":
		pts, err := SweepKC(m, spec, DefaultKCs, o)
		if err != nil {
			return nil, err
		}
		for _, p := range pts {
			sr.Verified = sr.Verified && p.Verified
		}
		sr.Points = pts
	case "mc":
		pts, err := SweepMC(m, spec, DefaultMCs, o)
		if err != nil {
			return nil, err
		}
		for _, p := range pts {
			sr.Verified = sr.Verified && (p.Verified || p.Error != "")
		}
		sr.Points = pts
	default:
		return nil, fmt.Errorf("sweep %q: want kc or mc", what)
	}
	return sr, nil
}
