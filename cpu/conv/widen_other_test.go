//go:build !amd64 || noasm

package conv

func withAVX2(bool) bool { return false }
