// Package shuffle is the AIE1 operand-selection network (the "shuffle network" of the MAC
// intrinsics) and the datapath widths the compiler middle asks for (triplet.Datapath): the
// solvers that turn a fused operation's selection into xstart/xoffsets/xsquare/zstart/...
// immediates, or name the rule that forbids it.
package shuffle

import (
	"fmt"

	"github.com/sumacdev/sumac/compiler/triplet"
)

// The shuffle network: how a MAC intrinsic selects, for every output lane and datapath
// column, one element of its X buffer and one of its Z buffer. Sources:
//
//	[mac]   UG1079 "MAC Intrinsics" / "MAC on 32x32 bits": "The first column of data is selected
//	        by adding xstart to every 4 bits of xoffsets. The subsequent column of data is
//	        selected by adding xstep to its previous column. The coefficients ... are chosen
//	        similarly by zstart, zoffset, and zstep."
//	[m16]   UG1079 "MAC on 16x16 bits": "the permute granularity for X buffer is 32 bits. The
//	        start and step parameters are always in terms of data type granularity." xoffsets
//	        come in pairs: the first nibble is an absolute 32-bit offset selecting (index,
//	        index+1) for the even lane; the second is relative, first + nibble + 1, for the odd
//	        lane (0x24 selects 8,9 and 14,15). xsquare permutes each 2x2 block at 16-bit
//	        granularity, lowest nibble first (0x2103 puts 3,0 in the even lane and 1,2 in the odd).
//	[intr]  AIE intrinsics reference (UG1078), "Operand selection": xoffsets covers lanes 0-7,
//	        xoffsets_hi lanes 8-15; zstart must be a compile-time constant of which only the low
//	        4 bits are used; permute granularity 32 bits on X, 16 bits on Z; xstart even for
//	        16-bit data; worked example xoffsets=0x03020100, xoffsets_hi=0x07060504,
//	        xsquare=0x2110, zstep=1 (mlir-aie test/aievec/conv2d_i16.mlir).
//
// The solver only produces selections that need no wrap-around of start+offset past the end
// of a buffer, so it does not depend on how the hardware wraps.

// Kind is a MAC intrinsic's operand-selection scheme.
type Kind string

const (
	Sel32 Kind = "lmac8/fpmac" // 8 lanes x 1 column, 32-bit X and Z elements
	Sel16 Kind = "mac16"       // int16 16 lanes x 2 columns: the 16-bit pair rule and xsquare
	Sel8  Kind = "mac16/8-bit" // 8-bit 16 lanes x 8 columns: byte pairs of 16-bit units, xsquare, zsquare
)

// Selection is the middle's request: X and Z positions per lane and column.
type Selection = triplet.Selection

// Params are the immediate operand-selection parameters of a MAC call.
type Params struct {
	XStart, XOffs, XOffsHi, XSquare int64
	ZStart, ZOffs, ZOffsHi, ZStep   int64
	XStep, ZSquare                  int64 // 8-bit only (Sel8)
}

func (p Params) String() string {
	s := fmt.Sprintf("xstart=%d xoffsets=0x%08x xoffsets_hi=0x%08x xsquare=0x%04x zstart=%d zoffsets=0x%08x zoffsets_hi=0x%08x zstep=%d",
		p.XStart, p.XOffs, p.XOffsHi, p.XSquare, p.ZStart, p.ZOffs, p.ZOffsHi, p.ZStep)
	if p.XStep != 0 || p.ZSquare != 0 {
		s += fmt.Sprintf(" xstep=%d zsquare=0x%04x", p.XStep, p.ZSquare)
	}
	return s
}

func nibble(lo, hi int64, lane int) int {
	if lane < 8 {
		return int(lo>>(4*lane)) & 15
	}
	return int(hi>>(4*(lane-8))) & 15
}

func setNibble(lo, hi *int64, lane, v int) {
	if lane < 8 {
		*lo |= int64(v) << (4 * lane)
	} else {
		*hi |= int64(v) << (4 * (lane - 8))
	}
}

// Eval applies parameters: the positions every lane and column read ([mac], [m16]).
func Eval(k Kind, p Params, lanes, cols int) (x, z [][]int) {
	if k == Sel8 {
		return eval8(p, lanes, cols)
	}
	x = make([][]int, lanes)
	z = make([][]int, lanes)
	for i := 0; i < lanes; i++ {
		x[i] = make([]int, cols)
		z[i] = make([]int, cols)
		for c := 0; c < cols; c++ {
			z[i][c] = int(p.ZStart) + nibble(p.ZOffs, p.ZOffsHi, i) + c*int(p.ZStep)
		}
	}
	switch k {
	case Sel32:
		for i := 0; i < lanes; i++ {
			x[i][0] = int(p.XStart) + nibble(p.XOffs, p.XOffsHi, i)
		}
	case Sel16:
		for j := 0; j < lanes/2; j++ {
			w0 := int(p.XStart)/2 + nibble(p.XOffs, p.XOffsHi, 2*j)
			w1 := w0 + nibble(p.XOffs, p.XOffsHi, 2*j+1) + 1
			block := [4]int{2 * w0, 2*w0 + 1, 2 * w1, 2*w1 + 1}
			for s := 0; s < 4; s++ {
				q := int(p.XSquare>>(4*s)) & 3
				x[2*j+s/2][s%2] = block[q]
			}
		}
	}
	return x, z
}

// Solve finds parameters that make the intrinsic select exactly sel, or says which rule of
// the shuffle network forbids it.
func Solve(k Kind, sel Selection) (Params, error) {
	var p Params
	var err error
	switch k {
	case Sel32:
		if sel.Cols != 1 {
			return p, fmt.Errorf("%s has 1 column, selection has %d", k, sel.Cols)
		}
		col := make([]int, sel.Lanes)
		for i := range col {
			col[i] = sel.X[i][0]
		}
		p.XStart, p.XOffs, p.XOffsHi, err = startOffsets("x", col, sel.XElems, 1)
		if err != nil {
			return p, err
		}
	case Sel16:
		if sel.Cols != 2 {
			return p, fmt.Errorf("%s has 2 columns, selection has %d", k, sel.Cols)
		}
		if p, err = solveX16(sel); err != nil {
			return p, err
		}
	case Sel8:
		if sel.Cols != 8 || sel.Lanes != 16 {
			return p, fmt.Errorf("%s has 16 lanes and 8 columns, selection has %d x %d", k, sel.Lanes, sel.Cols)
		}
		if p, err = solveX8(sel); err != nil {
			return p, err
		}
		if err = solveZ8(&p, sel); err != nil {
			return p, err
		}
	default:
		return p, fmt.Errorf("unknown selection kind %q", k)
	}
	if k != Sel8 {
		if err := solveZ(&p, sel); err != nil {
			return p, err
		}
	}
	// Check by evaluation: the parameters select exactly what was asked.
	x, z := Eval(k, p, sel.Lanes, sel.Cols)
	for i := 0; i < sel.Lanes; i++ {
		for c := 0; c < sel.Cols; c++ {
			if x[i][c] != sel.X[i][c] || z[i][c] != sel.Z[i][c] {
				return p, fmt.Errorf("internal: solved parameters select x=%d z=%d for lane %d column %d, want x=%d z=%d", x[i][c], z[i][c], i, c, sel.X[i][c], sel.Z[i][c])
			}
		}
	}
	return p, nil
}

// startOffsets finds start and 4-bit per-lane offsets (in units of unit elements) with
// start + offset = pos for every lane and no wrap past the buffer's end.
func startOffsets(name string, pos []int, elems, unit int) (start, lo, hi int64, err error) {
	mn, mx := pos[0], pos[0]
	for _, v := range pos {
		if v < 0 {
			return 0, 0, 0, fmt.Errorf("%s element not in the register", name)
		}
		mn, mx = min(mn, v), max(mx, v)
	}
	if mx >= elems {
		return 0, 0, 0, fmt.Errorf("%s position %d beyond the %d-element buffer", name, mx, elems)
	}
	if (mx-mn)/unit > 15 {
		return 0, 0, 0, fmt.Errorf("offset nibbles: %s lanes span %d elements, a 4-bit offset reaches 15", name, mx-mn)
	}
	for i, v := range pos {
		setNibble(&lo, &hi, i, (v-mn)/unit)
	}
	return int64(mn), lo, hi, nil
}

// solveX16 applies the 16-bit pair rule [m16]: lanes 2j and 2j+1 read from two 32-bit words
// w0 (absolute nibble) and w1 = w0 + nibble + 1, and one xsquare (shared by all pairs) picks
// each lane's two columns from those four 16-bit values.
func solveX16(sel Selection) (Params, error) {
	var firstErr error
	for _, sq := range xsquares {
		p, err := tryXSquare(sel, sq)
		if err == nil {
			return p, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return Params{}, fmt.Errorf("16-bit pair rule: no xsquare works (with 0x3210: %v)", firstErr)
}

// xsquares lists the 256 xsquare values (four 2-bit selectors in nibbles), the identity and
// the documented convolution permutations first.
var xsquares = func() []int64 {
	out := []int64{0x3210, 0x2110, 0x3120}
	for q := int64(0); q < 256; q++ {
		v := (q & 3) | (q>>2&3)<<4 | (q>>4&3)<<8 | (q>>6&3)<<12
		if v != 0x3210 && v != 0x2110 && v != 0x3120 {
			out = append(out, v)
		}
	}
	return out
}()

func tryXSquare(sel Selection, sq int64) (Params, error) {
	var p Params
	p.XSquare = sq
	n := sel.Lanes / 2
	w0 := make([]int, n)
	w1 := make([]int, n)
	for j := 0; j < n; j++ {
		w := [2]int{-1, -1}
		for s := 0; s < 4; s++ {
			q := int(sq>>(4*s)) & 3
			e := sel.X[2*j+s/2][s%2]
			if e < 0 {
				return p, fmt.Errorf("x element not in the register")
			}
			if e%2 != q%2 {
				return p, fmt.Errorf("lane %d column %d needs element %d, xsquare 0x%04x gives it the %s half of a 32-bit word", 2*j+s/2, s%2, e, sq, []string{"low", "high"}[q%2])
			}
			word := e / 2
			if w[q/2] >= 0 && w[q/2] != word {
				return p, fmt.Errorf("lanes %d,%d need more than two 32-bit words", 2*j, 2*j+1)
			}
			w[q/2] = word
		}
		switch {
		case w[0] < 0 && w[1] < 0:
			return p, fmt.Errorf("internal: empty block")
		case w[0] < 0:
			w[0] = w[1] - 1
		case w[1] < 0:
			w[1] = w[0] + 1
		}
		if w[1] <= w[0] || w[1]-w[0]-1 > 15 {
			return p, fmt.Errorf("lanes %d,%d: second word %d must follow the first %d by 1..16 words (relative nibble)", 2*j, 2*j+1, w[1], w[0])
		}
		w0[j], w1[j] = w[0], w[1]
	}
	mn := w0[0]
	for _, v := range w0 {
		mn = min(mn, v)
	}
	if mn < 0 {
		return p, fmt.Errorf("x element before the register")
	}
	p.XStart = int64(2 * mn) // even: [intr] xstart must be even for 16-bit data
	for j := 0; j < n; j++ {
		if w0[j]-mn > 15 {
			return p, fmt.Errorf("offset nibbles: lane %d needs word %d, 16 or more words after xstart", 2*j, w0[j])
		}
		if 2*w1[j]+1 >= sel.XElems {
			return p, fmt.Errorf("x word %d beyond the %d-element buffer", w1[j], sel.XElems)
		}
		setNibble(&p.XOffs, &p.XOffsHi, 2*j, w0[j]-mn)
		setNibble(&p.XOffs, &p.XOffsHi, 2*j+1, w1[j]-w0[j]-1)
	}
	return p, nil
}

// solveZ: column c of lane i reads z[zstart + zoffset_i + c*zstep] ([mac]); zstart is an
// immediate of which only the low 4 bits count ([intr]), so every position stays below 16.
func solveZ(p *Params, sel Selection) error {
	col0 := make([]int, sel.Lanes)
	for i := range col0 {
		col0[i] = sel.Z[i][0]
	}
	start, lo, hi, err := startOffsets("z", col0, sel.ZElems, 1)
	if err != nil {
		return err
	}
	if start > 15 {
		return fmt.Errorf("zstart %d: only its low 4 bits are used", start)
	}
	p.ZStart, p.ZOffs, p.ZOffsHi = start, lo, hi
	if sel.Cols > 1 {
		step := sel.Z[0][1] - sel.Z[0][0]
		for i := 0; i < sel.Lanes; i++ {
			for c := 1; c < sel.Cols; c++ {
				if sel.Z[i][c]-sel.Z[i][c-1] != step {
					return fmt.Errorf("zstep: lane %d steps by %d between columns, lane 0 by %d", i, sel.Z[i][c]-sel.Z[i][c-1], step)
				}
				if sel.Z[i][c] < 0 || sel.Z[i][c] >= sel.ZElems {
					return fmt.Errorf("z element not in the register")
				}
			}
		}
		if step < 0 || step > 15 {
			return fmt.Errorf("zstep %d outside 0..15", step)
		}
		p.ZStep = int64(step)
	}
	return nil
}
