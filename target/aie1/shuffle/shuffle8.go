package shuffle

import "fmt"

// The 8-bit mac16 (16 lanes x 8 columns), UG1079 "MAC on 8x8 bits", as docs/aie-kernel.md
// reads it (positions below are bytes):
//
//   - X: xstart and xstep in bytes, multiples of 4 (32-bit permute granularity). Lane group g
//     (lanes 4g..4g+3) uses the nibble pair (2g, 2g+1) of xoffsets with the pair rule: words
//     Wa = xstart/4 + nibble(2g) and Wb = Wa + nibble(2g+1) + 1, i.e. the four 16-bit units
//     u0 u1 (Wa) u2 u3 (Wb). xsquare picks a unit for (lanes 4g+0/1, column 0), (4g+0/1, 1),
//     (4g+2/3, 0), (4g+2/3, 1); an even lane takes the unit's low byte, an odd lane its high
//     byte. Columns 2k and 2k+1 (block k) are k*xstep bytes further.
//   - Z: zstart and zstep in bytes, multiples of 2 (16-bit granularity); only zstart's low
//     bits count (zstart/2 below 16). Group g's nibbles (2g, 2g+1) of zoffsets are absolute
//     16-bit units U0, U1 (bytes z0 z1, z2 z3); zsquare picks a byte for (even lane, column 0),
//     (even, 1), (odd, 0), (odd, 1), the same for both lane pairs of the group. Block k is
//     k*zstep bytes further.
//
// So lanes 4g and 4g+1 always read the two bytes of one 16-bit unit in a column (and so do
// 4g+2 and 4g+3), and lanes 4g and 4g+2 read the same Z byte. A selection that breaks
// these pairings cannot be expressed; the solver says which lanes break it.

func eval8(p Params, lanes, cols int) (x, z [][]int) {
	x = make([][]int, lanes)
	z = make([][]int, lanes)
	for l := 0; l < lanes; l++ {
		x[l] = make([]int, cols)
		z[l] = make([]int, cols)
		g, t := l/4, l%4
		for c := 0; c < cols; c++ {
			k, cc := c/2, c%2
			wa := int(p.XStart)/4 + k*int(p.XStep)/4 + nibble(p.XOffs, 0, 2*g)
			wb := wa + nibble(p.XOffs, 0, 2*g+1) + 1
			units := [4]int{2 * wa, 2*wa + 1, 2 * wb, 2*wb + 1}
			x[l][c] = 2*units[int(p.XSquare>>(4*(2*(t/2)+cc)))&3] + t%2
			zb := int(p.ZStart)/2 + k*int(p.ZStep)/2
			u0, u1 := zb+nibble(p.ZOffs, 0, 2*g), zb+nibble(p.ZOffs, 0, 2*g+1)
			bytes := [4]int{2 * u0, 2*u0 + 1, 2 * u1, 2*u1 + 1}
			z[l][c] = bytes[int(p.ZSquare>>(4*(2*(t%2)+cc)))&3]
		}
	}
	return x, z
}

// blockStep finds the step (bytes, a multiple of mult) between column blocks: column 2k+cc
// of every lane must be k*step after column cc.
func blockStep(name string, pos [][]int, mult int) (int, error) {
	step := pos[0][2] - pos[0][0]
	for l := range pos {
		for c := 2; c < len(pos[l]); c++ {
			if pos[l][c]-pos[l][c%2] != (c/2)*step {
				return 0, fmt.Errorf("%sstep: lane %d column %d is %d bytes after column %d, lane 0's blocks step by %d", name, l, c, pos[l][c]-pos[l][c%2], c%2, step)
			}
		}
	}
	if step < 0 || step%mult != 0 {
		return 0, fmt.Errorf("%sstep %d: must be a non-negative multiple of %d bytes", name, step, mult)
	}
	return step, nil
}

func solveX8(sel Selection) (Params, error) {
	var p Params
	for l := 0; l < 16; l++ {
		for c := 0; c < 8; c++ {
			e := sel.X[l][c]
			if e < 0 || e >= sel.XElems {
				return p, fmt.Errorf("x element %d not in the %d-byte register", e, sel.XElems)
			}
			if l%2 == 0 && e%2 != 0 {
				return p, fmt.Errorf("8-bit byte pairs: lane %d column %d needs byte %d, an even lane reads the low (even) byte of a 16-bit unit", l, c, e)
			}
			if l%2 == 1 && e != sel.X[l-1][c]+1 {
				return p, fmt.Errorf("8-bit byte pairs: lane %d column %d needs byte %d, not the high byte of lane %d's unit (%d)", l, c, e, l-1, sel.X[l-1][c]+1)
			}
		}
	}
	step, err := blockStep("x", sel.X, 4)
	if err != nil {
		return p, err
	}
	p.XStep = int64(step)
	var firstErr error
	for _, sq := range xsquares {
		wa, wb, free, err := words8(sel, sq)
		if err == nil {
			// xstart: the first word any group starts from; a group whose xsquare never
			// reads Wa may start anywhere 1..16 words before its Wb
			err = fmt.Errorf("offset nibbles: the lane groups' words %v span more than 16 words", wa)
			for mn := 0; mn < 32; mn++ {
				ok := true
				var w [4]int
				for g := 0; g < 4 && ok; g++ {
					w[g] = wa[g]
					if free[g] {
						w[g] = max(mn, wb[g]-16)
						ok = w[g] <= wb[g]-1
					}
					ok = ok && w[g] >= mn && w[g]-mn <= 15
				}
				if !ok {
					continue
				}
				p.XStart, p.XSquare, p.XOffs = int64(4*mn), sq, 0
				for g := 0; g < 4; g++ {
					setNibble(&p.XOffs, new(int64), 2*g, w[g]-mn)
					setNibble(&p.XOffs, new(int64), 2*g+1, wb[g]-w[g]-1)
				}
				return p, nil
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return p, fmt.Errorf("8-bit pair rule: no xsquare works (with 0x3210: %v)", firstErr)
}

// words8 finds each lane group's words Wa, Wb for xsquare sq from columns 0 and 1; free[g]
// says group g's xsquare never reads its Wa.
func words8(sel Selection, sq int64) (wa, wb [4]int, free [4]bool, err error) {
	for g := 0; g < 4; g++ {
		w := [2]int{-1, -1}
		for s := 0; s < 4; s++ { // (lanes 4g+0/1 | 4g+2/3) x (column 0 | 1)
			q := int(sq>>(4*s)) & 3
			unit := sel.X[4*g+2*(s/2)][s%2] / 2
			if unit%2 != q%2 {
				return wa, wb, free, fmt.Errorf("lanes %d,%d column %d need unit %d, xsquare 0x%04x gives them the %s unit of a word", 4*g+2*(s/2), 4*g+2*(s/2)+1, s%2, unit, sq, []string{"low", "high"}[q%2])
			}
			if w[q/2] >= 0 && w[q/2] != unit/2 {
				return wa, wb, free, fmt.Errorf("lane group %d needs more than two 32-bit words", g)
			}
			w[q/2] = unit / 2
		}
		switch {
		case w[0] < 0:
			w[0], free[g] = w[1]-1, true
		case w[1] < 0:
			w[1] = w[0] + 1
		}
		if w[0] < 0 || w[1] <= w[0] || w[1]-w[0]-1 > 15 {
			return wa, wb, free, fmt.Errorf("lane group %d: second word %d must follow the first %d by 1..16 words (relative nibble)", g, w[1], w[0])
		}
		wa[g], wb[g] = w[0], w[1]
	}
	return wa, wb, free, nil
}

func solveZ8(p *Params, sel Selection) error {
	for l := 0; l < 16; l++ {
		for c := 0; c < 8; c++ {
			e := sel.Z[l][c]
			if e < 0 || e >= sel.ZElems {
				return fmt.Errorf("z element %d not in the %d-byte register", e, sel.ZElems)
			}
			if l%4 >= 2 && e != sel.Z[l-2][c] {
				return fmt.Errorf("8-bit zsquare: lane %d column %d needs byte %d, but it reads what lane %d reads (%d)", l, c, e, l-2, sel.Z[l-2][c])
			}
		}
	}
	step, err := blockStep("z", sel.Z, 2)
	if err != nil {
		return err
	}
	var firstErr error
	for _, sq := range xsquares { // the same 256 selector sets
		var u [4][2]int
		err = nil
		for g := 0; g < 4 && err == nil; g++ {
			w := [2]int{-1, -1}
			for s := 0; s < 4; s++ { // (even | odd lane) x (column 0 | 1)
				q := int(sq>>(4*s)) & 3
				b := sel.Z[4*g+s/2][s%2]
				if b%2 != q%2 {
					err = fmt.Errorf("lane %d column %d needs byte %d, zsquare 0x%04x gives it the %s byte of a unit", 4*g+s/2, s%2, b, sq, []string{"low", "high"}[q%2])
					break
				}
				if w[q/2] >= 0 && w[q/2] != b/2 {
					err = fmt.Errorf("lane group %d needs more than two 16-bit units", g)
					break
				}
				w[q/2] = b / 2
			}
			if w[0] < 0 {
				w[0] = w[1]
			}
			if w[1] < 0 {
				w[1] = w[0]
			}
			u[g] = w
		}
		if err == nil {
			mn := u[0][0]
			for g := range u {
				mn = min(mn, u[g][0], u[g][1])
			}
			if mn > 15 {
				err = fmt.Errorf("zstart %d bytes: only units below 16 can start", 2*mn)
			}
			for g := range u {
				if err == nil && (u[g][0]-mn > 15 || u[g][1]-mn > 15) {
					err = fmt.Errorf("offset nibbles: lane group %d needs units %d,%d, 16 or more after zstart", g, u[g][0], u[g][1])
				}
			}
			if err == nil {
				p.ZStart, p.ZStep, p.ZSquare, p.ZOffs, p.ZOffsHi = int64(2*mn), int64(step), sq, 0, 0
				for g := range u {
					setNibble(&p.ZOffs, new(int64), 2*g, u[g][0]-mn)
					setNibble(&p.ZOffs, new(int64), 2*g+1, u[g][1]-mn)
				}
				return nil
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return fmt.Errorf("8-bit zsquare: no zsquare works (with 0x3210: %v)", firstErr)
}
