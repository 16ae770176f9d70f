//go:build !amd64 || noasm

package kernels

import (
	"errors"
	"unsafe"
)

func amxInUse() bool { return false }

// AMXStatus reports why the AMX kernels cannot run: this build has no amd64 assembly.
func AMXStatus() error {
	return errors.New("kernels: built without the amd64 assembly kernels; no AMX")
}

// The AMX dispatchers run the Go model of the tile instructions in this build.
func kAMXU8S8(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int) {
	amxRun(&amxProgU8S8, kg, a, b, c, ldc, load, tiles)
}

func kAMXS8S8(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int) {
	amxRun(&amxProgS8S8, kg, a, b, c, ldc, load, tiles)
}

func kAMXBF16(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int) {
	amxRun(&amxProgBF16, kg, a, b, c, ldc, load, tiles)
}

func kAMXConvU8S8(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int) {
	amxRunConv(&amxProgConvU8S8, kg, a, b, c, ldc, load, tiles, lda, offs)
}

func kAMXConvS8S8(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int) {
	amxRunConv(&amxProgConvS8S8, kg, a, b, c, ldc, load, tiles, lda, offs)
}

func kAMXConvBF16(kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int) {
	amxRunConv(&amxProgConvBF16, kg, a, b, c, ldc, load, tiles, lda, offs)
}
