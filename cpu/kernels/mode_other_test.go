//go:build !amd64 || noasm

package kernels

func implementations() []string { return []string{"go"} }

func use(string) (restore func()) { return func() {} }
