// Package interp runs an AIE1 kernel (package target/aie1/kernel) on memory images: windows and
// pointer buffers are byte regions placed in the tile's 128 KB data-memory view, registers
// are typed variables, and every op has the exact semantics of target/aie1/kernel. It reports the
// final memory, the final accumulators, MAC counts, reads of never-written variables, and
// stops with an error that names the access when a kernel reads or writes outside a region.
package interp

import (
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Region is the memory of one window or pointer parameter, or of an array with storage of
// its own (a local, static, global or class-member array: Storage).
type Region struct {
	Name    string
	Addr    uint32 // byte address in the 128 KB AGU view (target/aie1.BankOf maps it to a bank)
	Size    int    // bytes
	Window  bool   // a window parameter (has a read/write position); else a pointer buffer
	Out     bool   // an output window
	Storage bool   // an array variable's own memory (not a parameter)
}

// SystemBytes is the top of the last memory module used that the spread placement leaves to
// the window descriptors and the spill stack (the AIE1 backend's DefaultLayout puts them
// there), so that the interpreter's addresses are the backend's and a read outside a region
// sees the same bytes in both.
const SystemBytes = 4096

// RegionAlign is the alignment of every region: 32 bytes, the width of a 256-bit load or
// store (target/aie1.LoadBits), so that aligned vector accesses inside a region stay aligned.
const RegionAlign = 32

// Place assigns addresses to regions given in parameter order (the placement policy):
//
//   - If there are at most four regions, each fits in 32 KB and the last leaves SystemBytes
//     free at the top of its module, region i starts at the base
//     of memory module i of the core's 128 KB view (south, west, north, east: target/aie1
//     Neighbours). Accesses to different regions then never share a bank, which is the
//     "all data in place in local memory" setting in which seeds 000, 001 and 004 measure
//     their kernels, and each buffer is reachable by both load units at once.
//   - Otherwise regions are packed from address 0 in parameter order, each aligned to
//     RegionAlign bytes.
//
// It fails when the regions do not fit in the 128 KB the core reaches (target/aie1
// ReachBytes), unless limit is larger (the measuring run of Measure uses a larger limit).
// The core's stack and heap (1 KB each by default) are not modelled.
func Place(regs []Region, limit int) error {
	if limit <= 0 {
		limit = aie1.ReachBytes
	}
	spread := len(regs) <= len(aie1.Neighbours)
	for i, r := range regs {
		if r.Size < 0 {
			return fmt.Errorf("region %s: negative size %d", r.Name, r.Size)
		}
		if r.Size > aie1.DataMemBytes || i == len(regs)-1 && r.Size > aie1.DataMemBytes-SystemBytes {
			spread = false
		}
	}
	if spread && limit == aie1.ReachBytes {
		for i := range regs {
			regs[i].Addr = uint32(i * aie1.DataMemBytes)
		}
		return nil
	}
	addr := 0
	for i := range regs {
		addr = (addr + RegionAlign - 1) &^ (RegionAlign - 1)
		regs[i].Addr = uint32(addr)
		addr += regs[i].Size
	}
	if addr > limit {
		var parts []string
		for _, r := range regs {
			parts = append(parts, fmt.Sprintf("%s %d", r.Name, r.Size))
		}
		sort.Strings(parts)
		return fmt.Errorf("windows and buffers need %d bytes (%v), more than the %d bytes of data memory a core reaches", addr, parts, limit)
	}
	return nil
}

// regionsOf lists the memory parameters of k with sizes from cfg.
func regionsOf(k *kernel.Kernel, sizes map[string]int, data map[string][]byte, dflt int) ([]Region, error) {
	var regs []Region
	for _, p := range k.Params {
		if !p.Type.IsWindow() && !p.Type.IsPointer() {
			continue
		}
		size, ok := sizes[p.Name]
		if !ok && p.Array > 0 && p.Port != kernel.PortPointer {
			size, ok = p.Array*p.Type.Pointee().Bytes(), true // an array parameter or a buffer with extents
		}
		if !ok {
			if d, ok2 := data[p.Name]; ok2 {
				size, ok = len(d), true
			}
		}
		if !ok {
			if dflt <= 0 {
				return nil, fmt.Errorf("no size for %v %s: give its contents or its size (interp.Config.Sizes)", p.Type, p.Name)
			}
			size = dflt
		}
		if d := data[p.Name]; len(d) > size {
			return nil, fmt.Errorf("%s: %d bytes of data for a %d-byte region", p.Name, len(d), size)
		}
		regs = append(regs, Region{Name: p.Name, Size: size, Window: p.Type.IsWindow(), Out: p.Type.Out})
	}
	for _, v := range k.Vars {
		if v.Storage != nil {
			regs = append(regs, Region{Name: v.Name, Size: v.Storage.Bytes, Storage: true})
		}
	}
	return regs, nil
}
