package harness_test

import (
	"fmt"
	"os"

	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/harness"
)

// Simulate a C++ AIE1 kernel: seed 001's 16x4 int16 GEMM micro-kernel (Fig. 4) at Kc = 16,
// run on the interpreter and on the cycle simulator (the g++ emulation check is skipped here,
// so the example needs no C++ compiler; 'sumac sim' runs it).
func ExampleRun() {
	const file = "../testdata/lei_gemm_16x4.cc"
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Println(err)
		return
	}
	defines := []string{"Kc=16"}
	k, err := cfront.ParseKernel(file, src, defines)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := harness.Run(k, harness.Source{File: file, Text: src, Defines: defines},
		harness.Options{Seed: 1, SkipEmulation: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d MACs in %d cycles (%.1f MACs/cycle), ok %v\n", r.Kernel, r.MACs, *r.Cycles, *r.MACsPerCycle, r.OK)
	// Output:
	// micro_kernel: 1024 MACs in 113 cycles (9.1 MACs/cycle), ok true
}
