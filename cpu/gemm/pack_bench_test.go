package gemm

import "testing"

// Packing speed in ns per element for the float32 6x16 kernel's panels (kc = 256).
func BenchmarkPack(b *testing.B) {
	const mr, nr, kc, mn, ld = 6, 16, 256, 252, 1024
	src := randF32(ld * ld)
	dst := make([]float32, kc*(mn+16))
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"A/notrans", func() { packA(dst, view[float32]{src, ld, 1}, 0, mn, 0, kc, mr, 1) }},
		{"A/trans", func() { packA(dst, view[float32]{src, 1, ld}, 0, mn, 0, kc, mr, 1) }},
		{"B/notrans", func() { packB(dst, view[float32]{src, ld, 1}, 0, kc, 0, mn, nr, 1) }},
		{"B/trans", func() { packB(dst, view[float32]{src, 1, ld}, 0, kc, 0, mn, nr, 1) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.f()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(kc*mn), "ns/elem")
		})
	}
}
