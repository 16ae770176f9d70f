package harness

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/emul"
)

// simSource runs a kernel written here as `sumac sim` does.
func simSource(t *testing.T, name, src string, opt Options) (*Report, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := cfront.ParseKernelConfig(path, []byte(src), &cfront.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return Run(k, Source{File: path, Text: []byte(src)}, opt)
}

// TestOutsideReadZeros: a load past the end of a buffer reads the memory image (zeros past
// the bias array here), in the interpreter, under g++ and in the cycle simulator alike, and
// the report warns with the source position, the buffer and the bytes.
func TestOutsideReadZeros(t *testing.T) {
	if _, err := emul.Compiler(); err != nil {
		t.Skip("no C++ compiler")
	}
	path := filepath.Join("..", "testdata", "adf", "overread.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{Instance: "BiasRelu<10>"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(k, Source{File: path, Text: src}, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Cycles == nil || !strings.HasPrefix(rep.Emulation, "checked") {
		t.Fatalf("ok %v, cycles %v (%s), emulation %q, mismatches %v", rep.OK, rep.Cycles, rep.TimingError, rep.Emulation, rep.Mismatches)
	}
	if len(rep.OutsideReads) != 1 {
		t.Fatalf("outside reads %+v, want one", rep.OutsideReads)
	}
	o := rep.OutsideReads[0]
	if o.Buffer != "bias" || o.Bytes != "[32, 64)" || o.Size != 40 || !strings.HasSuffix(o.Pos, "overread.cc:20:26") || o.Holds != "24 zero bytes (no window or buffer there)" {
		t.Errorf("outside read %+v", o)
	}
	// out[8..15] = max(bias[8..15] + in[8..15], 0) with bias[10..15] read as zeros
	in, out := rep.Initial["in"], rep.Outputs["out"]
	for l := 10; l < 16; l++ {
		v := f32(in[4*l:])
		if v < 0 {
			v = 0
		}
		if got := f32(out[4*l:]); got != v {
			t.Errorf("out[%d] = %v, want %v (in %v + zero)", l, got, v, f32(in[4*l:]))
		}
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "warning: "+o.Message) {
		t.Errorf("text report has no warning:\n%s", b.String())
	}
}

// TestOutsideReadNextBuffer: with five regions packed from address 0, a load past the first
// buffer reads the second's bytes, the same in the three implementations.
func TestOutsideReadNextBuffer(t *testing.T) {
	if _, err := emul.Compiler(); err != nil {
		t.Skip("no C++ compiler")
	}
	src := `void over(const float *__restrict a, const float *__restrict b, const float *__restrict c, const float *__restrict d, float *__restrict o) {
    v8float x = *(v8float *)(a + 16);
    v8float y = *(v8float *)b;
    *(v8float *)o = fpadd(x, y, 0, 0x76543210);
    *(v8float *)(o + 8) = fpadd(*(v8float *)c, *(v8float *)d, 0, 0x76543210);
}
`
	sizes := map[string]int{"a": 40, "b": 32, "c": 32, "d": 32, "o": 64}
	rep, err := simSource(t, "next.cc", src, Options{Seed: 5, Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Cycles == nil {
		t.Fatalf("ok %v, cycles %v (%s), mismatches %v", rep.OK, rep.Cycles, rep.TimingError, rep.Mismatches)
	}
	if len(rep.OutsideReads) != 1 || rep.OutsideReads[0].Holds != "bytes [0, 32) of buffer b" || rep.OutsideReads[0].Bytes != "[64, 96)" {
		t.Fatalf("outside reads %+v", rep.OutsideReads)
	}
	b, o := rep.Initial["b"], rep.Outputs["o"]
	for l := 0; l < 8; l++ { // x is b itself: o = 2b
		if got, want := f32(o[4*l:]), f32(b[4*l:])+f32(b[4*l:]); got != want {
			t.Errorf("o[%d] = %v, want %v", l, got, want)
		}
	}
}

// TestOutsideErrors: writes outside a buffer, reads outside the data memory and reads past an
// array with storage of its own stay errors.
func TestOutsideErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"store.cc", `void k(const float *__restrict a, float *__restrict o) {
    *(v8float *)(o + 8) = *(v8float *)a;
}
`, "store v8float at o[8]: bytes [32, 64) are outside buffer o (32 bytes)"},
		{"below.cc", `void k(const float *__restrict a, float *__restrict o) {
    *(v8float *)o = *(v8float *)(a - 8);
}
`, "load v8float at a[-8]: bytes [-32, 0) are outside buffer a (32 bytes)"},
		{"local.cc", `void k(const float *__restrict a, float *__restrict o) {
    alignas(32) float t[8];
    *(v8float *)t = *(v8float *)a;
    *(v8float *)o = *(v8float *)(t + 8);
}
`, "are outside array t (32 bytes); sumac reads past windows and buffers only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := simSource(t, c.name, c.src, Options{Seed: 1, Sizes: map[string]int{"a": 32, "o": 32}, SkipEmulation: "test"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func f32(b []byte) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// TestOutsideReadSystemArea: a read past a buffer into where the backend keeps the window
// descriptors and the spill stack runs in the interpreter and under g++ (zeros there in
// their image) but is a timing error in the cycle simulator, whose memory holds them.
func TestOutsideReadSystemArea(t *testing.T) {
	src := `void k(const float *__restrict a, float *__restrict o) {
    *(v8float *)o = *(v8float *)(a + 15360);
}
`
	rep, err := simSource(t, "sys.cc", src, Options{Seed: 2, Sizes: map[string]int{"a": 32, "o": 32}, SkipEmulation: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.OutsideReads) != 1 || rep.Cycles != nil || !strings.Contains(rep.TimingError, "window descriptors and spill stack") {
		t.Fatalf("outside reads %v, cycles %v, timing error %q", rep.OutsideReads, rep.Cycles, rep.TimingError)
	}
	if o := rep.Outputs["o"]; !bytes.Equal(o, make([]byte, 32)) {
		t.Errorf("o = %v, want the image's zeros", o)
	}
}
