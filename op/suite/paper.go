package suite

// PaperResult is a performance figure a seed publishes for a suite: a geometric mean over a
// group of its workloads, or one workload's value.
type PaperResult struct {
	// Group is what the figure covers: "all" (every workload of the type), a table named in
	// the workloads' Source (e.g. "Table III": every workload whose Source ends so), or one
	// workload's name.
	Group        string
	DType        string  // the operand type, as tune reports it (int32, int16)
	MACsPerCycle float64 // achieved (the geometric mean for a group)
	Roofline     float64 // the paper's memory roof for a single workload, 0 if not given
	Source       string
}

// PaperResults returns the figures a seed publishes for a suite (nil if none).
func PaperResults(suite string) []PaperResult {
	switch suite {
	case "vyasa36":
		return []PaperResult{
			{Group: "all", DType: "int32", MACsPerCycle: 7.6, Source: "seed 000 abstract and section IV"},
			{Group: "all", DType: "int16", MACsPerCycle: 24.2, Source: "seed 000 abstract and section IV"},
			{Group: "Table III", DType: "int32", MACsPerCycle: 7.67, Source: "seed 000 section IV-A, Fig. 9"},
			{Group: "Table III", DType: "int16", MACsPerCycle: 25.92, Source: "seed 000 section IV-A, Fig. 9"},
			{Group: "Table IV", DType: "int32", MACsPerCycle: 7.67, Source: "seed 000 section IV-B, Fig. 10"},
			{Group: "Table IV", DType: "int16", MACsPerCycle: 22.53, Source: "seed 000 section IV-B, Fig. 10"},
			// "The workload peak performance based on its arithmetic intensity is 21.22
			// MACs/cycle, and our approach achieved 75% of the peak" (16-bit: the 32-bit peak is 8).
			{Group: "fc-int16", DType: "int16", MACsPerCycle: 0.75 * 21.22, Roofline: 21.22, Source: "seed 000 section IV-B"},
		}
	}
	return nil
}

// PaperLayerTime is a per-layer run time a seed publishes: one pass of one layer of seed 003's
// network on one batch, with the plain loops (base) and with SIMD.
type PaperLayerTime struct {
	Layer, Pass    string // as nn names them: conv2, fc1; forward, backward
	Machine        string // "x86" or "Arm"
	BaseNs, SimdNs int64
	Source         string
}

// PaperLayerTimes are seed 003 Tables 3.1 (the second convolutional layer) and 3.2 (the first
// linear layer).
func PaperLayerTimes() []PaperLayerTime {
	const t31, t32 = "seed 003 Table 3.1", "seed 003 Table 3.2"
	return []PaperLayerTime{
		{"conv2", "forward", "Arm", 6423000, 2087000, t31},
		{"conv2", "backward", "Arm", 17356000, 10883000, t31},
		{"conv2", "forward", "x86", 72391743, 31520540, t31},
		{"conv2", "backward", "x86", 165699492, 112787278, t31},
		{"fc1", "forward", "Arm", 1265000, 545000, t32},
		{"fc1", "backward", "Arm", 1774000, 457000, t32},
		{"fc1", "forward", "x86", 10867237, 1787338, t32},
		{"fc1", "backward", "x86", 19407642, 3546827, t32},
	}
}
