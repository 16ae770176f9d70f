// Command x86gen writes the generated micro-kernels of cpu/kernels into a directory.
//
//	go run ./internal/x86gen/cmd/x86gen -out cpu/kernels
//
// cpu/kernels runs it through go generate; a test there checks the committed files match.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sumacdev/sumac/internal/x86gen"
)

func main() {
	out := flag.String("out", ".", "directory to write the generated files into")
	pkg := flag.String("pkg", "kernels", "Go package name of the generated files")
	flag.Parse()
	files, err := x86gen.Generate(*pkg, x86gen.Catalog())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range files.Names() {
		if err := os.WriteFile(filepath.Join(*out, name), files[name], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "x86gen:", err)
			os.Exit(1)
		}
	}
}
