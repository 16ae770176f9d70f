package tune

import (
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/op"
)

// A block is the part of a workload one kernel call computes with its data in the tile's
// memory: bx x by outputs of bk output channels, the whole reduction (every input channel of
// its groups, every tap). Its input is the block's window of the (zero-padded) input, halo
// included: blocks at the image's border read the padding's zeros, which the data movement
// around the tile writes, so a block's kernel is an unpadded convolution. A workload is
// computed by Calls equal blocks; the layer's cycles are the block's times Calls.
type block struct {
	spec  *op.Spec
	calls int
	note  string
	x, y  int // the block's output width and height (the workload's when not split spatially)
}

// MaxBlocks bounds the spatial blocks tuned per workload (the largest that fit, of different
// shapes); each is a full schedule-space search.
const MaxBlocks = 2

// blocks lists the blocks to tune for a workload whose data must fit limit bytes: the whole
// workload when it fits; else seed 000's split over output channels (each call reads the
// whole input and its share of the weights) when one output channel's share fits; else
// spatial blocks (output rows, columns and channels; MaxBlocks of them, the largest first).
func blocks(s *op.Spec, limit int) ([]block, error) {
	budget := budgetOf(s, limit)
	sub, calls, err := splitK(s, budget, minDup(s))
	var out []block
	if err == nil {
		b := block{spec: sub, calls: calls, x: s.Conv.X, y: s.Conv.Y}
		if calls > 1 && s.Types.A.Bits() == 8 {
			b.spec = flatten(b.spec) // the 8-bit xk lanes take 8 pixels of a row
		}
		if calls > 1 {
			b.note = fmt.Sprintf("data exceed the %d KB memory: %d calls of k=%d over windows of the weights and outputs, cycles summed", limit>>10, calls, sub.Conv.K)
		}
		dup4 := s.Types.A.Bits() == 8 && s.Conv.R > 1 && (s.Conv.K/s.Conv.Groups)%16 == 0
		if calls == 1 || sub.Conv.K >= min(16, s.Conv.K) && !dup4 {
			return []block{b}, nil
		}
		// too few output channels to vectorize, or an 8-bit filter whose taps want the
		// input four times (xk, dup=4): compare spatial blocks
		out = append(out, b)
		if dup4 {
			for _, d := range spatialBlocksDup(s, limit, 4) {
				if len(out) < MaxBlocks && !hasBlock(out, d) {
					out = append(out, d)
				}
			}
			return out, nil
		}
	}
	out = append(out, spatialBlocks(s, limit)...)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no block of output rows, columns and channels fits the %d bytes of memory with its whole reduction (every input channel and tap)", s, limit)
	}
	return out, nil
}

// minDup is the fewest copies of the input an 8-bit layer without output channels to
// vectorize needs (x vectorized on a duplicated input, sched.Schedule.Dup); 1 otherwise.
func minDup(s *op.Spec) int {
	if s.Types.A.Bits() == 8 && (s.Conv.K/s.Conv.Groups)%16 != 0 {
		return 2
	}
	return 1
}

// splitK is seed 000's split over output channels (split) with the input counted padded and
// dup times.
func splitK(s *op.Spec, limit, dup int) (*op.Spec, int, error) {
	c := s.Conv
	eb := s.Types.A.Bits() / 8
	for n := 1; n <= c.K; n++ {
		if c.K%n != 0 {
			continue
		}
		k := c.K / n
		cc := c.C
		if c.Groups > 1 {
			cc = c.C * k / c.K
		}
		in := c.N * (c.YIn + 2*c.Pad) * dupWidth(c, c.X, c.XIn+2*c.Pad, dup) * cc * dup
		if eb*(in+k*c.S*c.R*(c.C/c.Groups))+s.Types.Out.Bits()/8*c.N*c.Y*c.X*k <= limit {
			if n == 1 {
				return s, 1, nil
			}
			return subSpec(s, n), n, nil
		}
	}
	return nil, 0, fmt.Errorf("%s: even one output channel's data exceed the %d bytes of memory", s, limit)
}

// dupWidth is the input width a duplicated 8-bit input is stored with: a row whose last
// vector runs past the width is widened to the filter's reach from there, so that rows stay
// apart in registers - x vectorized (16 lanes, the filter row padded to 8 taps) where no
// output channels vectorize, else the 8 x positions of the split lanes (xk).
func dupWidth(c *op.Conv2D, x, xin, dup int) int {
	if dup <= 1 {
		return xin
	}
	lanes, reach := 8, c.R
	if (c.K/c.Groups)%16 != 0 {
		lanes, reach = 16, max(c.R, 8)
	}
	if x%lanes == 0 {
		return xin
	}
	return max(xin, ((x+lanes-1)/lanes*lanes-1)*c.Stride+(reach-1)*c.Dilation+1)
}

// budgetOf is the memory the blocks' estimates may fill: a quarter is left to the layouts'
// padding (aligned rows, filter rows padded to the columns), an eighth for a point-wise
// convolution (no filter rows to pad). The kernels' real sizes are checked when they are
// evaluated.
func budgetOf(s *op.Spec, limit int) int {
	if s.Conv.R == 1 && s.Conv.S == 1 {
		return limit * 7 / 8
	}
	return limit * 3 / 4
}

// blockBytes is the memory a block of bx x by outputs and bk output channels needs: its input
// window (halo included) of the channels its output channels read, its weights and outputs.
func blockBytes(s *op.Spec, bx, by, bk, dup int) int {
	c := s.Conv
	cin := c.C
	if c.Groups > 1 {
		cin = c.C / c.Groups * (bk / (c.K / c.Groups))
		if c.K/c.Groups > bk {
			cin = c.C / c.Groups
		}
	}
	xin := (bx-1)*c.Stride + (c.R-1)*c.Dilation + 1
	yin := (by-1)*c.Stride + (c.S-1)*c.Dilation + 1
	eb := s.Types.A.Bits() / 8
	in := c.N * dupWidth(c, bx, xin, dup) * yin * cin * dup
	return eb*(in+bk*c.R*c.S*(c.C/c.Groups)) + s.Types.Out.Bits()/8*c.N*bx*by*bk
}

// spatialBlocks enumerates blocks bx | X, by | Y, bk | K (whole groups; at least 16 output
// channels where K allows and their weights fit, the widest vector), keeps for every bk the
// fitting block with the most outputs (rows of full width first), and returns the MaxBlocks
// with the most MACs.
func spatialBlocks(s *op.Spec, limit int) []block {
	// 8-bit layouts may duplicate the input four times (sched.Schedule.Dup): x vectorized
	// where no output channels vectorize, lanes split into x positions and output channels
	// (xk) where taps are one pixel apart. Such blocks are sized for the copies too.
	dups := []int{1}
	if s.Types.A.Bits() == 8 {
		switch {
		case (s.Conv.K/s.Conv.Groups)%16 != 0:
			dups = []int{2, 4}
		case s.Conv.R > 1:
			dups = []int{1, 4}
		}
	}
	var out []block
	for _, dup := range dups {
		for _, b := range spatialBlocksDup(s, limit, dup) {
			if len(out) < MaxBlocks && !hasBlock(out, b) {
				out = append(out, b)
			}
			if len(dups) > 1 && len(out) == 1 && dup == dups[0] {
				break // one block per estimate
			}
		}
	}
	return out
}

func hasBlock(bs []block, b block) bool {
	for _, x := range bs {
		if x.x == b.x && x.y == b.y && x.spec.Conv.K == b.spec.Conv.K {
			return true
		}
	}
	return false
}

func spatialBlocksDup(s *op.Spec, limit, dup int) []block {
	budget := budgetOf(s, limit)
	if out := spatialBlocksMin(s, budget, min(16, s.Conv.K), dup); len(out) > 0 {
		return out
	}
	// not even 16 output channels' weights fit: fewer (x vectorized)
	if out := spatialBlocksMin(s, budget, 1, dup); len(out) > 0 {
		return out
	}
	return spatialBlocksMin(s, limit, 1, dup)
}

func spatialBlocksMin(s *op.Spec, limit, minK, dup int) []block {
	c := s.Conv
	kpg := c.K / c.Groups
	var out []block
	for bk := c.K; bk >= minK; bk-- {
		if c.K%bk != 0 {
			continue
		}
		if c.Groups > 1 && bk%kpg != 0 && kpg%bk != 0 {
			continue
		}
		// 8-bit: widths that fill the xk lanes' 8 x positions come first
		vw := 1
		if s.Types.A.Bits() == 8 {
			vw = 8
		}
		var best, bestV [2]int
		for by := c.Y; by >= 1; by-- {
			if c.Y%by != 0 {
				continue
			}
			first := true
			for bx := c.X; bx >= 1; bx-- {
				if c.X%bx != 0 || blockBytes(s, bx, by, bk, dup) > limit {
					continue
				}
				// the most outputs; of equal ones the widest (x is the vectorized loop's
				// usual choice, and a long row keeps its input window's halo small)
				if first && (bx*by > best[0]*best[1] || bx*by == best[0]*best[1] && bx > best[0]) {
					best = [2]int{bx, by}
				}
				first = false
				w := bx
				if c.R == 1 && c.S == 1 && c.Stride == 1 {
					w = bx * by // flattened (flatten)
				}
				if w%vw == 0 {
					if bx*by > bestV[0]*bestV[1] || bx*by == bestV[0]*bestV[1] && bx > bestV[0] {
						bestV = [2]int{bx, by}
					}
					break
				}
			}
		}
		if bestV[0] != 0 {
			best = bestV
		}
		if best[0] == 0 {
			continue
		}
		out = append(out, subBlock(s, best[0], best[1], bk))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].spec.MACs() > out[j].spec.MACs() })
	if len(out) > MaxBlocks {
		out = out[:MaxBlocks]
	}
	return out
}

// flatten returns a point-wise convolution (1x1 filter, unit stride, no padding) of x x y
// outputs as one row of x*y outputs: the same products on the same data (a block's buffer
// holds its pixels one after the other), and a row long enough for the vector's lanes.
func flatten(s *op.Spec) *op.Spec {
	c := *s.Conv
	if c.R != 1 || c.S != 1 || c.Stride != 1 || c.Pad != 0 || c.Y == 1 || c.XIn != c.X || c.YIn != c.Y {
		return s
	}
	c.X, c.Y, c.XIn, c.YIn = c.X*c.Y, 1, c.X*c.Y, 1
	return &op.Spec{Conv: &c, Types: s.Types}
}

// subBlock is the spec of a bx x by x bk block of s and the number of such calls.
func subBlock(s *op.Spec, bx, by, bk int) block {
	c := *s.Conv
	calls := (c.X / bx) * (c.Y / by) * (c.K / bk)
	kpg := c.K / c.Groups
	if c.Groups > 1 {
		switch {
		case bk >= kpg: // whole groups
			c.Groups, c.C = bk/kpg, c.C/c.Groups*(bk/kpg)
		default: // part of one group's output channels: an ungrouped convolution of its inputs
			c.Groups, c.C = 1, c.C/c.Groups
		}
	}
	c.K = bk
	c.XIn = (bx-1)*c.Stride + (c.R-1)*c.Dilation + 1
	c.YIn = (by-1)*c.Stride + (c.S-1)*c.Dilation + 1
	c.X, c.Y, c.Pad = bx, by, 0
	spec := flatten(&op.Spec{Conv: &c, Types: s.Types})
	note := fmt.Sprintf("data exceed the memory: %d blocks of x=%d y=%d k=%d (input window with its halo; the border's zero padding written with the data), cycles summed", calls, bx, by, bk)
	return block{spec: spec, calls: calls, note: note, x: bx, y: by}
}
