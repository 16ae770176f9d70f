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
		Mechanism: "the 12 fpmacs take 24 cycles in both (the published listing spaces them 2 apart, as the model does); the model has no cost for what the vendor compiler adds around a buffer-port kernel body (the static state_reg kept in memory between calls, the buffer acquisition code and stack frame), about 33 cycles here",
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
		Mechanism: "the nest (4 x 1 x 2) runs as one software-pipelined loop, block addresses forwarded into post-incremented pointers and B's halves loaded straight into the Z registers (backend/flatten.go), copies coalesced (each block's two srs write the halves of the stored register in place, backend/coalesce.go) and zero halves that stay zero set once before the loop (backend/hoistzero.go); what remains: sumac's lowering widens each A block with a zero half (still a vzero per block where the allocator gives that half's register to an srs result in between), a copy into part of an X register, and the Z operand of every MAC must sit in wc0/wc1, the only two Z registers, so the next block's B halves load only after the current block's MACs have read them (12 of the loop's 28 cycles carry no MAC for its 16 mac16) where the vendor's 60 cycles for 32 mac16 overlap them",
	},
	{
		Name: "matmult_int8 (aie::mmul 4x8x4)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_int8.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 34, Where: "docs/matmult_lab.md appendix Q7: Total Function Time", Scope: "function",
		Mechanism: "as matmult_int16 (the 4 x 2 nest is flattened and pipelined, 4 blocks in a 13-cycle loop): each int8 mmul's B operand is widened with a zero half (a vzero per block, the load writing the other half in place; not hoisted, as the pipelined loop's zero halves share registers with other values) before its single-cycle MAC, each block's Z operand waits for wc0/wc1, and each block's 16-byte result costs a bsrs and a 128-bit vst, both on the one store slot (16 store-slot operations for 8 MACs)",
	},
	{
		Name: "matmult_float (aie::mmul 4x2x4)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_float.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 257, Where: "docs/matmult_lab.md appendix Q7: Total Function Time", Scope: "function",
		Mechanism: "the model is faster: it flattens the inner levels of the nest (4 x 2 x 4 blocks) and software-pipelines the rest, so the fpmac chains of different blocks interleave (FPAccChainCycles apart on one accumulator); the published 257 cycles for 64 fpmacs (4 a fpmac) suggest the vendor compiler keeps the loops (no flatten pragma) and waits out the accumulation latency inside each block: a difference of loop policy, not of a timing parameter",
	},
	{
		Name: "matmult_int32 (aie::mmul 4x2x4 int32)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_int32.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 202, Where: "docs/matmult_lab.md appendix Q7: Total Function Time", Scope: "function",
		Mechanism: "the model is faster: 128 lmac8 per call (one a cycle on the vector slot) take 170 cycles in the model, the flattened blocks interleaved in a software-pipelined loop (32 lmac8 in 36 cycles) since register coalescing writes each block's srs results and copies in place (backend/coalesce.go; 233 cycles before); the vendor's 202 cycles leave 74 without a MAC, as in matmult_float: we believe the vendor compiler keeps the nest's loops (the kernel has no flatten pragma) and does not overlap the blocks, a loop policy the model does not share",
	},
	{
		Name: "Maxpool2x2BCHW<24,12,1,6>", Source: onnx2versalOld,
		File: "design/aie_src/pool.cc", Defines: []string{"LOG_PROFILE"}, Instance: "Maxpool2x2BCHW<24,12,1,6>",
		Published: 901, Where: "PROFILE.md \"Pool\" (and the kernel's comment): its tile.cycles() difference", Scope: "counter",
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
		Name: "Conv5x5on8ReluBCHW<28,24,1,2,2>", Source: onnx2versalOld,
		File: "design/aie_src/conv.cc", Defines: []string{"LOG_PROFILE"}, Instance: "Conv5x5on8ReluBCHW<28,24,1,2,2,5>",
		Published: 10687, Where: "PROFILE.md \"Conv\": its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConcatScalar<float,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatScalar<float,5,4,32,144>",
		Published: 5858, Where: "concat.h, the class comment (\"~850 for output window\"; this version writes a stream): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is faster: it software-pipelines the per-element copy loops (a scalar window read and a 32-bit stream write an iteration, at the port's word per cycle); the published figure is about 10 cycles an element, which matches iterations that do not overlap (a scalar load's latency plus the stream move and the loop branch), and the same comment gives ~850 cycles with an output window, close to the model's 934: we believe the vendor compiler does not pipeline a loop that writes a stream a scalar at a time, which the model does not reproduce",
	},
	{
		Name: "ConcatFloat<float,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatFloat<float,5,4,32,144>",
		Published: 715, Where: "concat.h, the class comment: its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model runs at the output port's bound (576 stream words at one a cycle: 590 cycles, stream stalls included); the vendor figure is 139 cycles above that bound, and so is ConcatInt8's (283 - 144 words): a fixed cost inside the counted region that does not grow with the data, which the model lacks; we believe it is the stream's start (the model lets the port take a word a cycle from the first write on, docs/aie-timing.md \"Limits\")",
	},
	{
		Name: "ConcatInt8<int8_t,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatInt8<int8_t,5,4,32,144>",
		Published: 283, Where: "concat.h, the class comment: its tile.cycles() difference", Scope: "counter",
		Mechanism: "as ConcatFloat: the flattened copy loops run at the port's bound (144 words, 158 cycles); the figure is the same 139 cycles above the bound as ConcatFloat's, a fixed cost the model lacks",
	},
	{
		Name: "GemmReluScalarMKNK<1,86,10>", Source: onnx2versalOld,
		File: "design/aie_src/gemm.cc", Defines: []string{"LOG_PROFILE"}, Instance: "GemmReluScalarMKNK<1,86,10>",
		Published: 1939, Where: "PROFILE.md \"Gemm\": its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvReluScalarBCHW<28,24,1,2,2,5>", Source: onnx2versalOld,
		File: "design/aie_src/conv.cc", Defines: []string{"LOG_PROFILE"}, Instance: "ConvReluScalarBCHW<28,24,1,2,2,5>",
		Published: 148375, Where: "PROFILE.md \"Conv\": its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvReluScalarBHWC<28,24,1,2,2,5>", Source: onnx2versalOld,
		File: "design/aie_src/conv.cc", Defines: []string{"LOG_PROFILE"}, Instance: "ConvReluScalarBHWC<28,24,1,2,2,5>",
		Published: 144244, Where: "PROFILE.md \"Conv\": its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "MaxpoolScalarBHWC<24,12,1,6>", Source: onnx2versalOld,
		File: "design/aie_src/pool.cc", Defines: []string{"LOG_PROFILE"}, Instance: "MaxpoolScalarBHWC<24,12,1,6>",
		Published: 7673, Where: "PROFILE.md \"Pool\": its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is slower: 72 cycles an output position (the figure 53), bound by the one ALU slot: each of the 24 inputs of a position costs a compare and a select (48 ALU operations), the six running maxima kept in registers (the local array float arr[C] promoted once the c loop is flattened, backend/promote.go; 41966 cycles with the array in memory, 12734 with its elements reordered, backend/disjoint.go), and the array's reset and the six output writes of a position do not overlap the next position's work (the position loop is not pipelined, the p loop not flattened); the figure is close to the 48-cycle bound, which the vendor compiler reaches by overlapping positions or with the scalar unit's float maximum (UG1079 \"Floating-Point Operations\": one instruction for (arr[c] < a) ? a : arr[c]), neither of which the model does",
	},
	{
		Name: "MaxpoolScalarBCHW<24,12,1,6>", Source: onnx2versalOld,
		File: "design/aie_src/pool.cc", Defines: []string{"LOG_PROFILE"}, Instance: "MaxpoolScalarBCHW<24,12,1,6>",
		Published: 11302, Where: "PROFILE.md \"Pool\": its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model's loop is 14.5 cycles an output (the figure 13.1): four compare-and-select pairs (8 operations on the one ALU slot) chained through the running maximum, beside the loads and window_incr pointer moves on the load unit; the float compare of (a > c) ? a : c is costed as an ALU compare and select (a float compare used otherwise is a softfloat call, not costed: ArgmaxScalar); the remaining 1.4 cycles an output are not explained",
	},
	{
		Name: "ArgmaxScalar<10,10>", Source: onnx2versal,
		File: "design/aie_src/argmax.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ArgmaxScalar<10,10>",
		Published: 1064, Where: "argmax.h, the class comment (\"ArgmaxScalar<100, 10>\": 100 inputs, 10 outputs; graph_argmax.cpp, where the figure was written (8ca6d395), instantiates ArgmaxScalar<10, 10>): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "AddScalar<float,16384,1>", Source: onnx2versal,
		File: "design/aie_src/add.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "AddScalar<float,16384,1>",
		Published: 131102, Where: "add.h, AddScalar's class comment (stream ports): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "AddFloat<float,16384,1>", Source: onnx2versal,
		File: "design/aie_src/add.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "AddFloat<float,16384,1>",
		Published: 24595, Where: "add.h, AddFloat's class comment (it names the class AddScalar; stream ports): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "QLinearAddInt8<int8_t,16384,0>", Source: onnx2versal,
		File: "design/aie_src/qlinearadd.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "QLinearAddInt8<int8_t,16384,0>(0.036632415,0.11731018,0.062222864,-128,-6,-128)",
		Published: 8231, Where: "qlinearadd.h, the class comment (it says <float_t, 16384, 1>, add.h's; graph_qlinearadd.cpp instantiates <int8_t, 16384, 0> with these arguments, at e56ba12 where the figure was written and here; the filter is the same for int8, the constructor changed): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "DequantizeLinearScalar<int8_t,1,96,84>", Source: onnx2versal,
		File: "design/aie_src/dequantize_linear.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "DequantizeLinearScalar<int8_t,1,96,84>(0.00392156889,-128)",
		Published: 296, Where: "dequantize_linear.h, the class comment (\"<96,84>\", written at 96b9b006 when the class was DequantizeLinearScalar<INP_SIZE, OUT_SIZE> with one loop of OUT_SIZE reads; this one adds B and a window_incr per row): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "DequantizeLinear<int8_t,1,96,84>", Source: onnx2versal,
		File: "design/aie_src/dequantize_linear.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "DequantizeLinear<int8_t,1,96,84>(0.00392156889,-128)",
		Published: 154, Where: "dequantize_linear.h, the class comment: its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "QuantizeLinearScalar<int8_t,28,28,32>", Source: onnx2versal,
		File: "design/aie_src/quantize_linear.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "QuantizeLinearScalar<int8_t,28,28,32>(0.00392156889,-128)",
		Published: 92121, Where: "quantize_linear.h, the class comment: its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "QuantizeLinear<int8_t,28,28,32>", Source: onnx2versal,
		File: "design/aie_src/quantize_linear.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "QuantizeLinear<int8_t,28,28,32>(0.00392156889,-128)",
		Published: 1977, Where: "quantize_linear.h, the class comment (written at d89b9534, whose filter wrote bsrs(acc1, ...) where this one writes to_vector<TT>(...)): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "QuantizeLinearFmul<int8_t,28,28,32>", Source: onnx2versal,
		File: "design/aie_src/quantize_linear.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "QuantizeLinearFmul<int8_t,28,28,32>(0.00392156889,-128)",
		Published: 1534, Where: "quantize_linear.h, the class comment: its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "QuantizeLinearFmulStream<int8_t,28,28,32>", Source: onnx2versal,
		File: "design/aie_src/quantize_linear.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "QuantizeLinearFmulStream<int8_t,28,28,32>(0.00392156889,-128)",
		Published: 1669, Where: "quantize_linear.h, the class comment: its tile.cycles() difference", Scope: "counter",
	},
}
