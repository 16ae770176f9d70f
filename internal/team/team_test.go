package team

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTeamRunsEveryWorkerOnce runs calls of 1 to 5 workers from several goroutines at once,
// back to back (members still spinning) and after pauses longer than idleSpin (members
// asleep): every worker index runs exactly once per call, and run returns only after all.
func TestTeamRunsEveryWorkerOnce(t *testing.T) {
	var tm team
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 200; it++ {
				threads := 1 + (it+g)%5
				var hits [5]atomic.Int32
				tm.run(threads, func(w int) {
					if w%2 == 1 {
						time.Sleep(time.Duration(it%3) * 10 * time.Microsecond)
					}
					hits[w].Add(1)
				})
				for w := range hits {
					want := int32(0)
					if w < threads {
						want = 1
					}
					if got := hits[w].Load(); got != want {
						t.Errorf("call %d with %d workers: worker %d ran %d times", it, threads, w, got)
						return
					}
				}
				if it%50 == 49 {
					time.Sleep(2 * idleSpin) // let the members park
				}
			}
		}()
	}
	wg.Wait()
}

// TestBarrierRounds checks that no worker leaves a round of the barrier before all have
// arrived, over many rounds, with waits both shorter and longer than the spin.
func TestBarrierRounds(t *testing.T) {
	const n, rounds = 3, 300
	b := NewBarrier(n)
	var arrived [rounds]atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if w == r%n && r%100 == 0 {
					time.Sleep(2 * barrierSpin) // the others fall asleep
				}
				arrived[r].Add(1)
				b.Wait()
				if got := arrived[r].Load(); got != n {
					t.Errorf("round %d: left the barrier with %d of %d arrived", r, got, n)
					return
				}
			}
		}()
	}
	wg.Wait()
}
