package cemit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
)

// roundTrip checks that emit -> parse -> emit reproduces the emitted text.
func roundTrip(t *testing.T, name string, src []byte, defines []string) string {
	t.Helper()
	k, err := cfront.ParseKernel(name, src, defines)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	text1, err := Emit(k)
	if err != nil {
		t.Fatalf("emit %s: %v", name, err)
	}
	k2, err := cfront.ParseKernel(name+".emitted", []byte(text1), nil)
	if err != nil {
		t.Fatalf("re-parse of emitted %s: %v\n%s", name, err, text1)
	}
	text2, err := Emit(k2)
	if err != nil {
		t.Fatalf("re-emit %s: %v", name, err)
	}
	if text1 != text2 {
		t.Fatalf("%s: emit -> parse -> emit is not a fixed point\nfirst:\n%s\nsecond:\n%s", name, text1, text2)
	}
	return text1
}

func TestRoundTripTestdata(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*.cc")
	if len(files) == 0 {
		t.Fatal("no testdata kernels")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := roundTrip(t, filepath.Base(f), src, nil)
		if testing.Verbose() {
			t.Logf("%s:\n%s", f, text)
		}
	}
}
