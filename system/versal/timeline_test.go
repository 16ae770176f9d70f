package versal

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }

// A transfer's cost follows from its mechanism's parameters.
func TestTransferCost(t *testing.T) {
	m := DefaultMachine()
	// PLIO: 64 bits at 500 MHz = 4 GB/s = 3.2 B per 1.25 GHz cycle; lock acquire+release 7
	x := m.PLIO("x", "plio", 3200, "plio0", "s2mm0")
	if !near(x.Data, 1000) || !near(x.Setup, 7) {
		t.Errorf("PLIO 3200 B: setup %v data %v, want 7 and 1000", x.Setup, x.Data)
	}
	// a 32-bit PLIO at 312.5 MHz (the AIE compiler's default pl-freq) is 1 B/cycle
	m2 := DefaultMachine()
	if err := m2.Set("plio_bits", "32"); err != nil {
		t.Fatal(err)
	}
	if err := m2.Set("pl_clock_mhz", "312.5"); err != nil {
		t.Fatal(err)
	}
	if r := m2.PLIORate(); !near(r, 1) {
		t.Errorf("32-bit PLIO at 312.5 MHz: %v B/cycle, want 1", r)
	}
	// the stream switch caps a faster PL side at 4 B/cycle
	if err := m2.Set("plio_bits", "128"); err != nil {
		t.Fatal(err)
	}
	if r := m2.PLIORate(); !near(r, 4) {
		t.Errorf("128-bit PLIO: %v B/cycle, want the 32-bit stream's 4", r)
	}
	// ARM copy: 580 words over the 32-bit AXI4-MM path at 1.5 GB/s (2.67 ns = 3.33 cycles
	// each) plus a lock acquire and release over the same path
	word := 4 / 1.5 * 1.25
	a := m.ARMCopy("B_r", "arm", 2320)
	if !near(a.Data, 580*word) || !near(a.Setup, 2*word) {
		t.Errorf("ARM copy 2320 B: setup %v data %v, want %v and %v", a.Setup, a.Data, 2*word, 580*word)
	}
	// a non-posted store of 11.46 ns makes the copy about seed 001's 8,309 cycles
	m3 := DefaultMachine()
	m3.ARMStoreNs = 11.46
	if c := m3.ARMCopy("B_r", "arm", 2320).Cycles(); math.Abs(c-8309) > 10 {
		t.Errorf("ARM copy with 11.46 ns stores: %v cycles, want about 8309", c)
	}
	// GMIO: shim channel 4 GB/s = 3.2 B/cycle; the PS writes 5 BD words + 1 queue word
	g := m.GMIOIn("C", "gmio", 320, "shim0", "s2mm1")
	if !near(g.Data, 100) || !near(g.Setup, 6*word+7) {
		t.Errorf("GMIO 320 B: setup %v data %v, want %v and 100", g.Setup, g.Data, 6*word+7)
	}
}

// A single buffer forces the transfer of item i+1 to wait for the call on item i.
func TestLockSerializes(t *testing.T) {
	m := DefaultMachine()
	tl := NewTimeline(m, nil)
	f := newFeed(NewRing("buf", 1, 3200), 4, func(j int) []*Transfer {
		return []*Transfer{m.PLIO("in", "plio", 3200, "plio0", "s2mm0")}
	})
	for i := 0; i < 4; i++ {
		d, err := f.use(tl, i)
		if err != nil {
			t.Fatal(err)
		}
		_, end := tl.Call("k", 500, 400, 0, d)
		f.done(end)
	}
	rep := tl.Finish()
	if want := 4 * (1007.0 + 500); !near(rep.Cycles, want) {
		t.Errorf("single buffer: %v cycles, want %v (transfer and call in series)", rep.Cycles, want)
	}
	if w := rep.Breakdown["wait: plio"]; !near(w, 4*1007) {
		t.Errorf("wait charged to plio: %v, want %v", w, 4*1007.0)
	}
}

// Two buffers let the next transfer overlap the current call.
func TestDoubleBufferOverlaps(t *testing.T) {
	m := DefaultMachine()
	for _, c := range []struct{ call, want float64 }{
		{2000, 1007 + 4*2000}, // compute-bound: only the first transfer is exposed
		{500, 4*1007 + 500},   // transfer-bound: the stream runs back to back
	} {
		tl := NewTimeline(m, nil)
		f := newFeed(NewRing("buf", 2, 3200), 4, func(j int) []*Transfer {
			return []*Transfer{m.PLIO("in", "plio", 3200, "plio0", "s2mm0")}
		})
		for i := 0; i < 4; i++ {
			d, err := f.use(tl, i)
			if err != nil {
				t.Fatal(err)
			}
			_, end := tl.Call("k", c.call, c.call, 0, d)
			f.done(end)
		}
		rep := tl.Finish()
		if !near(rep.Cycles, c.want) {
			t.Errorf("ping-pong, call %v: %v cycles, want %v", c.call, rep.Cycles, c.want)
		}
		sum := 0.0
		for _, v := range rep.Breakdown {
			sum += v
		}
		if !near(sum, rep.Cycles) {
			t.Errorf("breakdown sums to %v, cycles %v", sum, rep.Cycles)
		}
	}
}

// Acquiring a lock in an order that can never succeed is an error, not a hang.
func TestLockDeadlock(t *testing.T) {
	var l Lock
	l.Name = "x"
	if _, err := l.Acquire(1, 0); err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Errorf("acquire of a full buffer that is empty: err = %v", err)
	}
}

func TestCapacityErrors(t *testing.T) {
	if _, err := CheckFit("x", 1000, []Buffer{{"a", 600, 2}}); err == nil || !strings.Contains(err.Error(), "a 600x2 = 1200 bytes") {
		t.Errorf("CheckFit: %v", err)
	}
	m := DefaultMachine()
	spec := mustSpec(t, "gemm m=64 n=8 k=2000 dtype=int16")
	if _, err := RunGEMM(m, spec, GEMMOptions{Placement: PlacementSeed, KC: 1000, NoVerify: true}); err == nil || !strings.Contains(err.Error(), "do not fit") {
		t.Errorf("seed kc = 1000: err = %v", err)
	}
	big := mustSpec(t, "gemm m=64 n=8 k=5000 dtype=int16")
	if _, err := RunGEMM(m, big, GEMMOptions{Placement: PlacementBest, NoVerify: true}); err == nil || !strings.Contains(err.Error(), "do not fit") {
		t.Errorf("best k = 5000: err = %v", err)
	}
}

func TestMachineSet(t *testing.T) {
	m := DefaultMachine()
	if err := m.Set("streams", "2"); err != nil || m.Streams != 2 {
		t.Errorf("Set streams: %v, %d", err, m.Streams)
	}
	if err := m.Set("nope", "1"); err == nil {
		t.Error("Set of an unknown key succeeded")
	}
	if err := m.Set("aie_clock_ghz", "-1"); err == nil {
		t.Error("a negative clock was accepted")
	}
	m2, err := LoadMachine(strings.NewReader(`{"arm_store_ns": 11.46, "streams": 2}`))
	if err != nil || m2.ARMStoreNs != 11.46 || m2.Streams != 2 || m2.PLIOBits != 64 {
		t.Errorf("LoadMachine: %v %+v", err, m2)
	}
	if _, err := LoadMachine(strings.NewReader(`{"arm_store": 1}`)); err == nil {
		t.Error("LoadMachine accepted an unknown key")
	}
}

func TestTraceJSON(t *testing.T) {
	m := DefaultMachine()
	tr := NewTrace(1.25e9)
	tl := NewTimeline(m, tr)
	x := m.PLIO("in", "plio", 320, "plio0", "s2mm0")
	_, end := tl.Run(x, 0)
	tl.Call("k", 100, 80, 2560, Dep{end, "plio"})
	var buf bytes.Buffer
	if err := tr.Write(&buf, map[string]any{"what": "test"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var complete int
	for _, e := range doc.TraceEvents {
		if e["ph"] == "X" {
			complete++
		}
	}
	if complete != 3 { // plio0, s2mm0, core
		t.Errorf("%d complete events, want 3: %s", complete, buf.String())
	}
}
