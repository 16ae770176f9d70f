package main

// source is a public repository at a pinned commit.
type source struct {
	Repo   string // owner/name on GitHub
	Commit string // the full commit the figures and the code come from
}

var (
	vitisTutorials = source{"Xilinx/Vitis-Tutorials", "85c9439669943ed6f2016f6eb7120500a8a9d9c1"}
	xupTraining    = source{"Xilinx/xup_aie_training", "0cf36b2534aad8a98d9f21bc9b1bfeaa1a83fe9e"}
	onnx2versalOld = source{"rehohoho/onnx2versal", "310305426fd2164dd66ef003439d1d199f1918e4"}
	onnx2versal    = source{"rehohoho/onnx2versal", "6d8622920fb22a94c39dac4ec78eea4ea4442046"}
)

// entry is one kernel with a published cycle figure.
type entry struct {
	Name     string
	Source   source
	File     string   // the kernel's source, relative to the tree
	Includes []string // -I directories, relative to the tree
	Defines  []string
	Instance string
	// Published is the figure; Where says where it is published and what it counts.
	Published int64
	Where     string
	// Scope says what of the model's run compares with it: "counter" (the kernel's own
	// cycle counter reads, its profiling macros), "function" (the kernel from its first
	// instruction to its return, as the AIE simulator's "Total Function Time"), "call" (one
	// call with the caller's lock handling, as a whole-program figure).
	Scope string
	// Mechanism explains the error when it is above 10% (printed only then).
	Mechanism string
}

const iirDir = "AI_Engine_Development/AIE/Feature_Tutorials/14-implementing-iir-filter/"

var corpus = []entry{
	{
		Name: "IIR Part 2a (API, 12 chained aie::mac)", Source: vitisTutorials,
		File: iirDir + "Part2a/src/kernel.cpp", Instance: "SecondOrderSection<1>",
		Published: 72, Where: "Part2a/README.md \"Analysis\": minimum function time 72 cycles (81 the first call)", Scope: "function",
		Mechanism: "the 12 fpmacs take 24 cycles in both (the published listing spaces them 2 apart, as the model does); the model has no cost for what the vendor compiler adds around a buffer-port kernel body (the static state_reg kept in memory between calls, the buffer acquisition code and stack frame), about 30 cycles here",
	},
	{
		Name: "IIR Part 2b LLI (fpmac, even/odd chains, flattened)", Source: vitisTutorials,
		File: iirDir + "Part2b/src/kernel.cpp", Instance: "SecondOrderSection<1>",
		Published: 6698, Where: "Part2b/README.md \"IIR Throughput (with LLI)\", burst_cnt 256: main's function + descendants time", Scope: "call",
	},
	{
		Name: "IIR Part 2b API (aie::mac with a scalar, even/odd)", Source: vitisTutorials,
		File: iirDir + "Part2b/src/kernel.cpp", Defines: []string{"USE_API"}, Instance: "SecondOrderSection<1>",
		Published: 14379, Where: "Part2b/README.md \"IIR Throughput (with API)\", burst_cnt 256: main's function + descendants time", Scope: "call",
	},
	{
		Name: "matmult_int16 (aie::mmul 4x4x8, 16x8 x 8x8)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_int16.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 60, Where: "docs/matmult_lab.md appendix Q7 (the lab's text says 72): Total Function Time", Scope: "function",
		Mechanism: "loop nest of 4 x 1 x 2 iterations: the vendor compiler unrolls and overlaps it (8 mmuls in ~60 cycles); sumac inlines the one-iteration loops but keeps the others as hardware loops whose schedules drain at every level, and computes each block address A + (z*colA + i)*size_A with multiplies (3 cycles each) instead of strength-reduced pointers (docs/aie-timing.md \"Limits\")",
	},
	{
		Name: "matmult_int8 (aie::mmul 4x8x4)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_int8.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 34, Where: "docs/matmult_lab.md appendix Q7: Total Function Time", Scope: "function",
		Mechanism: "as matmult_int16: 8 single-cycle int8 mmuls in a 4 x 2 loop nest, which the vendor compiler flattens and sumac runs as nested hardware loops with a drained schedule and multiplied addresses per level",
	},
	{
		Name: "matmult_float (aie::mmul 4x2x4)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_float.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 257, Where: "docs/matmult_lab.md appendix Q7: Total Function Time", Scope: "function",
		Mechanism: "as matmult_int16 (a 4 x 2 x 4 loop nest of fp mmuls; the fpmac chains of one block wait FPAccChainCycles apart, which the vendor compiler hides by interleaving blocks across the unrolled nest)",
	},
	{
		Name: "matmult_int32 (aie::mmul 4x2x4 int32)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_int32.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 202, Where: "docs/matmult_lab.md appendix Q7: Total Function Time", Scope: "function",
	},
	{
		Name: "Maxpool2x2BCHW<24,12,1,6>", Source: onnx2versalOld,
		File: "design/aie_src/pool.cc", Defines: []string{"LOG_PROFILE"}, Instance: "Maxpool2x2BCHW<24,12,1,6>",
		Published: 901, Where: "PROFILE.md \"Pool\" (and the kernel's comment): its tile.cycles() difference", Scope: "counter",
		Mechanism: "4 nested loops (6 x 6 x 3 x 4 fpmax): the 3-iteration inner loop is software pipelined on its own and its schedule drains 36 times; the vendor compiler overlaps across it (the kernel's comment: bandwidth limited, ~8 cycles per inner iteration against sumac's ~16); sumac also counts 212 bank-conflict stalls of the four row pointers",
	},
	{
		Name: "GemmReluMKKN<1,86,10>", Source: onnx2versalOld,
		File: "design/aie_src/gemm.cc", Defines: []string{"LOG_PROFILE"}, Instance: "GemmReluMKKN<1,86,10>",
		Published: 366, Where: "PROFILE.md \"Gemm\": its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "Conv5x5ReluBCHW<28,24,1,2,2>", Source: onnx2versalOld,
		File: "design/aie_src/conv.cc", Defines: []string{"LOG_PROFILE"}, Instance: "Conv5x5ReluBCHW<28,24,1,2,2,5>",
		Published: 16241, Where: "PROFILE.md \"Conv\": its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConcatFloat<float,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatFloat<float,5,4,32,144>",
		Published: 715, Where: "concat.h, the class comment: its tile.cycles() difference", Scope: "counter",
		Mechanism: "576 stream words (the port bound is 576 cycles): per row, five copy loops of at most 8 iterations, each filled and drained on its own, and five window pointers plus their induction copies spilled (99 spills); the vendor compiler keeps the pointers in registers and overlaps the copies with the 4-cycle 128-bit stream writes",
	},
	{
		Name: "ConcatInt8<int8_t,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatInt8<int8_t,5,4,32,144>",
		Published: 283, Where: "concat.h, the class comment: its tile.cycles() difference", Scope: "counter",
		Mechanism: "as ConcatFloat on a quarter of the stream words (144): the copy loops' fill and drain and the spilled window pointers (23 spills) on top of the stream rate",
	},
}
