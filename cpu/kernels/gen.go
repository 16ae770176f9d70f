package kernels

//go:generate go run ../../internal/x86gen/cmd/x86gen -out .
