package cyclesim

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// randomData sizes every region from what the interpreter measures and fills inputs with
// small values.
func randomData(t testing.TB, k *kernel.Kernel, seed int64) (map[string][]byte, map[string]int) {
	t.Helper()
	sizes, err := interp.Measure(k, interp.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(seed))
	data := map[string][]byte{}
	for name, n := range sizes {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Intn(16))
		}
		data[name] = b
	}
	return data, sizes
}

// compiled returns k compiled by the timing backend for the region sizes of randomData, with
// that data.
func compiled(t testing.TB, k *kernel.Kernel, seed int64) (*backend.Program, map[string][]byte, map[string]int) {
	t.Helper()
	data, sizes := randomData(t, k, seed)
	p, err := backend.Compile(k, backend.Options{Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	return p, data, sizes
}

func runBoth(t *testing.T, k *kernel.Kernel) (*Result, *backend.Program) {
	t.Helper()
	p, data, sizes := compiled(t, k, 1)
	want, err := interp.Run(k, interp.Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(p, Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatalf("%v\n%s", err, p)
	}
	for name, w := range want.Data {
		if !bytes.Equal(got.Data[name], w) {
			t.Fatalf("region %s differs from the interpreter", name)
		}
	}
	if got.MACs != want.MACs {
		t.Fatalf("MACs %d, interpreter %d", got.MACs, want.MACs)
	}
	if got.Cycles != int64(p.StaticCycles())+got.Stalls {
		t.Fatalf("simulated %d cycles, schedule %d + %d stalls", got.Cycles, p.StaticCycles(), got.Stalls)
	}
	return got, p
}

func TestLeiGemmMatchesInterpreter(t *testing.T) {
	for _, kc := range []string{"64", "128", "256", "290"} {
		k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc="+kc)
		r, _ := runBoth(t, k)
		t.Logf("Kc=%s: %d cycles, %d MACs, %.2f MACs/cycle, %d stalls", kc, r.Cycles, r.MACs, r.MACsPerCycle, r.Stalls)
	}
}

// TestNestedLoops runs a kernel with an outer loop around a pipelined one whose accumulator
// is local to each iteration (the shape of target/aie1/vyasa's kernels).
func TestNestedLoops(t *testing.T) {
	src := []byte(`void nest(int16 * __restrict in, int16 * __restrict w, int16 * __restrict out) {
    v32int16 x;
    v16int16 z;
    v16acc48 acc;
    int16 * pi;
    int16 * po;
    z = *(v16int16 *) w;
    pi = in;
    po = out;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 4; c++)
            chess_prepare_for_pipelining
            chess_loop_range(4, 4)
        {
            x = upd_w(x, 0, *(v16int16 *) pi);
            x = upd_w(x, 1, *(v16int16 *) &pi[16]);
            acc = mul16(x, 0, 0x3020100, 0x7060504, 0x2110, z, 0, 0, 0, 1);
            acc = mac16(acc, x, 2, 0x3020100, 0x7060504, 0x2110, z, 2, 0, 0, 1);
            *(v16int16 *) po = srs(acc, 0);
            pi = pi + 16;
            po = po + 16;
        }
        pi = pi + 16;
    }
}`)
	k, err := cfront.ParseKernel("nest.cc", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, p := runBoth(t, k)
	t.Logf("%d cycles, %v", r.Cycles, p.Notes)
}

func TestOtherKernels(t *testing.T) {
	for _, c := range []struct{ file, def string }{
		{"lei_gemm_32x4.cc", "Kc=256"},
		{"lei_conv_8x8_u8.cc", ""},
	} {
		var defs []string
		if c.def != "" {
			defs = append(defs, c.def)
		}
		k := kerneltest.Parse(t, c.file, defs...)
		r, p := runBoth(t, k)
		t.Logf("%s: %d cycles, %d MACs, %.2f MACs/cycle, %d stalls, spills %d fills %d (static %d/%d); %v", c.file, r.Cycles, r.MACs, r.MACsPerCycle, r.Stalls, r.Spills, r.Fills, p.Spills, p.Fills, p.Notes)
	}
}

// TestLatencyViolation moves the first MAC one bundle earlier than its schedule: its X
// operand's load has not landed, and the simulator must say so instead of reading stale data.
func TestLatencyViolation(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	p, data, sizes := compiled(t, k, 2)
	moved := false
	for i := 1; i < len(p.Bundles) && !moved; i++ {
		for j, in := range p.Bundles[i].Instrs {
			if in.MACs > 0 {
				// Find the earliest earlier bundle with a free VEC slot.
				for b := i - 1; b >= 0; b-- {
					free := true
					for _, x := range p.Bundles[b].Instrs {
						if x.Slot == in.Slot {
							free = false
						}
					}
					if free {
						p.Bundles[b].Instrs = append(p.Bundles[b].Instrs, in)
						p.Bundles[i].Instrs = append(p.Bundles[i].Instrs[:j], p.Bundles[i].Instrs[j+1:]...)
						moved = true
						break
					}
				}
				break
			}
		}
	}
	if !moved {
		t.Fatal("no MAC to move")
	}
	_, err := Run(p, Config{Data: data, Sizes: sizes})
	if err == nil || !strings.Contains(err.Error(), "latency violation") {
		t.Fatalf("want a latency violation, got %v", err)
	}
	t.Log(err)
}

// TestSpill: the 32x4 kernel needs 8 accumulators (the file has 4) and more X registers than
// exist; the backend spills, the spill code runs, and the results still equal the interpreter's.
func TestSpill(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_32x4.cc", "Kc=32")
	r, p := runBoth(t, k)
	if p.Spills == 0 || r.Spills == 0 || r.Fills == 0 {
		t.Fatalf("expected spill code: static %d/%d, executed %d/%d", p.Spills, p.Fills, r.Spills, r.Fills)
	}
}

// TestBankConflict: two independent buffer loads issue in one bundle (load units A and B).
// With both windows in one double bank they collide and the bundle costs a stall cycle; with
// the default layout (a double bank each) they do not. Results are the same either way.
func TestBankConflict(t *testing.T) {
	src := []byte(`void k(int16 * __restrict a, int16 * __restrict b, int16 * __restrict o) {
    v16int16 x = *(v16int16 *) a;
    v16int16 y = *(v16int16 *) b;
    *(v16int16 *) o = operator+(x, y);
}`)
	k, err := cfront.ParseKernel("conflict.cc", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, sizes := randomData(t, k, 3)
	run := func(lay *backend.Layout) *Result {
		p, err := backend.Compile(k, backend.Options{Layout: lay, Sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(p, Config{Data: data, Sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	rg := run(nil)
	lay := backend.DefaultLayout(k.Params, sizes)
	lay.Base["b"] = lay.Base["a"] + 1024 // same 8 KB double bank as a
	rb := run(lay)
	if rb.Stalls != rg.Stalls+1 || rb.Cycles != rg.Cycles+1 {
		t.Fatalf("stalls: shared bank %d (cycles %d), separate banks %d (cycles %d)", rb.Stalls, rb.Cycles, rg.Stalls, rg.Cycles)
	}
	for name := range rg.Data {
		if !bytes.Equal(rg.Data[name], rb.Data[name]) {
			t.Fatalf("layout changed the results of %s", name)
		}
	}
}

// BenchmarkSim measures simulated cycles per second with functional execution and hazard
// checks on (issue 4 asks for at least 20 M/s on one core).
func BenchmarkSim(b *testing.B) {
	type prog struct {
		p   *backend.Program
		cfg Config
	}
	var both []prog
	for _, c := range []struct{ file, def string }{{"lei_gemm_16x4.cc", "Kc=256"}, {"lei_conv_8x8_u8.cc", ""}} {
		var defs []string
		if c.def != "" {
			defs = append(defs, c.def)
		}
		k := kerneltest.Parse(b, c.file, defs...)
		data, sizes := randomData(b, k, 1)
		p, err := backend.Compile(k, backend.Options{Sizes: sizes})
		if err != nil {
			b.Fatal(err)
		}
		cfg := Config{Data: data, Sizes: sizes}
		both = append(both, prog{p, cfg})
		// Every run does the whole work: the timing check of every read (pass 1), the
		// functional execution (pass 2) and the memory pass; only the trace and the decoded
		// instruction tables are kept per program. "reference" is the single-pass engine.
		for _, engine := range []string{"trace", "reference"} {
			b.Run(c.file+"/"+engine, func(b *testing.B) {
				useReference = engine == "reference"
				defer func() { useReference = false }()
				var cycles int64
				for i := 0; i < b.N; i++ {
					r, err := Run(p, cfg)
					if err != nil {
						b.Fatal(err)
					}
					cycles += r.Cycles
				}
				b.ReportMetric(float64(cycles)/b.Elapsed().Seconds()/1e6, "Mcycles/s")
			})
		}
	}
	// the two kernels back to back: one rate for the pair
	b.Run("both/trace", func(b *testing.B) {
		var cycles int64
		for i := 0; i < b.N; i++ {
			for _, q := range both {
				r, err := Run(q.p, q.cfg)
				if err != nil {
					b.Fatal(err)
				}
				cycles += r.Cycles
			}
		}
		b.ReportMetric(float64(cycles)/b.Elapsed().Seconds()/1e6, "Mcycles/s")
	})
}

// TestCalibrationSeed001 checks the model against the cycle counts seed 001 reports for its
// Fig. 4 kernel (212 cycles at Kc=64, 75.3% of peak at Kc=128, 596 cycles at Kc=256, 87.6% at
// Kc=290), each within the 7%. Nothing in the model is fitted to them: a failure
// means a mechanism changed (see docs/aie-timing.md for the itemized costs).
func TestCalibrationSeed001(t *testing.T) {
	const peak = 32 // int16 x int16 MACs per cycle
	for _, c := range []struct {
		kc   string
		want float64 // cycles
	}{
		{"64", 212},
		{"128", 64 * 128 / peak / 0.753},
		{"256", 596},
		{"290", 64 * 290 / peak / 0.876},
	} {
		k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc="+c.kc)
		r, _ := runBoth(t, k)
		if d := (float64(r.Cycles) - c.want) / c.want; d > 0.07 || d < -0.07 {
			t.Errorf("Kc=%s: %d cycles, seed 001 %.0f (%+.1f%%)", c.kc, r.Cycles, c.want, 100*d)
		}
	}
}

// TestFastMACMatchesKernel compares the simulator's MAC fast path with kernel.MACInt on the
// operand selections of random parameters, every 48-bit form and element type, and random
// operands and accumulators.
func TestFastMACMatchesKernel(t *testing.T) {
	// both arithmetic paths: the SIMD gathers (when this build has them) and the Go loops
	defer func(v bool) { useSIMD = v }(useSIMD)
	for _, simd := range []bool{true, false} {
		if simd && !useSIMD {
			continue
		}
		useSIMD = simd
		t.Run(fmt.Sprintf("simd=%v", simd), testFastMAC)
	}
}

func testFastMAC(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	type cfg struct {
		form       kernel.MACForm
		xe, ze     kernel.Elem
		xLen, zLen int
	}
	cfgs := []cfg{
		{kernel.Form16x16, kernel.Int16, kernel.Int16, 32, 16},
		{kernel.Form16x16, kernel.Int16, kernel.Int16, 64, 16},
		{kernel.Form16x16x4, kernel.Int16, kernel.Int16, 32, 16},
		{kernel.Form8x8, kernel.Int8, kernel.Int8, 64, 32},
		{kernel.Form8x8, kernel.UInt8, kernel.UInt8, 128, 32},
		{kernel.Form8x8, kernel.UInt8, kernel.Int8, 64, 32},
		{kernel.Form8x8, kernel.Int8, kernel.UInt8, 64, 32},
	}
	tried, bcast := 0, 0
	for trial := 0; trial < 3000; trial++ {
		c := cfgs[trial%len(cfgs)]
		p := kernel.MACParams{XOffs: rng.Int63n(1 << 32), XOffsHi: rng.Int63n(1 << 32), XSquare: rng.Int63n(1 << 16), ZOffs: rng.Int63n(1 << 32), ZOffsHi: rng.Int63n(1 << 32), ZSquare: rng.Int63n(1 << 16),
			XStart: 4 * rng.Int63n(4), ZStart: 2 * rng.Int63n(4), XStep: 4 * rng.Int63n(4), ZStep: 2 * rng.Int63n(4)}
		if trial%3 == 0 {
			p.ZOffs, p.ZOffsHi = 0, 0 // a broadcast Z (the GEMM case, its own fast loop)
		}
		d := &decoded{form: c.form, kind: kernel.MACKind(rng.Intn(3)), xe: c.xe, ze: c.ze, xLen: c.xLen, zLen: c.zLen}
		if err := kernel.DecodeMAC(c.form, c.xLen, c.zLen, p, &d.sel); err != nil {
			continue
		}
		buildMACTable(d)
		tried++
		if d.tab.zBcast {
			bcast++
		}
		var x, z kernel.Vec
		rng.Read(x[:])
		rng.Read(z[:])
		if trial%5 == 0 {
			// the extremes of 16-bit and 8-bit elements (-2^15, -128 or 128, -1 or 255)
			ext := []uint16{0x8000, 0x8000, 0x8000, 0x7fff, 0xffff, 0x8080}
			for i := 0; i < len(x); i += 2 {
				w, v := ext[rng.Intn(len(ext))], ext[rng.Intn(len(ext))]
				x[i], x[i+1], z[i], z[i+1] = byte(w), byte(w>>8), byte(v), byte(v>>8)
			}
		}
		var acc kernel.AccVal
		for i := range acc {
			acc[i] = num.AccFrom(rng.Int63n(1<<47) - 1<<46)
		}
		var want, got kernel.AccVal
		kernel.MACInt(d.kind, &d.sel, &acc, &x, c.xe, c.xLen, &z, c.ze, c.zLen, &want)
		if !fastMACInt(d, &acc, &x, &z, &macScratch{}, &got) {
			t.Fatalf("fast path refused form %v", c.form)
		}
		if got != want {
			t.Fatalf("form %v kind %v: fast path differs from kernel.MACInt", c.form, d.kind)
		}
		// the same through pass 2's prepared MAC (fexec.go), with and without an accumulator
		// input, from register units
		withAcc := trial%4 != 1
		if !withAcc {
			kernel.MACInt(d.kind, &d.sel, &kernel.AccVal{}, &x, c.xe, c.xLen, &z, c.ze, c.zLen, &want)
		}
		for _, spread := range []bool{false, true} {
			if got := fastMACUnits(t, d, withAcc, spread, &acc, &x, &z); got != want {
				t.Fatalf("form %v kind %v acc %v spread %v: pass 2's MAC differs from kernel.MACInt", c.form, d.kind, withAcc, spread)
			}
		}
	}
	if tried < 1000 || bcast < 100 {
		t.Fatalf("only %d parameter sets decoded (%d with a broadcast Z)", tried, bcast)
	}
}

// fastMACUnits runs d through sim.fastMAC with X in vector units 0..7, Z in 8..15 (spread:
// X in the even units, Z in the odd ones), the accumulator input (if any) in accumulator
// units 0..1 and the result in 2..3.
func fastMACUnits(t *testing.T, d *decoded, withAcc, spread bool, acc *kernel.AccVal, x, z *kernel.Vec) kernel.AccVal {
	t.Helper()
	s := &sim{runState: runState{res: &Result{}, dec: []*decoded{d}}}
	lanes := d.sel.Lanes
	f := fInstr{op: fMAC48, lpu: (lanes + 1) / 2, out: []int32{gunit(backend.FileAcc, 2), gunit(backend.FileAcc, 3)}}
	for i := 0; i < 8; i++ {
		// consecutive units (read in place) or interleaved ones (copied)
		xi, zi := i, 8+i
		if spread {
			xi, zi = 2*i, 2*i+1
		}
		f.x = append(f.x, gunit(backend.FileVec, xi))
		f.z = append(f.z, gunit(backend.FileVec, zi))
		s.r.vec[gunit(backend.FileVec, xi)] = [16]byte(x[16*i:])
		s.r.vec[gunit(backend.FileVec, zi)] = [16]byte(z[16*i:])
	}
	if withAcc {
		f.acc = []int32{gunit(backend.FileAcc, 0), gunit(backend.FileAcc, 1)}
		for l := 0; l < lanes; l++ {
			s.r.acc[gunit(backend.FileAcc, l/f.lpu)][l%f.lpu] = acc[l]
		}
		if d.kind == kernel.Mac {
			// in place, into the accumulator units themselves (the GEMM kernels' case,
			// which has its own loop when Z is broadcast)
			f.out, f.inPlace = f.acc, true
		}
	}
	setMACPath(d, &f)
	if err := s.fastMAC(&f, &backend.Instr{}); err != nil {
		t.Fatal(err)
	}
	var got kernel.AccVal
	for l := 0; l < lanes; l++ {
		got[l] = s.r.acc[f.out[l/f.lpu]][l%f.lpu]
	}
	return got
}

// TestConcurrentRuns: the tuner simulates candidates in parallel; runs of one program on
// several goroutines must not interfere (pooled simulators, per-program tables).
func TestConcurrentRuns(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	p, data, sizes := compiled(t, k, 5)
	first, err := Run(p, Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 5; i++ {
				r, err := Run(p, Config{Data: data, Sizes: sizes})
				if err == nil && (r.Cycles != first.Cycles || !bytes.Equal(r.Data["out"], first.Data["out"])) {
					err = fmt.Errorf("run differs: %d cycles vs %d", r.Cycles, first.Cycles)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkMACSums measures the MAC arithmetic alone (products and sums of one instruction)
// for the int16 16x2 broadcast-Z form of seed 001's kernel and the 8-bit 16x8 form.
func BenchmarkMACSums(b *testing.B) {
	for _, c := range []struct {
		name       string
		form       kernel.MACForm
		e          kernel.Elem
		xLen, zLen int
		p          kernel.MACParams
	}{
		{"int16_16x2", kernel.Form16x16, kernel.Int16, 32, 16, kernel.MACParams{XOffs: 0x76543210, XOffsHi: 0xFEDCBA98, XSquare: 0x3210, ZStep: 1}},
		{"uint8_16x8", kernel.Form8x8, kernel.UInt8, 64, 32, kernel.MACParams{XOffs: 0x76543210, XSquare: 0x3210, XStep: 8, ZStep: 2, ZSquare: 0x3210}},
	} {
		b.Run(c.name, func(b *testing.B) {
			d := &decoded{form: c.form, kind: kernel.Mac, xe: c.e, ze: c.e, xLen: c.xLen, zLen: c.zLen}
			if err := kernel.DecodeMAC(c.form, c.xLen, c.zLen, c.p, &d.sel); err != nil {
				b.Fatal(err)
			}
			buildMACTable(d)
			var x, z kernel.Vec
			rand.New(rand.NewSource(1)).Read(x[:])
			var sums [16]int64
			b.Run("go", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					macSums(&d.tab, &x, &z, &sums)
				}
			})
			if useSIMD && d.tab.simd != nil {
				var sc macScratch
				b.Run("simd", func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						macSumsSIMD(&d.tab, &x, &z, &sc, &sums)
					}
				})
			}
		})
	}
}

// TestRunStartsFromZeroMemory: a run reuses a pooled simulator whose memory the previous run
// wrote; what that run wrote must read as zero in the next (bytes a region's data does not
// cover are zero).
func TestRunStartsFromZeroMemory(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	p, data, sizes := compiled(t, k, 9)
	empty := map[string][]byte{}
	for name := range data {
		empty[name] = nil
	}
	for i := 0; i < 3; i++ {
		if _, err := Run(p, Config{Data: data, Sizes: sizes}); err != nil {
			t.Fatal(err)
		}
		r, err := Run(p, Config{Data: empty, Sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range r.Data {
			for j, v := range b {
				if v != 0 {
					// the kernel writes only its output; every input region stays zero, and
					// the output is the product of zero inputs: zero
					t.Fatalf("run %d: %s byte %d is %#x after a run on zero inputs", i, name, j, v)
				}
			}
		}
	}
}

// TestRunsOfDifferentProgramsAgree: pooled simulators reset only the register units a
// program names; runs interleaved with another program's give the same results as before.
func TestRunsOfDifferentProgramsAgree(t *testing.T) {
	type prog struct {
		p     *backend.Program
		data  map[string][]byte
		sizes map[string]int
	}
	var progs []prog
	for _, c := range []struct{ file, def string }{{"lei_gemm_16x4.cc", "Kc=64"}, {"lei_conv_8x8_u8.cc", ""}, {"lei_gemm_32x4.cc", "Kc=64"}} {
		var defs []string
		if c.def != "" {
			defs = append(defs, c.def)
		}
		k := kerneltest.Parse(t, c.file, defs...)
		p, data, sizes := compiled(t, k, 4)
		progs = append(progs, prog{p, data, sizes})
	}
	first := make([]*Result, len(progs))
	for round := 0; round < 3; round++ {
		for i, pr := range progs {
			r, err := Run(pr.p, Config{Data: pr.data, Sizes: pr.sizes})
			if err != nil {
				t.Fatal(err)
			}
			if first[i] == nil {
				first[i] = r
				continue
			}
			if r.Cycles != first[i].Cycles || r.MACs != first[i].MACs || fmt.Sprint(r.Data) != fmt.Sprint(first[i].Data) {
				t.Fatalf("round %d, program %d: the run differs from its first", round, i)
			}
		}
	}
}

// TestMACPathsTaken: the gemm kernel's MACs take fastMAC's int16 mac16 path and the 8-bit
// kernel's the SIMD 8-bit path, so the reference comparisons above run those paths.
func TestMACPathsTaken(t *testing.T) {
	for _, c := range []struct {
		file string
		defs []string
		want uint8
	}{{"lei_gemm_16x4.cc", []string{"Kc=64"}, pathMac16x2}, {"lei_conv_8x8_u8.cc", nil, pathMac8}} {
		k := kerneltest.Parse(t, c.file, c.defs...)
		p, _, _ := compiled(t, k, 1)
		pi := prepare(p)
		pi.traced(p)
		n := 0
		for _, f := range pi.fops {
			if f.op == fMAC48 && f.path == c.want {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no MAC on path %d", c.file, c.want)
		}
	}
}

// TestResultDataShared: a region no store touched comes back as the caller's own input
// slice; a region the kernel wrote is a copy, equal on both engines.
func TestResultDataShared(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	p, data, sizes := compiled(t, k, 4)
	r, err := Run(p, Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b []byte) bool { return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0] }
	for _, name := range []string{"DDR_IN", "PL_IN"} {
		if !same(r.Data[name], data[name]) {
			t.Errorf("%s: unchanged input not returned as is", name)
		}
	}
	if same(r.Data["out"], data["out"]) {
		t.Errorf("out: the written region is the input slice")
	}
	useReference = true
	defer func() { useReference = false }()
	rr, err := Run(p, Config{Data: data, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	for name := range r.Data {
		if !bytes.Equal(r.Data[name], rr.Data[name]) {
			t.Errorf("%s differs between the engines", name)
		}
	}
}
