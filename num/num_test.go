package num

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func toBig(a Acc) *big.Int {
	v := new(big.Int).SetInt64(a.Hi)
	v.Lsh(v, 64)
	return v.Add(v, new(big.Int).SetUint64(a.Lo))
}

func wrapBig(v *big.Int, width int) *big.Int {
	m := new(big.Int).Lsh(big.NewInt(1), uint(width))
	r := new(big.Int).Mod(v, m)
	if r.Cmp(new(big.Int).Rsh(m, 1)) >= 0 {
		r.Sub(r, m)
	}
	return r
}

// TestAccAgainstBig checks MAC, MSC and wrapping against arbitrary-precision arithmetic.
func TestAccAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, width := range []int{Acc48, Acc80, 64, 32} {
		a := AccFrom(0)
		ref := big.NewInt(0)
		for i := 0; i < 5000; i++ {
			x, y := rng.Int64()>>uint(rng.IntN(63)), rng.Int64()>>uint(rng.IntN(63))
			if rng.IntN(2) == 0 {
				x = -x
			}
			p := new(big.Int).Mul(big.NewInt(x), big.NewInt(y))
			if i%3 == 0 {
				a = a.MulSub(x, y, width)
				ref.Sub(ref, p)
			} else {
				a = a.MulAdd(x, y, width)
				ref.Add(ref, p)
			}
			ref = wrapBig(ref, width)
			if toBig(a).Cmp(ref) != 0 {
				t.Fatalf("width %d step %d: got %v want %v", width, i, toBig(a), ref)
			}
		}
	}
}

func TestAcc48Wraps(t *testing.T) {
	max := AccFrom(1<<47 - 1)
	if got := max.Add(AccFrom(1), Acc48).Int64(); got != -(1 << 47) {
		t.Fatalf("acc48 max+1 = %d, want %d", got, -(1 << 47))
	}
	if got := Mul(math.MinInt64, -1); toBig(got).Cmp(new(big.Int).Lsh(big.NewInt(1), 63)) != 0 {
		t.Fatalf("MinInt64 * -1 = %v", toBig(got))
	}
}

// srsRef computes shift-round-saturate with big rationals, independently of SRS.
func srsRef(v int64, n Narrow) (int64, bool) {
	r := new(big.Rat).SetFrac(big.NewInt(v), new(big.Int).Lsh(big.NewInt(1), n.Shift))
	fl := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean division: floor for positive denominator
	frac := new(big.Rat).Sub(r, new(big.Rat).SetInt(fl))
	half := big.NewRat(1, 2)
	q := new(big.Int).Set(fl)
	inc := func() { q.Add(q, big.NewInt(1)) }
	if frac.Sign() != 0 {
		neg := v < 0
		c := frac.Cmp(half)
		switch n.Round {
		case Ceil:
			inc()
		case SymFloor:
			if neg {
				inc()
			}
		case SymCeil:
			if !neg {
				inc()
			}
		case PosInf, NegInf, SymInf, SymZero, ConvEven, ConvOdd:
			if c > 0 {
				inc()
			} else if c == 0 {
				odd := fl.Bit(0) == 1
				if (n.Round == PosInf) || (n.Round == SymInf && !neg) || (n.Round == SymZero && neg) ||
					(n.Round == ConvEven && odd) || (n.Round == ConvOdd && !odd) {
					inc()
				}
			}
		}
	}
	var lo, hi int64
	if n.Unsigned {
		lo, hi = 0, 1<<uint(n.Bits)-1
	} else {
		lo, hi = -(1 << uint(n.Bits-1)), 1<<uint(n.Bits-1)-1
		if n.Sat == Symmetric {
			lo = -hi
		}
	}
	qi := q.Int64()
	if qi >= lo && qi <= hi {
		return qi, false
	}
	switch n.Sat {
	case None:
		m := int64(1) << uint(n.Bits)
		w := ((qi % m) + m) % m
		if !n.Unsigned && w >= m/2 {
			w -= m
		}
		return w, true
	}
	if qi < lo {
		return lo, true
	}
	return hi, true
}

func TestSRSAllModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for r := Round(0); r < numRounds; r++ {
		for s := Sat(0); s < numSats; s++ {
			for _, bitsU := range []struct {
				bits int
				u    bool
			}{{8, false}, {8, true}, {16, false}, {32, false}} {
				for i := 0; i < 3000; i++ {
					v := rng.Int64() >> uint(16+rng.IntN(40))
					if rng.IntN(2) == 0 {
						v = -v
					}
					if i < 40 { // exact ties and near-ties
						v = int64(i-20)*2 + 1
					}
					n := Narrow{Bits: bitsU.bits, Unsigned: bitsU.u, Shift: uint(rng.IntN(12)), Round: r, Sat: s}
					if i < 40 {
						n.Shift = 1
					}
					got, gs := SRS(AccFrom(v), n)
					want, ws := srsRef(v, n)
					if got != want || gs != ws {
						t.Fatalf("SRS(%d, %+v) = %d,%v want %d,%v", v, n, got, gs, want, ws)
					}
				}
			}
		}
	}
}

// TestSRSWorked checks hand-computed cases from the definitions in UG1079.
func TestSRSWorked(t *testing.T) {
	cases := []struct {
		v    int64
		n    Narrow
		want int64
	}{
		{-3, Narrow{Bits: 16, Shift: 1, Round: Floor}, -2},   // -1.5 -> -2
		{-3, Narrow{Bits: 16, Shift: 1, Round: SymZero}, -1}, // -1.5 -> -1
		{-3, Narrow{Bits: 16, Shift: 1, Round: SymInf}, -2},  // -1.5 -> -2
		{5, Narrow{Bits: 16, Shift: 1, Round: ConvEven}, 2},  // 2.5 -> 2
		{7, Narrow{Bits: 16, Shift: 1, Round: ConvEven}, 4},  // 3.5 -> 4
		{5, Narrow{Bits: 16, Shift: 1, Round: ConvOdd}, 3},   // 2.5 -> 3
		{1 << 20, Narrow{Bits: 8, Shift: 0}, 127},            // saturate
		{-1 << 20, Narrow{Bits: 8, Shift: 0, Sat: Symmetric}, -127},
		{300, Narrow{Bits: 8, Shift: 0, Sat: None}, 44},    // 300 mod 256 = 44
		{-5, Narrow{Bits: 8, Unsigned: true, Shift: 0}, 0}, // ubsrs clamps at 0
		{511, Narrow{Bits: 8, Unsigned: true, Shift: 1, Round: PosInf}, 255},
	}
	for _, c := range cases {
		if got, _ := SRS(AccFrom(c.v), c.n); got != c.want {
			t.Errorf("SRS(%d, %+v) = %d, want %d", c.v, c.n, got, c.want)
		}
	}
}

func TestUPS(t *testing.T) {
	if got := UPS(-3, 4, Acc48).Int64(); got != -48 {
		t.Fatalf("UPS(-3,4) = %d", got)
	}
	if got := UPS(1, 47, Acc48).Int64(); got != -(1 << 47) {
		t.Fatalf("UPS wraps: %d", got)
	}
}

func TestParseModes(t *testing.T) {
	for r := Round(0); r < numRounds; r++ {
		if p, err := ParseRound(r.String()); err != nil || p != r {
			t.Fatalf("round %v: %v %v", r, p, err)
		}
	}
	for s := Sat(0); s < numSats; s++ {
		if p, err := ParseSat(s.String()); err != nil || p != s {
			t.Fatalf("sat %v: %v %v", s, p, err)
		}
	}
	if _, err := ParseRound("nearest"); err == nil {
		t.Fatal("bad rounding mode accepted")
	}
	if _, err := ParseSat("clip"); err == nil {
		t.Fatal("bad saturation mode accepted")
	}
}

func TestBF16(t *testing.T) {
	cases := []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even stays
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd rounds up
		{math.Float32frombits(0x3f808001), 0x3f81}, // above tie
		{math.Float32frombits(0x7f7fffff), 0x7f80}, // max float rounds to +inf
		{float32(math.Inf(-1)), 0xff80},
	}
	for _, c := range cases {
		if got := ToBF16(c.in); uint16(got) != c.want {
			t.Errorf("ToBF16(%x) = %04x, want %04x", math.Float32bits(c.in), uint16(got), c.want)
		}
	}
	if n := ToBF16(float32(math.NaN())); !math.IsNaN(float64(n.Float32())) {
		t.Fatal("NaN lost")
	}
	// Every bf16 round-trips exactly.
	for h := 0; h < 1<<16; h++ {
		f := BF16(h).Float32()
		if math.IsNaN(float64(f)) {
			continue
		}
		if ToBF16(f) != BF16(h) {
			t.Fatalf("bf16 %04x does not round-trip", h)
		}
	}
}

func TestBFP16(t *testing.T) {
	x := [8]float32{1, -0.5, 0.25, 1.5, 0, -1.984375, 0.015625, 0.0078125}
	b := BFP16FromFloat32(x)
	if b.Exp != 127 {
		t.Fatalf("exp = %d, want 127", b.Exp)
	}
	want := [8]int8{64, -32, 16, 96, 0, -127, 1, 0} // 0.0078125*64 = 0.5 -> even 0
	if b.Man != want {
		t.Fatalf("mantissas %v, want %v", b.Man, want)
	}
	got := b.Float32s()
	if got[0] != 1 || got[5] != -1.984375 {
		t.Fatalf("decode %v", got)
	}
	img := b.AppendBytes(nil)
	if len(img) != BFP16BlockSize || 8*len(img) != 72 {
		t.Fatalf("block image %d bytes; an 8x8 tile must be 72 bytes", len(img))
	}
	b2, err := BFP16FromBytes(img)
	if err != nil || b2 != b {
		t.Fatalf("bytes round trip: %v %v", b2, err)
	}
	if _, err := BFP16FromBytes(img[:5]); err == nil {
		t.Fatal("short block accepted")
	}
	// Dot is exact.
	if d := b.Dot(b); d != float64(64*64+32*32+16*16+96*96+127*127+1)/4096 {
		t.Fatalf("dot %v", d)
	}
	// Quantization error is at most half an ulp of the block scale (or the clamp at 127).
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2000; i++ {
		var v [8]float32
		s := math.Ldexp(1, rng.IntN(40)-20)
		for j := range v {
			v[j] = float32((rng.Float64()*2 - 1) * s)
		}
		q := BFP16FromFloat32(v)
		d := q.Float32s()
		ulp := math.Ldexp(1, int(q.Exp)-127-6)
		for j := range v {
			if err := math.Abs(float64(d[j] - v[j])); err > ulp/2*1.0000001 && math.Abs(float64(d[j])) < 127*ulp {
				t.Fatalf("block %v: element %d error %g > ulp/2 %g", v, j, err, ulp/2)
			}
		}
	}
}

// TestSRS64MatchesWide: SRS's int64 path gives the 128-bit path's results for every rounding
// and saturation mode, widths 1 to 32, signed and unsigned, shifts 0 to 63 and values up to
// the path's limit |v| < 2^62 (extremes, powers of two and their neighbours, exact ties).
func TestSRS64MatchesWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	special := []int64{0, 1, -1, 2, -2, 1<<62 - 1, -(1 << 62), 1 << 47, -(1 << 47), 1<<47 - 1, 3 << 40, -(3 << 40)}
	for i := 0; i < 200000; i++ {
		var v int64
		switch {
		case i < len(special):
			v = special[i]
		case i%3 == 0:
			v = rng.Int64() >> 2 // anywhere below 2^62
		case i%3 == 1:
			v = rng.Int64() >> uint(16+rng.IntN(46))
			if rng.IntN(2) == 0 {
				v = -v
			}
		default: // a tie or near-tie for the drawn shift
			s := uint(1 + rng.IntN(40))
			v = (rng.Int64()>>30)<<s + (1 << (s - 1)) + int64(rng.IntN(3)) - 1
		}
		n := Narrow{Bits: 1 + rng.IntN(32), Unsigned: rng.IntN(3) == 0, Shift: uint(rng.IntN(64)), Round: Round(rng.IntN(int(numRounds))), Sat: Sat(rng.IntN(int(numSats)))}
		if v>>62 != v>>63 {
			continue
		}
		got, gs := srs64(v, n)
		want, ws := srsWide(AccFrom(v), n)
		if got != want || gs != ws {
			t.Fatalf("srs64(%d, %+v) = %d,%v; srsWide %d,%v", v, n, got, gs, want, ws)
		}
	}
}
