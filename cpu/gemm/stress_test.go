package gemm

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil"
)

// TestConcurrentUnderGC runs multi-threaded GEMMs from several goroutines at once while
// the collector runs continuously; products of small integers are exact in float32, so
// every element is checked for equality.
func TestConcurrentUnderGC(t *testing.T) {
	const m, n, k = 97, 83, 300
	a, b := make([]float32, m*k), make([]float32, k*n)
	for i := range a {
		a[i] = float32(i%7 - 3)
	}
	for i := range b {
		b[i] = float32(i%5 - 2)
	}
	want := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float32
			for p := 0; p < k; p++ {
				s += a[i*k+p] * b[p*n+j]
			}
			want[i*n+j] = s
		}
	}
	stop := testutil.GCStress()
	errs := make(chan error, 3)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := Options{Threads: 2, Blocking: &Blocking{MC: 24, KC: 64, NC: 48}} // many blocks, many barriers
			for it := 0; it < 30; it++ {
				c := make([]float32, m*n)
				if err := o.Sgemm(NoTrans, NoTrans, m, n, k, 1, a, k, b, n, 0, c, n); err != nil {
					errs <- err
					return
				}
				for i := range c {
					if c[i] != want[i] {
						errs <- fmt.Errorf("worker %d iteration %d: C[%d] = %v, want %v", w, it, i, c[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	stop()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
