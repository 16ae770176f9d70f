package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
)

func TestZZStreams(t *testing.T) {
	for _, k := range corpus {
		dir := tree("/tmp/corpus/root", k.Source)
		file := filepath.Join(dir, k.File)
		var incs []string
		for _, d := range k.Includes {
			incs = append(incs, filepath.Join(dir, d))
		}
		src, _ := os.ReadFile(file)
		kern, err := cfront.ParseKernelConfig(file, src, &cfront.Config{Defines: k.Defines, Instance: k.Instance, IncludeDirs: incs})
		if err != nil {
			fmt.Println(k.Name, "ERR", err)
			continue
		}
		s := ""
		for _, p := range kern.Params {
			if p.Type.IsStream() {
				s += fmt.Sprintf(" %s:%v", p.Name, p.Type)
			}
		}
		if s != "" {
			fmt.Printf("%s | %s | %s\n", k.Name, k.Source.Commit[:12], s)
		}
	}
}
