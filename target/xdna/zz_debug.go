package xdna

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
)

func DebugGen(a *Arch, spec string) {
	s, _ := op.Parse(spec)
	for extra := 0; extra < 3; extra++ {
		for _, prio := range []bool{true, false} {
			k, err := genAIE2(a, s.Einsum, "x", genOpts{prio: prio, acc: true, extra: extra})
			if err == nil {
				_, err = k.emit()
			}
			fmt.Println(extra, prio, err)
		}
	}
}
