package kernels

import "fmt"

// U8Path selects how uint8 x int8 products are computed; cpu/gemm and cpu/conv take it.
// The zero value is exact for every input.
type U8Path uint8

const (
	// U8Auto (the zero value) is exact for every input: it runs the fast VPMADDUBSW kernel
	// only where its pair sums provably cannot saturate (ActsFitU8Fast: every activation at
	// most 127, or WeightsFitU8Fast: every weight in -64..64), else the exact path. cpu/gemm scans both
	// operands per call; a cpu/conv plan decides once, from its weights.
	U8Auto U8Path = iota
	// U8Exact widens both operands to int16 and runs the VPMADDWD kernels: exact for every
	// value, at about 3/4 of the fast path's peak.
	U8Exact
	// U8Fast runs VPMADDUBSW + VPMADDWD(ones) directly. The caller promises that every
	// activation (the uint8 operand) is in 0..127 or every weight (the int8 operand) is in
	// -64..64; otherwise pair sums saturate at int16 and the result is wrong
	// (deterministically so). This is the setting of oneDNN's u8s8 figures.
	U8Fast
)

func (p U8Path) String() string {
	switch p {
	case U8Auto:
		return "auto"
	case U8Exact:
		return "exact"
	case U8Fast:
		return "fast"
	}
	return fmt.Sprintf("U8Path(%d)", uint8(p))
}

// Check reports an unknown path as an error.
func (p U8Path) Check() error {
	if p > U8Fast {
		return fmt.Errorf("unknown uint8 path %d", uint8(p))
	}
	return nil
}

// The operand ranges in which VPMADDUBSW's int16 pair sums cannot saturate:
// 2*127*128 = 32512 and 2*255*64 = 32640, both <= 32767.
const (
	U8FastMaxAct    = 127 // every activation (uint8) at most this
	U8FastMaxAbsWgt = 64  // or every weight (int8) within -64..64
)

// WeightsFitU8Fast reports whether every weight is within -U8FastMaxAbsWgt..U8FastMaxAbsWgt,
// so the fast kernel is exact for any uint8 activation.
func WeightsFitU8Fast(w []int8) bool {
	for _, v := range w {
		if v < -U8FastMaxAbsWgt || v > U8FastMaxAbsWgt {
			return false
		}
	}
	return true
}

// ActsFitU8Fast reports whether every activation is at most U8FastMaxAct, so the fast
// kernel is exact for any int8 weight.
func ActsFitU8Fast(a []uint8) bool {
	for _, v := range a {
		if v > U8FastMaxAct {
			return false
		}
	}
	return true
}
