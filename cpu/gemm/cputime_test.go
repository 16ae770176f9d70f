//go:build linux

package gemm

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadTime returns the CPU time consumed by the calling OS thread. On a shared machine
// other processes take whole time slices from ours; thread CPU time leaves those out, so
// single-threaded tuning measurements are far steadier than wall-clock ones.
func threadTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// cpuRate runs f n times on one locked OS thread and returns the best and median
// per-call thread CPU time.
func cpuRate(n int, f func()) (best, median time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	ts := make([]time.Duration, n)
	for i := range ts {
		t0 := threadTime()
		f()
		ts[i] = threadTime() - t0
	}
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if ts[j] < ts[i] {
				ts[i], ts[j] = ts[j], ts[i]
			}
		}
	}
	return ts[0], ts[n/2]
}

func TestCPUTimeClock(t *testing.T) {
	runtime.LockOSThread() // thread CPU time is per OS thread
	defer runtime.UnlockOSThread()
	t0 := threadTime()
	x := 0
	for i := 0; i < 1e6; i++ {
		x += i
	}
	if threadTime() < t0 || x == 0 {
		t.Fatal("thread CPU clock went backwards")
	}
}
