package main

// prepareSumac builds sumac's implementation of a task.
//
// STAND-IN: until cpu/gemm and cpu/conv land this runs plain loops, so the harness can be
// exercised end to end; the figures it prints are not sumac's.
func prepareSumac(t *Task, threads int, exactPath bool) (*peerOp, error) {
	_ = threads
	_ = exactPath
	a, b := operands(t)
	c := make([]float64, t.cLen())
	op := &peerOp{free: func() {}, result: func() ([]float64, error) { return c, nil }}
	switch {
	case t.Kind == "gemm":
		op.run = func() error {
			for i := 0; i < t.M; i++ {
				row := c[i*t.N : (i+1)*t.N]
				clear(row)
				for p := 0; p < t.K; p++ {
					av := a[i*t.K+p]
					for j, bv := range b[p*t.N : (p+1)*t.N] {
						row[j] += av * bv
					}
				}
			}
			return nil
		}
	default:
		op.run = func() error {
			want, _, err := exact(t)
			copy(c, want)
			return err
		}
	}
	return op, nil
}
