package kernels

import (
	"bytes"
	"os"
	"testing"

	"github.com/sumacdev/sumac/internal/x86gen"
)

// TestGeneratedFilesUpToDate regenerates the kernels in-process and compares them byte for
// byte with the committed files: run `go generate ./cpu/kernels` after changing x86gen.
func TestGeneratedFilesUpToDate(t *testing.T) {
	files, err := x86gen.Generate("kernels", x86gen.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files.Names() {
		have, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v (run go generate ./cpu/kernels)", name, err)
		}
		if !bytes.Equal(have, files[name]) {
			t.Errorf("%s differs from the generator's output: run go generate ./cpu/kernels", name)
		}
	}
}
