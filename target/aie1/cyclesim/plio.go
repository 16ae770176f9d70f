package cyclesim

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/target/aie1"
)

// PLIO is the programmable-logic end of a stream port: the port is connected straight to an
// adf::input_plio or adf::output_plio of Bits bits (adf::plio_32_bits, plio_64_bits,
// plio_128_bits) whose PL side runs at MHz (UG1079 "AI Engine to PL Interface Performance").
// The PL side moves Bits*MHz/AIE MHz bits per AIE cycle; the port's words arrive (input) or
// leave (output) at that rate, never faster than the port's 32 bits a cycle.
type PLIO struct {
	Bits int
	// MHz is the PL clock of the PLIO; 0: DefaultPLMHz (the --pl-freq default).
	MHz float64
}

// AIEMHz is the AI Engine clock the PLIO ratio uses: aie1.ClockHz (XD100, 1.25 GHz).
const AIEMHz = aie1.ClockHz / 1e6

// DefaultPLMHz is the PL clock of a PLIO without a frequency of its own: v++ --pl-freq
// defaults to a quarter of the AI Engine clock (UG1079 "AI Engine to PL Interface Performance").
const DefaultPLMHz = AIEMHz / 4

// PLIOFIFOWords is the buffering between a PLIO's PL side and the core's stream port, in 32-bit
// words: the PL to AI Engine clock-domain-crossing FIFO (12 deep) and two stream switches (the
// interface tile's and the core tile's), each 4 deep on its slave and 4 deep on its master port
// (AM009 "Stream Switch Buffering and Latency", "AXI4-Stream Interconnect"). Assumptions: the
// shortest route (the core in the row above its interface tile, no chained FIFO), the same
// depth from the core to the PL (AM009 gives the 12-deep FIFO for the PL-to-AIE direction), and
// no further buffering of the core's own stream FIFOs (AM009 "AI Engine Interfaces" gives none).
const PLIOFIFOWords = 12 + 4 + 4 + 4 + 4

// Valid reports whether p is a PLIO AIE1 admits: 32, 64 or 128 bits, a clock above zero and at
// most half the AI Engine clock (UG1079: --pl-freq at most one half of the AIE frequency).
func (p PLIO) Valid() error {
	switch p.Bits {
	case 32, 64, 128:
	default:
		return fmt.Errorf("PLIO width %d: want 32, 64 or 128 bits", p.Bits)
	}
	if p.MHz < 0 || math.IsNaN(p.MHz) || math.IsInf(p.MHz, 0) || p.MHz > AIEMHz/2 {
		return fmt.Errorf("PLIO clock %g MHz: want above 0 and at most %g MHz (half the AI Engine clock)", p.MHz, AIEMHz/2)
	}
	return nil
}

// period is the AIE cycles one 32-bit stream word takes on the PL side.
func (p PLIO) period() float64 {
	mhz := p.MHz
	if mhz == 0 {
		mhz = DefaultPLMHz
	}
	return float64(aie1.StreamWordBits) * AIEMHz / (float64(p.Bits) * mhz)
}

// plioState is the PL side of a stream port during a run.
type plioState struct {
	period float64
	// ring holds, for the last PLIOFIFOWords words, the cycle each word left the buffer: for
	// an input the cycle the core read it, for an output the cycle the PL side took it.
	ring  [PLIOFIFOWords]float64
	words int64   // words through the port so far
	last  float64 // input: when the last word reached the buffer; output: when it left
}

// slotFree is the cycle the buffer slot of word j is free (word j-PLIOFIFOWords has left).
func (st *plioState) slotFree(j int64) float64 {
	if j < PLIOFIFOWords {
		return 0
	}
	return st.ring[j%PLIOFIFOWords]
}

// cycleOf is the first whole cycle at or after time x (a word whose transfer ends at x is
// there from cycle ceil(x)-1 on, as word k of a word-a-cycle port is there at cycle k).
func cycleOf(x float64) int64 { return int64(math.Ceil(x-1e-9)) - 1 }

// inputReady is the cycle the core may read the next w words of a PLIO input: the PL side
// sends a word per period once the buffer has a free slot (the core freed it by reading).
func (st *plioState) inputReady(w int64) int64 {
	var ready int64
	for i := int64(0); i < w; i++ {
		j := st.words + i
		st.last = math.Max(st.last, st.slotFree(j)) + st.period
		ready = max(ready, cycleOf(st.last)-i)
	}
	return ready
}

// inputRead books the read of w words issued at cycle now (a word a cycle).
func (st *plioState) inputRead(now, w int64) {
	for i := int64(0); i < w; i++ {
		st.ring[(st.words+i)%PLIOFIFOWords] = float64(now + i + 1)
	}
	st.words += w
}

// outputReady is the cycle the core may write the next w words of a PLIO output: word j goes
// into the buffer at the write's cycle plus j's place in it, once word j-PLIOFIFOWords left.
func (st *plioState) outputReady(w int64) int64 {
	var ready int64
	for i := int64(0); i < w; i++ {
		ready = max(ready, int64(math.Ceil(st.slotFree(st.words+i)-1e-9))-i)
	}
	return ready
}

// outputWrite books the write of w words issued at cycle now: the PL side takes them a word a
// period, in order.
func (st *plioState) outputWrite(now, w int64) {
	for i := int64(0); i < w; i++ {
		st.last = math.Max(st.last, float64(now+i)) + st.period
		st.ring[(st.words+i)%PLIOFIFOWords] = st.last
	}
	st.words += w
}
