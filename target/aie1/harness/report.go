package harness

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Region is one window or buffer in the report.
type Region struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"` // input window, output window, buffer
	Type   string `json:"type"`
	Bytes  int    `json:"bytes"`
	Addr   uint32 `json:"addr"`
	Size   string `json:"size_from"` // measured | --window
	Inputs string `json:"inputs"`    // random | zeros | file
}

// Uninit is a register read before it is written (it starts at zero).
type Uninit struct {
	Var  string `json:"var"`
	Type string `json:"type"`
	Pos  string `json:"pos"`
}

// OutsideRead is a load that read bytes outside its window or buffer (interp.OutsideRead):
// the kernel runs, the load returning what the memory image holds there, and sim warns.
type OutsideRead struct {
	Pos    string `json:"pos"`
	Access string `json:"access"`
	Buffer string `json:"buffer"`
	Size   int    `json:"buffer_bytes"`
	// Bytes is the range read, relative to the buffer's start ("[32, 64)").
	Bytes string `json:"bytes"`
	Addr  int64  `json:"addr"`
	// Holds is what the bytes outside the buffer held (other buffers' bytes, or zeros).
	Holds   string `json:"holds"`
	Count   int64  `json:"count"`
	Message string `json:"message"`
}

// Cost is one item of the cycle breakdown.
type Cost struct {
	What   string `json:"what"`
	Cycles int    `json:"cycles"`
	Source string `json:"source"`
}

// Report is everything Run found; its JSON form is `sumac sim --json`.
type Report struct {
	Kernel                  string            `json:"kernel"`
	Instance                string            `json:"instance,omitempty"`
	File                    string            `json:"file"`
	Defines                 map[string]string `json:"defines,omitempty"`
	Round                   string            `json:"round"`
	Sat                     string            `json:"sat"`
	Seed                    uint64            `json:"seed"`
	InputBits               int               `json:"input_bits,omitempty"`
	Windows                 []Region          `json:"windows"`
	MACs                    int64             `json:"macs"`
	MACOps                  int64             `json:"mac_ops"`
	Narrowed                int64             `json:"narrowed"`
	Saturated               int64             `json:"saturated"`
	SaturatedFraction       float64           `json:"saturated_fraction"`
	OutputsChecked          int64             `json:"outputs_checked"`
	AccumulatorLanesChecked int64             `json:"accumulator_lanes_checked"`
	Uninitialized           []Uninit          `json:"uninitialized"`
	OutsideReads            []OutsideRead     `json:"outside_reads,omitempty"`
	Emulation               string            `json:"emulation"`
	Cycles                  *int64            `json:"cycles,omitempty"`
	MACsPerCycle            *float64          `json:"macs_per_cycle,omitempty"`
	Spills                  *int64            `json:"spills,omitempty"`
	Stalls                  *int64            `json:"stalls,omitempty"`
	StreamStalls            *int64            `json:"stream_stalls,omitempty"`
	Fills                   *int64            `json:"fills,omitempty"`
	SlotUse                 map[string]int64  `json:"slot_use,omitempty"`
	CycleBreakdown          []Cost            `json:"cycle_breakdown,omitempty"`
	TimingModel             string            `json:"timing_model,omitempty"`
	TimingError             string            `json:"timing_error,omitempty"`
	Bundles                 string            `json:"bundles,omitempty"`
	Reference               string            `json:"reference,omitempty"`
	ReferenceOutputs        int               `json:"reference_outputs,omitempty"`
	Mismatches              []string          `json:"mismatches,omitempty"`
	// Notes are the constructs the front end accepted and ignored; Wrapped the windows whose
	// position wrapped around their end before an access (ADF windows are circular).
	Notes   []string `json:"notes,omitempty"`
	Wrapped []string `json:"wrapped_windows,omitempty"`
	// CycleReads are the values the kernel's reads of the cycle counter returned (cycle
	// simulator), and MeasuredCycles the last minus the first (the kernel's own profile).
	CycleReads     []int64 `json:"cycle_counter_reads,omitempty"`
	MeasuredCycles *int64  `json:"measured_cycles,omitempty"`
	OK             bool    `json:"ok"`
	// Outputs are the parameters' final contents (the interpreter's), for callers that compare
	// runs.
	Outputs map[string][]byte `json:"-"`
	// Initial are the parameters' contents when the kernel started (given or random).
	Initial map[string][]byte `json:"-"`
}

// WriteText writes the report as `sumac sim` prints it.
func (r *Report) WriteText(w io.Writer) {
	var defs []string
	for n, v := range r.Defines {
		defs = append(defs, "-D "+n+"="+v)
	}
	sort.Strings(defs)
	name := r.Kernel
	if r.Instance != "" {
		name = r.Instance + " " + r.Kernel
	}
	fmt.Fprintf(w, "kernel %s (%s)\n", name, strings.Join(append([]string{r.File}, defs...), " "))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w, "windows and buffers (target/aie1/interp placement: one 32 KB memory module each when at most four fit):")
	for _, g := range r.Windows {
		fmt.Fprintf(w, "  %-12s %-14s %-20s %6d bytes at 0x%05x  (size %s, inputs %s)\n", g.Name, g.Kind, g.Type, g.Bytes, g.Addr, g.Size, g.Inputs)
	}
	if r.InputBits > 0 {
		fmt.Fprintf(w, "random integer inputs of %d bits (seed %d)\n", r.InputBits, r.Seed)
	}
	fmt.Fprintf(w, "srs modes %s/%s: %d of %d narrowed lanes saturated (%.2f%%)\n", r.Round, r.Sat, r.Saturated, r.Narrowed, 100*r.SaturatedFraction)
	if len(r.Uninitialized) > 0 {
		fmt.Fprintln(w, "registers read before written (taken as zero):")
		for _, u := range r.Uninitialized {
			fmt.Fprintf(w, "  %s %s at %s\n", u.Type, u.Var, u.Pos)
		}
	}
	for _, o := range r.OutsideReads {
		fmt.Fprintf(w, "warning: %s\n", o.Message)
	}
	fmt.Fprintf(w, "MACs %d (%d MAC instructions)\n", r.MACs, r.MACOps)
	fmt.Fprintf(w, "emulation: %s; %d output elements and %d accumulator lanes compared\n", r.Emulation, r.OutputsChecked, r.AccumulatorLanesChecked)
	if len(r.Wrapped) > 0 {
		fmt.Fprintf(w, "windows that wrapped around their end: %s\n", strings.Join(r.Wrapped, ", "))
	}
	if r.MeasuredCycles != nil {
		fmt.Fprintf(w, "cycle counter reads %v: %d cycles between the first and the last\n", r.CycleReads, *r.MeasuredCycles)
	}
	if r.Cycles != nil {
		fmt.Fprintf(w, "cycles %d, %.2f MACs/cycle, spills %d, stall cycles %d\n", *r.Cycles, *r.MACsPerCycle, *r.Spills, *r.Stalls)
		if r.StreamStalls != nil {
			fmt.Fprintf(w, "stream stall cycles %d (included)\n", *r.StreamStalls)
		}
	} else if r.TimingError != "" {
		fmt.Fprintf(w, "timing: not available (%s)\n", r.TimingError)
	}
	switch {
	case r.ReferenceOutputs > 0:
		fmt.Fprintf(w, "exact reference: %s, %d outputs\n", r.Reference, r.ReferenceOutputs)
	case r.Reference != "":
		fmt.Fprintf(w, "exact reference: %s\n", r.Reference)
	}
	if r.Bundles != "" {
		fmt.Fprintf(w, "bundles:\n%s", r.Bundles)
	}
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "MISMATCH %s\n", m)
	}
	if r.OK {
		fmt.Fprintln(w, "ok")
	}
}
