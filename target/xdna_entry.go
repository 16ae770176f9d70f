package target

import (
	"fmt"

	"github.com/sumacdev/sumac/target/device"
	"github.com/sumacdev/sumac/target/xdna"
)

// xdnaDatapaths lists an AIE-ML / AIE2P tile's MAC modes (M x K x N per VMAC.F: M*N output
// lanes of K columns each), from its cited description.
func xdnaDatapaths(a *xdna.Arch) func() []device.Datapath {
	return func() []device.Datapath {
		var ds []device.Datapath
		for _, m := range a.Modes {
			note := fmt.Sprintf("VMAC %dx%dx%d (%s)", m.M, m.K, m.N, m.Source)
			if !m.Modeled {
				note += "; not executed by the model"
			}
			acc := "fp32"
			if m.DType == "int8" || m.DType == "int16" {
				acc = "int32"
			}
			ds = append(ds, device.Datapath{Type: m.DType + " x " + m.DType, Lanes: m.M * m.N, Cols: m.K,
				MACsPerCycle: m.M * m.K * m.N, Accumulator: acc, Note: note})
		}
		return ds
	}
}

// xdnaMemories lists what an AIE-ML / AIE2P tile's kernels use.
func xdnaMemories(a *xdna.Arch) func() []device.Memory {
	return func() []device.Memory {
		return []device.Memory{
			{Name: "data memory", Bytes: a.DataMemBytes, Note: fmt.Sprintf("loads %d B, stores %d B per instruction", a.LoadBytes, a.StoreBytes)},
			// One accumulator holds the M x N fp32 lanes of the kernel mode's VMAC.F.
			{Name: "accumulators", Bytes: a.AccRegs * a.Mode.M * a.Mode.N * 4, Note: fmt.Sprintf("%d of %d fp32 lanes usable by the einsum kernels in the %s mode", a.AccRegs, a.Mode.M*a.Mode.N, a.Mode.DType)},
		}
	}
}
