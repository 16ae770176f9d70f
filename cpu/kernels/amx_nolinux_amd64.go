//go:build amd64 && !noasm && !linux

package kernels

import "errors"

// requestTileData: only Linux's permission request (arch_prctl) is implemented.
func requestTileData() error {
	return errors.New("kernels: the AMX tile data permission is requested only on Linux")
}
