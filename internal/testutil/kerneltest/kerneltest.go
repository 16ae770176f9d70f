// Package kerneltest holds test helpers for the AIE1 kernel packages (target/aie1/...).
package kerneltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Parse reads kernel name from target/aie1/testdata, seen from a package beside it
// (../testdata), with the -D defines; a missing file skips the test.
func Parse(t testing.TB, name string, defines ...string) *kernel.Kernel {
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
