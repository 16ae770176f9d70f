package backend

import (
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
)

// TestFloatCompares: a float compare that picks the larger of its two operands compiles (a
// compare and a select); one whose result is used otherwise (an index kept beside the
// maximum, as an argmax does) is a softfloat call the model does not cost: a clear error.
func TestFloatCompares(t *testing.T) {
	const head = "#include <adf.h>\nvoid k(input_window<float> * in, output_window<float> * out) {\n"
	for _, c := range []struct{ body, want string }{
		{"  float m = window_readincr(in);\n  for (int i = 0; i < 8; i++) { float a = window_readincr(in); m = (a > m) ? a : m; }\n  window_writeincr(out, m);\n}\n", ""},
		{"  float m = window_readincr(in);\n  int at = 0;\n  for (int i = 0; i < 8; i++) { float a = window_readincr(in); if (a > m) { m = a; at = i; } }\n  window_writeincr(out, m);\n  window_writeincr(out, (float) at);\n}\n", "scalar float compare (>) is a softfloat library routine"},
	} {
		k, err := cfront.ParseKernel("k.cc", []byte(head+c.body), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compile(k, Options{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
