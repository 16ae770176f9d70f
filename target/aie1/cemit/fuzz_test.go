package cemit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
)

// FuzzRoundTrip: whatever source the front end accepts, its emitted text parses again and
// emits to the same text.
func FuzzRoundTrip(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*.cc")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("void k(int16 * p, output_window_int16 * o) { int s = 3; v16int16 v = *(v16int16*)&p[s*8 + 1 - 1]; p[2] = -s; window_writeincr(o, v); }")
	f.Add("void k(input_window_int32 * w, int n) { unsigned u = 0xffffffff; for (int i = n; i > 0; i -= 2) { u += i << 2; } }")
	f.Fuzz(func(t *testing.T, src string) {
		k, err := cfront.ParseKernel("fuzz.cc", []byte(src), nil)
		if err != nil {
			return
		}
		text1, err := Emit(k)
		if err != nil {
			t.Fatalf("emit of an accepted kernel failed: %v\n%s", err, src)
		}
		k2, err := cfront.ParseKernel("emitted.cc", []byte(text1), nil)
		if err != nil {
			t.Fatalf("emitted text does not parse: %v\nsource:\n%s\nemitted:\n%s", err, src, text1)
		}
		text2, err := Emit(k2)
		if err != nil || text2 != text1 {
			t.Fatalf("not a fixed point (%v)\nfirst:\n%s\nsecond:\n%s", err, text1, text2)
		}
	})
}
