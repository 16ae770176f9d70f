package backend

import (
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
)

// TestStoreSRSCases: which narrowings storeSRS fuses into their store.
func TestStoreSRSCases(t *testing.T) {
	head := `void k(const int8 *__restrict a, int8 *__restrict o) {
    v32int8 x = *(v32int8 *)a;
    v16acc48 acc = mul16(concat(x, undef_v32int8()), 0, 0, 8, 0x3120, x, 0, 0xcc884400, 2, 0x1010);
`
	for _, c := range []struct {
		name, body string
		fused      int
	}{
		{"stored once", "    v16int8 r = bsrs(acc, 2);\n    *(v16int8 *)o = r;\n}\n", 1},
		{"unsigned", "    v16uint8 r = ubsrs(acc, 2);\n    *(v16uint8 *)o = r;\n}\n", 1},
		{"stored twice", "    v16int8 r = bsrs(acc, 2);\n    *(v16int8 *)o = r;\n    *(v16int8 *)(o + 16) = r;\n}\n", 0},
		{"accumulator rewritten before the store", "    v16int8 r = bsrs(acc, 2);\n    acc = mul16(concat(x, undef_v32int8()), 0, 0, 8, 0x3120, x, 0, 0xcc884400, 2, 0x1010);\n    *(v16int8 *)o = r;\n}\n", 0},
		{"16-bit narrowing", "    v16int16 r = srs(acc, 2);\n    *(v16int16 *)o = r;\n}\n", 0},
	} {
		k, err := cfront.ParseKernel("k.cc", []byte(head+c.body), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := len(storeSRS(k, findConsts(k))); got != c.fused {
			t.Errorf("%s: %d fused, want %d", c.name, got, c.fused)
		}
	}
}
