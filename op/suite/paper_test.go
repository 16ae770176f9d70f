package suite

import (
	"fmt"
	"strings"
	"testing"
)

// The tables print each ratio SIMD/base to three digits: the transcribed times must give them.
func TestPaperLayerTimesRatios(t *testing.T) {
	want := map[string]string{
		"conv2 forward Arm": "0.325", "conv2 backward Arm": "0.627", "conv2 forward x86": "0.435", "conv2 backward x86": "0.681",
		"fc1 forward Arm": "0.431", "fc1 backward Arm": "0.258", "fc1 forward x86": "0.164", "fc1 backward x86": "0.183",
	}
	// Table 3.2 prints 0.401 for the Arm forward pass of fc1, whose times (1 265 000 and 545 000
	// ns) give 0.431: the times are kept as printed, the ratio is computed.
	for _, p := range PaperLayerTimes() {
		k := p.Layer + " " + p.Pass + " " + p.Machine
		if got := fmt.Sprintf("%.3f", float64(p.SimdNs)/float64(p.BaseNs)); got != want[k] {
			t.Errorf("%s: ratio %s, want %s", k, got, want[k])
		}
	}
}

// Every group of the vyasa36 results names workloads of the suite.
func TestPaperResultsGroups(t *testing.T) {
	s, _ := Get("vyasa36")
	for _, r := range PaperResults("vyasa36") {
		n := 0
		for _, w := range s.Workloads {
			if (r.Group == "all" || strings.HasSuffix(w.Source, r.Group) || w.Name == r.Group) && strings.HasSuffix(w.Name, r.DType) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s %s: no workload", r.Group, r.DType)
		}
	}
}
