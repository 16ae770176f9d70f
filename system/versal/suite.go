package versal

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/suite"
)

// SuiteResult is a convolution suite (seed 004 Fig. 7: every layer with and without data
// movement) and its summary.
type SuiteResult struct {
	Suite     string  `json:"suite"`
	DType     string  `json:"dtype"`
	Placement string  `json:"placement"`
	Rates     string  `json:"rates"`
	ClockGHz  float64 `json:"clock_ghz"`
	// the whole network, layers one after the other: total cycles and MACs, the aggregate
	// rate, the breakdown summed over the layers, the limit most layers share
	Cycles       int64            `json:"cycles"`
	MACs         int64            `json:"macs"`
	MACsPerCycle float64          `json:"macs_per_cycle"`
	PctPeak      float64          `json:"pct_peak"`
	Limit        string           `json:"limit"`
	Breakdown    map[string]int64 `json:"breakdown"`
	Layers       []*ConvResult    `json:"layers"`
	// geometric means over the layers of pct_peak with and without data movement, and the
	// share of the former that data movement costs: 100 * (1 - with / without)
	GeomeanPctPeak        float64 `json:"geomean_pct_peak"`
	GeomeanPctPeakCompute float64 `json:"geomean_pct_peak_compute"`
	DataMovementPct       float64 `json:"data_movement_pct"`
	MinMACsPerCycle       float64 `json:"min_macs_per_cycle"`
	MinLayer              string  `json:"min_layer"`
	Verified              bool    `json:"verified"`
}

// RunSuite models every convolution of a suite (op/suite) in dtype.
func RunSuite(m *Machine, name, dtype string, o ConvOptions) (*SuiteResult, error) {
	s, err := suite.Get(name)
	if err != nil {
		return nil, err
	}
	sr := &SuiteResult{Suite: name, DType: dtype, ClockGHz: m.AIEClockGHz, Verified: true, MinMACsPerCycle: math.Inf(1), Breakdown: map[string]int64{}}
	limits := map[string]int{}
	var lw, lc float64
	for _, w := range s.Workloads {
		if w.Spec.Conv == nil {
			return nil, fmt.Errorf("suite %s: %s is not a convolution", name, w.Name)
		}
		spec, err := op.Retype(w.Spec, "dtype="+dtype)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", w.Name, err)
		}
		oo := o
		oo.Trace = nil
		r, err := RunConv(m, spec, oo)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", w.Name, err)
		}
		r.Layer = w.Name
		sr.Placement, sr.Rates = r.Placement, r.Rates
		sr.Layers = append(sr.Layers, r)
		lw += math.Log(r.PctPeak)
		lc += math.Log(r.PctPeakCompute)
		if r.MACsPerCycle < sr.MinMACsPerCycle {
			sr.MinMACsPerCycle, sr.MinLayer = r.MACsPerCycle, w.Name
		}
		sr.Verified = sr.Verified && r.Verified
		sr.Cycles += r.Cycles
		sr.MACs += r.MACs
		for k, v := range r.Breakdown {
			sr.Breakdown[k] += v
		}
		limits[r.Limit]++
		if limits[r.Limit] > limits[sr.Limit] {
			sr.Limit = r.Limit
		}
	}
	if sr.Cycles > 0 {
		pk := sr.Layers[0].Peak
		sr.MACsPerCycle = math.Round(float64(sr.MACs)/float64(sr.Cycles)*100) / 100
		sr.PctPeak = pct(float64(sr.MACs) / float64(sr.Cycles) / float64(pk))
	}
	n := float64(len(sr.Layers))
	sr.GeomeanPctPeak = math.Round(math.Exp(lw/n)*10) / 10
	sr.GeomeanPctPeakCompute = math.Round(math.Exp(lc/n)*10) / 10
	sr.DataMovementPct = math.Round((1-math.Exp(lw/n)/math.Exp(lc/n))*1000) / 10
	return sr, nil
}
