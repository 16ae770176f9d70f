package main

import (
	"encoding/json"
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestWithin(t *testing.T) {
	if err := within([]float64{1, 2}, []float64{1, 2.5}, []float64{0, 0.5}); err != nil {
		t.Error(err)
	}
	if err := within([]float64{1, 2}, []float64{1, 2.5}, []float64{0, 0.4}); err == nil {
		t.Error("error above the bound accepted")
	}
	if err := within([]float64{math.NaN()}, []float64{1}, []float64{1}); err == nil {
		t.Error("NaN accepted")
	}
}

// TestGeneratorsDeterministic: parent and workers must derive identical operands.
func TestGeneratorsDeterministic(t *testing.T) {
	a, b := make([]float32, 100), make([]float32, 100)
	fillF32(a, 42)
	fillF32(b, 42)
	for i := range a {
		if a[i] != b[i] || a[i] < -1 || a[i] >= 1 {
			t.Fatalf("fillF32: %v vs %v", a[i], b[i])
		}
	}
	u := make([]uint8, 1000)
	fillU8(u, 1, u8Max)
	for _, v := range u {
		if v > u8Max {
			t.Fatalf("activation %d above %d", v, u8Max)
		}
	}
}

// FuzzServe: a worker given any request line answers with an error, never a panic or a
// huge allocation (no library is loaded here, so valid tasks fail in the library call).
func FuzzServe(f *testing.F) {
	f.Add([]byte(`{"cmd":"prepare","id":1,"task":{"name":"x","kind":"gemm","dtype":"float32","M":4,"N":4,"K":4}}`))
	f.Add([]byte(`{"cmd":"prepare","task":{"kind":"conv","dtype":"u8s8","conv":{"X":1,"Y":1,"K":1,"C":1,"R":1,"S":1,"N":1,"Stride":1,"Dilation":1,"Groups":1,"XIn":1,"YIn":1}}}`))
	f.Add([]byte(`{"cmd":"run","id":9,"min_seconds":0.001}`))
	f.Add([]byte(`{"cmd":"prepare","task":{"kind":"gemm","dtype":"float64","M":1000000,"N":1000000,"K":1}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var req request
		if json.Unmarshal(line, &req) != nil {
			return
		}
		if req.Task != nil && req.Task.validate() == nil {
			return // a valid task would run a (missing) peer library; validate is what is fuzzed
		}
		_ = serve(&req, map[int]*peerOp{})
	})
}
