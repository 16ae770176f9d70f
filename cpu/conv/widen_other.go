//go:build !amd64 || noasm

package conv

// widenRange zero-extends src into dst.
func widenRange(dst []int16, src []uint8) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = int16(v)
	}
}
