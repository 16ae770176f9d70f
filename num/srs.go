package num

import (
	"fmt"
	"strings"
)

// Round is a rounding mode of shift-round-saturate. The names and meanings are those of
// UG1079 "Rounding and Saturation Modes" (aie::rounding_mode) and the AIE intrinsics' rnd_*
// constants; Floor (truncate towards -inf) is the hardware default after reset.
type Round uint8

const (
	Floor    Round = iota // truncate LSBs: towards -inf (default)
	Ceil                  // towards +inf
	SymFloor              // towards zero (AIE-ML rnd_sym_floor)
	SymCeil               // away from zero (AIE-ML rnd_sym_ceil)
	PosInf                // to nearest, halfway towards +inf
	NegInf                // to nearest, halfway towards -inf
	SymInf                // to nearest, halfway away from zero
	SymZero               // to nearest, halfway towards zero
	ConvEven              // to nearest, halfway to even
	ConvOdd               // to nearest, halfway to odd
	numRounds
)

var roundNames = [...]string{"floor", "ceil", "sym_floor", "sym_ceil", "pos_inf", "neg_inf", "sym_inf", "sym_zero", "conv_even", "conv_odd"}

func (r Round) String() string {
	if r < numRounds {
		return roundNames[r]
	}
	return fmt.Sprintf("Round(%d)", uint8(r))
}

// ParseRound parses a rounding mode name as printed by String.
func ParseRound(s string) (Round, error) {
	for i, n := range roundNames {
		if n == s {
			return Round(i), nil
		}
	}
	return 0, fmt.Errorf("unknown rounding mode %q (want one of %s)", s, strings.Join(roundNames[:], ", "))
}

// Sat is a saturation mode (UG1079 "Rounding and Saturation Modes", aie::saturation_mode).
type Sat uint8

const (
	// Saturate clamps to [-2^(n-1), 2^(n-1)-1] (or [0, 2^n-1] unsigned). sumac's default for
	// narrowing outputs: the Vitis DSP library defaults its SAT_MODE to 1 (saturate), and wrapping
	// is almost never what a convolution wants. The tile's reset value is None.
	Saturate  Sat = iota
	None          // keep the low n bits (wrap), the tile's reset default
	Symmetric     // clamps to [-(2^(n-1)-1), 2^(n-1)-1]
	numSats
)

var satNames = [...]string{"saturate", "none", "symmetric"}

func (s Sat) String() string {
	if s < numSats {
		return satNames[s]
	}
	return fmt.Sprintf("Sat(%d)", uint8(s))
}

// ParseSat parses a saturation mode name as printed by String.
func ParseSat(s string) (Sat, error) {
	for i, n := range satNames {
		if n == s {
			return Sat(i), nil
		}
	}
	return 0, fmt.Errorf("unknown saturation mode %q (want one of %s)", s, strings.Join(satNames[:], ", "))
}

// MaxShift is the largest SRS shift: the AIE1 shift-control value is 6 bits (0..63)
// (AIE intrinsics reference, srs(acc, shft): "shft" is 0..63 on AIE1).
const MaxShift = 63

// Narrow describes a narrowing from an accumulator to an n-bit integer.
type Narrow struct {
	Bits     int   // output width: 8, 16, 32 (or up to 64)
	Unsigned bool  // output is unsigned (ubsrs: uint8)
	Shift    uint  // right shift 0..MaxShift
	Round    Round // rounding of the shifted-out bits
	Sat      Sat   // saturation to the output width
}

// SRS shifts a right by n.Shift with rounding n.Round and narrows to n.Bits with n.Sat.
// It returns the narrowed value and whether saturation changed it (for Sat None: whether
// wrapping changed it).
func SRS(a Acc, n Narrow) (int64, bool) {
	if v := int64(a.Lo); a.Hi == v>>63 && v>>62 == v>>63 && n.Bits >= 1 && n.Bits <= 32 && n.Shift <= 63 {
		// the usual case (a 48-bit lane; a result of at most 32 bits): the same in int64
		return srs64(v, n)
	}
	return srsWide(a, n)
}

// srsWide is SRS in 128-bit arithmetic, for every accumulator value and width.
func srsWide(a Acc, n Narrow) (int64, bool) {
	q := roundShift(a, n.Shift, n.Round)
	var lo, hi Acc
	if n.Unsigned {
		lo, hi = AccFrom(0), accMaxU(n.Bits)
	} else {
		hi = accMaxU(n.Bits - 1)
		lo = hi.neg().Sub(AccFrom(1), 128) // -2^(n-1)
		if n.Sat == Symmetric {
			lo = hi.neg()
		}
	}
	inRange := q.Cmp(lo) >= 0 && q.Cmp(hi) <= 0
	switch {
	case inRange:
		return q.Int64(), false
	case n.Sat == None:
		if n.Unsigned {
			return int64(q.Lo & (accMaxU(n.Bits).Lo)), true
		}
		return q.Wrap(n.Bits).Int64(), true
	case q.Sign() < 0:
		return lo.Int64(), true
	default:
		return hi.Int64(), true
	}
}

// Range returns the least and largest results of a narrowing to n.Bits (at most 63) that
// does not saturate.
func (n Narrow) Range() (lo, hi int64) {
	if n.Unsigned {
		return 0, 1<<uint(n.Bits) - 1
	}
	lo, hi = -(1 << uint(n.Bits-1)), 1<<uint(n.Bits-1)-1
	if n.Sat == Symmetric {
		lo = -hi
	}
	return lo, hi
}

// srs64 is SRS for |v| < 2^62, shifts up to 63 and outputs of 1 to 32 bits, where nothing
// overflows an int64: the floor is an arithmetic shift, rounding adds at most one, and the
// limits fit. TestSRS64MatchesWide compares it with srsWide.
func srs64(v int64, n Narrow) (int64, bool) {
	q := v
	if s := n.Shift; s > 0 {
		q = v >> s
		frac := v & (1<<s - 1) // v - q<<s, in [0, 2^s)
		if frac != 0 {
			half := int64(1) << (s - 1)
			neg := v < 0
			up := false
			switch n.Round {
			case Floor:
			case Ceil:
				up = true
			case SymFloor:
				up = neg
			case SymCeil:
				up = !neg
			default:
				switch {
				case frac > half:
					up = true
				case frac < half:
				default:
					switch n.Round {
					case PosInf:
						up = true
					case SymInf:
						up = !neg
					case SymZero:
						up = neg
					case ConvEven:
						up = q&1 == 1
					case ConvOdd:
						up = q&1 == 0
					}
				}
			}
			if up {
				q++
			}
		}
	}
	lo, hi := n.Range()
	switch {
	case q >= lo && q <= hi:
		return q, false
	case n.Sat == None:
		if n.Unsigned {
			return q & hi, true
		}
		sh := 64 - uint(n.Bits)
		return q << sh >> sh, true
	case q < 0:
		return lo, true
	default:
		return hi, true
	}
}

// accMaxU returns 2^b - 1 for b in 0..64.
func accMaxU(b int) Acc {
	if b >= 64 {
		return Acc{0, ^uint64(0)}
	}
	return Acc{0, uint64(1)<<uint(b) - 1}
}

// roundShift divides a by 2^s with the given rounding.
func roundShift(a Acc, s uint, r Round) Acc {
	if s == 0 {
		return a
	}
	q := a.shr(s) // floor
	frac, half, inexact := a.fraction(s)
	if !inexact {
		return q
	}
	up := false // whether to add one to the floor
	neg := a.Sign() < 0
	switch r {
	case Floor:
	case Ceil:
		up = true
	case SymFloor:
		up = neg
	case SymCeil:
		up = !neg
	default: // round to nearest, ties by mode
		switch {
		case frac > half:
			up = true
		case frac < half:
		default: // tie
			switch r {
			case PosInf:
				up = true
			case NegInf:
			case SymInf:
				up = !neg
			case SymZero:
				up = neg
			case ConvEven:
				up = q.Lo&1 == 1
			case ConvOdd:
				up = q.Lo&1 == 0
			}
		}
	}
	if up {
		q = q.Add(AccFrom(1), 128)
	}
	return q
}

// UPS moves a value into an accumulator lane shifted left by shift (the ups intrinsic),
// wrapped to the lane width.
func UPS(v int64, shift uint, width int) Acc {
	a := AccFrom(v)
	for i := uint(0); i < shift; i++ { // at most 63 iterations; keeps the 128-bit carry exact
		a = a.Add(a, 128)
	}
	return a.Wrap(width)
}
