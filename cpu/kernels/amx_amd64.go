//go:build amd64 && !noasm

package kernels

import (
	"errors"
	"sync"

	"golang.org/x/sys/cpu"
)

var (
	amxOnce sync.Once
	amxErr  error
)

// amxUsable reports why the AMX kernels cannot run (nil when they can): the CPU lacks
// AMX-TILE, AMX-INT8 or AMX-BF16 (CPUID.(EAX=7,ECX=0):EDX bits 24, 25 and 22, Intel SDM
// vol. 2A "CPUID"; golang.org/x/sys/cpu reads them), or the OS refuses the tile data state.
// The permission is asked once per process (requestTileData).
func amxUsable() error {
	amxOnce.Do(func() {
		if !cpu.X86.HasAMXTile || !cpu.X86.HasAMXInt8 || !cpu.X86.HasAMXBF16 {
			amxErr = errors.New("kernels: the CPU has no AMX (CPUID.(7,0):EDX AMX-TILE bit 24, AMX-INT8 bit 25, AMX-BF16 bit 22)")
			return
		}
		amxErr = requestTileData()
	})
	return amxErr
}

// AMXStatus reports whether the AMX tile kernels can run on this machine, whatever the cap:
// nil, or the reason (the CPU lacks AMX, or the OS refused the tile data permission).
func AMXStatus() error { return amxUsable() }

func amxInUse() bool { return useAMX }
