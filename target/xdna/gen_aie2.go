package xdna

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
)

func genAIE2(a *Arch, e *op.Einsum, name string) (*kern, error) {
	return nil, fmt.Errorf("aieml: not yet")
}
