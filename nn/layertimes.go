package nn

import (
	"fmt"
	"slices"
	"time"

	"github.com/sumacdev/sumac/nn/tensor"
)

// LayerTiming is one row of the per-layer timing table (seed 003 Tables 3.1 and 3.2): the median
// wall time of one layer's forward or backward pass on one batch, with each algorithm.
type LayerTiming struct {
	Layer  string  `json:"layer"`
	Pass   string  `json:"pass"` // "forward" or "backward"
	BaseNs int64   `json:"base_ns"`
	SimdNs int64   `json:"simd_ns"`
	Ratio  float64 `json:"ratio"` // SimdNs / BaseNs
}

// LayerTimesOptions configure LayerTimes.
type LayerTimesOptions struct {
	Batch    int    // items per batch
	Reps     int    // timed batches (after one untimed warm-up)
	SimdReps int    // minimum simd calls per layer and batch (short calls of either side repeat up to 2 ms)
	Seed     uint64 // weights
	Progress func(string)
}

// LayerTimes times the forward and backward pass of every layer of seed 003's network on the
// first Batch items of d, one thread, no weight update, with both algorithms and the same
// weights. The two networks step through the layers together, simd calls alternating with the
// base calls of the same layer, so that load from other processes on a shared machine falls on
// both alike; each figure is the median over the repetitions of the per-batch medians.
func LayerTimes(d *Dataset, o LayerTimesOptions) ([]LayerTiming, error) {
	if o.Batch <= 0 || o.Batch > d.Len() {
		return nil, fmt.Errorf("batch %d: need 1..%d items", o.Batch, d.Len())
	}
	idx := make([]int, o.Batch)
	for i := range idx {
		idx[i] = i
	}
	x, labels := d.batch(idx, nil, nil)
	base := NewMNISTNet(&Config{Algo: Base, Threads: 1}, o.Seed)
	simd := NewMNISTNet(&Config{Algo: SIMD, Threads: 1}, o.Seed)
	nl := len(base.Layers)
	type samples struct{ base, simd []time.Duration }
	fwd, bwd := make([]samples, nl), make([]samples, nl)
	simdReps := max(1, o.SimdReps)
	for r := -1; r < max(1, o.Reps); r++ {
		xb, xs := x, x
		for i := 0; i < nl; i++ {
			bl, sl := base.Layers[i], simd.Layers[i]
			inB, inS := xb, xs
			tb, ts, err := pair(
				func() (err error) { xb, err = bl.Forward(inB, true); return },
				func() (err error) { xs, err = sl.Forward(inS, true); return }, simdReps)
			if err != nil {
				return nil, err
			}
			if r >= 0 {
				fwd[i].base = append(fwd[i].base, tb)
				fwd[i].simd = append(fwd[i].simd, ts)
			}
		}
		gb, gs := tensor.New(xb.Shape()...), tensor.New(xs.Shape()...)
		NLLLossGrad(xb, labels, gb)
		NLLLossGrad(xs, labels, gs)
		for i := nl - 1; i >= 0 && gb != nil; i-- {
			bl, sl := base.Layers[i], simd.Layers[i]
			inB, inS := gb, gs
			tb, ts, err := pair(
				func() (err error) { gb, err = bl.Backward(inB); return },
				func() (err error) { gs, err = sl.Backward(inS); return }, simdReps)
			if err != nil {
				return nil, err
			}
			if r >= 0 {
				bwd[i].base = append(bwd[i].base, tb)
				bwd[i].simd = append(bwd[i].simd, ts)
			}
		}
		if r >= 0 && o.Progress != nil {
			o.Progress(fmt.Sprintf("batch %d of %d timed", r+1, o.Reps))
		}
	}
	var rows []LayerTiming
	for _, pass := range []string{"forward", "backward"} {
		for i, l := range base.Layers {
			s := fwd[i]
			if pass == "backward" {
				s = bwd[i]
			}
			if len(s.base) == 0 {
				continue
			}
			bt, st := median(s.base), median(s.simd)
			row := LayerTiming{Layer: l.Name(), Pass: pass, BaseNs: bt.Nanoseconds(), SimdNs: st.Nanoseconds()}
			if bt > 0 {
				row.Ratio = float64(st) / float64(bt)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// Short calls are repeated: each side runs until it has at least its minimum number of calls
// and minSample of time in all (at most maxCalls), base and simd alternating, so that a layer
// of a few microseconds is not timed by a single call that the scheduler happened to interrupt.
const (
	minSample = 2 * time.Millisecond
	maxCalls  = 50
)

// pair times fb (at least once) and fs (at least minSimd times) alternately and returns the
// median of each.
func pair(fb, fs func() error, minSimd int) (time.Duration, time.Duration, error) {
	var tb, ts []time.Duration
	var sumB, sumS time.Duration
	for {
		needB := len(tb) < 1 || (sumB < minSample && len(tb) < maxCalls)
		needS := len(ts) < minSimd || (sumS < minSample && len(ts) < maxCalls)
		if !needB && !needS {
			return median(tb), median(ts), nil
		}
		if needB {
			t0 := time.Now()
			if err := fb(); err != nil {
				return 0, 0, err
			}
			d := time.Since(t0)
			tb, sumB = append(tb, d), sumB+d
		}
		if needS {
			t0 := time.Now()
			if err := fs(); err != nil {
				return 0, 0, err
			}
			d := time.Since(t0)
			ts, sumS = append(ts, d), sumS+d
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
