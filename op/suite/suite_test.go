package suite

import (
	"testing"

	"github.com/sumacdev/sumac/op"
)

// TestVyasa36 checks the suite against seed 000's #MACs columns and kinds.
func TestVyasa36(t *testing.T) {
	s, err := Get("vyasa36")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Workloads) != 36 {
		t.Fatalf("%d workloads, want 36", len(s.Workloads))
	}
	want := map[string]int64{ // Table III (by filter size) and Table IV (by row)
		"2d-2x2": 16384, "2d-3x3": 36864, "2d-4x4": 65536, "2d-5x5": 102400, "2d-6x6": 147456,
		"2d-7x7": 200704, "2d-8x8": 262144, "2d-9x9": 331776, "2d-10x10": 409600, "2d-11x11": 495616,
		"reg-3x3": 294912, "reg-5x5": 819200, "reg-7x7": 1605632, "pw-1x1": 32768, "ss-1x3": 98304,
		"ss-3x1": 98304, "ds-3x3": 36864, "fc": 32768,
	}
	kinds := map[string]op.Kind{"2d": op.Kind2D, "reg": op.KindREG, "pw": op.KindPW, "ss": op.KindSS, "ds": op.KindDS, "fc": op.KindFC}
	seen := map[string]int{}
	for _, w := range s.Workloads {
		base, dt := w.Name[:len(w.Name)-6], w.Name[len(w.Name)-5:]
		if w.Spec.MACs() != want[base] {
			t.Errorf("%s: %d MACs, table says %d", w.Name, w.Spec.MACs(), want[base])
		}
		if w.Spec.Types.A.String() != dt {
			t.Errorf("%s has dtype %v", w.Name, w.Spec.Types.A)
		}
		prefix := base
		for i, c := range base {
			if c == '-' {
				prefix = base[:i]
				break
			}
		}
		if w.Spec.Kind() != kinds[prefix] {
			t.Errorf("%s: kind %s, want %s", w.Name, w.Spec.Kind(), kinds[prefix])
		}
		if w.Paper == nil {
			t.Errorf("%s lacks the paper's schedule", w.Name)
		}
		seen[base]++
	}
	for b := range want {
		if seen[b] != 2 {
			t.Errorf("%s appears %d times, want 2 (int32, int16)", b, seen[b])
		}
	}
}

func TestOtherSuites(t *testing.T) {
	counts := map[string]int{"resnet50": 20, "mobilenet-dw2": 4, "gemm": 5, "lei-gemm": 4, "xdna": 2, "mnist-cnn": 5}
	for name, n := range counts {
		s, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Workloads) != n {
			t.Errorf("%s: %d workloads, want %d", name, len(s.Workloads), n)
		}
	}
	r, _ := Get("resnet50")
	for _, w := range r.Workloads {
		c := w.Spec.Conv
		if c == nil || c.N != 1 {
			t.Fatalf("%s: not a batch-1 convolution", w.Name)
		}
		if c.Stride == 1 && (c.XIn != c.X || c.YIn != c.Y) {
			t.Errorf("%s: padding does not keep the output size (%dx%d -> %dx%d)", w.Name, c.XIn, c.YIn, c.X, c.Y)
		}
	}
	c1, _ := r.Find("C1")
	if c1.Spec.Conv.XIn != 224 || c1.Spec.Conv.X != 112 {
		t.Errorf("C1: %v", c1.Spec)
	}
	x, _ := Get("xdna")
	if w, _ := x.Find("xdna2-bfp16-64x96x64"); w.Spec.MACs() != 64*96*64 {
		t.Errorf("xdna2 MACs %d", w.Spec.MACs())
	}
	if _, err := Get("nope"); err == nil {
		t.Fatal("unknown suite accepted")
	}
}
