package cyclesim

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/interp"
)

// TestScalarOpsMatchInterpreter runs scalar arithmetic of every kind on run-time values
// (loaded, so nothing folds) through both engines: both execute kernel.Arith, and this
// shows the simulator's operand and result conversions agree with the interpreter's.
func TestScalarOpsMatchInterpreter(t *testing.T) {
	src := []byte(`void sc(int32 * __restrict in, int32 * __restrict out) {
    int a = in[0];
    int b = in[1];
    unsigned u = in[2];
    int s = in[3];
    out[0] = a + b;
    out[1] = a - b;
    out[2] = a * b;
    out[3] = a / b;
    out[4] = a % b;
    out[5] = a & b;
    out[6] = a | b;
    out[7] = a ^ b;
    out[8] = a << s;
    out[9] = a >> s;
    out[10] = u >> s;
    out[11] = u / b;
    out[12] = a < b;
    out[13] = u > b;
    out[14] = -a;
    out[15] = ~a;
    out[16] = !a;
    out[17] = a == b;
}`)
	k, err := cfront.ParseKernel("sc.cc", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][4]int32{{-7, 3, -5, 2}, {100, -9, 7, 31}, {-2147483647, 5, -1, 1}} {
		data := map[string][]byte{"in": make([]byte, 16), "out": make([]byte, 18*4)}
		for i, v := range in {
			binary.LittleEndian.PutUint32(data["in"][4*i:], uint32(v))
		}
		sizes := map[string]int{"in": 16, "out": 18 * 4}
		want, err := interp.Run(k, interp.Config{Data: data, Sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		p, err := backend.Compile(k, backend.Options{Sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Run(p, Config{Data: data, Sizes: sizes})
		if err != nil {
			t.Fatalf("%v\n%s", err, p)
		}
		if !bytes.Equal(got.Data["out"], want.Data["out"]) {
			for i := 0; i < 18; i++ {
				g, w := int32(binary.LittleEndian.Uint32(got.Data["out"][4*i:])), int32(binary.LittleEndian.Uint32(want.Data["out"][4*i:]))
				if g != w {
					t.Errorf("in %v: out[%d] = %d, interpreter %d", in, i, g, w)
				}
			}
		}
	}
}
