package tune

import (
	"testing"

	"github.com/sumacdev/sumac/op"
)

// The peeled regions of a padded convolution cover every output once and do its MACs minus
// those on the padding's zeros: every region's windows lie inside the input.
func TestPeelRegions(t *testing.T) {
	for _, text := range []string{
		"conv2d x=56 y=4 k=16 c=16 r=3 s=3 stride=2 pad=1 dtype=int16",
		"conv2d x=16 y=16 r=5 s=5 pad=2 dtype=int32",
		"conv2d x=112 y=112 k=64 c=3 r=7 s=7 stride=2 pad=3 xin=224 yin=224 dtype=uint8",
		"conv2d x=10 y=3 r=3 s=3 pad=1 dilation=2 dtype=int16",
	} {
		s := op.MustParse(text)
		rs, err := Peel(s)
		if err != nil {
			t.Fatal(err)
		}
		c := s.Conv
		// MACs that read inside the input, counted directly
		var inside int64
		for y := 0; y < c.Y; y++ {
			for x := 0; x < c.X; x++ {
				for fs := 0; fs < c.S; fs++ {
					for fr := 0; fr < c.R; fr++ {
						ix, iy := x*c.Stride+fr*c.Dilation-c.Pad, y*c.Stride+fs*c.Dilation-c.Pad
						if ix >= 0 && ix < c.XIn && iy >= 0 && iy < c.YIn {
							inside += int64(c.K * c.C / c.Groups)
						}
					}
				}
			}
		}
		var outs, macs int64
		for _, r := range rs {
			if r.Spec.Conv.Pad != 0 {
				t.Errorf("%s: region %s is padded", text, r.Name)
			}
			outs += int64(r.Spec.Conv.X * r.Spec.Conv.Y)
			macs += r.Spec.MACs()
		}
		if outs != int64(c.X*c.Y) || macs != inside {
			t.Errorf("%s: %d regions cover %d of %d outputs with %d MACs, want %d", text, len(rs), outs, c.X*c.Y, macs, inside)
		}
	}
}
