// Package team runs the workers of sumac's multi-threaded kernels (cpu/gemm, cpu/conv, nn)
// on a team of long-lived goroutines.
//
// Starting a goroutine per call, or waking a sleeping one, puts it on the caller's
// processor; another core picks it up only after its OS thread wakes, which on a virtual
// machine whose second vCPU sits halted takes tens to hundreds of microseconds (a 2-thread
// SGEMM 256^3 ran only 1.13x faster than one thread, 128^3 slower). So members keep their
// core busy for a short while after each job (idleSpin, yielding to other goroutines) and
// work that follows soon, as a network's layers do, starts at once; then they sleep.
// OpenMP runtimes and OpenBLAS's threads wait the same way.
package team

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// team is a pool of members; idle ones wait for their next assignment.
type team struct {
	mu   sync.Mutex
	idle []*member
}

// idleSpin is how long a member polls for its next job before it sleeps.
const idleSpin = 500 * time.Microsecond

// member is one goroutine of the team.
type member struct {
	next   atomic.Pointer[assignment]
	parked atomic.Bool
	wake   chan struct{} // a token wakes a parked member
}

// assignment is one worker index of one call.
type assignment struct {
	c *call
	t int
}

// call is one parallel run of fn(0) .. fn(threads-1).
type call struct {
	fn      func(t int)
	pending atomic.Int32
	done    chan struct{} // closed when pending reaches zero
}

var workers team

// Run calls fn(t) for t in 0..threads-1, fn(0) on the calling goroutine and the others on
// team members, and returns when all have returned. Calls from several goroutines at once
// get members of their own.
func Run(threads int, fn func(t int)) { workers.run(threads, fn) }

func (tm *team) run(threads int, fn func(t int)) {
	if threads <= 1 {
		fn(0)
		return
	}
	ms := tm.take(threads - 1)
	c := &call{fn: fn, done: make(chan struct{})}
	c.pending.Store(int32(threads - 1))
	for i, m := range ms {
		m.give(&assignment{c: c, t: i + 1})
	}
	fn(0)
	c.wait()
	tm.put(ms)
}

func (tm *team) take(n int) []*member {
	tm.mu.Lock()
	k := min(n, len(tm.idle))
	ms := append([]*member(nil), tm.idle[len(tm.idle)-k:]...)
	tm.idle = tm.idle[:len(tm.idle)-k]
	tm.mu.Unlock()
	for len(ms) < n {
		m := &member{wake: make(chan struct{}, 1)}
		go m.loop()
		ms = append(ms, m)
	}
	return ms
}

func (tm *team) put(ms []*member) {
	tm.mu.Lock()
	tm.idle = append(tm.idle, ms...)
	tm.mu.Unlock()
}

func (m *member) give(a *assignment) {
	m.next.Store(a)
	if m.parked.CompareAndSwap(true, false) {
		select {
		case m.wake <- struct{}{}:
		default: // a token is already pending
		}
	}
}

func (m *member) loop() {
	for {
		a := m.poll()
		a.c.fn(a.t)
		if a.c.pending.Add(-1) == 0 {
			close(a.c.done)
		}
	}
}

// poll returns the next assignment: it spins for idleSpin, then sleeps until given one.
func (m *member) poll() *assignment {
	var a *assignment
	if spinUntil(func() bool { a = m.next.Swap(nil); return a != nil }, idleSpin) {
		return a
	}
	for {
		m.parked.Store(true)
		if a := m.next.Swap(nil); a != nil { // given between the spin and parking
			m.parked.Store(false)
			return a
		}
		<-m.wake
		if a := m.next.Swap(nil); a != nil {
			return a
		}
		// A stale token (from a give that found the member still spinning): park again.
	}
}

// wait returns when every member's part of the call has returned: it spins briefly (the
// parts are about equal) and then sleeps.
func (c *call) wait() {
	if !spinUntil(func() bool { return c.pending.Load() == 0 }, idleSpin) {
		<-c.done
	}
}

// spinUntil polls done for up to d and reports whether it became true. It yields the
// processor now and then, in case the goroutine it waits for is queued on it.
func spinUntil(done func() bool, d time.Duration) bool {
	start := time.Now()
	for i := 1; !done(); i++ {
		if i%64 == 0 {
			runtime.Gosched()
			if time.Since(start) > d {
				return done()
			}
		}
	}
	return true
}

// Barrier is a reusable rendezvous of a fixed number of goroutines. A nil Barrier is a
// no-op (one thread).
//
// Waiters spin for a while before they sleep, for the reason members do (see the package
// comment): a sleeping waiter would resume on the waker's core. Spinning keeps each worker
// on its own core across the short waits between a GEMM's blocks.
type Barrier struct {
	n     int32
	count atomic.Int32
	gen   atomic.Uint32
	mu    sync.Mutex
	cond  *sync.Cond
}

// barrierSpin bounds the spinning of a waiter; longer waits (a thread descheduled by
// the OS) sleep.
const barrierSpin = 200 * time.Microsecond

// NewBarrier returns a barrier for n goroutines.
func NewBarrier(n int) *Barrier {
	b := &Barrier{n: int32(n)}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Wait returns once all n goroutines have called it in this round.
func (b *Barrier) Wait() {
	if b == nil {
		return
	}
	gen := b.gen.Load()
	if b.count.Add(1) == b.n {
		// Last to arrive: reset for the next round, then release (the count is reset
		// before anyone can leave, so the next round's arrivals count from zero).
		b.count.Store(0)
		b.mu.Lock()
		b.gen.Add(1)
		b.cond.Broadcast()
		b.mu.Unlock()
		return
	}
	if spinUntil(func() bool { return b.gen.Load() != gen }, barrierSpin) {
		return
	}
	b.mu.Lock()
	for b.gen.Load() == gen {
		b.cond.Wait()
	}
	b.mu.Unlock()
}
