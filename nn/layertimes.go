package nn

import (
	"fmt"
	"slices"
	"time"
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
	BaseReps int    // timed batches with the base algorithm (after one untimed warm-up)
	SimdReps int    // timed batches with the simd algorithm
	Seed     uint64 // weights
	Progress func(string)
}

// LayerTimes times the forward and backward pass of every layer of seed 003's network on the
// first Batch items of d, one thread, no weight update, with both algorithms and the same
// weights, and reports the median over the repetitions.
func LayerTimes(d *Dataset, o LayerTimesOptions) ([]LayerTiming, error) {
	if o.Batch <= 0 || o.Batch > d.Len() {
		return nil, fmt.Errorf("batch %d: need 1..%d items", o.Batch, d.Len())
	}
	idx := make([]int, o.Batch)
	for i := range idx {
		idx[i] = i
	}
	x, labels := d.batch(idx, nil, nil)
	type sample struct{ fwd, bwd []time.Duration }
	measure := func(algo Algo, reps int) (*Net, map[string]*sample, error) {
		net := NewMNISTNet(&Config{Algo: algo, Threads: 1}, o.Seed)
		times := map[string]*sample{}
		for r := -1; r < reps; r++ {
			net.Times = nil
			net.Timing = true
			logp, err := net.Forward(x, true)
			if err != nil {
				return nil, nil, err
			}
			if err := net.Backward(logp, labels); err != nil {
				return nil, nil, err
			}
			if r < 0 {
				continue // warm-up: buffers allocated, caches filled
			}
			for name, lt := range net.Times {
				s := times[name]
				if s == nil {
					s = &sample{}
					times[name] = s
				}
				s.fwd = append(s.fwd, lt.Forward)
				s.bwd = append(s.bwd, lt.Backward)
			}
			if o.Progress != nil {
				o.Progress(fmt.Sprintf("%s: batch %d of %d timed", algo, r+1, reps))
			}
		}
		return net, times, nil
	}
	net, base, err := measure(Base, max(1, o.BaseReps))
	if err != nil {
		return nil, err
	}
	_, simd, err := measure(SIMD, max(1, o.SimdReps))
	if err != nil {
		return nil, err
	}
	var rows []LayerTiming
	for _, pass := range []string{"forward", "backward"} {
		for _, l := range net.Layers {
			b, s := base[l.Name()], simd[l.Name()]
			var bt, st time.Duration
			if pass == "forward" {
				bt, st = median(b.fwd), median(s.fwd)
			} else {
				bt, st = median(b.bwd), median(s.bwd)
			}
			row := LayerTiming{Layer: l.Name(), Pass: pass, BaseNs: bt.Nanoseconds(), SimdNs: st.Nanoseconds()}
			if bt > 0 {
				row.Ratio = float64(st) / float64(bt)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
