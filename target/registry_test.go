package target

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1"
)

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		tg, err := Lookup(name)
		if err != nil || tg.Name != name {
			t.Errorf("Lookup(%q) = %v, %v", name, tg, err)
		}
		if tg.Datapaths == nil || tg.Memories == nil || len(tg.Datapaths()) == 0 {
			t.Errorf("%s: no datapaths or memories", name)
		}
	}
	if got := Names(); len(got) < 4 || got[0] != aie1.Name || got[len(got)-1] != HostName {
		t.Errorf("Names() = %v, want aie1 first, the XDNA tiles, the host last", got)
	}
	_, err := Lookup("nope")
	if err == nil || !strings.Contains(err.Error(), "aie1") || !strings.Contains(err.Error(), "host") {
		t.Errorf("Lookup(nope) = %v, want an error naming the known targets", err)
	}
	seen := map[string]bool{}
	for _, tg := range All() {
		if seen[tg.Name] {
			t.Errorf("target %s registered twice", tg.Name)
		}
		seen[tg.Name] = true
	}
}

// The AIE1 entry lists the datapaths of UG1079's MAC table: int8 128, int16 32, int32 8, fp32 8.
func TestAIE1Datapaths(t *testing.T) {
	tg, _ := Lookup(aie1.Name)
	peak := map[string]int{}
	for _, d := range tg.Datapaths() {
		if d.Lanes*d.Cols != d.MACsPerCycle {
			t.Errorf("%s: %d x %d lanes x columns but %d MACs/cycle", d.Type, d.Lanes, d.Cols, d.MACsPerCycle)
		}
		peak[d.Type] = max(peak[d.Type], d.MACsPerCycle)
	}
	for typ, want := range map[string]int{"int8 x int8": 128, "int16 x int16": 32, "int32 x int32": 8, "float x float": 8} {
		if peak[typ] != want {
			t.Errorf("%s: %d MACs/cycle, want %d", typ, peak[typ], want)
		}
	}
	if tg.Tile == nil || tg.Tile.Generation() != aie1.Name {
		t.Errorf("aie1 has no tile model of its generation")
	}
	if tg.Compiler == nil || tg.Compiler.Name() != aie1.Name {
		t.Errorf("aie1 has no compiler of its own")
	}
	if h, _ := Lookup(HostName); h.Compiler != nil || h.Tile != nil {
		t.Errorf("the host has a conv2d compiler or a tile model")
	}
}

// Exactly one of the host's kernel sets avx2+fma and go runs, and avx512 only with avx2+fma.
func TestHostKernelSets(t *testing.T) {
	tg, _ := Lookup(HostName)
	sel := map[string]bool{}
	for _, k := range tg.KernelSets() {
		sel[k.Name] = k.Selected
	}
	if sel["avx2+fma"] == sel["go"] {
		t.Errorf("avx2+fma %v and go %v: exactly one must run", sel["avx2+fma"], sel["go"])
	}
	if sel["avx512"] && !sel["avx2+fma"] {
		t.Error("avx512 selected without avx2+fma")
	}
}

// The XDNA entries list their VMAC.F modes: AIE-ML bf16 4x8x4 (128 MACs), AIE2P bfp16 8x8x8
// (512 MACs), and carry the einsum generator's description.
func TestXDNAEntries(t *testing.T) {
	want := map[string]string{"aieml": "bf16 x bf16", "aie2p": "bfp16 x bfp16"}
	macs := map[string]int{"aieml": 128, "aie2p": 512}
	for name, typ := range want {
		tg, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if tg.Einsum == nil || tg.Compiler != nil {
			t.Errorf("%s: want an einsum target without the conv2d compiler", name)
		}
		found := false
		for _, d := range tg.Datapaths() {
			if d.Type == typ && d.MACsPerCycle == macs[name] {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %s datapath of %d MACs in %+v", name, typ, macs[name], tg.Datapaths())
		}
	}
}
