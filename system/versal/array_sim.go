package versal

import (
	"math"

	"github.com/sumacdev/sumac/op"
)

// The array's timeline: every mechanism of an iteration placed on its resources in iteration
// order (each resource serves its work in that order, so the start of every transfer and call
// is the latest of its resources' free times and the times its inputs and buffers are ready).
// Windows are ping-pong (two buffers, each with its lock: a transfer for item e fills buffer
// e % 2 once the call that used item e - 2 released it); broadcast transfers wait for a free
// buffer at every destination; the adder tree and the output streams release the buffers they
// drain; a cascade passes accumulators at CascadeBits per cycle. Simulating W iterations gives
// the steady period; the rest of a long run repeats it.

type simRes struct {
	free, busy float64
}

func (r *simRes) run(start, dur float64) float64 {
	end := start + dur
	r.free = end
	r.busy += dur
	return end
}

type simTile struct {
	core           simRes
	aReady, bReady [2]float64
	aFree, bFree   [2]float64
	outFree        [2]float64
	s2mm           float64 // busy
	end            float64 // this iteration's call end
}

type simAdder struct {
	core    simRes
	outFree [2]float64
	end     float64
}

type simStats struct {
	iterEnd      []float64
	tiles        []simTile
	adders       []simAdder
	in, out      []simRes
	ddr          simRes
	cascade      float64 // busiest link
	dma          float64 // tile DMA moves of adder inputs (busy, summed per tile max)
	iterations   int
	computeBusy  float64
	pattern      int
	ddrBytes     int64
	ddrBytesIter float64
}

// simulate runs the first w iterations of the plan.
func (p *arrayPlan) simulate(w int) *simStats {
	a, d, k := p.a, p.d, p.k
	nT := d.ComputeTiles()
	groups := d.X * d.Z
	st := &simStats{tiles: make([]simTile, nT), in: make([]simRes, len(p.inPLIO)), out: make([]simRes, len(p.outPLIO))}
	if d.Reduce == ReduceAdder {
		st.adders = make([]simAdder, groups)
	}
	inRate, outRate := a.Rate(d.In), a.Rate(d.Out)
	lock := float64(a.M.LockCycles)
	// a GMIO transfer: the PS writes the shim buffer descriptor and the queue register over the
	// AXI4-MM path, DDR's first data follows after its latency, and DDR is held for the bytes at
	// the aggregate rate (as the one-tile model's GMIOIn)
	gmioSetup := float64(a.M.ShimBDWords+1)*a.M.AXIMMWordCycles() + a.M.nsCycles(a.M.DDRLatencyNs)
	setupIn, setupOut := lock, lock
	if d.In.GMIO {
		setupIn += gmioSetup
	}
	if d.Out.GMIO {
		setupOut += gmioSetup
	}
	hdrIn, hdrOut := 0.0, 0.0
	if d.PackIn > 1 {
		hdrIn = float64(4*a.M.PacketHeaderWords) / inRate
	}
	if d.PackOut > 1 {
		hdrOut = float64(4*a.M.PacketHeaderWords) / outRate
	}
	all := append(append([]logicalStream(nil), p.aStreams...), p.bStreams...)
	casBytes := 0.0
	if d.Reduce == ReduceCascade {
		casBytes = float64(k.Spec.TM * k.Spec.TN * accBits(k.Spec.DType) / 8)
	}
	casCycles := casBytes / a.CascadeRate()
	var casBusy float64
	dmaBusy := map[int]float64{}
	ddrRate := a.M.DDRRate()
	eb := elemBytes(k.Spec.DType)
	ks := k.Spec
	blockA := int64(p.plM*d.X*ks.TM) * int64(p.plK*d.Y*ks.TK) * eb
	blockB := int64(p.plK*d.Y*ks.TK) * int64(p.plN*d.Z*ks.TN) * eb
	blockC := int64(p.plM*d.X*ks.TM) * int64(p.plN*d.Z*ks.TN) * outElemBytes(p.t)
	var blockReady []float64
	plSlotFree := [2]float64{}
	var blockInEnd []float64
	aEpoch := -1
	cWriteEnd := 0.0
	var prevEnd float64
	p.walk(w, func(n int, it iteration) bool {
		if it.aNew {
			aEpoch++
		}
		sa, sb := aEpoch%2, n%2
		// DDR -> PL buffers (system scope): a PL block's A and B blocks, loaded once its
		// buffer's previous block has streamed into the array
		ready := 0.0
		if d.Scope == ScopeSystem {
			if it.plFirst {
				b := it.plBlock
				start := math.Max(st.ddr.free, plSlotFree[b%2])
				bytes := blockA + blockB
				st.ddrBytes += bytes
				blockReady = append(blockReady, st.ddr.run(start, float64(bytes)/ddrRate))
				blockInEnd = append(blockInEnd, 0)
			}
			ready = blockReady[it.plBlock]
		}
		// input streams
		for pi, ph := range p.inPLIO {
			r := &st.in[pi]
			for _, si := range ph {
				s := all[si]
				if s.isA && !it.aNew {
					continue
				}
				slot := sb
				if s.isA {
					slot = sa
				}
				start := math.Max(r.free, ready)
				for _, t := range s.dests {
					if s.isA {
						start = math.Max(start, st.tiles[t].aFree[slot])
					} else {
						start = math.Max(start, st.tiles[t].bFree[slot])
					}
				}
				dur := setupIn + hdrIn + float64(s.bytes)/inRate
				if d.In.GMIO {
					start = math.Max(start, st.ddr.free)
					st.ddr.run(start, float64(s.bytes)/ddrRate)
				}
				end := r.run(start, dur)
				for _, t := range s.dests {
					if s.isA {
						st.tiles[t].aReady[slot] = end
					} else {
						st.tiles[t].bReady[slot] = end
					}
					st.tiles[t].s2mm += dur
				}
				if d.Scope == ScopeSystem {
					blockInEnd[it.plBlock] = math.Max(blockInEnd[it.plBlock], end)
				}
			}
		}
		if d.Scope == ScopeSystem && it.lastInBlock {
			plSlotFree[it.plBlock%2] = blockInEnd[it.plBlock]
		}
		// compute tiles
		for g := 0; g < groups; g++ {
			prev := 0.0
			for pos := 0; pos < d.Y; pos++ {
				t := g*d.Y + pos
				tl := &st.tiles[t]
				v := p.variant(pos, it)
				start := math.Max(tl.core.free, math.Max(tl.aReady[sa], tl.bReady[sb]))
				if d.Reduce == ReduceCascade && pos > 0 {
					start = math.Max(start, prev+casCycles)
					casBusy = math.Max(casBusy, casCycles)
				}
				external := d.Reduce == ReduceAdder || (pos == d.Y-1 && it.out)
				if external {
					start = math.Max(start, tl.outFree[sb])
				}
				end := tl.core.run(start, p.callCycles(v))
				st.computeBusy += p.callCycles(v)
				tl.end, prev = end, end
				tl.bFree[sb] = end
				tl.aFree[sa] = end // the last call on this A epoch releases it (later calls overwrite)
			}
		}
		// adder trees
		iterEnd := 0.0
		if d.Reduce == ReduceAdder {
			for g := 0; g < groups; g++ {
				ad := &st.adders[g]
				type node struct {
					ready float64
					tile  int // -1: an intermediate sum in the adder
				}
				var q []node
				for pos := 0; pos < d.Y; pos++ {
					t := g*d.Y + pos
					r := st.tiles[t].end
					if !p.place.Groups[g].Shared[pos] {
						// the partial sum moves by tile DMA (MM2S, stream, S2MM)
						dur := lock + float64(k.PartBytes)/a.M.StreamRate()
						r += dur
						dmaBusy[t] += dur
					}
					q = append(q, node{r, t})
				}
				for len(q) > 1 {
					x, y := q[0], q[1]
					q = q[2:]
					start := math.Max(ad.core.free, math.Max(x.ready, y.ready))
					if len(q) == 0 {
						start = math.Max(start, ad.outFree[sb])
					}
					end := ad.core.run(start, p.addCycles())
					for _, nd := range []node{x, y} {
						if nd.tile >= 0 {
							st.tiles[nd.tile].outFree[sb] = end
						}
					}
					q = append(q, node{end, -1})
				}
				ad.end = q[0].ready
				iterEnd = math.Max(iterEnd, ad.end)
			}
		}
		// outputs (a single PL output buffer takes a new block once the last went back to DDR)
		outReady := 0.0
		if d.Scope == ScopeSystem && d.PLCBuffers == 1 && it.cFirst {
			outReady = cWriteEnd
		}
		if it.out {
			bytes := float64(p.outBytes(it))
			for oi, ph := range p.outPLIO {
				r := &st.out[oi]
				for _, g := range ph {
					var pend float64
					if d.Reduce == ReduceAdder {
						pend = st.adders[g].end
					} else {
						pend = st.tiles[g*d.Y+d.Y-1].end
					}
					start := math.Max(math.Max(r.free, pend), outReady)
					if d.Out.GMIO {
						start = math.Max(start, st.ddr.free)
						st.ddr.run(start, bytes/ddrRate)
					}
					end := r.run(start, setupOut+hdrOut+bytes/outRate)
					if d.Reduce == ReduceAdder {
						st.adders[g].outFree[sb] = end
					} else {
						st.tiles[g*d.Y+d.Y-1].outFree[sb] = end
					}
					iterEnd = math.Max(iterEnd, end)
				}
			}
		}
		for t := range st.tiles {
			iterEnd = math.Max(iterEnd, st.tiles[t].end)
		}
		// system scope: the output block goes back to DDR after its last K block
		if d.Scope == ScopeSystem && it.lastInBlock && it.kb == p.kB-1 {
			st.ddrBytes += blockC
			cWriteEnd = st.ddr.run(math.Max(st.ddr.free, iterEnd), float64(blockC)/ddrRate)
			iterEnd = math.Max(iterEnd, cWriteEnd)
		}
		iterEnd = math.Max(iterEnd, prevEnd)
		prevEnd = iterEnd
		st.iterEnd = append(st.iterEnd, iterEnd)
		return true
	})
	st.iterations = len(st.iterEnd)
	st.cascade = casBusy
	for _, v := range dmaBusy {
		st.dma = math.Max(st.dma, v)
	}
	return st
}

// callCycles is a compute tile's call of variant v: the cycle simulator's cycles, scaled for a
// sensitivity study (ArrayOptions.KernelScale).
func (p *arrayPlan) callCycles(v Variant) float64 {
	c := float64(p.k.Cycles(v))
	if p.kScale > 0 {
		c *= p.kScale
	}
	return c
}

// addCycles is one add of the adder tree (ArrayOptions.AdderScale scales it).
func (p *arrayPlan) addCycles() float64 {
	c := float64(p.adder.Cycles)
	if p.aScale > 0 {
		c *= p.aScale
	}
	return c
}

// accBits is the width of one accumulator lane in the cascade (acc48 for the integer
// datapaths, fp32 for float: AM009 "AI Engine Interfaces", the cascade carries the 384-bit
// accumulator register).
func accBits(dtype string) int {
	if dtype == "fp32" {
		return 32
	}
	return 48
}

// outElemBytes is the bytes of one element of C as it goes back to DDR.
func outElemBytes(t op.Types) int64 { return int64(max(1, t.Out.Bits()/8)) }
