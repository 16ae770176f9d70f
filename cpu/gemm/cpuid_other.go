//go:build !amd64 || noasm

package gemm

func cpuidCaches() []Cache { return nil }
