package xdna_test

import (
	"testing"

	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/xdna"
)

func TestDbgPrio(t *testing.T) {
	xdna.DebugGen(aieml.Arch, "einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=4 m0=4 k0=8 n1=8 n0=4 dtype=bf16")
}
