package versal

import (
	"math"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/device"
)

func nearly(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// PLIO rates and interface capacities from the machine's cited parameters.
func TestPLIORatesAndCapacity(t *testing.T) {
	m := DefaultMachine()
	a := NewArray(m)
	if a.NumCores() != 400 || a.CoreRows() != 8 {
		t.Fatalf("VC1902: %d tiles in %d rows, want 400 in 8", a.NumCores(), a.CoreRows())
	}
	for _, c := range []struct {
		p    PLIO
		ghz  float64
		want float64
	}{
		{PLIO{Bits: 128, MHz: 312.5}, 1.25, 4}, // 5 GB/s: the 32-bit stream's rate
		{PLIO{Bits: 64, MHz: 500}, 1.25, 3.2},  // 4 GB/s (UG1079)
		{PLIO{Bits: 128, MHz: 230}, 1.0, 3.68}, // CHARM's PLIOs
		{PLIO{Bits: 128, MHz: 1000}, 1.25, 4},  // the clock is capped at 625 MHz, then the stream binds
		{PLIO{Bits: 32, MHz: 625}, 1.25, 2},    // a 32-bit PLIO at the fastest interface clock
	} {
		mm := *m
		mm.AIEClockGHz = c.ghz
		if got := NewArray(&mm).Rate(c.p); !nearly(got, c.want) {
			t.Errorf("rate %+v at %g GHz = %g bytes/cycle, want %g", c.p, c.ghz, got, c.want)
		}
	}
	in, out := a.PLIOCapacity(PLIO{Bits: 128, MHz: 500})
	if in != 156 || out != 117 {
		t.Errorf("128-bit PLIOs: %d in, %d out; want 156 (39 x 8 / 2), 117 (39 x 6 / 2)", in, out)
	}
	in, out = a.PLIOCapacity(PLIO{Bits: 64, MHz: 500})
	if in != 234 || out != 156 {
		t.Errorf("64-bit PLIOs: %d in, %d out; want 234 (39 x 6 up streams), 156 (39 x 4 down)", in, out)
	}
}

// Placement: chains are horizontally adjacent; 2 x 2 adder groups read every partial sum in
// place; the array refuses what does not fit.
func TestPlacement(t *testing.T) {
	a := NewArray(DefaultMachine())
	p, err := a.PlaceChains(96, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range p.Groups {
		for i := 1; i < len(g.Tiles); i++ {
			if !a.CascadeNeighbours(g.Tiles[i-1], g.Tiles[i]) {
				t.Fatalf("chain %v: %v -> %v not cascade neighbours", g.Tiles, g.Tiles[i-1], g.Tiles[i])
			}
		}
	}
	if _, err := a.PlaceChains(97, 4); err == nil {
		t.Error("97 chains of 4 fit 8 rows of 50 columns (12 per row)")
	}
	ag, err := a.PlaceAdderGroups(100, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ag.Used() != 400 || ag.SharedFraction() != 1 {
		t.Errorf("100 groups of 3 + 1: %d tiles, %.2f in place; want 400, 1", ag.Used(), ag.SharedFraction())
	}
	for _, g := range ag.Groups {
		for i, tl := range g.Tiles {
			if _, ok := a.SharedModule(tl, *g.Adder); !ok || !g.Shared[i] {
				t.Fatalf("group %v + %v: %v shares no module with the adder", g.Tiles, *g.Adder, tl)
			}
		}
	}
	if _, ok := a.SharedModule(device.Coord{Col: 0, Row: 1}, device.Coord{Col: 5, Row: 5}); ok {
		t.Error("distant tiles share a module")
	}
	if _, err := a.PlaceAdderGroups(81, 4); err == nil {
		t.Error("81 groups of 4 + 1 fit 400 tiles")
	}
}

func i8Design(x, y, z int, reduce string) *ArrayDesign {
	return &ArrayDesign{Name: "t", Kernel: KernelSpec{Family: "mm8", DType: "int8", NT: 2, NQ: 2, TK: 64},
		X: x, Y: y, Z: z, Reduce: reduce, ACast: z, BCast: x, PackIn: 1, PackOut: 1,
		In: PLIO{Bits: 128, MHz: 312.5}, Out: PLIO{Bits: 128, MHz: 312.5}, Scope: ScopeArray}
}

// One stream's cost per iteration is a lock plus its bytes at the PLIO rate; a broadcast costs
// that once however many tiles it feeds, and holds each destination's S2MM channel as long;
// packet switching puts several windows (each behind a header word) on one PLIO in turn.
func TestStreamBroadcastPacketCosts(t *testing.T) {
	m := DefaultMachine()
	spec := op.MustParse("gemm m=64 n=256 k=64 dtype=int8")
	util := func(d *ArrayDesign) (map[string]Util, *ArrayResult) {
		r, err := EvaluateDesign(m, d, spec, ArrayOptions{NoVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		u := map[string]Util{}
		for _, x := range r.Utilization {
			u[x.Resource] = x
		}
		return u, r
	}
	k, err := LoadTileKernel(KernelSpec{Family: "mm8", DType: "int8", NT: 2, NQ: 2, TK: 64})
	if err != nil {
		t.Fatal(err)
	}
	window := float64(m.LockCycles) + float64(k.ABytes)/4 // 16 x 64 bytes at 4 bytes per cycle
	// broadcast: A to 4 tiles in one stream, or to each tile in its own
	wide := i8Design(1, 1, 4, ReduceNone)
	narrow := i8Design(1, 1, 4, ReduceNone)
	narrow.ACast = 1
	uw, rw := util(wide)
	un, rn := util(narrow)
	if !nearly(uw["plio in"].BusyCycles, window) || !nearly(un["plio in"].BusyCycles, window) {
		t.Errorf("stream busy per iteration %g (broadcast), %g (one per tile); want %g", uw["plio in"].BusyCycles, un["plio in"].BusyCycles, window)
	}
	if rw.PLIOIn != 1+4 || rn.PLIOIn != 4+4 {
		t.Errorf("input PLIOs %d (A broadcast to 4) and %d (not); want 5 and 8", rw.PLIOIn, rn.PLIOIn)
	}
	if !nearly(uw["tile dma s2mm"].BusyCycles, window) {
		t.Errorf("a broadcast destination's S2MM busy %g per iteration, want %g", uw["tile dma s2mm"].BusyCycles, window)
	}
	// packet switching: two windows on one PLIO, each behind one header word
	pk := i8Design(1, 1, 4, ReduceNone)
	pk.ACast, pk.PackIn = 1, 2
	up, rp := util(pk)
	want := 2 * (window + 4.0/4)
	if !nearly(up["plio in"].BusyCycles, want) || rp.PLIOIn != 2+2 {
		t.Errorf("packet switching: port busy %g per iteration over %d PLIOs, want %g over 4", up["plio in"].BusyCycles, rp.PLIOIn, want)
	}
}

// When a window takes longer to stream than the kernel, the stream binds and the period is the
// stream's time (the ping-pong buffer hides the rest).
func TestStreamBoundPeriod(t *testing.T) {
	m := DefaultMachine()
	d := &ArrayDesign{Name: "t", Kernel: KernelSpec{Family: "mm8", DType: "int8", NT: 2, NQ: 4, TK: 256},
		X: 2, Y: 1, Z: 2, Reduce: ReduceNone, ACast: 2, BCast: 2, PackIn: 1, PackOut: 1,
		In: PLIO{Bits: 128, MHz: 312.5}, Out: PLIO{Bits: 128, MHz: 312.5}, Scope: ScopeArray}
	r, err := EvaluateDesign(m, d, op.MustParse("gemm m=512 n=512 k=256 dtype=int8"), ArrayOptions{NoVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	stream := float64(m.LockCycles) + 256*32/4.0 // the B window: 256 x 32 bytes
	if r.Limit != "plio in" || math.Abs(r.PeriodCycles-stream) > 1 {
		t.Errorf("period %g limited by %s; want the B stream's %g", r.PeriodCycles, r.Limit, stream)
	}
	if c := float64(r.KernelCycles["solo"]); c >= stream {
		t.Fatalf("the kernel (%g cycles) should be faster than the stream", c)
	}
}

// Every reduction checked bit for bit on scaled-down shapes: cascade chains (int8 through int32
// partial sums, fp32), adder trees (sumac's and MaxEVA's int8 kernels), output stationary,
// and int32 outputs.
func TestReductionsExact(t *testing.T) {
	m := DefaultMachine()
	f32 := &ArrayDesign{Name: "f32 cascade", Kernel: KernelSpec{Family: "f32", DType: "fp32", TK: 32},
		X: 1, Y: 3, Z: 2, Reduce: ReduceCascade, ACast: 2, BCast: 1, PackIn: 1, PackOut: 1,
		In: PLIO{Bits: 128, MHz: 312.5}, Out: PLIO{Bits: 128, MHz: 312.5}, Scope: ScopeArray}
	mx := &ArrayDesign{Name: "maxeva int8", Kernel: KernelSpec{Family: "i8mmul", DType: "int8", TM: 32, TK: 128, TN: 32},
		X: 2, Y: 3, Z: 1, Reduce: ReduceAdder, ACast: 1, BCast: 2, PackIn: 1, PackOut: 1,
		In: PLIO{Bits: 128, MHz: 312.5}, Out: PLIO{Bits: 128, MHz: 312.5}, Scope: ScopeArray}
	st := i8Design(2, 1, 2, ReduceNone)
	st.Stationary = true
	for _, c := range []struct {
		d    *ArrayDesign
		spec string
	}{
		{i8Design(2, 3, 1, ReduceCascade), "gemm m=40 n=20 k=300 dtype=int8"},
		{i8Design(1, 2, 2, ReduceAdder), "gemm m=20 n=40 k=200 dtype=int8"},
		{st, "gemm m=40 n=40 k=200 dtype=int8"},
		{st, "gemm m=40 n=40 k=200 atype=int8 btype=int8 out=int32"}, // full-range partial sums
		{i8Design(2, 2, 1, ReduceCascade), "gemm m=40 n=20 k=200 atype=uint8 btype=uint8 out=int32"},
		{f32, "gemm m=40 n=80 k=150 dtype=fp32"},
		{mx, "gemm m=70 n=40 k=600 atype=int8 btype=int8 out=int32"},
	} {
		if c.d.Kernel.Family == "mm8" && strings.Contains(c.spec, "uint8") {
			c.d.Kernel.DType = "uint8"
		}
		r, err := EvaluateDesign(m, c.d, op.MustParse(c.spec), ArrayOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.d.Name, err)
		}
		if !r.Verified {
			t.Errorf("%s %s on %s: %s", c.d.Name, c.d.Reduce, r.VerifiedOn, r.VerifyError)
		}
	}
}

// A small convolution on the array is the convolution op/ref computes.
func TestConvArrayExact(t *testing.T) {
	r, err := RunConvArray(DefaultMachine(), op.MustParse("conv2d x=10 y=3 k=24 c=16 r=3 s=3 pad=1 dtype=uint8"), SearchOptions{Tiles: 12})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Verified || r.Tiles > 12 {
		t.Errorf("conv on %d tiles: verified %v on %s: %s", r.Tiles, r.Verified, r.VerifiedOn, r.VerifyError)
	}
}

// Designs the device cannot hold are refused with the reason.
func TestDesignCapacities(t *testing.T) {
	m := DefaultMachine()
	spec := op.MustParse("gemm m=64 n=64 k=64 dtype=int8")
	for _, c := range []struct {
		d    *ArrayDesign
		want string
	}{
		{func() *ArrayDesign { d := i8Design(20, 1, 20, ReduceNone); d.ACast, d.BCast = 1, 1; return d }(), "input PLIOs"},
		{&ArrayDesign{Name: "big", Kernel: KernelSpec{Family: "mm8", DType: "int8", NT: 4, NQ: 4, TK: 256}, X: 1, Y: 1, Z: 1, Reduce: ReduceNone,
			ACast: 1, BCast: 1, PackIn: 1, PackOut: 1, In: PLIO{Bits: 128, MHz: 500}, Out: PLIO{Bits: 128, MHz: 500}, Scope: ScopeArray}, "bytes"},
		{i8Design(10, 4, 10, ReduceAdder), "tiles"},
		{i8Design(1, 1, 1, "tree"), "reduce"},
	} {
		_, err := EvaluateDesign(m, c.d, spec, ArrayOptions{NoVerify: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one about %q", c.d, err, c.want)
		}
	}
}

// The published designs predicted from mechanism within 15%, and the searched 400-tile designs
// above them in each design's own scope, clocks and PLIO.
func TestReproduceWithin15(t *testing.T) {
	for _, paper := range Papers {
		pds, err := paperDesigns(paper)
		if err != nil {
			t.Fatal(err)
		}
		for _, pd := range pds {
			mm, err := machineFor(DefaultMachine(), pd)
			if err != nil {
				t.Fatal(err)
			}
			r, _, err := predict(mm, pd, ArrayOptions{NoVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			got := paperTOPS(pd, r)
			if math.Abs(got/pd.Published-1) > 0.15 {
				t.Errorf("%s: model %.3f, published %.3f", pd.Name, got, pd.Published)
			}
		}
	}
}

// sumac's searched designs for the acceptance GEMM (6144^3) beat each reproduced design in that
// design's scope, clocks and PLIO.
func TestSearchBeatsReproduced(t *testing.T) {
	if testing.Short() {
		t.Skip("searches 400-tile designs")
	}
	for _, paper := range Papers {
		pds, err := paperDesigns(paper)
		if err != nil {
			t.Fatal(err)
		}
		for _, pd := range pds {
			mm, err := machineFor(DefaultMachine(), pd)
			if err != nil {
				t.Fatal(err)
			}
			r, _, err := predict(mm, pd, ArrayOptions{NoVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			theirs := paperTOPS(pd, r)
			ours, err := SearchGEMM(mm, op.MustParse("gemm m=6144 n=6144 k=6144 "+pd.Types), SearchOptions{Tiles: 400, Scope: pd.Scope, PLIO: pd.Patterns[0].In, NoVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			if ours.TOPS <= theirs {
				t.Errorf("%s: sumac %.3f TOPS (%s), the reproduced design %.3f", pd.Name, ours.TOPS, ours.Design, theirs)
			}
		}
	}
}

// GMIO: a shim DMA channel per stream, 32 each way on the VC1902's 16 NoC tiles, at the GMIO
// channel rate; every byte crosses DDR, whose aggregate rate then binds.
func TestGMIO(t *testing.T) {
	m := DefaultMachine()
	a := NewArray(m)
	g := PLIO{GMIO: true}
	if in, out := a.PLIOCapacity(g); in != 32 || out != 32 {
		t.Errorf("GMIO channels %d in, %d out; want 32, 32", in, out)
	}
	if !nearly(a.Rate(g), m.GMIORate()) {
		t.Errorf("GMIO rate %g, want %g", a.Rate(g), m.GMIORate())
	}
	d := i8Design(4, 1, 4, ReduceNone)
	d.In, d.Out = g, g
	r, err := EvaluateDesign(m, d, op.MustParse("gemm m=1024 n=1024 k=64 dtype=int8"), ArrayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// per iteration 4 A + 4 B windows of 1 KB and 16 outputs of 256 B cross DDR
	ddr := (8*1024 + 16*256) / m.DDRRate()
	if r.Limit != "ddr" || math.Abs(r.BoundCycles-ddr) > 1 || !r.Verified {
		t.Errorf("GMIO design: limit %s, %g cycles per iteration (want ddr, %g), verified %v %s", r.Limit, r.BoundCycles, ddr, r.Verified, r.VerifyError)
	}
}
