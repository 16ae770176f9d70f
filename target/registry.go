// Package target is sumac's registry of targets: the only place a --target name is resolved.
// Each target is one folder (its description, lowering and models) and one line of the
// registry below; commands ask Lookup for the name they were given and print Names in their
// errors and in `sumac help targets`.
package target

import (
	"fmt"
	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/xdna"
	"strings"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/compile"
	"github.com/sumacdev/sumac/target/device"
)

// Target is one entry of the registry.
type Target struct {
	Name    string
	Summary string
	// Datapaths and Memories describe the target for `sumac help targets`.
	Datapaths func() []device.Datapath
	Memories  func() []device.Memory
	// Tile is the device and tile model of an AI Engine generation (nil for the host CPU).
	Tile device.Model
	// KernelSets lists the host's kernel sets and which of them this CPU runs (nil for
	// targets without run-time selection).
	KernelSets func() []KernelSet
	// Compiler is the target's side of the compiler seam (nil: sumac compile and tune do not
	// handle the target).
	Compiler compiler.Target
	// Einsum is an AIE-ML / AIE2P tile whose einsum kernels are generated at the VLIW level and
	// whose listings sumac sim runs (nil for other targets).
	Einsum *xdna.Arch
}

// KernelSet is one set of kernels a target picks at run time.
type KernelSet struct {
	Name     string // e.g. "avx2+fma"
	Kernels  string // what it covers
	Selected bool   // this machine runs it
	Why      string // the feature test that selects it
}

// registry lists the targets, one line each.
var registry = []*Target{
	{Name: aie1.Name, Summary: "AMD AI Engine, first generation (Versal VC1902), on sumac's cycle model", Datapaths: aie1.Datapaths, Memories: aie1.Memories, Tile: aie1.VC1902{}, Compiler: compile.Target{}},
	{Name: aieml.Name, Summary: "AMD AIE-ML tile (XDNA1, Ryzen AI Phoenix NPU): bf16 einsum kernels at the VLIW level, cycle-level model", Datapaths: xdnaDatapaths(aieml.Arch), Memories: xdnaMemories(aieml.Arch), Einsum: aieml.Arch},
	{Name: aie2p.Name, Summary: "AMD AIE2P tile (XDNA2, Ryzen AI Strix NPU): bfp16 einsum kernels at the VLIW level, cycle-level model", Datapaths: xdnaDatapaths(aie2p.Arch), Memories: xdnaMemories(aie2p.Arch), Einsum: aie2p.Arch},
	{Name: HostName, Summary: "the host CPU: GEMM and convolution kernels (cpu/kernels), picked by CPUID", Datapaths: hostDatapaths, Memories: hostMemories, KernelSets: hostKernelSets},
}

// All returns the registered targets in registry order.
func All() []*Target { return append([]*Target(nil), registry...) }

// Names returns the registered names in registry order.
func Names() []string {
	var out []string
	for _, t := range registry {
		out = append(out, t.Name)
	}
	return out
}

// Lookup resolves a --target name; an unknown name is an error naming the known ones.
func Lookup(name string) (*Target, error) {
	for _, t := range registry {
		if t.Name == name {
			return t, nil
		}
	}
	return nil, fmt.Errorf("unknown target %q (known targets: %s)", name, strings.Join(Names(), ", "))
}
