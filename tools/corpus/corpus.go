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
		Mechanism: "the model runs at the output port's bound (576 stream words at one a cycle: 591 cycles, stream stalls included); the vendor figure is 139 cycles above that bound, and so is ConcatInt8's (283 - 144 words): a fixed cost inside the counted region that does not grow with the data, which the model lacks; we believe it is the stream's start (the model lets the port take a word a cycle from the first write on, docs/aie-timing.md \"Limits\")",
	},
	{
		Name: "ConcatInt8<int8_t,5,4,32,144>", Source: onnx2versal,
		File: "design/aie_src/concat.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConcatInt8<int8_t,5,4,32,144>",
		Published: 283, Where: "concat.h, the class comment: its tile.cycles() difference", Scope: "counter",
		Mechanism: "as ConcatFloat: the flattened copy loops run at the port's bound (144 words, 158 cycles); the figure is the same 139 cycles above the bound as ConcatFloat's, a fixed cost the model lacks",
	},
	{
		Name: "MacFloat<float,28,128,1>", Source: onnx2versal,
		File: "design/aie_src/mac.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "MacFloat<float,28,128,1>",
		Published: 1881, Where: "mac.h, the class comment \"MacFloat<196,128> takes 1881 cycles\": its tile.cycles() difference; 196x128 is the tensor, the graph (graph_mac.cpp, the same commit as the comment, ec9894f) runs it in calls of BCHUNK = 28 rows (MacFloat<float,BCHUNK,128,1>), and 196 rows could not take 1881 cycles (3136 vector stores); the kernel code is unchanged since ec9894f but for the profiling macros", Scope: "counter",
		Mechanism: "the model is faster: it flattens the 16-iteration inner loop and software-pipelines it (an fpmac, an fpmax and a vector store an element group, 3.4 cycles each in the model's schedule, where three vector loads and the separate pointer additions of w_ptr and b_ptr share the two load slots); the figure's 4.2 cycles a group suggest the vendor compiler keeps the inner loop (no flatten pragma) and pays its branch and the fpmac-fpmax-store latency each 16 groups: a loop policy the model does not share",
	},
	{
		Name: "SplitScalar<float,10,64,22,1>::filter3", Source: onnx2versalSplit,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitScalar<float,10,64,22,1>",
		Published: 9505, Where: "split.h, the class comment \"SplitScalar<f,3,10,64,22>::filter3 takes 9505 cycles\" (written at 6b40450 when the 3 outputs were named; the graph, graph_split.cpp, runs H=10, INP_W=64, OUT_W=22, OVERLAP=1, whose registerKernelClass picks filter3; its code for OVERLAP > 0 is unchanged at this commit): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is faster, as for ConcatScalar: it flattens and software-pipelines the per-element copy loops (a 32-bit stream read and one or two scalar window writes an element, 640 elements in 889 cycles, near the input port's word a cycle); the figure is about 15 cycles an element, which matches iterations that do not overlap (the stream read's latency, the window writes and the loop branch) in loops of 1 to 21 iterations: we believe the vendor compiler does not pipeline these scalar stream loops, which the model does not reproduce",
	},
	{
		Name: "SplitScalar<float,10,64,31,-1>::filter2", Source: onnx2versalSplit,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitScalar<float,10,64,31,-1>",
		Published: 9547, Where: "split.h, the class comment \"SplitScalar<f,10,64,31,-1>::filter2 takes 9547 cycles\" (the graph's splitScalar_neg instance; registerKernelClass picks filter2): its tile.cycles() difference", Scope: "counter",
		Mechanism: "as SplitScalar::filter3: 640 stream words in 927 cycles in the model, about 15 cycles a word in the figure (iterations that do not overlap)",
	},
	{
		Name: "SplitInt8<int8_t,10,160,64,16>::filter3", Source: onnx2versalSplitInt8,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitInt8<int8_t,10,160,64,16>",
		Published: 1649, Where: "split.h, the class comment \"SplitInt8<a,10,160,64,16>::filter3 takes 1649 cycles\" (a = int8_t, typeid's name; the graph's splitInt8 instance): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model runs at the input stream's bound (1600 bytes, 400 words at one a cycle: 404 cycles, stream stalls included), its copy loops of 1 to 3 128-bit reads flattened; the figure is 1245 cycles above that bound for 50 such loops (5 a row), and filter2's 833 above it for 30 (3 a row): about 25 cycles a loop in both, which we believe is what the vendor compiler spends on each small loop it keeps (set-up, the stream read's latency before the first write, no overlap between loops); the model flattens them (LLVM's full-unroll size policy, backend/flatten.go) and does not reproduce that cost",
	},
	{
		Name: "SplitInt8<int8_t,10,160,64,-32>::filter2", Source: onnx2versalSplitInt8,
		File: "design/aie_src/split.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "SplitInt8<int8_t,10,160,64,-32>",
		Published: 1237, Where: "split.h, the class comment \"SplitInt8<a,10,160,64,-32>::filter2 takes 1237 cycles\" (the graph's splitInt8_neg instance): its tile.cycles() difference", Scope: "counter",
		Mechanism: "as SplitInt8::filter3: the model at the input stream's bound (400 words, 404 cycles); the figure is about 28 cycles above it for each of the 30 small copy loops the kernel runs (3 a row), a per-loop cost the model lacks where it flattens them",
	},
	{
		Name: "Conv3x3ReluStreamCacheCKK<26,28,24,1,1,1,1,4,3,1>", Source: onnx2versalConv3x3,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv3x3ReluStreamCacheCKK<26,28,24,1,1,1,1,4,3,1>",
		Published: 10086, Where: "conv.h, the class comment \"Conv3x3ReluStreamCacheCKK<26,28,24,1,1,1,1,4,3,1> total = 10086 cycles\" (the graph's conv3x3ReluCacheCKK instance, graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is faster: each output row's 3 column blocks (OUT_W/8) are flattened and software-pipelined, so one block's 9 chained fpmacs (FPAccChainCycles apart) overlap the next block's loads, about 24 cycles a block; the figure's 35 cycles a block (288 blocks) suggest the vendor compiler keeps the column loop (no flatten pragma) and runs each block's loads, 9-fpmac chain, fpmax and two 128-bit stream writes without overlap: a loop policy the model does not share",
	},
	{
		Name: "Conv3x3ReluStreamCacheCKK<24,24,12,2,2,1,1,4,3,1>", Source: onnx2versalConv3x3,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv3x3ReluStreamCacheCKK<24,24,12,2,2,1,1,4,3,1>",
		Published: 3649, Where: "conv.h, the class comment \"Conv3x3ReluStreamCacheCKK<24,24,12,2,2,1,1,4,3,1> total = 3649 cycles\" (the graph's conv3x3ReluCacheCKK_s2 instance, stride 2): its tile.cycles() difference", Scope: "counter",
		Mechanism: "as the stride-1 instance: the model overlaps the flattened column blocks' fpmac chains, which we believe the vendor compiler does not",
	},
	{
		Name: "Conv3x3ReluStreamCacheCKK2Row<26,28,24,1,1,1,1,4,3,1>", Source: onnx2versalConv3x3Rows,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv3x3ReluStreamCacheCKK2Row<26,28,24,1,1,1,1,4,3,1>",
		Published: 9815, Where: "conv.h, the class comment \"Conv3x3ReluStreamCacheCKK2Row<26,28,24,1,1,1,1,4,3,1> total = 9815 cycles\" (the graph's conv3x3ReluStreamCacheCKK2Row instance): its tile.cycles() difference", Scope: "counter",
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
		Published: 24133, Where: "conv.h, the class comment \"ConvHx8ReluStream<28,28,24,24,1,1,1,2,4,5,5,1,1> total = 24133\" (the graph's convHx6ReluStream instance): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "Conv1x1Relu<24,24,24,24,1,1,1,2,4,1,1,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv1x1Relu<24,24,24,24,1,1,1,2,4,1,1,1,1>",
		Published: 3617, Where: "conv.h, the class comment \"Conv1x1Relu<24,24,24,24,1,1,1,2,4,1,1,1,1> total = 3617\" (the graph's conv1x1Relu instance): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is faster: the 2-iteration channel loop (marked chess_prepare_for_pipelining, weights[weightIdx] with a run-time index) and the 3-vector column loop around it are flattened and the row loop is software-pipelined (backend/flatten.go: a marked loop of fewer than 9 iterations is fully unrolled, as LLVM does), 3 vectors in II 31, 10.6 cycles a vector against the figure's 12.6 (35 with the channel loop kept); the row loop's body ends with chess_separator_scheduler(), which the model lets iterations overlap across (held as a barrier between iterations, no overlap at all, the model gives 4442, +23%): we believe the vendor's schedule overlaps the rows less than the model's; the model's II is bound by its own register choice: every weight and bias load computes its address (a move, a shift, a pointer add) in the same pointer register, which chains the loads of an iteration (a 29-cycle recurrence)",
	},
	{
		Name: "Conv1x1ReluStream<24,24,24,24,1,1,1,2,4,1,1,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Conv1x1ReluStream<24,24,24,24,1,1,1,2,4,1,1,1,1>",
		Published: 4217, Where: "conv.h, the class comment \"Conv1x1ReluStream<24,24,24,24,1,1,1,2,4,1,1,1,1> total = 4217\" (the graph's conv1x1ReluStream instance): its tile.cycles() difference", Scope: "counter",
		Mechanism: "as Conv1x1Relu, the channel and column loops are flattened and the row loop software-pipelined (4775 cycles, 10883 with the channel loop kept); the model is slower: each 128-bit stream write first copies its half of the result into a 128-bit register (a vector move on the move slot, two a vector), and the allocator gives those copies the register in which the next vector's weight operand (a zeroed vector, the weight moved into lane 0) is then built, chaining the three vectors of a row (a 35-cycle recurrence, II 40 for 24 stream words), plus 864 cycles of output-stream stalls where the writes bunch up; the vendor's 14.6 cycles a vector overlap them",
	},
	{
		Name: "GemmReluMKKNStream<7,36,16,1>", Source: onnx2versal,
		File: "design/aie_src/gemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "GemmReluMKKNStream<7,36,16,1>",
		Published: 3100, Where: "gemm.h, the class comment \"GemmReluMKKNStream<7,36,10> total = 3100\": M, K and the 10 outputs of the graph (graph_gemm.cpp), which instantiates it with N padded to 8, N_PAD8 = 16: its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is slower: each aie::mac(acc, matW, in_row[...]) has a scalar operand, which sumac's lowering puts into lane 0 of a zeroed vector register (a vzero and a lane update on the move slot for each of the 4 scalars of a MAC_ROW), and the two 128-bit weight reads are moved into matW's halves on the same slot: 1541 move-slot operations against 532 vector ones, plus 1260 cycles of weight-stream stalls; we believe the vendor compiler selects each scalar's lane from in_row loaded as a vector (the MAC's zstart), which the model's lowering does not do",
	},
	{
		Name: "GemmReluMKKNTwoAccsStream<7,36,16,1>", Source: onnx2versal,
		File: "design/aie_src/gemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "GemmReluMKKNTwoAccsStream<7,36,16,1>",
		Published: 2774, Where: "gemm.h, the comment of class GemmReluMKKNTwoAccsStream, \"GemmReluMKKNStream<7,36,10> total = 2774 (slower than GemmReluMKKNStream for larger N)\": the name is the other class's, the comparison says the figure is this one's; the graph's gemmReluMKKNTwoAccsStream instance (N_PAD8 = 16): its tile.cycles() difference", Scope: "counter",
		Mechanism: "as GemmReluMKKNStream: the scalar operands of aie::mac become lane updates of zeroed vector registers on the move slot, which bounds the model's schedule",
	},
	{
		Name: "ConvHx4Relu<26,28,24,24,1,1,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4Relu<26,28,24,24,1,1,1,2,4,3,3,1,1>",
		Published: 10603, Where: "conv.h, the class comment \"ConvHx4Relu<26,28,24,24,1,1,1,2,4,3,3,1,1> total = 10603\" (an instance of graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,1,1>",
		Published: 13734, Where: "conv.h, the class comment \"ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,1,1> total = 13734\" (an instance of graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,2,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,2,1>",
		Published: 8904, Where: "conv.h, the class comment \"ConvHx4ReluStream<26,28,24,24,1,1,1,2,4,3,3,2,1> total = 8904\" (an instance of graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvHx4ReluStream<24,24,11,12,2,2,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStream<24,24,11,12,2,2,1,2,4,3,3,1,1>",
		Published: 6678, Where: "conv.h, the class comment \"ConvHx4ReluStream<24,24,11,12,2,2,1,2,4,3,3,1,1> total = 6678\" (an instance of graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "ConvHx4ReluStreamMultiRow<26,28,24,24,1,1,1,2,4,3,3,1,1>", Source: onnx2versal,
		File: "design/aie_src/conv.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "ConvHx4ReluStreamMultiRow<26,28,24,24,1,1,1,2,4,3,3,1,1>",
		Published: 14801, Where: "conv.h, the class comment \"ConvHx4ReluStreamMultiRow<26,28,24,24,1,1,1,2,4,3,3,1,1> total = 14801\" (an instance of graph_conv.cpp): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "GemmReluMKKN<7,36,12,1>", Source: onnx2versal,
		File: "design/aie_src/gemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "GemmReluMKKN<7,36,12,1>",
		Published: 1470, Where: "gemm.h, the class comment \"GemmReluMKKN<7,36,10> total = 1470\" (the graph instantiates it with N padded to 4, N_PAD4 = 12): its tile.cycles() difference", Scope: "counter",
	},
	{
		Name: "Pad2DStreamFloat<float,2,32,32,1,1,1,1>", Source: onnx2versalPad,
		File: "design/aie_src/pad.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Pad2DStreamFloat<float,2,32,32,1,1,1,1>",
		Published: 2867, Where: "pad.h, the class comment \"Pad2DStreamFloat<f,2,32,32,1,1,1,1> takes 2867 cycles\" (the graph's pad2DFloat instance, graph_pad.cpp): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model runs at the output port's bound (2 x 34 x 34 = 2312 words at one a cycle: 2378 cycles, stream stalls included), the 128-bit moves (getf_wss / put_wms) and the pad words' put_ms flattened; the figure is 489 cycles above it, about 7 a row for the 68 rows' small pad and copy loops: as for SplitInt8, a per-loop cost of the vendor's code that the model, which flattens them, lacks",
	},
	{
		Name: "Pad2DStreamScalar<float,2,32,32,1,1,1,1>", Source: onnx2versalPad,
		File: "design/aie_src/pad.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Pad2DStreamScalar<float,2,32,32,1,1,1,1>",
		Published: 2964, Where: "pad.h, the class comment \"Pad2DStreamScalar<f,2,32,32,1,1,1,1> takes 2964 cycles\" (the graph's pad2DScalar instance): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is slower: it issues every 32-bit stream move on the MV1 slot (backend/adf.go: mov.ss, II_SS2SCL; mov.ms, II_SCL2MS), so an element's read and write take two cycles (4362 cycles for 2048 reads and 2312 writes); the figure, 1.28 cycles an output word, needs a read and a write in one cycle; llvm-aie's AIE1 instructions name stream reads on two moves (mov0 SS / mov1 SS, MV_SSA2SCL and MV_SSB2SCL) and writes as movs or mov1 (MV_SCL2MSA, MV_SCL2MSB), so we believe a read and a write can share a cycle on different move slots, which the model's slot assignment does not allow",
	},
	{
		Name: "Qgemm<int8_t,int8_t,1,80,32>", Source: onnx2versal,
		File: "design/aie_src/qgemm.cc", Defines: []string{"__LOG_VERBOSE__"}, Instance: "Qgemm<int8_t,int8_t,1,80,32>(0.004,0.003,0.002,25,0,19)",
		Published: 227, Where: "qgemm.h, the class comment \"Qgemm<a,a,1,80,32> takes 227 cycles\" (a = int8_t, typeid's name; the graph's qgemmVector instance with its scales and zero points, graph_qgemm.cpp): its tile.cycles() difference", Scope: "counter",
		Mechanism: "the model is slower: each of the 16 weight loads of a K step (*(v16int8 *) w_ptr; w_ptr += N) issues as a load and a separate pointer addition, which share the two load slots and wait out the addition's 2-cycle latency, so the K loop runs at 32 cycles an iteration (354 load-slot operations in all) for 2 mac16; post-modified loads (vld ..., [p], #32) would halve the load-slot operations and remove the chain, which we believe the vendor code does and sumac's backend does not for this access pattern",
	},
}
