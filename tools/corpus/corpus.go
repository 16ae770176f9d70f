package main

import "github.com/sumacdev/sumac/target/aie1/cyclesim"

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
	// the commits whose split.h comments give SplitScalar's and SplitInt8's figures (the
	// kernels changed after them)
	onnx2versalSplit     = source{"rehohoho/onnx2versal", "a6a736ea17504a4d5e3909807553e59647849a4d"}
	onnx2versalSplitInt8 = source{"rehohoho/onnx2versal", "963c34253be55cd9b55026cdfb370a7f38711025"}
	// the commit that adds Conv3x3ReluStreamCacheCKK with its conv.h figures
	onnx2versalConv3x3 = source{"rehohoho/onnx2versal", "e021a373dd3e8625b2dab2847bf3d541507a10da"}
	// the commit that adds Conv3x3ReluStreamCacheCKK2Row (later renamed ...MultiRow, same figure)
	onnx2versalConv3x3Rows = source{"rehohoho/onnx2versal", "0edd3cb6b6846f153446b7a0266824d5fee0ddd5"}
	// the commit whose conv.h gives Conv5x5on8ReluBCHW<28, 24, 1, 1, 6> 16521 cycles
	onnx2versalConvM6 = source{"rehohoho/onnx2versal", "2aa162e9408d71b774d8a95c9c8a97b58c50bcfd"}
	// the commit whose pad.h gives Pad2DStreamScalar's and Pad2DStreamFloat's figures
	onnx2versalPad = source{"rehohoho/onnx2versal", "9480742f0b31add0d4ccdd89785bded3abc5b21d"}
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
	// PLIO gives the kernel's stream ports that the row's graph connects straight to a PLIO
	// (adf::input_plio/output_plio: width and PL clock; timing only); Where names the graph
	// lines. A stream port not listed is connected to another kernel or a GMIO and moves a word
	// a cycle. Every row whose kernel has a stream port says so in Where.
	PLIO map[string]cyclesim.PLIO
}

// onnx2versalPLMHz is the PL clock of onnx2versal's PLIOs: its graphs create every PLIO with
// PLIO64_ARG (graph_utils.h: adf::plio_64_bits, no frequency of its own) and its Makefile
// compiles every graph with `aiecompiler --pl-freq=500` (AIE_FLAGS, at every pinned commit).
const onnx2versalPLMHz = 500

// plio64 connects the given ports to onnx2versal's 64-bit PLIOs.
func plio64(ports ...string) map[string]cyclesim.PLIO {
	m := map[string]cyclesim.PLIO{}
	for _, p := range ports {
		m[p] = cyclesim.PLIO{Bits: 64, MHz: onnx2versalPLMHz}
	}
	return m
}

const (
	pl64  = "; PLIO: plio_64_bits (graph_utils.h PLIO64_ARG) at the Makefile's --pl-freq=500 MHz"
	gmioW = "; the weights stream comes from an adf::input_gmio (a word a cycle: GMIO is not modelled)"
)

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
		Mechanism: "the nest (4 x 1 x 2) runs as one software-pipelined loop, block addresses forwarded into post-incremented pointers and B's halves loaded straight into the Z registers (backend/flatten.go), copies coalesced (backend/coalesce.go); each A block grown to the X buffer's 32 lanes keeps its upper half undefined as the AI Engine API's grow() does (no vzero; backend/undef.go: 78 -> 66 cycles); what remains: the Z operand of every MAC must sit in wc0 or wc1 (VECFWC in llvm-aie's AIE1InstrInfo.td), so a block's second B half pair loads only after the first pair's MACs have read them, and the next block's A operand is loaded into another register and moved into the X buffer (a vmov) as the pipelined iterations overlap",
	},
	{
		Name: "matmult_int8 (aie::mmul 4x8x4)", Source: xupTraining,
		File: "sources/matmult_lab/aie/src/aie_kernels/matmult_int8.cpp", Includes: []string{"sources/matmult_lab/aie/src"},
		Published: 34, Where: "docs/matmult_lab.md appendix Q7: Total Function Time", Scope: "function",
		Mechanism: "as matmult_int16 (the 4 x 2 nest is flattened and pipelined): each block's 16-byte result is narrowed and stored by one vst.srs (llvm-aie's VST_SRSS_idx, backend/stsrs.go: 8 store-slot operations for 8 MACs where bsrs + vst took 16; 46 -> 41 cycles), B's upper half left undefined (no vzero); what remains: each B block is copied into an X register by a vmov (the concatenation with its undefined half: the allocator does not load it into the X buffer's low half), each block's A operand must sit in wc0/wc1 (VECFWC), and the store-srs is scheduled as if it read its accumulator in cycle 1 where II_STSRS reads it in cycle 3 (the cycle simulator reads a store's operands at issue)",
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
		Mechanism: "the model is faster: it issues the 172 fpmacs about one a cycle (the two accumulator chains acc1/acc2 interleaved, each FPAccChainCycles apart: 16 fpmacs in a 17-cycle loop), each row's two matB halves loaded by 256-bit vlds into the one X register pair while the previous row's fpmacs still read it; the figure is 2.1 cycles an fpmac, and the kernel's own notes (gemm.cc, 1x84x10: 393 cycles with one accumulator, 365 with the two interleaved) show the vendor schedule gaining little from the second chain: we believe it does not overlap the in-place upd_w of matB (a v16float) with the fpmacs that read it, which the model's schedule does; the kernel reads bias[8..15] of a 10-float bias and weights 16 bytes past its end (sumac sim warns: loads past a buffer read the memory image, docs/aie-sim.md)",
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
		Published: 5858, Where: "concat.h, the class comment (\"~850 for output window\"; this version writes a stream): its tile.cycles() difference" + "; graph_concat.cpp:27-28 (ConcatGraphTest) and graph_concat.h:57 connect out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("out"),
		Mechanism: "the model is faster: it software-pipelines the per-element copy loops (a scalar window read and a 32-bit stream write an iteration, at the port's word per cycle); the published figure is about 10 cycles an element, which matches iterations that do not overlap (a scalar load's latency plus the stream move and the loop branch), and the same comment gives ~850 cycles with an output window, close to the model's 934: we believe the vendor compiler does not pipeline a loop that writes a stream a scalar at a time, which the model does not reproduce",
	},
	{
		Name: "ConcatFloat<float,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatFloat<float,5,4,32,144>",
		Published: 715, Where: "concat.h, the class comment: its tile.cycles() difference" + "; graph_concat.cpp:27-28 (ConcatGraphTest) and graph_concat.h:57 connect out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("out"),
	},
	{
		Name: "ConcatInt8<int8_t,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatInt8<int8_t,5,4,32,144>",
		Published: 283, Where: "concat.h, the class comment: its tile.cycles() difference" + "; graph_concat.cpp:27-28 (ConcatGraphTest) and graph_concat.h:57 connect out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("out"),
		Mechanism: "the output PLIO (64 bits at 500 MHz with the array at 1.25 GHz: 0.8 word a cycle, UG1079) takes the 144 words in 180 cycles, and the 28 words of buffering between the port and the PL (AM009) let the kernel's last counter read come before the last of them leaves: 160 cycles; the figure is 123 above it. ConcatFloat, the same graph and PLIO with 576 words, is within 2% at that rate, so this is no fixed cost of the stream's start; what the vendor's code for the int8 copy spends beyond the PLIO's rate is not known (not investigated)",
	},
	{
		Name: "MacFloat<float,28,128,1>", Source: onnx2versal,
		File: "design/aie_src/mac.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "MacFloat<float,28,128,1>",
		Published: 1881, Where: "mac.h, the class comment \"MacFloat<196,128> takes 1881 cycles\": its tile.cycles() difference; 196x128 is the tensor, the graph (graph_mac.cpp, the same commit as the comment, ec9894f) runs it in calls of BCHUNK = 28 rows (MacFloat<float,BCHUNK,128,1>), and 196 rows could not take 1881 cycles (3136 vector stores); the kernel code is unchanged since ec9894f but for the profiling macros", Scope: "counter",
		Mechanism: "the model is faster: it flattens the 16-iteration inner loop and software-pipelines it (an fpmac, an fpmax and a vector store an element group, 3.3 cycles each in the model's schedule, the loads through w_ptr and b_ptr post-modified: backend/postmod.go); the figure's 4.2 cycles a group suggest the vendor compiler keeps the inner loop (no flatten pragma) and pays its branch and the fpmac-fpmax-store latency each 16 groups: a loop policy the model does not share",
	},
	{
		Name: "SplitScalar<float,10,64,22,1>::filter3", Source: onnx2versalSplit,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitScalar<float,10,64,22,1>",
		Published: 9505, Where: "split.h, the class comment \"SplitScalar<f,3,10,64,22>::filter3 takes 9505 cycles\" (written at 6b40450 when the 3 outputs were named; the graph, graph_split.cpp, runs H=10, INP_W=64, OUT_W=22, OVERLAP=1, whose registerKernelClass picks filter3; its code for OVERLAP > 0 is unchanged at this commit): its tile.cycles() difference" + "; graph_split.cpp:23-24 (SplitGraphTest) and graph_split.h:53 connect in to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in"),
		Mechanism: "the model is faster, as for ConcatScalar: it flattens and software-pipelines the per-element copy loops (a 32-bit stream read and one or two scalar window writes an element, 640 elements in 889 cycles, near the input port's word a cycle); the figure is about 15 cycles an element, which matches iterations that do not overlap (the stream read's latency, the window writes and the loop branch) in loops of 1 to 21 iterations: we believe the vendor compiler does not pipeline these scalar stream loops, which the model does not reproduce",
	},
	{
		Name: "SplitScalar<float,10,64,31,-1>::filter2", Source: onnx2versalSplit,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitScalar<float,10,64,31,-1>",
		Published: 9547, Where: "split.h, the class comment \"SplitScalar<f,10,64,31,-1>::filter2 takes 9547 cycles\" (the graph's splitScalar_neg instance; registerKernelClass picks filter2): its tile.cycles() difference" + "; graph_split.cpp:23-24 (SplitGraphTest) and graph_split.h:53 connect in to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in"),
		Mechanism: "as SplitScalar::filter3: 640 stream words in 927 cycles in the model, about 15 cycles a word in the figure (iterations that do not overlap)",
	},
	{
		Name: "SplitInt8<int8_t,10,160,64,16>::filter3", Source: onnx2versalSplitInt8,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitInt8<int8_t,10,160,64,16>",
		Published: 1649, Where: "split.h, the class comment \"SplitInt8<a,10,160,64,16>::filter3 takes 1649 cycles\" (a = int8_t, typeid's name; the graph's splitInt8 instance): its tile.cycles() difference" + "; graph_split.cpp:23-24 (SplitGraphTest) and graph_split.h:53 connect in to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in"),
		Mechanism: "the model runs at the input PLIO's rate (64 bits at 500 MHz with the array at 1.25 GHz, 0.8 word a cycle, UG1079; 400 words: 470 cycles, stream stalls included), its copy loops of 1 to 3 128-bit reads flattened; the figure is 1179 cycles above that for 50 such loops (5 a row), and filter2's 767 above it for 30 (3 a row): about 24 and 26 cycles a loop, which we believe is what the vendor compiler spends on each small loop it keeps (set-up, the stream read's latency before the first write, no overlap between loops); the model flattens them (LLVM's full-unroll size policy, backend/flatten.go) and does not reproduce that cost",
	},
	{
		Name: "SplitInt8<int8_t,10,160,64,-32>::filter2", Source: onnx2versalSplitInt8,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitInt8<int8_t,10,160,64,-32>",
		Published: 1237, Where: "split.h, the class comment \"SplitInt8<a,10,160,64,-32>::filter2 takes 1237 cycles\" (the graph's splitInt8_neg instance): its tile.cycles() difference" + "; graph_split.cpp:23-24 (SplitGraphTest) and graph_split.h:53 connect in to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in"),
		Mechanism: "as SplitInt8::filter3: the model at the input PLIO's rate (400 words, 470 cycles); the figure is about 26 cycles above it for each of the 30 small copy loops the kernel runs (3 a row), a per-loop cost the model lacks where it flattens them",
	},
	{
		Name: "Conv3x3ReluStreamCacheCKK<26,28,24,1,1,1,1,4,3,1>", Source: onnx2versalConv3x3,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv3x3ReluStreamCacheCKK<26,28,24,1,1,1,1,4,3,1>",
		Published: 10086, Where: "conv.h, the class comment \"Conv3x3ReluStreamCacheCKK<26,28,24,1,1,1,1,4,3,1> total = 10086 cycles\" (the graph's conv3x3ReluCacheCKK instance, graph_conv.cpp): its tile.cycles() difference" + "; graph_conv.cpp:58,63 (ConvReluStreamGraphTest) and graph_conv.h:199 connect out to a PLIO" + pl64 + "; graph_conv.cpp:59,62" + gmioW, Scope: "counter", PLIO: plio64("out"),
		Mechanism: "the model is faster: each output row's 3 column blocks (OUT_W/8) are flattened and software-pipelined, so one block's 9 chained fpmacs (FPAccChainCycles apart) overlap the next block's loads, about 24 cycles a block; the figure's 35 cycles a block (288 blocks) suggest the vendor compiler keeps the column loop (no flatten pragma) and runs each block's loads, 9-fpmac chain, fpmax and two 128-bit stream writes without overlap: a loop policy the model does not share",
	},
	{
		Name: "Conv3x3ReluStreamCacheCKK<24,24,12,2,2,1,1,4,3,1>", Source: onnx2versalConv3x3,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv3x3ReluStreamCacheCKK<24,24,12,2,2,1,1,4,3,1>",
		Published: 3649, Where: "conv.h, the class comment \"Conv3x3ReluStreamCacheCKK<24,24,12,2,2,1,1,4,3,1> total = 3649 cycles\" (the graph's conv3x3ReluCacheCKK_s2 instance, stride 2): its tile.cycles() difference" + "; graph_conv.cpp:58,63 (ConvReluStreamGraphTest) and graph_conv.h:199 connect out to a PLIO" + pl64 + "; graph_conv.cpp:59,62" + gmioW, Scope: "counter", PLIO: plio64("out"),
		Mechanism: "as the stride-1 instance: the model overlaps the flattened column blocks' fpmac chains, which we believe the vendor compiler does not",
	},
	{
		Name: "Conv3x3ReluStreamCacheCKK2Row<26,28,24,1,1,1,1,4,3,1>", Source: onnx2versalConv3x3Rows,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv3x3ReluStreamCacheCKK2Row<26,28,24,1,1,1,1,4,3,1>",
		Published: 9815, Where: "conv.h, the class comment \"Conv3x3ReluStreamCacheCKK2Row<26,28,24,1,1,1,1,4,3,1> total = 9815 cycles\" (the graph's conv3x3ReluStreamCacheCKK2Row instance): its tile.cycles() difference" + "; graph_conv.cpp:58,63 (ConvReluStreamGraphTest) and graph_conv.h:205 connect out to a PLIO" + pl64 + "; graph_conv.cpp:59,62" + gmioW, Scope: "counter", PLIO: plio64("out"),
		Mechanism: "as Conv3x3ReluStreamCacheCKK (two output rows a pass): the model overlaps the flattened column blocks' chains of 9 fpmacs, 7224 cycles for 288 blocks (25 a block); the figure's 34 a block suggests blocks that do not overlap in the vendor's schedule",
	},
	{
		Name: "Conv5x5on8ReluBCHW<28,24,1,1,6>", Source: onnx2versalConvM6,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv5x5on8ReluBCHW<28,24,1,1,6,5,1>",
		Published: 16521, Where: "conv.h, the class comment \"Conv5x5on8ReluBCHW<28, 24, 1, 1, 6> total = 16521 cycles\" (INP_W, OUT_W, B, C, M; the graph, graph_conv.cpp, adds K = 5 and IS_RELU = 1): its tile.cycles() difference; the same kernel with M = 2 is the row Conv5x5on8ReluBCHW<28,24,1,2,2>, and 3bd7178's 16737 cycles for this instance, with the code before later clean-ups, is left out (the model gives 16454 for both)", Scope: "counter",
	},
	{
		Name: "Conv5x5on8Relu<28,28,24,24,1,1,1,2,4,5,5,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv5x5on8Relu<28,28,24,24,1,1,1,2,4,5,5,1,1>",
		Published: 21401, Where: "conv.h, the class comment \"Conv5x5on8Relu<28,28,24,24,1,1,1,2,4,5,5,1,1> total = 21401\" (the graph's conv5x5on8ReluBCHW instance, graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvHx8ReluStream<28,28,24,24,1,1,1,2,4,5,5,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx8ReluStream<28,28,24,24,1,1,1,2,4,5,5,1,1>",
		Published: 24133, Where: "conv.h, the class comment \"ConvHx8ReluStream<28,28,24,24,1,1,1,2,4,5,5,1,1> total = 24133\" (the graph's convHx6ReluStream instance): its tile.cycles() difference" + "; graph_conv.cpp:60,65 (ConvReluStreamGraphTest) and graph_conv.h:237 connect out to a PLIO" + pl64 + "; graph_conv.cpp:61,64" + gmioW, Scope: "counter", PLIO: plio64("out"),
	},
	{
		Name: "Conv1x1Relu<24,24,24,24,1,1,1,2,4,1,1,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv1x1Relu<24,24,24,24,1,1,1,2,4,1,1,1,1>",
		Published: 3617, Where: "conv.h, the class comment \"Conv1x1Relu<24,24,24,24,1,1,1,2,4,1,1,1,1> total = 3617\" (the graph's conv1x1Relu instance): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is faster: the 2-iteration channel loop (marked chess_prepare_for_pipelining, weights[weightIdx] with a run-time index) and the 3-vector column loop around it are flattened and the row loop is software-pipelined (backend/flatten.go: a marked loop of fewer than 9 iterations is fully unrolled, as LLVM does): 3050 cycles when that rule came in, 2019 (7 a vector against the figure's 12.6) with the post-modified accesses and split pointer chains (backend/postmod.go) of the same session; 10883 with the channel loop kept; the row loop's body ends with chess_separator_scheduler(), across which the model lets iterations overlap (held as a barrier between iterations, the model gave 4442 before the pointer chains were split): we believe the vendor's schedule overlaps the rows less than the model's",
	},
	{
		Name: "Conv1x1ReluStream<24,24,24,24,1,1,1,2,4,1,1,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv1x1ReluStream<24,24,24,24,1,1,1,2,4,1,1,1,1>",
		Published: 4217, Where: "conv.h, the class comment \"Conv1x1ReluStream<24,24,24,24,1,1,1,2,4,1,1,1,1> total = 4217\" (the graph's conv1x1ReluStream instance): its tile.cycles() difference" + "; graph_conv.cpp:60,65 (ConvReluStreamGraphTest) and graph_conv.h:237 connect out to a PLIO" + pl64 + "; graph_conv.cpp:61,64" + gmioW, Scope: "counter", PLIO: plio64("out"),
		Mechanism: "as Conv1x1Relu, the channel and column loops are flattened and the row loop software-pipelined (4775 cycles, 10883 with the channel loop kept); the model is slower: each 128-bit stream write first copies its half of the result into a 128-bit register (a vector move on the move slot, two a vector), and the allocator gives those copies the register in which the next vector's weight operand (a zeroed vector, the weight moved into lane 0) is then built, chaining the three vectors of a row (a 35-cycle recurrence, II 40 for 24 stream words), plus 864 cycles of output-stream stalls where the writes bunch up; the vendor's 14.6 cycles a vector overlap them",
	},
	{
		Name: "GemmReluMKKNStream<7,36,16,1>", Source: onnx2versal,
		File: "design/aie_src/gemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "GemmReluMKKNStream<7,36,16,1>",
		Published: 3100, Where: "gemm.h, the class comment \"GemmReluMKKNStream<7,36,10> total = 3100\": M, K and the 10 outputs of the graph (graph_gemm.cpp), which instantiates it with N padded to 8, N_PAD8 = 16: its tile.cycles() difference" + "; graph_gemm.cpp:51,55 (GemmReluStreamGraphTest) and graph_gemm.h:109 connect in to a PLIO" + pl64 + "; graph_gemm.cpp:53,56" + gmioW, Scope: "counter", PLIO: plio64("in"),
	},
	{
		Name: "GemmReluMKKNTwoAccsStream<7,36,16,1>", Source: onnx2versal,
		File: "design/aie_src/gemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "GemmReluMKKNTwoAccsStream<7,36,16,1>",
		Published: 2774, Where: "gemm.h, the comment of class GemmReluMKKNTwoAccsStream, \"GemmReluMKKNStream<7,36,10> total = 2774 (slower than GemmReluMKKNStream for larger N)\": the name is the other class's, the comparison says the figure is this one's; the graph's gemmReluMKKNTwoAccsStream instance (N_PAD8 = 16): its tile.cycles() difference" + "; graph_gemm.cpp:51,55 (GemmReluStreamGraphTest) and graph_gemm.h:109 connect in to a PLIO" + pl64 + "; graph_gemm.cpp:53,56" + gmioW, Scope: "counter", PLIO: plio64("in"),
	},
	{
		Name: "ConvHx4Relu<26,28,24,24,1,1,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4Relu<26,28,24,24,1,1,1,2,4,3,3,1,1>",
		Published: 10603, Where: "conv.h, the class comment \"ConvHx4Relu<26,28,24,24,1,1,1,2,4,3,3,1,1> total = 10603\" (an instance of graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,1,1>",
		Published: 13734, Where: "conv.h, the class comment \"ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,1,1> total = 13734\" (an instance of graph_conv.cpp): its tile.cycles() difference" + "; graph_conv.cpp:60,65 (ConvReluStreamGraphTest) and graph_conv.h:237 connect out to a PLIO" + pl64 + "; graph_conv.cpp:61,64" + gmioW, Scope: "counter", PLIO: plio64("out"),
	},
	{
		Name: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,2,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,2,1>",
		Published: 8904, Where: "conv.h, the class comment \"ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,2,1> total = 8904\" (an instance of graph_conv.cpp): its tile.cycles() difference" + "; graph_conv.cpp:60,65 (ConvReluStreamGraphTest) and graph_conv.h:237 connect out to a PLIO" + pl64 + "; graph_conv.cpp:61,64" + gmioW, Scope: "counter", PLIO: plio64("out"),
	},
	{
		Name: "ConvHx4ReluStream<24,24,11,12,2,2,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStream<24,24,11,12,2,2,1,2,4,3,3,1,1>",
		Published: 6678, Where: "conv.h, the class comment \"ConvHx4ReluStream<24,24,11,12,2,2,1,2,4,3,3,1,1> total = 6678\" (an instance of graph_conv.cpp): its tile.cycles() difference" + "; graph_conv.cpp:60,65 (ConvReluStreamGraphTest) and graph_conv.h:237 connect out to a PLIO" + pl64 + "; graph_conv.cpp:61,64" + gmioW, Scope: "counter", PLIO: plio64("out"),
	},
	{
		Name: "ConvHx4ReluStreamMultiRow<26,28,24,24,1,1,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStreamMultiRow<26,28,24,24,1,1,1,2,4,3,3,1,1>",
		Published: 14801, Where: "conv.h, the class comment \"ConvHx4ReluStreamMultiRow<26,28,24,24,1,1,1,2,4,3,3,1,1> total = 14801\" (an instance of graph_conv.cpp): its tile.cycles() difference" + "; graph_conv.cpp:60,65 (ConvReluStreamGraphTest) and graph_conv.h:237 connect out to a PLIO" + pl64 + "; graph_conv.cpp:61,64" + gmioW, Scope: "counter", PLIO: plio64("out"),
	},
	{
		Name: "GemmReluMKKN<7,36,12,1>", Source: onnx2versal,
		File: "design/aie_src/gemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "GemmReluMKKN<7,36,12,1>",
		Published: 1470, Where: "gemm.h, the class comment \"GemmReluMKKN<7,36,10> total = 1470\" (the graph instantiates it with N padded to 4, N_PAD4 = 12): its tile.cycles() difference", Scope: "counter",
		Mechanism: "as GemmReluMKKN<1,86,10> (the same kernel at the later commit, 7 rows): the model issues the interleaved fpmac chains about one a cycle with matB's in-place updates overlapping the fpmacs that read it, where the figure is about twice that; its reads past the ends of bias and weights (8-float loads of 12-float rows) run as on the hardware and sim warns (docs/aie-sim.md)",
	},
	{
		Name: "Pad2DStreamFloat<float,2,32,32,1,1,1,1>", Source: onnx2versalPad,
		File: "design/aie_src/pad.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Pad2DStreamFloat<float,2,32,32,1,1,1,1>",
		Published: 2867, Where: "pad.h, the class comment \"Pad2DStreamFloat<f,2,32,32,1,1,1,1> takes 2867 cycles\" (the graph's pad2DFloat instance, graph_pad.cpp): its tile.cycles() difference" + "; graph_pad.cpp:23-26 (Pad2DStreamGraphTest) and graph_pad.h:55-56 connect in and out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in", "out"),
	},
	{
		Name: "Pad2DStreamScalar<float,2,32,32,1,1,1,1>", Source: onnx2versalPad,
		File: "design/aie_src/pad.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Pad2DStreamScalar<float,2,32,32,1,1,1,1>",
		Published: 2964, Where: "pad.h, the class comment \"Pad2DStreamScalar<f,2,32,32,1,1,1,1> takes 2964 cycles\" (the graph's pad2DScalar instance): its tile.cycles() difference" + "; graph_pad.cpp:23-26 (Pad2DStreamGraphTest) and graph_pad.h:55-56 connect in and out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in", "out"),
	},
	{
		Name: "Qgemm<int8_t,int8_t,1,80,32>", Source: onnx2versal,
		File: "design/aie_src/qgemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Qgemm<int8_t,int8_t,1,80,32>(0.004,0.003,0.002,25,0,19)",
		Published: 227, Where: "qgemm.h, the class comment \"Qgemm<a,a,1,80,32> takes 227 cycles\" (a = int8_t, typeid's name; the graph's qgemmVector instance with its scales and zero points, graph_qgemm.cpp): its tile.cycles() difference" + "; graph_qgemm.cpp:29-32 (QgemmGraphTest) and graph_qgemm.h:68-69 connect in and out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in", "out"),
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
		Published: 131102, Where: "add.h, AddScalar's class comment (stream ports): its tile.cycles() difference" + "; graph_add.cpp:23-28 (AddGraphTest) and graph_add.h:49-51 connect inA, inB and out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("inA", "inB", "out"),
	},
	{
		Name: "AddFloat<float,16384,1>", Source: onnx2versal,
		File: "design/aie_src/add.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "AddFloat<float,16384,1>",
		Published: 24595, Where: "add.h, AddFloat's class comment (it names the class AddScalar; stream ports): its tile.cycles() difference" + "; graph_add.cpp:23-28 (AddGraphTest) and graph_add.h:49-51 connect inA, inB and out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("inA", "inB", "out"),
	},
	{
		Name: "QLinearAddInt8<int8_t,16384,0>", Source: onnx2versal,
		File: "design/aie_src/qlinearadd.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "QLinearAddInt8<int8_t,16384,0>(0.036632415,0.11731018,0.062222864,-128,-6,-128)",
		Published: 8231, Where: "qlinearadd.h, the class comment (it says <float_t, 16384, 1>, add.h's; graph_qlinearadd.cpp instantiates <int8_t, 16384, 0> with these arguments, at e56ba12 where the figure was written and here; the filter is the same for int8, the constructor changed): its tile.cycles() difference" + "; graph_qlinearadd.cpp:29-34 (QLinearAddGraphTest) and graph_qlinearadd.h:62-64 connect inA, inB and out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("inA", "inB", "out"),
		Mechanism: "at the PLIOs' rate (64 bits at the Makefile's --pl-freq=500 with the array at 1.25 GHz: 25.6 bits a cycle, UG1079) each port's 16 bytes an iteration take 5 cycles: 1024 iterations, 5120 cycles; the figure is 8 cycles an iteration. A PLIO at UG1079's default clock (a quarter of the AIE clock, 16 bits a cycle) would give 8192, but the project compiles with --pl-freq=500, and Pad2DStream*, ConcatFloat and AddFloat agree with 500 MHz (within 4%) where a quarter would put them 33-59% high; what else holds the vendor's loop at 8 cycles is not known (not investigated)",
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
		Published: 1669, Where: "quantize_linear.h, the class comment: its tile.cycles() difference" + "; graph_quantize_linear.cpp:47-50 (QuantizeLinearStreamGraphTest) and graph_quantize_linear.h:92-93 connect in and out to a PLIO" + pl64, Scope: "counter", PLIO: plio64("in", "out"),
	},
}
