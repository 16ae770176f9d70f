package backend

import (
	"fmt"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// checkADF rejects, with a clear error, the kernel IR constructs of ADF kernels this backend
// does not compile.
func checkADF(k *kernel.Kernel) error {
	for _, v := range k.Vars {
		if v.Storage != nil {
			return fmt.Errorf("%v: array %s (%v storage) is not supported by the AIE1 backend yet", v.Pos, v.Name, v.Storage.Kind)
		}
	}
	var err error
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		if x, ok := s.(*kernel.If); ok && err == nil {
			err = fmt.Errorf("%v: a run-time if is not supported by the AIE1 backend yet", x.Pos)
		}
	})
	return err
}
