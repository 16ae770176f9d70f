package suite

import "fmt"

func init() {
	register("vyasa36", vyasa36)
	register("resnet50", resnet50)
	register("mobilenet-dw2", mobilenetDW2)
	register("gemm", gemmSuite)
	register("lei-gemm", leiGEMM)
	register("xdna", xdna)
	register("mnist-cnn", mnistCNN)
}

// precisions of seed 000: every shape in 32-bit and 16-bit.
var vyasaTypes = []struct{ name, dtype string }{{"int32", "int32"}, {"int16", "int16"}}

// vyasa36 is seed 000's evaluation: Table III (2D convolutions producing a 256x16 tile, filters
// 2x2..11x11, input 264 x (15+f)) and Table IV (deep-learning CONV2D, output 128x2x16 from a
// 144-wide input with 8 channels, and the FC layer), each in int32 and int16.
func vyasa36() *Suite {
	s := &Suite{Name: "vyasa36", Description: "seed 000 (Vyasa) Tables III and IV: 18 CONV2D shapes x {int32, int16}"}
	// Table III: unroll-and-jam (x, y) per precision; the loop order is xy and the vectorized
	// loop x for every row (section IV-A).
	unroll := map[int][4]int{ // f -> {x32, y32, x16, y16}
		2: {1, 4, 1, 8}, 3: {1, 4, 1, 2}, 4: {1, 2, 1, 1}, 5: {1, 2, 1, 1}, 6: {1, 1, 1, 1},
		7: {1, 1, 1, 1}, 8: {1, 4, 1, 1}, 9: {1, 4, 1, 1}, 10: {1, 4, 1, 4}, 11: {1, 4, 1, 4},
	}
	// Table III gives every input as 264 wide, but 256 outputs of a 10- or 11-wide filter need
	// 265 and 266 columns: those two rows use the smallest input that fits.
	for f := 2; f <= 11; f++ {
		xin := max(264, 255+f)
		for i, t := range vyasaTypes {
			u := unroll[f]
			s.add(fmt.Sprintf("2d-%dx%d-%s", f, f, t.name),
				fmt.Sprintf("conv2d x=256 y=16 r=%d s=%d xin=%d yin=%d dtype=%s", f, f, xin, 15+f, t.dtype),
				"seed 000 Table III", &PaperSchedule{VectorLoop: "x", UnrollX: u[2*i], UnrollY: u[2*i+1], LoopOrder: "xy"})
		}
	}
	// Table IV. Filter sizes are R x S x C x K (width, height, channels, outputs); the FC row's
	// text is garbled in the seed, its shape is x=1 y=1 c=8 k=4096 (32768 MACs).
	const (
		w8  = "(K/8)(C/8)SR(8)(8)"
		i8  = "(C/8)Y'X'(8)"
		w2  = "K(C/2)SR(2)"
		i2  = "(C/2)Y'X'(2)"
		w16 = "(K/16)SR(C/2)(16)(2)"
	)
	ps := func(o, w, in, vec, sw string, ux, uy, uk int, order string) *PaperSchedule {
		return &PaperSchedule{OutLayout: o, WLayout: w, InLayout: in, VectorLoop: vec, SWLoop: sw, UnrollX: ux, UnrollY: uy, UnrollK: uk, LoopOrder: order}
	}
	rows := []struct {
		name, shape string
		p32, p16    *PaperSchedule
	}{
		{"reg-3x3", "x=128 y=2 k=16 c=8 r=3 s=3 xin=144 yin=4",
			ps("XYK", w8, i8, "k", "x", 1, 2, 1, "kyx"), ps("KYX", w2, i2, "x", "x", 1, 1, 1, "yxk")},
		{"reg-5x5", "x=128 y=2 k=16 c=8 r=5 s=5 xin=144 yin=6",
			ps("KYX", "KCSR", "CY'X'", "x", "x", 1, 1, 1, "kyx"), ps("KYX", w2, i2, "x", "x", 1, 2, 1, "kyx")},
		{"reg-7x7", "x=128 y=2 k=16 c=8 r=7 s=7 xin=144 yin=8",
			ps("KYX", "KCSR", "CY'X'", "x", "x", 1, 2, 1, "kyx"), ps("KYX", w2, i2, "x", "x", 1, 2, 1, "kyx")},
		{"pw-1x1", "x=128 y=2 k=16 c=8 r=1 s=1 xin=144 yin=2",
			ps("XYK", w8, i8, "k", "x", 1, 2, 1, "kyx"), ps("YXK", w16, "Y'X'C", "k", "k", 1, 2, 1, "xyk")},
		// The seed's text shows "p" as the SW loop of SS-1x3 32-bit; x is the only loop it can be.
		{"ss-1x3", "x=128 y=2 k=16 c=8 r=1 s=3 xin=144 yin=4",
			ps("XYK", w8, i8, "k", "x", 1, 2, 1, "kyx"), ps("KYX", w2, i2, "x", "x", 1, 2, 1, "kyx")},
		{"ss-3x1", "x=128 y=2 k=16 c=8 r=3 s=1 xin=144 yin=2",
			ps("XYK", w8, i8, "k", "x", 1, 1, 1, "kyx"), ps("YXK", w16, "Y'X'C", "k", "k", 1, 2, 1, "xyk")},
		{"ds-3x3", "x=128 y=2 k=16 c=16 groups=16 r=3 s=3 xin=144 yin=4",
			ps("KYX", "KCSR", "CY'X'", "x", "x", 1, 2, 1, "kyx"), ps("KYX", "KCSR", "CY'X'", "x", "x", 1, 2, 1, "kyx")},
		{"fc", "x=1 y=1 k=4096 c=8 r=1 s=1",
			ps("XYK", w8, i8, "k", "k", 1, 1, 1, "kyx"), ps("YXK", w16, "Y'X'C", "k", "k", 1, 1, 1, "xyk")},
	}
	for _, r := range rows {
		for i, t := range vyasaTypes {
			p := r.p32
			if i == 1 {
				p = r.p16
			}
			s.add(r.name+"-"+t.name, "conv2d "+r.shape+" dtype="+t.dtype, "seed 000 Table IV", p)
		}
	}
	return s
}

// resnet50 is seed 004's Table 1: the distinct convolution layers of ResNet-50 v1.5, batch 1,
// NHWC. Padding keeps the table's output sizes: 1 for 3x3 filters, 0 for 1x1; C1 is 7x7 with
// stride 2 and pad 3 on a 224x224 image. The default type is fp32; consumers re-type with
// op.Retype (e.g. "atype=uint8 btype=int8 acc=int32 out=int32" as in seed 004's UINT8 runs).
func resnet50() *Suite {
	s := &Suite{Name: "resnet50", Description: "seed 004 Table 1: ResNet-50 v1.5 convolution layers C1-C20, batch 1"}
	layers := []struct{ co, wo, ho, wf, hf, ci int }{
		{64, 112, 112, 7, 7, 3}, {256, 56, 56, 1, 1, 64}, {64, 56, 56, 1, 1, 64}, {64, 56, 56, 3, 3, 64},
		{64, 56, 56, 1, 1, 256}, {512, 28, 28, 1, 1, 256}, {128, 28, 28, 1, 1, 256}, {128, 28, 28, 3, 3, 128},
		{512, 28, 28, 1, 1, 128}, {128, 28, 28, 1, 1, 512}, {1024, 14, 14, 1, 1, 512}, {256, 14, 14, 1, 1, 512},
		{256, 14, 14, 3, 3, 256}, {1024, 14, 14, 1, 1, 256}, {256, 14, 14, 1, 1, 1024}, {2048, 7, 7, 1, 1, 1024},
		{512, 7, 7, 1, 1, 1024}, {512, 7, 7, 3, 3, 512}, {2048, 7, 7, 1, 1, 512}, {512, 7, 7, 1, 1, 2048},
	}
	for i, l := range layers {
		extra := ""
		switch {
		case i == 0:
			extra = " stride=2 pad=3 xin=224 yin=224"
		case l.wf == 3:
			extra = " pad=1"
		}
		s.add(fmt.Sprintf("C%d", i+1),
			fmt.Sprintf("conv2d x=%d y=%d k=%d c=%d r=%d s=%d%s dtype=fp32", l.wo, l.ho, l.co, l.ci, l.wf, l.hf, extra),
			"seed 004 Table 1", nil)
	}
	return s
}

// mobilenetDW2 holds MobileNet v1's depth-wise stride-2 layers (MOBILENET Table 1: "Conv dw /
// s2" on 112x112x64, 56x56x128, 28x28x256 and 14x14x512 inputs, 3x3 filters), batch 1, with
// padding 1 on every side so that the outputs are half the inputs. The default type is fp32;
// consumers re-type them (sumac tune --dtype).
func mobilenetDW2() *Suite {
	s := &Suite{Name: "mobilenet-dw2", Description: "MOBILENET Table 1: the four depth-wise 3x3 stride-2 layers, batch 1"}
	for _, l := range []struct{ in, ch int }{{112, 64}, {56, 128}, {28, 256}, {14, 512}} {
		out := l.in / 2
		s.add(fmt.Sprintf("dw2-%d", out),
			fmt.Sprintf("conv2d x=%d y=%d k=%d c=%d groups=%d r=3 s=3 stride=2 pad=1 xin=%d yin=%d dtype=fp32", out, out, l.ch, l.ch, l.ch, l.in, l.in),
			"MOBILENET Table 1", nil)
	}
	return s
}

// gemmSuite holds the SGEMM shapes measured for the peer libraries in HOST-ZEN3.
func gemmSuite() *Suite {
	s := &Suite{Name: "gemm", Description: "row-major C = A*B shapes of HOST-ZEN3 (square 256..2048, 4096x4096x290)"}
	for _, n := range []int{256, 512, 1024, 2048} {
		s.add(fmt.Sprintf("%dx%dx%d", n, n, n), fmt.Sprintf("gemm m=%d n=%d k=%d dtype=fp32", n, n, n), "HOST-ZEN3", nil)
	}
	s.add("4096x4096x290", "gemm m=4096 n=4096 k=290 dtype=fp32", "HOST-ZEN3; seed 001 Fig. 6 shape", nil)
	return s
}

// leiGEMM is seed 001's micro-kernel: a 16x4 int16 tile of C over Kc = 64, 128, 256, 290.
func leiGEMM() *Suite {
	s := &Suite{Name: "lei-gemm", Description: "seed 001 Fig. 4/5: the 16x4 int16 mac16 micro-kernel at kc 64..290"}
	for _, kc := range []int{64, 128, 256, 290} {
		s.add(fmt.Sprintf("lei-16x4-kc%d", kc), fmt.Sprintf("gemm m=16 n=4 k=%d dtype=int16", kc), "seed 001 section VI-C", nil)
	}
	return s
}

// xdna holds the single-tile kernels of the scalable-analyses/xdna documentation: seed 002's
// XDNA2 BFP16 64x96x64 contraction and the XDNA1 BF16 32x32x32 one ([XDNA] xdna1_kernel.rst, seed 002).
func xdna() *Suite {
	s := &Suite{Name: "xdna", Description: "seed 002 XDNA2 BFP16 64x96x64 and the XDNA1 BF16 32x32x32 tensor-contraction kernels"}
	s.add("xdna2-bfp16-64x96x64",
		"einsum [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] m2=4 k1=12 m1=2 m0=8 k0=8 n2=4 n1=2 n0=8 dtype=bfp16",
		"seed 002", nil)
	s.add("xdna1-bf16-32x32x32",
		"einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=4 m0=4 k0=8 n1=8 n0=4 dtype=bf16",
		"XDNA xdna1_kernel.rst", nil)
	return s
}

// mnistCNN is seed 003's network at batch 64: two 3x3 convolutions, 2x2 max pooling and two
// fully connected layers (the linear layers as GEMMs: batch x in -> batch x out).
func mnistCNN() *Suite {
	s := &Suite{Name: "mnist-cnn", Description: "seed 003: the MNIST CNN's layers at batch 64"}
	s.add("conv1", "conv2d x=26 y=26 k=32 c=1 r=3 s=3 n=64 dtype=fp32", "seed 003", nil)
	s.add("conv2", "conv2d x=24 y=24 k=64 c=32 r=3 s=3 n=64 dtype=fp32", "seed 003", nil)
	s.add("pool", "maxpool x=12 y=12 c=64 n=64 size=2 dtype=fp32", "seed 003", nil)
	s.add("fc1", "gemm m=64 n=128 k=9216 dtype=fp32", "seed 003", nil)
	s.add("fc2", "gemm m=64 n=10 k=128 dtype=fp32", "seed 003", nil)
	return s
}
