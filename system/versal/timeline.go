package versal

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
)

// Timeline places transfers and kernel calls on one clock (AIE cycles). Every mechanism
// occupies named resources (a PLIO stream, a tile DMA channel, the core, the ARM, DDR): a
// transfer starts when all its resources are free and its dependences are met, and holds
// each resource for that resource's busy time. Locks order producers and consumers of
// buffers in tile memory: a buffer's lock says whether it is empty (0) or full (1), so a
// single buffer serializes the producer's transfer and the kernel, and a ring of two
// (ping-pong) lets the next transfer overlap the current call.
//
// The core's time is accounted by mechanism: a call's MAC cycles at peak ("compute"), the
// rest of the call ("kernel overhead": locks, call and return, loop fill and drain, loads the
// schedule exposes, padding), and every cycle the core waits, charged to the mechanism that
// finished last among those the call waited for ("wait: ..."); after the last call, the
// cycles until the last transfer ends ("drain: ..."). These sum to the makespan.
type Timeline struct {
	M     *Machine
	Trace *Trace // nil: no trace

	res       map[string]*resource
	coreFree  float64
	breakdown map[string]float64
	lastEnd   Dep // the transfer that ends last
	calls     int64
	macs      int64
}

type resource struct {
	name string
	free float64
	busy float64
}

// Dep is a time something became ready and the mechanism it is charged to if the core waits.
type Dep struct {
	At   float64
	Mech string
}

// NewTimeline starts an empty timeline.
func NewTimeline(m *Machine, tr *Trace) *Timeline {
	return &Timeline{M: m, Trace: tr, res: map[string]*resource{}, breakdown: map[string]float64{}}
}

func (t *Timeline) resource(name string) *resource {
	r := t.res[name]
	if r == nil {
		r = &resource{name: name}
		t.res[name] = r
	}
	return r
}

// Use is one resource a transfer holds and for how long.
type Use struct {
	Res  string
	Busy float64
}

// Transfer is one movement of data by one mechanism.
type Transfer struct {
	Name  string  // what moves, e.g. "B_r 3"
	Mech  string  // the mechanism, the breakdown's key, e.g. "gmio B_r"
	Bytes int     // payload
	Setup float64 // cycles before data moves (descriptor writes, locks, latency)
	Data  float64 // cycles the data takes at the path's slowest rate
	Uses  []Use   // resources; a Use with Busy 0 is held for Setup+Data
}

// Cycles is the transfer's duration.
func (x *Transfer) Cycles() float64 { return x.Setup + x.Data }

// Run places a transfer no earlier than after; it returns its start and end.
func (t *Timeline) Run(x *Transfer, after float64) (start, end float64) {
	start = after
	for _, u := range x.Uses {
		start = math.Max(start, t.resource(u.Res).free)
	}
	end = start + x.Cycles()
	for _, u := range x.Uses {
		r := t.resource(u.Res)
		b := u.Busy
		if b == 0 {
			b = x.Cycles()
		}
		r.free = start + b
		r.busy += b
		end = math.Max(end, start+b)
		if t.Trace != nil {
			t.Trace.add(u.Res, x.Name, x.Mech, start, b, map[string]any{"bytes": x.Bytes, "setup_cycles": round1(x.Setup)})
		}
	}
	if end > t.lastEnd.At {
		t.lastEnd = Dep{end, x.Mech}
	}
	return start, end
}

// Call places a kernel call on the core once every dependence is met. cycles is the call's
// length from the cycle simulator, ideal its MAC cycles at peak (MACs / peak).
func (t *Timeline) Call(name string, cycles, ideal float64, macs int64, deps ...Dep) (start, end float64) {
	start = t.coreFree
	waitFor := ""
	for _, d := range deps {
		if d.At > start {
			start, waitFor = d.At, d.Mech
		}
	}
	if gap := start - t.coreFree; gap > 0 {
		t.breakdown["wait: "+waitFor] += gap
	}
	t.breakdown["compute"] += ideal
	t.breakdown["kernel overhead"] += cycles - ideal
	end = start + cycles
	t.coreFree = end
	core := t.resource("core")
	core.free, core.busy = end, core.busy+cycles
	t.calls++
	t.macs += macs
	if t.Trace != nil {
		t.Trace.add("core", name, "kernel", start, cycles, map[string]any{"macs": macs})
	}
	return start, end
}

// Name formats an event's name for the trace; without a trace it returns "" (names cost
// time on runs of millions of calls).
func (t *Timeline) Name(format string, a ...any) string {
	if t.Trace == nil {
		return ""
	}
	return fmt.Sprintf(format, a...)
}

// CoreFree is the time the core finishes its last call.
func (t *Timeline) CoreFree() float64 { return t.coreFree }

// Lock is a tile lock guarding one buffer: value 0 empty, 1 full (AM009 "AI Engine Memory
// Module": locks with a binary state that DMA channels and the core acquire and release).
type Lock struct {
	Name  string
	value int
	at    float64
}

// Acquire returns when the lock holds want, no earlier than after. The timeline is built in
// program order, so a lock that does not hold want now never will: a deadlock of the order
// the caller chose, reported as an error.
func (l *Lock) Acquire(want int, after float64) (float64, error) {
	if l.value != want {
		return 0, fmt.Errorf("lock %s: acquire for %d while it holds %d (the order of transfers and calls deadlocks)", l.Name, want, l.value)
	}
	return math.Max(after, l.at), nil
}

// Release sets the lock's value at time at.
func (l *Lock) Release(value int, at float64) { l.value, l.at = value, at }

// Ring is a buffer in tile memory with n copies (1: single, 2: ping-pong), each with its
// lock. A producer fills copy i%n with item i once the consumer of item i-n released it.
type Ring struct {
	Name  string
	Bytes int // one copy
	locks []Lock
	ready []Dep // per copy: when its current item is in place, and by what
	nprod int
	ncons int
}

// NewRing makes a ring of n copies of bytes each.
func NewRing(name string, n, bytes int) *Ring {
	r := &Ring{Name: name, Bytes: bytes, locks: make([]Lock, n), ready: make([]Dep, n)}
	for i := range r.locks {
		r.locks[i].Name = fmt.Sprintf("%s[%d]", name, i)
	}
	return r
}

// Copies is the number of buffers.
func (r *Ring) Copies() int { return len(r.locks) }

// Produced and Consumed count items.
func (r *Ring) Produced() int { return r.nprod }
func (r *Ring) Consumed() int { return r.ncons }

// CanProduce reports whether the next item's copy is free in program order (its previous
// item was consumed).
func (r *Ring) CanProduce() bool { return r.nprod-r.ncons < len(r.locks) }

// Produce fills the next copy with x, no earlier than after; it returns the end.
func (r *Ring) Produce(t *Timeline, x *Transfer, after float64) (float64, error) {
	i := r.nprod % len(r.locks)
	at, err := r.locks[i].Acquire(0, after)
	if err != nil {
		return 0, err
	}
	_, end := t.Run(x, at)
	r.locks[i].Release(1, end)
	r.ready[i] = Dep{end, x.Mech}
	r.nprod++
	return end, nil
}

// Fill marks the next copy full at time at without a transfer (contents assumed present).
func (r *Ring) Fill(at float64, mech string) error {
	i := r.nprod % len(r.locks)
	a, err := r.locks[i].Acquire(0, at)
	if err != nil {
		return err
	}
	r.locks[i].Release(1, a)
	r.ready[i] = Dep{a, mech}
	r.nprod++
	return nil
}

// Next is the dependence of the consumer on the next item (its copy full).
func (r *Ring) Next() (Dep, error) {
	if r.ncons >= r.nprod {
		return Dep{}, fmt.Errorf("ring %s: item %d consumed before it was produced", r.Name, r.ncons)
	}
	return r.ready[r.ncons%len(r.locks)], nil
}

// Consume releases the next item's copy at time at (its consumer finished with it).
func (r *Ring) Consume(at float64) error {
	i := r.ncons % len(r.locks)
	if _, err := r.locks[i].Acquire(1, at); err != nil {
		return err
	}
	r.locks[i].Release(0, at)
	r.ncons++
	return nil
}

// OutRing is a ring the core fills and a transfer drains.
type OutRing struct{ Ring }

// NewOutRing makes an output ring of n copies.
func NewOutRing(name string, n, bytes int) *OutRing {
	return &OutRing{*NewRing(name, n, bytes)}
}

// Slot is the dependence of the core on the next copy being empty.
func (r *OutRing) Slot() Dep {
	i := r.nprod % len(r.locks)
	return Dep{r.locks[i].at, r.Name + " drained"}
}

// Filled marks the next copy written by a call that ended at end, then drains it with x.
func (r *OutRing) Filled(t *Timeline, end float64, x *Transfer) error {
	i := r.nprod % len(r.locks)
	if _, err := r.locks[i].Acquire(0, end); err != nil {
		return err
	}
	r.locks[i].Release(1, end)
	r.nprod++
	if _, err := r.locks[i].Acquire(1, end); err != nil {
		return err
	}
	_, done := t.Run(x, end)
	r.locks[i].Release(0, done)
	r.ncons++
	return nil
}

// Report is the timeline's summary.
type Report struct {
	Cycles    float64
	Calls     int64
	MACs      int64 // executed by kernel calls (padding included)
	Breakdown map[string]float64
	Resources []ResourceUse
}

// ResourceUse is one resource's busy cycles.
type ResourceUse struct {
	Name        string  `json:"name"`
	BusyCycles  float64 `json:"busy_cycles"`
	Utilization float64 `json:"utilization"`
}

// Finish closes the timeline: the cycles after the last call until the last transfer ends
// are charged to that transfer's mechanism.
func (t *Timeline) Finish() *Report {
	end := t.coreFree
	for _, r := range t.res {
		end = math.Max(end, r.free)
	}
	bd := map[string]float64{}
	for k, v := range t.breakdown {
		bd[k] = v
	}
	if tail := end - t.coreFree; tail > 0 {
		bd["drain: "+t.lastEnd.Mech] += tail
	}
	rep := &Report{Cycles: end, Calls: t.calls, MACs: t.macs, Breakdown: bd}
	for _, r := range t.res {
		u := 0.0
		if end > 0 {
			u = r.busy / end
		}
		rep.Resources = append(rep.Resources, ResourceUse{Name: r.name, BusyCycles: r.busy, Utilization: u})
	}
	sort.Slice(rep.Resources, func(i, j int) bool {
		a, b := rep.Resources[i], rep.Resources[j]
		if a.BusyCycles != b.BusyCycles {
			return a.BusyCycles > b.BusyCycles
		}
		return a.Name < b.Name
	})
	return rep
}

// Limit names the binding resource: the busiest one.
func (r *Report) Limit() string {
	if len(r.Resources) == 0 {
		return ""
	}
	return r.Resources[0].Name
}

// Trace collects the timeline in the Chrome trace-event format (one thread per resource;
// opens in Perfetto or chrome://tracing). At most Max events are kept (0: 200,000); the
// rest are counted in Dropped.
type Trace struct {
	Max     int
	ClockHz float64
	events  []traceEvent
	tids    map[string]int
	names   []string
	Dropped int
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// NewTrace starts a trace for a clock of clockHz.
func NewTrace(clockHz float64) *Trace { return &Trace{ClockHz: clockHz, tids: map[string]int{}} }

func (tr *Trace) add(res, name, cat string, start, dur float64, args map[string]any) {
	max := tr.Max
	if max == 0 {
		max = 200000
	}
	if len(tr.events) >= max {
		tr.Dropped++
		return
	}
	tid, ok := tr.tids[res]
	if !ok {
		tid = len(tr.names) + 1
		tr.tids[res] = tid
		tr.names = append(tr.names, res)
	}
	us := 1e6 / tr.ClockHz
	if args == nil {
		args = map[string]any{}
	}
	args["start_cycle"], args["cycles"] = round1(start), round1(dur)
	tr.events = append(tr.events, traceEvent{Name: name, Cat: cat, Ph: "X", Ts: start * us, Dur: dur * us, Pid: 1, Tid: tid, Args: args})
}

// Len is the number of events kept.
func (tr *Trace) Len() int { return len(tr.events) }

// Write writes the trace as one JSON object {"traceEvents": [...]}; timestamps are in
// microseconds of the AIE clock, every event's args give its cycles.
func (tr *Trace) Write(w io.Writer, meta map[string]any) error {
	type meta1 struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Pid  int            `json:"pid"`
		Tid  int            `json:"tid"`
		Args map[string]any `json:"args"`
	}
	var all []any
	all = append(all, meta1{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": "Versal tile (sumac system/versal)"}})
	for i, n := range tr.names {
		all = append(all, meta1{Name: "thread_name", Ph: "M", Pid: 1, Tid: i + 1, Args: map[string]any{"name": n}})
	}
	for _, e := range tr.events {
		all = append(all, e)
	}
	other := map[string]any{"clock_hz": tr.ClockHz, "dropped_events": tr.Dropped}
	for k, v := range meta {
		other[k] = v
	}
	enc := json.NewEncoder(w)
	return enc.Encode(map[string]any{"traceEvents": all, "displayTimeUnit": "ns", "otherData": other})
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
