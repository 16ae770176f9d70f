package cyclesim

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/aie/backend"
	"github.com/sumacdev/sumac/aie/cfront"
	"github.com/sumacdev/sumac/aie/interp"
	"github.com/sumacdev/sumac/aie/kernel"
)

func parse(t testing.TB, name string, defines ...string) *kernel.Kernel {
	t.Helper()
	path := filepath.Join("..", "testdata", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s: %v", name, err)
	}
	k, err := cfront.ParseKernel(path, src, defines)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

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

func runBoth(t *testing.T, k *kernel.Kernel) (*Result, *backend.Program) {
	t.Helper()
	data, sizes := randomData(t, k, 1)
	p, err := backend.Compile(k, backend.Options{Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
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
	return got, p
}

func TestLeiGemmMatchesInterpreter(t *testing.T) {
	for _, kc := range []string{"64", "128", "256", "290"} {
		k := parse(t, "lei_gemm_16x4.cc", "Kc="+kc)
		r, _ := runBoth(t, k)
		t.Logf("Kc=%s: %d cycles, %d MACs, %.2f MACs/cycle, %d stalls", kc, r.Cycles, r.MACs, r.MACsPerCycle, r.Stalls)
	}
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
		k := parse(t, c.file, defs...)
		r, p := runBoth(t, k)
		t.Logf("%s: %d cycles, %d MACs, %.2f MACs/cycle, %d stalls, spills %d fills %d (static %d/%d); %v", c.file, r.Cycles, r.MACs, r.MACsPerCycle, r.Stalls, r.Spills, r.Fills, p.Spills, p.Fills, p.Notes)
	}
}
