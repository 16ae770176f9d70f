package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
)

// TestStreamRowsHavePLIO: every row whose kernel has a stream port gives its PLIO settings
// (from the row's graph), and each names a stream port of the kernel. The kernels are read
// from the checkouts under $CORPUS_ROOT (as `go run ./tools/corpus -root`); skipped without.
func TestStreamRowsHavePLIO(t *testing.T) {
	root := os.Getenv("CORPUS_ROOT")
	if root == "" {
		t.Skip("CORPUS_ROOT not set (the corpus checkouts, as for -root)")
	}
	for _, k := range corpus {
		dir := tree(root, k.Source)
		file := filepath.Join(dir, k.File)
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var incs []string
		for _, d := range k.Includes {
			incs = append(incs, filepath.Join(dir, d))
		}
		kern, err := cfront.ParseKernelConfig(file, src, &cfront.Config{Defines: k.Defines, Instance: k.Instance, IncludeDirs: incs})
		if err != nil {
			continue // a row sumac cannot parse yet (the table reports it)
		}
		streams := map[string]bool{}
		for _, p := range kern.Params {
			if p.Type.IsStream() && !p.Type.IsCascade() {
				streams[p.Name] = true
			}
		}
		if len(streams) > 0 && k.PLIO == nil {
			t.Errorf("%s: stream ports but no PLIO settings", k.Name)
		}
		for port, pl := range k.PLIO {
			if !streams[port] {
				t.Errorf("%s: PLIO for %s, not a stream port", k.Name, port)
			}
			if err := pl.Valid(); err != nil {
				t.Errorf("%s: %s: %v", k.Name, port, err)
			}
		}
	}
}
