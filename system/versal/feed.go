package versal

import "fmt"

// feed supplies one kernel operand through a Ring: item j is what the calls using it read;
// items are used in order 0, 1, 2, ...; make(j) gives the transfers that bring item j (nil
// or empty: the contents are assumed present, the seeds' simulator assumption). Before each
// call the feed fills every free copy of its ring (so a ping-pong ring brings item j+1 while
// the call on item j runs) and the item in use is released when a call needs the next one.
type feed struct {
	ring    *Ring
	items   int
	make    func(j int) []*Transfer
	cur     int
	lastEnd float64
	present string // the mechanism named when contents are present
}

func newFeed(ring *Ring, items int, mk func(j int) []*Transfer) *feed {
	return &feed{ring: ring, items: items, make: mk, cur: -1, present: ring.Name + " (present)"}
}

// use returns the dependence of a call on item j.
func (f *feed) use(t *Timeline, j int) (Dep, error) {
	if j != f.cur {
		if j != f.cur+1 {
			return Dep{}, fmt.Errorf("feed %s: item %d after %d (items are used in order)", f.ring.Name, j, f.cur)
		}
		if f.cur >= 0 {
			if err := f.ring.Consume(f.lastEnd); err != nil {
				return Dep{}, err
			}
		}
		f.cur = j
	}
	for f.ring.CanProduce() && f.ring.Produced() < f.items {
		xs := f.make(f.ring.Produced())
		var err error
		if len(xs) == 0 {
			err = f.ring.Fill(0, f.present)
		} else {
			_, err = f.ring.ProduceAll(t, xs, 0)
		}
		if err != nil {
			return Dep{}, err
		}
	}
	return f.ring.Next()
}

// done records the end of a call that used the current item.
func (f *feed) done(end float64) { f.lastEnd = end }

// ProduceAll fills the next copy with several transfers in parallel (e.g. one block over
// several streams); the copy is full when the last one ends.
func (r *Ring) ProduceAll(t *Timeline, xs []*Transfer, after float64) (float64, error) {
	i := r.nprod % len(r.locks)
	at, err := r.locks[i].Acquire(0, after)
	if err != nil {
		return 0, err
	}
	end, mech := at, ""
	for _, x := range xs {
		if _, e := t.Run(x, at); e >= end {
			end, mech = e, x.Mech
		}
	}
	r.locks[i].Release(1, end)
	r.ready[i] = Dep{end, mech}
	r.nprod++
	return end, nil
}

// drain writes a call's output copy out with x (nil: the output leaves at no cost, the
// seeds' assumption).
func drain(t *Timeline, out *OutRing, end float64, x *Transfer) error {
	if x == nil {
		i := out.nprod % len(out.locks)
		out.locks[i].Release(0, end)
		out.nprod++
		out.ncons++
		return nil
	}
	return out.Filled(t, end, x)
}
