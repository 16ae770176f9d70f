package versal

import (
	"errors"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
	"github.com/sumacdev/sumac/target/aie1"
)

// The GEMM-like direct convolution of seed 004 (Fig. 3) on one tile, uint8 x uint8 with 48-bit
// accumulation and ubsrs(acc, 0) to uint8, micro-tile mr x nr = 8 pixels x 8 output channels.
//
// Seed placement (s.3.2, the text's roles): filters pre-packed in PL RAM and streamed through
// the kernel's PL window every call (F_r, cib x 8); the input packed into I_c in DDR, its
// micro-panel I_r (8 pixels x cib) copied into tile memory by the ARM once per L5 iteration and
// reused over the cob/nr L4 iterations; O_r read from DDR into the kernel and written back every
// call. Loop order l, n, m, L3 (wo, wob), L2 (ci, cib), L1 (co, cob), L5 (wo step 8), L4 (co
// step 8); cib = 256, cob = wob = 8192 (s.4.2). Each row of wo pixels is blocked by 8: widths
// 28, 14, 7 leave a last block of 4, 6, 7 valid pixels that the kernel computes whole (zero
// input pixels, outputs dropped). The ARM's copy packs I_r, so it also applies the stride (C1)
// and the zero padding. The kernel narrows per call: O_r = O_r + ubsrs(partial), one
// narrowing per filter tap and ci block.
//
// Best placement (docs/versal.md): the whole reduction K = R*S*C (padded to 16) in the
// accumulators, one narrowing per output as the reference does; a block of cob output
// channels' filters resident in the tile's and its neighbours' memory (from PL RAM over the
// PLIO streams, ping-pong when two fit); the input's im2col micro-panels (8 output pixels x K,
// pixels flattened over rows so only the layer's last block has idle lanes) packed by the PL
// from the input it reads from DDR and streamed into a ping-pong buffer by the tile DMA; NT
// pixel blocks x cob/8 micro-tiles per call; the output back to DDR by GMIO. The kernel is
// conv_8x8_u8_co.cc (loops interchanged) for K <= 256, conv_8x8_u8_block.cc otherwise.

const (
	convMR = 8 // pixels per micro-tile
	convNR = 8 // output channels per micro-tile
)

// ConvOptions selects placement, rates and the seed's cib.
type ConvOptions struct {
	Placement string
	Rates     string
	CIB       int // seed placement (0: 256, seed 004 s.4.2)
	Trace     *Trace
	NoVerify  bool
	Seed      uint64
}

type convPlan struct {
	m         *Machine
	spec      *op.Spec
	c         *op.Conv2D
	placement string
	rates     string
	kernels   map[string]*Kernel
	memory    map[string]int
	notes     []string
	// seed
	cib int
	// best
	kp, cob, nt, wcopies int
	variant              string
}

// convCall is one kernel call.
type convCall struct {
	// seed: output row (n, y), tap (r, s), channels [ci0, ci0+cib), pixels x0.., channels co0..
	n, y, r, s, ci0, cib int
	// both: first pixel (seed: x; best: flattened index), valid pixels; first output channel
	x0, px, co0, nco int
	npb              int // best: pixel blocks in the call
	f, i, o          int // feed items: filters, input, output
	k                *Kernel
}

func newConvPlan(m *Machine, spec *op.Spec, o ConvOptions) (*convPlan, error) {
	c := spec.Conv
	if c == nil {
		return nil, fmt.Errorf("versal conv: %q is not a conv2d", spec.String())
	}
	t := spec.Types
	if t.A != t.B || t.Out != t.A || t.A != op.UInt8 && t.A != op.Int8 || t.Acc != op.Acc48 || t.Shift != 0 {
		return nil, fmt.Errorf("versal conv: types %s: seed 004's micro-kernel is uint8 x uint8 -> acc48 -> ubsrs(acc, 0) -> uint8 (sumac's kernels also int8 with bsrs)", t)
	}
	if t.A == op.Int8 && o.Placement == PlacementSeed {
		return nil, errors.New("versal conv: seed 004's kernel is uint8; int8 runs in the best placement")
	}
	if c.Groups != 1 || c.Dilation != 1 {
		return nil, errors.New("versal conv: groups and dilation must be 1")
	}
	p := &convPlan{m: m, spec: spec, c: c, placement: o.Placement, rates: o.Rates, kernels: map[string]*Kernel{}, memory: map[string]int{}}
	if p.placement == "" {
		p.placement = PlacementBest
	}
	if p.rates == "" {
		p.rates = RatesReal
	}
	switch p.placement {
	case PlacementSeed:
		return p, p.seedBlocking(o)
	case PlacementBest:
		return p, p.bestBlocking()
	}
	return nil, fmt.Errorf("versal conv: placement %q (want seed or best)", p.placement)
}

func (p *convPlan) kernel(file string, defines ...string) (*Kernel, error) {
	key := fmt.Sprint(file, defines)
	if k := p.kernels[key]; k != nil {
		return k, nil
	}
	k, err := LoadKernel(file, defines...)
	if err != nil {
		return nil, err
	}
	p.kernels[key] = k
	return k, nil
}

func (p *convPlan) seedBlocking(o ConvOptions) error {
	m, c := p.m, p.c
	p.cib = o.CIB
	if p.cib == 0 {
		p.cib = 256
	}
	if p.cib%16 != 0 {
		return fmt.Errorf("cib = %d: the seed kernel takes 16 channels per iteration", p.cib)
	}
	cibp := roundUp(min(p.cib, c.C), 16)
	wb := m.WindowBuffers
	used, err := CheckFit(fmt.Sprintf("seed placement, cib = %d", p.cib), m.UsableTileBytes(0), []Buffer{
		{"F_r window", cibp * convNR, wb}, {"I_r", cibp * convMR, 1},
		{"O_r in window", convMR * convNR, wb}, {"O_r out window", convMR * convNR, wb}})
	if err != nil {
		return err
	}
	p.memory["used"], p.memory["available"] = used, m.UsableTileBytes(0)
	if int64(c.R*c.S*c.C*c.K) > m.PLRAMBytes {
		return fmt.Errorf("the filters (%d bytes) do not fit PL RAM", c.R*c.S*c.C*c.K)
	}
	p.notes = append(p.notes, fmt.Sprintf("cib = %d, cob = wob = 8192 (seed 004 s.4.2); rows of %d pixels in blocks of 8", p.cib, c.X))
	return nil
}

// bestBlocking picks the filter block and calls by running the candidates' timelines.
func (p *convPlan) bestBlocking() error {
	m, c := p.m, p.c
	p.kp = roundUp(c.R*c.S*c.C, 16)
	p.variant = "kernels/conv_8x8_u8_block.cc"
	if p.kp <= 256 {
		p.variant = "kernels/conv_8x8_u8_co.cc"
	}
	avail := m.UsableTileBytes(m.NeighbourModules)
	p.memory["available"] = avail
	type cand struct{ cob, nt, wcopies int }
	var cands []cand
	co8 := roundUp(c.K, convNR)
	for cob := co8; cob >= convNR && len(cands) < 6; cob = roundUp(cob/2, convNR) {
		for _, nt := range []int{1, 2} {
			for _, wc := range []int{2, 1} {
				mem := wc*p.kp*cob + 2*nt*convMR*p.kp + 2*nt*(cob/convNR)*convMR*convNR
				if mem <= avail {
					cands = append(cands, cand{cob, nt, wc})
					break
				}
			}
		}
		if cob == convNR {
			break
		}
	}
	if len(cands) == 0 {
		_, err := CheckFit(fmt.Sprintf("best placement, K = R*S*C = %d", p.kp), avail, []Buffer{
			{"filter panel", p.kp * convNR, 1}, {"input panel", convMR * p.kp, 2}, {"output", convMR * convNR, 2}})
		if err == nil {
			err = fmt.Errorf("best placement, K = %d: no blocking fits", p.kp)
		}
		return err
	}
	best, bestCycles := -1, math.Inf(1)
	for i, cd := range cands {
		p.cob, p.nt, p.wcopies = cd.cob, cd.nt, cd.wcopies
		rep, _, err := p.timeline(nil)
		if err != nil {
			return err
		}
		if rep.Cycles < bestCycles {
			best, bestCycles = i, rep.Cycles
		}
	}
	cd := cands[best]
	p.cob, p.nt, p.wcopies = cd.cob, cd.nt, cd.wcopies
	p.memory["used"] = p.wcopies*p.kp*p.cob + 2*p.nt*convMR*p.kp + 2*p.nt*(p.cob/convNR)*convMR*convNR
	p.notes = append(p.notes, fmt.Sprintf("K = R*S*C = %d (padded to %d) in one accumulation; filters for %d output channels resident (x%d); %d pixel block(s) x %d micro-tiles per call; kernel %s",
		c.R*c.S*c.C, p.kp, p.cob, p.wcopies, p.nt, p.cob/convNR, p.variant))
	return nil
}

// walk visits the calls in program order.
func (p *convPlan) walk(visit func(cl *convCall) error) error {
	c := p.c
	ncall, ni, nf := 0, 0, 0
	if p.placement == PlacementSeed {
		for n := 0; n < c.N; n++ {
			for y := 0; y < c.Y; y++ {
				for s := 0; s < c.S; s++ {
					for r := 0; r < c.R; r++ {
						for ci0 := 0; ci0 < c.C; ci0 += p.cib {
							cib := min(p.cib, c.C-ci0)
							k, err := p.kernel("lei_conv_8x8_u8.cc", fmt.Sprintf("cib=%d", roundUp(cib, 16)))
							if err != nil {
								return err
							}
							for x0 := 0; x0 < c.X; x0 += convMR {
								for co0 := 0; co0 < c.K; co0 += convNR {
									cl := &convCall{n: n, y: y, r: r, s: s, ci0: ci0, cib: cib, x0: x0, px: min(convMR, c.X-x0),
										co0: co0, nco: min(convNR, c.K-co0), npb: 1, f: ncall, i: ni, o: ncall, k: k}
									if err := visit(cl); err != nil {
										return err
									}
									ncall++
								}
								ni++
							}
						}
					}
				}
			}
		}
		return nil
	}
	pix := c.N * c.Y * c.X
	pb := ceilDiv(pix, convMR)
	for co0 := 0; co0 < c.K; co0 += p.cob {
		nco := min(p.cob, c.K-co0)
		nq := ceilDiv(nco, convNR)
		for g := 0; g < pb; g += p.nt {
			npb := min(p.nt, pb-g)
			defs := []string{fmt.Sprintf("K=%d", p.kp), fmt.Sprintf("NT=%d", npb), fmt.Sprintf("NQ=%d", nq)}
			if p.spec.Types.A == op.Int8 {
				defs = append(defs, "SIGNED8=1")
			}
			k, err := p.kernel(p.variant, defs...)
			if err != nil {
				return err
			}
			cl := &convCall{x0: g * convMR, px: min(npb*convMR, pix-g*convMR), co0: co0, nco: nco, npb: npb, f: nf, i: ncall, o: ncall, k: k}
			if err := visit(cl); err != nil {
				return err
			}
			ncall++
		}
		nf++
	}
	return nil
}

// useful is the MACs a call contributes to the result.
func (p *convPlan) useful(cl *convCall) int64 {
	if p.placement == PlacementSeed {
		// the tap may read padding: those MACs are zero but are part of the operation's count
		return int64(cl.px) * int64(cl.nco) * int64(cl.cib)
	}
	return int64(cl.px) * int64(cl.nco) * int64(p.c.R*p.c.S*p.c.C)
}

// timeline runs the plan's transfers and calls; compute is the sum of the calls' cycles.
func (p *convPlan) timeline(tr *Trace) (*Report, []KernelUse, error) {
	m, c := p.m, p.c
	tl := NewTimeline(m, tr)
	real := p.rates == RatesReal
	var fBytes, iBytes, oBytes []int32
	if err := p.walk(func(cl *convCall) error {
		if cl.f == len(fBytes) {
			if p.placement == PlacementSeed {
				fBytes = append(fBytes, int32(roundUp(cl.cib, 16)*convNR))
			} else {
				fBytes = append(fBytes, int32(p.kp*roundUp(cl.nco, convNR)))
			}
		}
		if cl.i == len(iBytes) {
			if p.placement == PlacementSeed {
				iBytes = append(iBytes, int32(roundUp(cl.cib, 16)*convMR))
			} else {
				iBytes = append(iBytes, int32(cl.npb*convMR*p.kp))
			}
		}
		oBytes = append(oBytes, int32(cl.npb*ceilDiv(cl.nco, convNR)*convMR*convNR))
		return nil
	}); err != nil {
		return nil, nil, err
	}
	var ff, fi, fo *feed
	var out *OutRing
	if p.placement == PlacementSeed {
		wb := m.WindowBuffers
		ff = newFeed(NewRing("F_r window", wb, 0), len(fBytes), func(j int) []*Transfer {
			if !real {
				return nil
			}
			return []*Transfer{m.PLIO(tl.Name("F_r %d", j), "plio F_r", int(fBytes[j]), "plio0", "s2mm0")}
		})
		fi = newFeed(NewRing("I_r", 1, 0), len(iBytes), func(j int) []*Transfer {
			return []*Transfer{m.ARMCopy(tl.Name("I_r %d", j), "arm copy I_r", int(iBytes[j]))}
		})
		fo = newFeed(NewRing("O_r in window", wb, 0), len(oBytes), func(j int) []*Transfer {
			if !real {
				return nil
			}
			return []*Transfer{m.GMIOIn(tl.Name("O_r in %d", j), "gmio O_r in", int(oBytes[j]), "shim_mm2s0", "s2mm1")}
		})
		out = NewOutRing("O_r out window", wb, 0)
	} else {
		// the PL reads the layer's input from DDR once (it fits PL RAM) as it packs the panels:
		// charged evenly over the panels
		raw := float64(c.InLen()) / float64(len(iBytes))
		ff = newFeed(NewRing("filter block", p.wcopies, 0), len(fBytes), func(j int) []*Transfer {
			var xs []*Transfer
			for s, part := range Split(int(fBytes[j]), m.Streams) {
				if part > 0 {
					xs = append(xs, m.PLIO(tl.Name("filters %d part %d", j, s), "plio filters", part, fmt.Sprintf("plio%d", s), fmt.Sprintf("s2mm%d", s)))
				}
			}
			return xs
		})
		fi = newFeed(NewRing("input panels", 2, 0), len(iBytes), func(j int) []*Transfer {
			var xs []*Transfer
			for s, part := range Split(int(iBytes[j]), m.Streams) {
				if part > 0 {
					x := m.PLIO(tl.Name("input %d part %d", j, s), "plio input", part, fmt.Sprintf("plio%d", s), fmt.Sprintf("s2mm%d", s))
					if s == 0 {
						x.Uses = append(x.Uses, Use{Res: "ddr", Busy: raw / m.DDRRate()})
					}
					xs = append(xs, x)
				}
			}
			return xs
		})
		fo = newFeed(NewRing("(no output input)", 1, 0), len(oBytes), func(int) []*Transfer { return nil })
		out = NewOutRing("output", 2, 0)
	}
	uses := map[*Kernel]*KernelUse{}
	pk, err := aie1.Peak(p.spec.Types.A.String())
	if err != nil {
		return nil, nil, err
	}
	err = p.walk(func(cl *convCall) error {
		df, err := ff.use(tl, cl.f)
		if err != nil {
			return err
		}
		di, err := fi.use(tl, cl.i)
		if err != nil {
			return err
		}
		do, err := fo.use(tl, cl.o)
		if err != nil {
			return err
		}
		useful := p.useful(cl)
		_, end := tl.Call(tl.Name("call %d", cl.o), float64(cl.k.Cycles), float64(useful)/float64(pk), cl.k.MACs, df, di, do, out.Slot())
		ff.done(end)
		fi.done(end)
		fo.done(end)
		var x *Transfer
		if real {
			name := "gmio O_r out"
			if p.placement == PlacementBest {
				name = "gmio output"
			}
			x = m.GMIOOut(tl.Name("out %d", cl.o), name, int(oBytes[cl.o]), "mm2s0", "shim_s2mm0")
		}
		if err := drain(tl, out, end, x); err != nil {
			return err
		}
		u := uses[cl.k]
		if u == nil {
			u = &KernelUse{Kernel: cl.k.String(), Cycles: cl.k.Cycles, MACs: cl.k.MACs}
			uses[cl.k] = u
		}
		u.Calls++
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var ku []KernelUse
	for _, u := range uses {
		ku = append(ku, *u)
	}
	sortKernelUses(ku)
	return tl.Finish(), ku, nil
}

// zIndex is the byte of (reduction step k, pixel px) in the Z operand's layout (seed 004
// Fig. 5's Fr: per 16 steps four 32-byte blocks [k 0-7 x px 0-3] [k 0-7 x px 4-7]
// [k 8-15 x px 0-3] [k 8-15 x px 4-7], 8 steps per pixel contiguous).
func zIndex(k, px int) int { return k/16*128 + k%16/8*64 + px/4*32 + px%4*8 + k%8 }

// xIndex is the byte of (reduction step k, output channel co) in the X operand's layout
// (8 output channels per step).
func xIndex(k, co int) int { return k*convNR + co }

// execute runs every call on the cycle simulator and returns the output (canonical layout).
func (p *convPlan) execute(in, w []int64) ([]int64, error) {
	c := p.c
	out := make([]int64, c.OutLen())
	value := func(b byte) int64 {
		if p.spec.Types.Out == op.Int8 {
			return int64(int8(b))
		}
		return int64(b)
	}
	input := func(x, y, ch, n int) int64 { // zero padding outside the input
		if x < 0 || y < 0 || x >= c.XIn || y >= c.YIn {
			return 0
		}
		return in[c.InIndex(x, y, ch, n)]
	}
	return out, p.walk(func(cl *convCall) error {
		k := cl.k
		data := map[string][]byte{}
		for n, s := range k.Sizes {
			data[n] = make([]byte, s)
		}
		if p.placement == PlacementSeed {
			fx, iz, oin := data["FPGA_IN"], data["Fr"], data["DDR_IN"]
			for kk := 0; kk < cl.cib; kk++ {
				for j := 0; j < cl.nco; j++ {
					fx[xIndex(kk, j)] = byte(w[c.WIndex(cl.r, cl.s, cl.ci0+kk, cl.co0+j)])
				}
				for px := 0; px < cl.px; px++ {
					x := (cl.x0+px)*c.Stride + cl.r - c.Pad
					yy := cl.y*c.Stride + cl.s - c.Pad
					iz[zIndex(kk, px)] = byte(input(x, yy, cl.ci0+kk, cl.n))
				}
			}
			for px := 0; px < cl.px; px++ {
				for j := 0; j < cl.nco; j++ {
					oin[px*convNR+j] = byte(out[c.OutIndex(cl.x0+px, cl.y, cl.co0+j, cl.n)])
				}
			}
			res, err := k.Run(data, p.spec.Types.Round, p.spec.Types.Sat)
			if err != nil {
				return err
			}
			for px := 0; px < cl.px; px++ {
				for j := 0; j < cl.nco; j++ {
					out[c.OutIndex(cl.x0+px, cl.y, cl.co0+j, cl.n)] = value(res["DDR_OUT"][px*convNR+j])
				}
			}
			return nil
		}
		nq := ceilDiv(cl.nco, convNR)
		wx, iz := data["W"], data["I"]
		// reduction step kk <-> (s, r, ch), ch fastest
		for kk := 0; kk < c.R*c.S*c.C; kk++ {
			ch, r, s := kk%c.C, kk/c.C%c.R, kk/c.C/c.R
			for j := 0; j < cl.nco; j++ {
				q, jj := j/convNR, j%convNR
				wx[q*p.kp*convNR+xIndex(kk, jj)] = byte(w[c.WIndex(r, s, ch, cl.co0+j)])
			}
			for g := 0; g < cl.px; g++ {
				pix := cl.x0 + g
				x, y, n := pix%c.X, pix/c.X%c.Y, pix/c.X/c.Y
				t, px := g/convMR, g%convMR
				iz[t*p.kp*convMR+zIndex(kk, px)] = byte(input(x*c.Stride+r-c.Pad, y*c.Stride+s-c.Pad, ch, n))
			}
		}
		res, err := k.Run(data, p.spec.Types.Round, p.spec.Types.Sat)
		if err != nil {
			return err
		}
		for g := 0; g < cl.px; g++ {
			pix := cl.x0 + g
			x, y, n := pix%c.X, pix/c.X%c.Y, pix/c.X/c.Y
			t, px := g/convMR, g%convMR
			for j := 0; j < cl.nco; j++ {
				q, jj := j/convNR, j%convNR
				out[c.OutIndex(x, y, cl.co0+j, n)] = value(res["O"][64*(t*nq+q)+px*convNR+jj])
			}
		}
		return nil
	})
}

// verifyShape keeps what the kernels see (C, R, S, stride, pad: the same K, cib and kernel
// configurations) and scales the rest down: two output rows; a width with one full 8-pixel
// block and the layer's edge (the same remainder of the width by 8); one block of output
// channels (best: the filter block cob; seed: two micro-tiles).
func (p *convPlan) verifyShape() (*op.Spec, error) {
	c := p.c
	x := c.X
	if c.X > 8 {
		x = 8 + c.X%8
		if c.X%8 == 0 {
			x = 16
		}
	}
	k := min(c.K, 2*convNR)
	if p.placement == PlacementBest {
		k = min(c.K, p.cob)
	}
	s := fmt.Sprintf("conv2d x=%d y=%d k=%d c=%d r=%d s=%d stride=%d pad=%d dtype=%s", x, min(c.Y, 2), k, c.C, c.R, c.S, c.Stride, c.Pad, p.spec.Types.A)
	return op.Parse(s)
}

// verify runs the plan on the scaled-down shape and compares with op/ref bit for bit.
// Inputs: uint8 values in [0, 2^b) of which a fraction d are non-zero, b and d the largest on
// a ladder for which fewer than 1% of the reference's outputs saturate (best placement, one
// narrowing) or none does (seed placement: O_r + ubsrs(partial) per tap and ci block equals
// the single narrowing only when no output saturates).
func (p *convPlan) verify(seed uint64) (shape, inputs string, err error) {
	vs, err := p.verifyShape()
	if err != nil {
		return "", "", err
	}
	vp := *p
	vp.spec, vp.c, vp.kernels = vs, vs.Conv, map[string]*Kernel{}
	shape = vs.String()
	vc := vs.Conv
	type rung struct {
		bits    int
		density float64
	}
	var ladder []rung
	for b := 8; b >= 1; b-- {
		if b == 1 && vs.Types.A == op.Int8 {
			continue // a symmetric 1-bit range is all zeros
		}
		ladder = append(ladder, rung{b, 1})
	}
	b1 := 1
	if vs.Types.A == op.Int8 {
		b1 = 2
	}
	for d := 0.5; d > 1.0/512; d /= 2 {
		ladder = append(ladder, rung{b1, d})
	}
	var in, w []int64
	var want ref.IntResult
	var used rung
	for _, rg := range ladder {
		r := rng.New(seed)
		signed := vs.Types.A == op.Int8
		gen := func(n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				switch {
				case r.Float64() >= rg.density:
				case signed: // symmetric, so that sums do not drift to one side
					v[i] = int64(r.Intn(1<<rg.bits-1)) - (1<<(rg.bits-1) - 1)
				default:
					v[i] = int64(r.Intn(1 << rg.bits))
				}
			}
			return v
		}
		in, w = gen(vc.InLen()), gen(vc.WLen())
		want, err = ref.Conv2DInt(vc, vs.Types, in, w)
		if err != nil {
			return shape, "", err
		}
		used = rg
		if want.Saturated == 0 || p.placement == PlacementBest && want.Saturated*100 < len(want.Out) {
			break
		}
	}
	lo, hi := 0, 1<<used.bits
	if vs.Types.A == op.Int8 {
		lo, hi = -(1<<(used.bits-1) - 1), 1<<(used.bits-1)
	}
	inputs = fmt.Sprintf("%s in [%d, %d), density %g, %d of %d outputs saturate", vs.Types.A, lo, hi, used.density, want.Saturated, len(want.Out))
	got, err := vp.execute(in, w)
	if err != nil {
		return shape, inputs, err
	}
	for i := range got {
		if got[i] != want.Out[i] {
			return shape, inputs, fmt.Errorf("output %d = %d, op/ref %d", i, got[i], want.Out[i])
		}
	}
	return shape, inputs, nil
}

// ConvResult adds the compute-only rate to a Result.
type ConvResult struct {
	Result
	Layer               string  `json:"layer,omitempty"`
	MACsPerCycleCompute float64 `json:"macs_per_cycle_compute"`
	PctPeakCompute      float64 `json:"pct_peak_compute"`
	// edge handling, measured: the share of the micro-tiles' pixel rows that hold real output
	// pixels (seed: each row of X pixels in blocks of 8; best: all pixels flattened), and of the
	// reduction steps that are real (the kernels take 16 per step; the rest is zero padding)
	PixelLaneUsePct float64 `json:"pixel_lane_use_pct"`
	ReductionUsePct float64 `json:"reduction_use_pct"`
}

// RunConv models one convolution.
func RunConv(m *Machine, spec *op.Spec, o ConvOptions) (*ConvResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	p, err := newConvPlan(m, spec, o)
	if err != nil {
		return nil, err
	}
	rep, ku, err := p.timeline(o.Trace)
	if err != nil {
		return nil, err
	}
	pk, err := aie1.Peak(spec.Types.A.String())
	if err != nil {
		return nil, err
	}
	r := &ConvResult{Result: Result{Op: "conv2d", Spec: spec.String(), Placement: p.placement, Rates: p.rates, Kernels: ku,
		Memory: p.memory, Notes: p.notes}}
	r.Blocking = map[string]int{"mr": convMR, "nr": convNR}
	if p.placement == PlacementSeed {
		r.Blocking["cib"], r.Blocking["cob"], r.Blocking["wob"] = p.cib, 8192, 8192
	} else {
		r.Blocking["K"], r.Blocking["cob"], r.Blocking["pixel_blocks_per_call"], r.Blocking["filter_copies"] = p.kp, p.cob, p.nt, p.wcopies
	}
	r.finish(rep, spec.MACs(), pk, m.AIEClockGHz)
	c := spec.Conv
	if p.placement == PlacementSeed {
		r.PixelLaneUsePct = pct(float64(c.X) / float64(roundUp(c.X, convMR)))
		padded := 0
		for ci0 := 0; ci0 < c.C; ci0 += p.cib {
			padded += roundUp(min(p.cib, c.C-ci0), 16)
		}
		r.ReductionUsePct = pct(float64(c.C) / float64(padded))
	} else {
		pix := c.N * c.Y * c.X
		r.PixelLaneUsePct = pct(float64(pix) / float64(roundUp(pix, convMR)))
		r.ReductionUsePct = pct(float64(c.R*c.S*c.C) / float64(p.kp))
	}
	var compute float64
	for _, u := range ku {
		compute += float64(u.Cycles * u.Calls)
	}
	if compute > 0 {
		r.MACsPerCycleCompute = math.Round(float64(spec.MACs())/compute*100) / 100
		r.PctPeakCompute = pct(float64(spec.MACs()) / compute / float64(pk))
	}
	if !o.NoVerify {
		seed := o.Seed
		if seed == 0 {
			seed = 1
		}
		shape, inputs, err := p.verify(seed)
		r.VerifiedOn, r.VerifyInputs = shape, inputs
		if err != nil {
			r.VerifyError = err.Error()
		} else {
			r.Verified = true
		}
	}
	return r, nil
}
