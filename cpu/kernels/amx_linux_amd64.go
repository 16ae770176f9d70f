//go:build amd64 && !noasm && linux

package kernels

import (
	"fmt"
	"syscall"
	"unsafe"
)

// Linux's arch_prctl codes and the XSAVE feature number of the AMX tile data (the kernel's
// arch/x86/include/uapi/asm/prctl.h and Documentation/arch/x86/xstate.rst; Intel SDM vol. 1
// section 13.1: state component 18 is XTILEDATA).
const (
	archGetXcompPerm  = 0x1022
	archReqXcompPerm  = 0x1023
	xfeatureXTileData = 18
)

// requestTileData asks Linux for the permission to use the AMX tile data (a process must,
// since Linux 5.16, before its first tile instruction, or it gets SIGILL) and checks that it
// was granted.
func requestTileData() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXTileData, 0); e != 0 {
		return fmt.Errorf("kernels: the OS refused the AMX tile data (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): %v; Linux before 5.16 or a hypervisor that does not expose it)", e)
	}
	var mask uint64
	if _, _, e := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archGetXcompPerm, uintptr(unsafe.Pointer(&mask)), 0); e != 0 {
		return fmt.Errorf("kernels: arch_prctl(ARCH_GET_XCOMP_PERM): %v", e)
	}
	if mask&(1<<xfeatureXTileData) == 0 {
		return fmt.Errorf("kernels: the OS did not grant the AMX tile data (permitted xstate mask %#x)", mask)
	}
	return nil
}
