package op

import "fmt"

// Limits that keep every element and MAC count far from int overflow, on 64-bit and 32-bit
// platforms alike for the element counts a slice can hold.
const (
	maxElems = 1 << 40
	maxMACs  = 1 << 50
)

// prod multiplies positive sizes, saturating at 1<<62 so that oversized specs are reported
// rather than wrapped.
func prod(v ...int) int64 {
	p := int64(1)
	for _, x := range v {
		if x <= 0 {
			return 0
		}
		if p > (1<<62)/int64(x) {
			return 1 << 62
		}
		p *= int64(x)
	}
	return p
}

// checkSizes rejects specs whose tensors (all but the last argument) or MAC count (the last)
// are too large to represent.
func checkSizes(tensorsThenMACs ...[]int) error {
	n := len(tensorsThenMACs)
	for _, t := range tensorsThenMACs[:n-1] {
		if e := prod(t...); e > maxElems {
			return fmt.Errorf("a tensor of %d elements is larger than the supported %d", e, int64(maxElems))
		}
	}
	if m := prod(tensorsThenMACs[n-1]...); m > maxMACs {
		return fmt.Errorf("%d MACs is more than the supported %d", m, int64(maxMACs))
	}
	return nil
}
