package conv

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/team"
	"github.com/sumacdev/sumac/op"
)

// elem is every element type a kernel reads or writes.
type elem interface {
	~float32 | ~int16 | ~uint8 | ~int8 | ~int32
}

// kernel is one micro-kernel family of cpu/kernels: tiles MR x NR tiles stacked down C
// updated from A read in place (row i at a[i*lda:], kgroup*kg values; the next tile MR rows
// further) and a packed B micro-panel.
type kernel[A, B, C elem] struct {
	isa            kernels.ISA // the family's instruction set
	mr, nr, kgroup int
	kc             int // largest k of one block, a multiple of kgroup
	run            func(tiles, kg int, a []A, lda int, b []B, c []C, ldc int, beta C)
	// window is run with k in segs segments of kg groups, segStride elements apart in A
	// (cpu/kernels' window kernels)
	window func(tiles, kg, segs, segStride int, a []A, lda int, b []B, c []C, ldc int, beta C)
	// windowRows is window for tiles of 1 to mr rows (nil: no padded window path)
	windowRows func(rows, tiles, kg, segs, segStride int, a []A, lda int, b []B, c []C, ldc int, beta C)
	// rows is run for one tile of 1 to mr rows (cpu/kernels' tail kernels)
	rows func(rows, tiles, kg int, a []A, lda int, b []B, c []C, ldc int, beta C)
	// indirect is run for tiles of 1 to mr rows whose rows are read through an offset table
	// (cpu/kernels' indirect kernels): row i of tile t at a[o] for o = offs[t*rows+i] >= 0,
	// else at alt[^o]. Every family has it (the engine relies on it); rows may be nil.
	indirect func(rows, tiles, kg int, a, alt []A, offs []int, b []B, c []C, ldc int, beta C)
	// shortRowsSlow: a tile of up to mr/2 rows takes about as long as a full one (the fp32
	// kernels wait on the FMA latency with so few accumulators: 1 row measured 300 ns, 6 rows
	// 470 ns at kc 256), so a short last tile is better merged with the tiles before it
	// (engine.tailTile)
	shortRowsSlow bool
}

// tap is one filter position: filter row kh (along y) and column kw (along x).
type tap struct{ kh, kw int }

// segment is a list of taps whose reduction index is kk = tapIndex*Cg + channel. A fused
// segment holds consecutive columns of one filter row with all C channels (one group, no
// dilation), so for an output pixel its k values are one contiguous run of the input.
// A window segment holds every tap of a filter too short per row for a call of its own
// (ResNet-50's C1: 21 values a row): filter row kh is the reduction's part
// [kh*segLen, kh*segLen + R*Cg), padded with zero weights to segLen (a multiple of kgroup),
// and a tile reads all S rows in place in one window-kernel call. A gather segment
// (gatherOnly) holds every tap too, for the same short rows when groups or dilation keep the
// taps of a row from being adjacent in the input; it is always copied into the tile buffer.
type segment struct {
	taps       []tap
	fused      bool
	gatherOnly bool
	window     bool
	segLen     int // window: values per filter row in the reduction
}

// block is a range [kOff, kOff+kLen) of one segment's reduction, padded to kgp groups.
type block struct {
	seg        int
	kOff, kLen int
	kgp        int
	wOff       int   // offset of the block's packed panels within a group's weights
	runs       []run // the block's contiguous input runs, for gather
	// The block's tap extent: a pixel whose window covers rows khMin..khMax and columns
	// kwMin..kwMax inside the input copies every run without clipping (gather's fast case).
	khMin, khMax, kwMin, kwMax int
	// For reading a pixel's part in place (non-window blocks): the input row and the first
	// and last columns of the block's taps relative to the window origin, and the block's
	// start in the input relative to its first tap's channels.
	dy, dx0, dxl, aOff int
}

// run is a stretch of a block's reduction that one tile row copies from one place: taps
// consecutive along a filter row (or a single tap), with their channels.
type run struct {
	kh, kw int // filter row and the first tap's column
	taps   int // number of taps
	first  int // reduction index where the first tap's channels start
	lo, hi int // the run's part of the block, relative to the block start
	delta  int // input offset of the run's block part from the pixel's window origin
}

// gatherBelow is the filter-row length, in micro-kernel iterations (k groups), below which
// all taps are gathered into one k block (see layout).
var gatherBelow = 32

// engine is a convolution plan for one kernel family.
type engine[A, B, C elem] struct {
	c       op.Conv2D
	k       kernel[A, B, C]
	cg, kg  int // input and output channels per group
	panels  int // NR-wide panels per group
	segs    []segment
	blocks  []block
	ldgMax  int // widest tile buffer row
	wGroup  int // packed weight elements per group
	w       []B
	linear  bool // pixel p's input starts at p*C: 1x1, stride 1, no padding
	contig  bool // one group, no dilation: a filter row's taps are adjacent in the input
	pixels  int  // N*Y*X output pixels
	tiles   int  // pixel tiles of MR
	threads int
	// tailTile is the first tile of the tail (tiles: none), whose pixels run on the rows
	// kernel in pieces of piece rows: the last tile when it is partial or, when that is short
	// and the kernel slow on short tiles, the last few tiles and it re-split into pieces of
	// mr-1 (49 pixels: 4x6 + 5x5 instead of 8x6 + 1)
	tailTile, piece int

	tilesPerUnit, panelsPerUnit int
	pool                        sync.Pool // *scratch

	// padded: a window layout with padding reads a zero-padded copy of the input (padIn
	// elements, from padPool): per image padRows x padCols pixels, the part of the padded
	// image that the windows cover, with the input's pixel (iy, ix) at (iy+Pad, ix+Pad).
	// Every output row is rowTiles tiles of which only the last may be short; tiles then
	// number rows x rowTiles (paddedUnit).
	padded           bool
	rowTiles         int
	padRows, padCols int
	padIn            int
	padPool          sync.Pool // *[]A
}

// scratch is one goroutine's private buffers.
type scratch[A, C elem] struct {
	g        []A // MR rows of a gathered tile
	slots    []C // C tiles that do not fit the output (last pixel tile, partial channel panel)
	direct   []directRun[A]
	gathered []int
	// the indirect path's offset table, its copied rows (alt) and its runs of tiles
	offs      []int
	alt       []A
	indirects []indirectRun
}

// indirectRun is a run of n consecutive tiles (or tail pieces) of rows pixels from tile t
// (pixel p0) whose offset table entries start at offs[o]: one indirect kernel call.
type indirectRun struct {
	t, p0, n, rows, o int
	alone             bool // a partial last tile: its scratch slot is not the next tile's
}

// directRun is a run of n consecutive pixel tiles from tile t whose A operands are read in
// place and continue lda apart (a 1x1 layer's pixels, or the pixels of one output row):
// one kernel call runs them all.
type directRun[A elem] struct {
	t, n int
	a    []A
	lda  int
	rows int // the padded window path: a short tile of rows rows (0: n full tiles)
}

// newEngine lays out the reduction and packs the canonical weights.
func newEngine[A, B, C elem](c *op.Conv2D, k kernel[A, B, C], w []B, threads int) *engine[A, B, C] {
	e := &engine[A, B, C]{c: *c, k: k, threads: threads}
	e.cg, e.kg = c.C/c.Groups, c.K/c.Groups
	e.panels = (e.kg + k.nr - 1) / k.nr
	e.pixels = c.N * c.Y * c.X
	e.tiles = (e.pixels + k.mr - 1) / k.mr
	e.contig = c.Groups == 1 && c.Dilation == 1
	e.linear = c.R == 1 && c.S == 1 && c.Stride == 1 && c.Pad == 0 && c.XIn == c.X && c.YIn == c.Y
	e.layout()
	e.pack(w)
	if seg := &e.segs[0]; seg.window && c.Pad > 0 && e.kg%k.nr == 0 && k.windowRows != nil {
		e.padded = true
		e.rowTiles = ceilDiv(c.X, k.mr)
		e.tiles = c.N * c.Y * e.rowTiles
		// Only the rows and columns the windows reach: no more than the padded image, and
		// no larger than the outputs need however wide the padding.
		e.padRows, e.padCols = (c.Y-1)*c.Stride+c.S, (c.X-1)*c.Stride+c.R
		// The last window's last filter row may read segLen values from its start.
		e.padIn = c.N*e.padRows*e.padCols*c.C + seg.segLen
	}
	e.units()
	if !e.padded {
		e.splitTail()
	} else {
		e.tailTile = e.tiles
	}
	return e
}

// splitTail chooses the tail (tailTile, piece). The re-split tail must lie in one work unit
// and have only full panels (its pieces are written in place).
func (e *engine[A, B, C]) splitTail() {
	mr := e.k.mr
	e.tailTile, e.piece = e.tiles, mr
	r := e.pixels % mr
	if r == 0 || e.k.rows == nil {
		return
	}
	e.tailTile = e.tiles - 1
	if !e.k.shortRowsSlow || r > mr/2 || e.kg%e.k.nr != 0 {
		return
	}
	t := (mr - 1 - r) % (mr - 1) // full tiles joining the last: (t*mr + r) % (mr-1) == 0
	first := e.tiles - 1 - t
	if first < 0 || first < (e.tiles-1)/e.tilesPerUnit*e.tilesPerUnit {
		return
	}
	e.tailTile, e.piece = first, mr-1
}

// layout chooses the segments and splits them into blocks of at most kc.
func (e *engine[A, B, C]) layout() {
	c := &e.c
	switch {
	case e.contig && e.k.window != nil && c.S*roundUp(c.R*e.cg, e.k.kgroup) <= e.k.kc && c.R*e.cg < gatherBelow*e.k.kgroup && c.R*c.S > 1:
		// A filter row is shorter than gatherBelow kernel iterations (ResNet-50's C1: 21
		// values, MNIST conv1: 3): all S rows in one window-kernel call beat S short calls
		// and a copy of the tile.
		var taps []tap
		for kh := 0; kh < c.S; kh++ {
			for kw := 0; kw < c.R; kw++ {
				taps = append(taps, tap{kh, kw})
			}
		}
		segLen := roundUp(c.R*e.cg, e.k.kgroup)
		e.segs = []segment{{taps: taps, window: true, segLen: segLen}}
		b := block{kLen: c.S * segLen, kgp: c.S * segLen / e.k.kgroup, khMax: c.S - 1, kwMax: c.R - 1}
		// A gathered border tile leaves a row's padding (integers only: kgroup > 1) as it
		// was; like the values a tile read in place finds there, it meets zero weights.
		for kh := 0; kh < c.S; kh++ {
			lo := kh * segLen
			b.runs = append(b.runs, run{kh: kh, taps: c.R, first: lo, lo: lo, hi: lo + c.R*e.cg, delta: kh * c.XIn * c.C})
		}
		e.blocks = []block{b}
		e.wGroup = e.panels * b.kgp * e.k.nr * e.k.kgroup
		e.ldgMax = b.kgp * e.k.kgroup
		return
	case c.S*c.R*e.cg <= e.k.kc && c.R*e.cg < gatherBelow*e.k.kgroup && c.R*c.S > 1:
		// The same short rows without adjacent taps (groups, dilation): one k block of every
		// tap, copied per tile.
		var taps []tap
		for kh := 0; kh < c.S; kh++ {
			for kw := 0; kw < c.R; kw++ {
				taps = append(taps, tap{kh, kw})
			}
		}
		e.segs = []segment{{taps: taps, gatherOnly: true}}
	case c.Groups == 1 && c.Dilation == 1:
		for kh := 0; kh < c.S; kh++ {
			taps := make([]tap, c.R)
			for kw := range taps {
				taps[kw] = tap{kh, kw}
			}
			e.segs = append(e.segs, segment{taps: taps, fused: true})
		}
	default:
		for kh := 0; kh < c.S; kh++ {
			for kw := 0; kw < c.R; kw++ {
				e.segs = append(e.segs, segment{taps: []tap{{kh, kw}}})
			}
		}
	}
	g := e.k.kgroup
	panelLen := func(kgp int) int { return kgp * e.k.nr * g }
	for si, s := range e.segs {
		total := len(s.taps) * e.cg
		kc := e.blockLimit()
		nb := (total + kc - 1) / kc
		size := roundUp((total+nb-1)/nb, g)
		for off := 0; off < total; off += size {
			n := min(size, total-off)
			kgp := (n + g - 1) / g
			e.blocks = append(e.blocks, block{seg: si, kOff: off, kLen: n, kgp: kgp, wOff: e.wGroup})
			e.blocks[len(e.blocks)-1].runs = e.runsFor(&e.blocks[len(e.blocks)-1])
			e.blocks[len(e.blocks)-1].inPlace(s.taps, e.cg, c.Dilation)
			e.wGroup += e.panels * panelLen(kgp)
			e.ldgMax = max(e.ldgMax, kgp*g)
		}
	}
}

// inPlace sets the block's in-place reading offsets (dy, dx0, dxl, aOff).
func (b *block) inPlace(taps []tap, cg, dilation int) {
	tf := b.kOff / cg
	tl := (b.kOff + b.kLen - 1) / cg
	b.dy = taps[tf].kh * dilation
	b.dx0, b.dxl = taps[tf].kw*dilation, taps[tl].kw*dilation
	b.aOff = b.kOff - tf*cg
}

// fewTiles is the pixel tile count up to which a layer's k blocks are four times the
// kernel's kc (blockLimit).
const fewTiles = 48

// blockLimit is the longest k block of the layout: the kernel's kc, whose weight
// micro-panel (16 KiB) stays in L1 across the many tiles of a unit, or four times that for
// a layer of at most fewTiles pixel tiles (ResNet-50's 14x14 and 7x7 layers: 33 and 9).
// There each panel serves few tiles, and longer blocks, with fewer passes over the C tiles
// and fewer kernel calls, measured faster: C11-C20 fp32 +1.7% in geometric mean (C16-C18
// +2-6%), int16 and u8s8 +1-4%; on the 28x28 layers (131 tiles) they were not (C10 -3%).
func (e *engine[A, B, C]) blockLimit() int {
	if e.tiles <= fewTiles {
		return 4 * e.k.kc
	}
	return e.k.kc
}

func roundUp(v, m int) int { return (v + m - 1) / m * m }

// pack converts canonical weights [K][S][R][C/G] to the blocks' packed micro-panels: for
// group g, block b, panel jr, the panel starts at g*wGroup + b.wOff + jr*kgp*NR*kgroup and
// holds b[(p*NR+j)*kgroup+q] = W[g*Kg + jr*NR + j][reduction index kOff + p*kgroup + q],
// zero beyond the block's k range or the group's channels.
func (e *engine[A, B, C]) pack(w []B) {
	c := &e.c
	nr, g := e.k.nr, e.k.kgroup
	e.w = make([]B, c.Groups*e.wGroup)
	for grp := 0; grp < c.Groups; grp++ {
		for _, b := range e.blocks {
			taps := e.segs[b.seg].taps
			for jr := 0; jr < e.panels; jr++ {
				dst := e.w[grp*e.wGroup+b.wOff+jr*b.kgp*nr*g:]
				for p := 0; p < b.kgp; p++ {
					for j := 0; j < nr; j++ {
						ko := jr*nr + j
						if ko >= e.kg {
							continue
						}
						k := grp*e.kg + ko
						for q := 0; q < g; q++ {
							kk := p*g + q
							if kk >= b.kLen {
								break
							}
							kk += b.kOff
							ti, ch := kk/e.cg, kk%e.cg
							if sg := &e.segs[b.seg]; sg.window {
								row, j := kk/sg.segLen, kk%sg.segLen
								if j >= c.R*e.cg {
									continue // the row's padding: zero weight
								}
								ti, ch = row*c.R+j/e.cg, j%e.cg
							}
							t := taps[ti]
							dst[(p*nr+j)*g+q] = w[((k*c.S+t.kh)*c.R+t.kw)*e.cg+ch]
						}
					}
				}
			}
		}
	}
}

// minCallWork is the least tiles x k values of one kernel call in a unit (4096: about 25k
// cycles of fp32 FMAs), so that the call and panel-switch costs stay small on layers with
// short k: ResNet-50's C2 (k = 64: 64 tiles a unit instead of 16) and C9 (k = 128: 32 instead
// of 10) measured +1-3% in every type (alternating binaries, medians and best of 5).
const minCallWork = 4096

// units sizes the work units so that a block's weights for the unit's panels stay in L2
// (about 192 KiB of the 512 KiB, cpu.md; counted with the longest block's panel, not kc's)
// and the unit's output tiles in about 96 KiB (or more, minCallWork), then splits further
// until every thread has several units.
func (e *engine[A, B, C]) units() {
	var bz B
	var cz C
	bBytes := int(sizeOf(bz))
	cBytes := int(sizeOf(cz))
	panelBytes := e.ldgMax * e.k.nr * bBytes // the longest k block's weight micro-panel
	e.panelsPerUnit = max(1, min(e.panels, 192<<10/panelBytes))
	tileBytes := e.k.mr * e.panelsPerUnit * e.k.nr * cBytes
	e.tilesPerUnit = max(1, min(e.tiles, 96<<10/tileBytes))
	// A unit's kernel calls (one per panel) carry at least minCallWork: short k blocks take
	// more tiles than the output budget alone gives.
	e.tilesPerUnit = max(e.tilesPerUnit, min(e.tiles, minCallWork/e.ldgMax))
	if e.threads > 1 {
		for e.unitCount() < 4*e.threads && e.tilesPerUnit > 1 {
			e.tilesPerUnit = (e.tilesPerUnit + 1) / 2
		}
		for e.unitCount() < 2*e.threads && e.panelsPerUnit > 1 {
			e.panelsPerUnit = (e.panelsPerUnit + 1) / 2
		}
	}
}

func (e *engine[A, B, C]) unitCount() int {
	return e.c.Groups * ceilDiv(e.tiles, e.tilesPerUnit) * ceilDiv(e.panels, e.panelsPerUnit)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func sizeOf[T elem](T) uintptr {
	var v T
	switch any(v).(type) {
	case float32, int32:
		return 4
	case int16:
		return 2
	}
	return 1
}

// run computes the convolution: in and out are canonical NHWC tensors of the plan's shape.
func (e *engine[A, B, C]) run(in []A, out []C) {
	if e.padded {
		bp, _ := e.padPool.Get().(*[]A)
		if bp == nil {
			b := make([]A, e.padIn) // the borders stay zero: only the interior is copied
			bp = &b
		}
		p := *bp
		rows := e.c.N * e.c.YIn
		th := min(e.threads, rows)
		team.Run(th, func(t int) { e.padInput(p, in, t*rows/th, (t+1)*rows/th) })
		in = p
		defer e.padPool.Put(bp)
	}
	tChunks := ceilDiv(e.tiles, e.tilesPerUnit)
	pChunks := ceilDiv(e.panels, e.panelsPerUnit)
	total := e.c.Groups * tChunks * pChunks
	var next atomic.Int64
	work := func() {
		s, _ := e.pool.Get().(*scratch[A, C])
		if s == nil {
			s = &scratch[A, C]{
				g:     make([]A, e.k.mr*e.ldgMax),
				slots: make([]C, (e.tilesPerUnit+e.panelsPerUnit)*e.k.mr*e.k.nr),
			}
		}
		for {
			u := int(next.Add(1)) - 1
			if u >= total {
				break
			}
			pc := u % pChunks
			tc := u / pChunks % tChunks
			grp := u / (pChunks * tChunks)
			t0 := tc * e.tilesPerUnit
			j0 := pc * e.panelsPerUnit
			e.unit(in, out, s, grp, t0, min(e.tiles, t0+e.tilesPerUnit), j0, min(e.panels, j0+e.panelsPerUnit))
		}
		e.pool.Put(s)
	}
	team.Run(min(e.threads, total), func(int) { work() })
}

// padInput copies input rows r0..r1-1 (of N*YIn) into the interior of the padded input p,
// whose borders stay zero.
func (e *engine[A, B, C]) padInput(p, in []A, r0, r1 int) {
	c := &e.c
	cols := min(c.XIn, e.padCols-c.Pad) // input columns inside the covered part
	if cols <= 0 {
		return
	}
	for r := r0; r < r1; r++ {
		n, y := r/c.YIn, r%c.YIn
		if py := y + c.Pad; py < e.padRows {
			copy(p[((n*e.padRows+py)*e.padCols+c.Pad)*c.C:][:cols*c.C], in[r*c.XIn*c.C:][:cols*c.C])
		}
	}
}

// paddedUnit is unit for the padded window path: tiles t0..t1-1, each output row's pixels
// in rowTiles tiles of MR (the last one short), every tile read in place from the padded
// input p and written in place (all panels are full). A row's full tiles run in one window
// call per panel, its short last tile in one call of the window kernel of as many rows.
func (e *engine[A, B, C]) paddedUnit(p []A, out []C, s *scratch[A, C], t0, t1, j0, j1 int) {
	c := &e.c
	mr, nr, g := e.k.mr, e.k.nr, e.k.kgroup
	b := &e.blocks[0] // a window layout is one block: the tiles start from beta = 0
	sg := &e.segs[0]
	wBlock := e.w[b.wOff:] // and one group
	panelLen := b.kgp * g * nr
	lda, stride := c.Stride*c.C, e.padCols*c.C
	runs := s.direct[:0] // t holds the run's first pixel
	for t := t0; t < t1; {
		ro, j := t/e.rowTiles, t%e.rowTiles // output row (n*Y + y) and tile in it
		n, y := ro/c.Y, ro%c.Y
		x0 := j * mr
		full := min(t1-t, e.rowTiles-j, (c.X-x0)/mr) // full tiles from t in this row
		a := p[((n*e.padRows+y*c.Stride)*e.padCols+x0*c.Stride)*c.C:]
		if full > 0 {
			runs = append(runs, directRun[A]{t: ro*c.X + x0, n: full, a: a, lda: lda})
			t += full
			continue
		}
		runs = append(runs, directRun[A]{t: ro*c.X + x0, n: 1, a: a, lda: lda, rows: c.X - x0})
		t++
	}
	for jr := j0; jr < j1; jr++ {
		wp := wBlock[jr*panelLen:]
		for _, r := range runs {
			cs := out[r.t*c.K+jr*nr:]
			if r.rows == 0 {
				e.k.window(r.n, sg.segLen/g, c.S, stride, r.a, r.lda, wp, cs, c.K, 0)
			} else {
				e.k.windowRows(r.rows, 1, sg.segLen/g, c.S, stride, r.a, r.lda, wp, cs, c.K, 0)
			}
		}
	}
	s.direct = runs[:0]
}

// unit computes output tiles t0..t1-1 (MR pixels each) x panels j0..j1-1 of group grp.
func (e *engine[A, B, C]) unit(in []A, out []C, s *scratch[A, C], grp, t0, t1, j0, j1 int) {
	if e.padded {
		e.paddedUnit(in, out, s, t0, t1, j0, j1)
		return
	}
	c := &e.c
	mr, nr, g := e.k.mr, e.k.nr, e.k.kgroup
	nj := j1 - j0
	for bi := range e.blocks {
		b := &e.blocks[bi]
		first := bi == 0
		var beta C
		if !first {
			beta = 1
		}
		wBlock := e.w[grp*e.wGroup+b.wOff:]
		panelLen := b.kgp * nr * g
		// cTile is the output tile (t, jr): in place, or a scratch slot for the last pixel
		// tile and a group's partial panel.
		cTile := func(t, jr int) ([]C, int) {
			p0 := t * mr
			switch {
			case p0+mr > e.pixels:
				return s.slots[(jr-j0)*mr*nr:], nr
			case (jr+1)*nr > e.kg:
				return s.slots[(nj+t-t0)*mr*nr:], nr
			}
			return out[p0*c.K+grp*e.kg+jr*nr:], c.K
		}
		// Tiles read in place run panel by panel (L4 outside L5), so each weight
		// micro-panel stays in L1 across them (measured a few percent faster than Fig. 3's
		// order on ResNet-50's 3x3 layers); copied tiles are gathered once and then run
		// against every panel (L5 outside L4, as in Fig. 3).
		// Consecutive tiles whose A rows continue lda apart run in one kernel call: their C
		// tiles are MR rows of ldc apart too, in place or in the scratch slots. The runs are
		// found once per block, not once per panel (that cost 5% of a 1x1 layer).
		sg := &e.segs[b.seg]
		// Every segment but the window and gather-only ones uses the indirect kernels: the
		// tiles of a layer other than 1x1 all run through them, and so do a 1x1 layer's
		// tiles that cannot be read in place; only border pixels are copied. Window and
		// gather-only tiles that are not read in place are gathered whole.
		ind := !sg.window && !sg.gatherOnly
		if ind {
			e.indirectStart(s, b)
		}
		if ind && !e.linear {
			// Tiles crossing an output row read every row in place this way. The tiles within
			// a row through the strided kernel instead, and the others through this one (or
			// gathered whole, as before), measured 1-2% slower on ResNet-50's 3x3 layers
			// (C4 alike).
			for t := t0; t < min(t1, e.tailTile); t++ {
				// A partial last tile (no tail kernels) writes a scratch slot of its own.
				e.indirectPush(in, out, s, grp, b, t, t*mr, mr, t*mr+mr > e.pixels, first, j0, j1, cTile)
			}
			if e.tailTile < e.tiles && e.tailTile >= t0 && e.tailTile < t1 {
				for p0 := e.tailTile * mr; p0 < e.pixels; p0 += e.piece {
					e.indirectPush(in, out, s, grp, b, e.tiles-1, p0, min(e.piece, e.pixels-p0), false, first, j0, j1, cTile)
				}
			}
			e.indirectRun(in, out, s, grp, b, j0, j1, wBlock, cTile, beta)
			continue
		}
		gathered := s.gathered[:0]
		runs := s.direct[:0]
		tEnd := min(t1, e.tailTile)
		t := t0
		if e.linear { // (a 1x1 filter is neither a window nor a gather-only layout)
			// A 1x1 layer's full tiles form one run, as far as each tile's reads (the kgroup
			// padding of k included) stay inside the input: directRows' tests solved for t,
			// instead of a call per tile (2% of C3).
			lda, off := c.C, grp*e.cg+b.kOff
			if maxBase := len(in) - off - (mr-1)*lda - b.kgp*e.k.kgroup; maxBase >= 0 {
				if n := min(tEnd, maxBase/(mr*lda)+1, e.pixels/mr) - t0; n > 0 {
					runs = append(runs, directRun[A]{t: t0, n: n, a: in[t0*mr*lda+off:], lda: lda})
					t += n
				}
			}
		}
		for ; t < tEnd; t++ {
			a, lda, _ := e.direct(in, grp, b, t*mr)
			if a == nil {
				if ind {
					// A partial last tile (no tail kernels) writes a scratch slot of its own.
					e.indirectPush(in, out, s, grp, b, t, t*mr, mr, t*mr+mr > e.pixels, first, j0, j1, cTile)
				} else {
					gathered = append(gathered, t)
				}
				continue
			}
			if k := len(runs) - 1; k >= 0 && runs[k].t+runs[k].n == t && runs[k].lda == lda &&
				len(runs[k].a)-len(a) == runs[k].n*mr*lda {
				runs[k].n++
				continue
			}
			runs = append(runs, directRun[A]{t: t, n: 1, a: a, lda: lda})
		}
		for jr := j0; jr < j1; jr++ {
			wp := wBlock[jr*panelLen:]
			for _, r := range runs {
				cs, ldc := cTile(r.t, jr)
				if sg.window {
					e.k.window(r.n, sg.segLen/g, c.S, c.XIn*c.C, r.a, r.lda, wp, cs, ldc, beta)
				} else {
					e.k.run(r.n, b.kgp, r.a, r.lda, wp, cs, ldc, beta)
				}
			}
		}
		s.direct = runs[:0]
		for _, t := range gathered {
			a, lda, inside := e.gather(in, s.g, grp, b, t*mr)
			for jr := j0; jr < j1; jr++ {
				cs, ldc := cTile(t, jr)
				switch {
				case inside:
					e.k.run(1, b.kgp, a, lda, wBlock[jr*panelLen:], cs, ldc, beta)
				case first:
					// Every tap of the tile is zero padding (the top filter row of the
					// first output row): the block adds nothing, so the tile only starts
					// at zero, without a kernel call.
					zeroTile(cs, ldc, mr, nr)
				}
			}
		}
		s.gathered = gathered[:0]
		if e.tailTile < e.tiles && e.tailTile >= t0 && e.tailTile < t1 {
			// The tail: pieces of the tail kernels' rows (only the last may be partial),
			// read in place when possible, written in place into full panels (a re-split
			// tail has only those; a partial last tile's partial panel goes to its slot).
			// Whole pieces read in place that continue lda apart (a 1x1 layer's) run in one
			// call per panel, each weight panel read once for them all (ResNet-50's 49-pixel
			// layers: five 5-row pieces).
			p0 := e.tailTile * mr
			if e.kg%nr == 0 {
				start, pieces := p0, 0 // the run: pieces pieces from pixel start
				var runA []A
				runLda := 0
				for ; p0+e.piece <= e.pixels; p0 += e.piece {
					a, lda, _ := e.directRows(in, grp, b, p0, e.piece)
					if a == nil || pieces > 0 && (lda != runLda || len(runA)-len(a) != pieces*e.piece*lda) {
						break
					}
					if pieces == 0 {
						runA, runLda = a, lda
					}
					pieces++
				}
				for jr := j0; jr < j1 && pieces > 0; jr++ {
					e.k.rows(e.piece, pieces, b.kgp, runA, runLda, wBlock[jr*panelLen:], out[start*c.K+grp*e.kg+jr*nr:], c.K, beta)
				}
			}
			for ; p0 < e.pixels; p0 += e.piece {
				n := min(e.piece, e.pixels-p0)
				a, lda, _ := e.directRows(in, grp, b, p0, n)
				if a == nil && ind {
					e.indirectPush(in, out, s, grp, b, e.tiles-1, p0, n, false, first, j0, j1, cTile)
					continue
				}
				if a == nil {
					e.gatheredPiece(in, out, s, grp, b, p0, n, j0, j1, wBlock, cTile, beta, first)
					continue
				}
				for jr := j0; jr < j1; jr++ {
					cs, ldc := e.pieceC(out, grp, e.tiles-1, p0, n, jr, cTile)
					e.k.rows(n, 1, b.kgp, a, lda, wBlock[jr*panelLen:], cs, ldc, beta)
				}
			}
		}
		if ind {
			e.indirectRun(in, out, s, grp, b, j0, j1, wBlock, cTile, beta)
		}
	}
	// Copy the tiles computed aside into the valid part of the output: the last pixel
	// tile's panels and every tile's part of the group's partial panel (the rest was
	// written in place; a loop over every tile and panel here cost 5% of a 1x1 layer).
	copyOut := func(src []C, t, jr int) {
		p0 := t * mr
		cols := min(nr, e.kg-jr*nr)
		for i := 0; i < mr && p0+i < e.pixels; i++ {
			copy(out[(p0+i)*c.K+grp*e.kg+jr*nr:][:cols], src[i*nr:][:cols])
		}
	}
	partial := e.kg / nr // the partial panel, if the group's width leaves one
	hasPartial := e.kg%nr != 0 && partial >= j0 && partial < j1
	for t := t0; t < t1; t++ {
		if t*mr+mr > e.pixels {
			for jr := j0; jr < j1; jr++ {
				if e.k.rows != nil && (jr+1)*nr <= e.kg {
					continue // the tail tile, written in place
				}
				copyOut(s.slots[(jr-j0)*mr*nr:], t, jr)
			}
		} else if hasPartial {
			copyOut(s.slots[(nj+t-t0)*mr*nr:], t, partial)
		}
	}
}

// The indirect batch of a block: tiles and tail pieces whose rows are not evenly spaced in
// the input (pixels across an output row, border pixels). Each pixel's row of the block is
// read in place when all of its taps lie inside the input, else copied into s.alt with
// zeros for the padding, or it is the zero row when no tap is inside; so a tile crossing an
// output row is read wholly in place, and a border tile copies only its border pixels.
// Consecutive tiles run in one indirect kernel call per panel.

// indirectStart empties the batch; s.alt starts with the zero row (entry ^0).
func (e *engine[A, B, C]) indirectStart(s *scratch[A, C], b *block) {
	s.alt = append(s.alt[:0], make([]A, b.kgp*e.k.kgroup)...)
	s.offs, s.indirects = s.offs[:0], s.indirects[:0]
}

// indirectPush adds the tile or tail piece of rows pixels from p0 (tile t) to the batch
// (alone: in a run of its own), or, when none of its taps is inside the input, skips it
// (starting it at zero in the first block).
func (e *engine[A, B, C]) indirectPush(in []A, out []C, s *scratch[A, C], grp int, b *block,
	t, p0, rows int, alone, first bool, j0, j1 int, cTile func(t, jr int) ([]C, int)) {
	c := &e.c
	ld := b.kgp * e.k.kgroup
	o := len(s.offs)
	any := false
	x := p0 % c.X
	row := p0 / c.X
	y, n := row%c.Y, row/c.Y
	for i := 0; i < rows; i++ {
		if i > 0 { // the next pixel, without divisions
			if x++; x == c.X {
				x = 0
				if y++; y == c.Y {
					y = 0
					n++
				}
			}
		}
		r := ^0 // past the last pixel (a partial last tile): the zero row
		if p0+i < e.pixels {
			r = e.rowOffset(in, s, grp, b, n, y, x, ld)
		}
		any = any || r != ^0
		s.offs = append(s.offs, r)
	}
	if !any {
		s.offs = s.offs[:o]
		if first {
			for jr := j0; jr < j1; jr++ {
				cs, ldc := e.pieceC(out, grp, t, p0, rows, jr, cTile)
				zeroTile(cs, ldc, rows, e.k.nr)
			}
		}
		return
	}
	runs := s.indirects
	if k := len(runs) - 1; !alone && k >= 0 && !runs[k].alone && runs[k].rows == rows &&
		runs[k].p0+runs[k].n*rows == p0 && runs[k].o+runs[k].n*rows == o {
		runs[k].n++
		return
	}
	s.indirects = append(runs, indirectRun{t: t, p0: p0, n: 1, rows: rows, o: o, alone: alone})
}

// indirectRun runs the batch against panels j0..j1-1.
func (e *engine[A, B, C]) indirectRun(in []A, out []C, s *scratch[A, C], grp int, b *block,
	j0, j1 int, wBlock []B, cTile func(t, jr int) ([]C, int), beta C) {
	panelLen := b.kgp * e.k.kgroup * e.k.nr
	for jr := j0; jr < j1; jr++ {
		wp := wBlock[jr*panelLen:]
		for _, r := range s.indirects {
			cs, ldc := e.pieceC(out, grp, r.t, r.p0, r.rows, jr, cTile)
			e.k.indirect(r.rows, r.n, b.kgp, in, s.alt, s.offs[r.o:], wp, cs, ldc, beta)
		}
	}
}

// gatheredPiece runs the tail piece of n pixels from p0 gathered into the tile buffer.
func (e *engine[A, B, C]) gatheredPiece(in []A, out []C, s *scratch[A, C], grp int, b *block,
	p0, n, j0, j1 int, wBlock []B, cTile func(t, jr int) ([]C, int), beta C, first bool) {
	a, lda, inside := e.gather(in, s.g, grp, b, p0)
	if !inside && !first {
		return
	}
	panelLen := b.kgp * e.k.kgroup * e.k.nr
	for jr := j0; jr < j1; jr++ {
		cs, ldc := e.pieceC(out, grp, e.tiles-1, p0, n, jr, cTile)
		if inside {
			e.k.rows(n, 1, b.kgp, a, lda, wBlock[jr*panelLen:], cs, ldc, beta)
		} else {
			zeroTile(cs, ldc, n, e.k.nr)
		}
	}
}

// pieceC is the output of the tile or tail piece of rows pixels from p0 (tile t) in panel
// jr: cTile's for whole tiles, in place for a tail piece of a full panel.
func (e *engine[A, B, C]) pieceC(out []C, grp, t, p0, rows, jr int, cTile func(t, jr int) ([]C, int)) ([]C, int) {
	if rows < e.k.mr && (jr+1)*e.k.nr <= e.kg {
		return out[p0*e.c.K+grp*e.kg+jr*e.k.nr:], e.c.K
	}
	return cTile(t, jr)
}

// rowOffset returns the indirect table entry of pixel (n, y, x)'s row of block b: its place
// in the input when all of the block's taps are inside (and the kernel's ld values stay in
// the tensor), else ^(its copy in s.alt), or ^0, the zero row, when no tap is inside.
func (e *engine[A, B, C]) rowOffset(in []A, s *scratch[A, C], grp int, b *block, n, y, x, ld int) int {
	c := &e.c
	oy, ox := y*c.Stride-c.Pad, x*c.Stride-c.Pad // the window's origin
	iy, ix0 := oy+b.dy, ox+b.dx0
	if iy >= 0 && iy < c.YIn && ix0 >= 0 && ox+b.dxl < c.XIn {
		if base := ((n*c.YIn+iy)*c.XIn+ix0)*c.C + grp*e.cg + b.aOff; base+ld <= len(in) {
			return base
		}
	}
	o := len(s.alt)
	s.alt = append(s.alt, make([]A, ld)...)
	if !e.gatherRow(in, s.alt[o:], grp, b, n, y, x) {
		s.alt = s.alt[:o]
		return ^0
	}
	return ^o
}

// direct returns the tile's A operand read in place with a row stride, or nil when the tile
// needs a copy (or, for the blocks other than window ones of a layer other than 1x1, the
// indirect kernels, which those layers always use): its pixels span two output rows, a tap
// falls into the padding, or the kgroup padding of k would read past the input.
func (e *engine[A, B, C]) direct(in []A, grp int, b *block, p0 int) ([]A, int, bool) {
	return e.directRows(in, grp, b, p0, e.k.mr)
}

// directRows is direct for a tile of mr rows (the last tile of the pixels may have fewer
// than the kernel's MR; window segments read it through the tile buffer).
func (e *engine[A, B, C]) directRows(in []A, grp int, b *block, p0, mr int) ([]A, int, bool) {
	c := &e.c
	seg := &e.segs[b.seg]
	if p0+mr > e.pixels || seg.gatherOnly {
		return nil, 0, false
	}
	if seg.window {
		if mr != e.k.mr {
			return nil, 0, false
		}
		return e.directWindow(in, seg, p0)
	}
	if !e.linear {
		return nil, 0, false
	}
	reach := b.kgp * e.k.kgroup // values read per row
	base := p0*c.C + grp*e.cg + b.kOff
	lda := c.C
	if base+(mr-1)*lda+reach > len(in) {
		return nil, 0, false
	}
	return in[base:], lda, true
}

// directWindow is direct for a window segment: every filter row of every pixel of the tile
// inside the input, and the rows' padding (segLen past each row start) inside the tensor.
func (e *engine[A, B, C]) directWindow(in []A, seg *segment, p0 int) ([]A, int, bool) {
	c := &e.c
	mr := e.k.mr
	x0 := p0 % c.X
	if x0+mr > c.X {
		return nil, 0, false
	}
	row := p0 / c.X
	y, n := row%c.Y, row/c.Y
	iy := y*c.Stride - c.Pad
	ix0 := x0*c.Stride - c.Pad
	if iy < 0 || iy+c.S-1 >= c.YIn || ix0 < 0 || (x0+mr-1)*c.Stride-c.Pad+c.R-1 >= c.XIn {
		return nil, 0, false
	}
	base := ((n*c.YIn+iy)*c.XIn + ix0) * c.C
	lda := c.Stride * c.C
	if base+(mr-1)*lda+(c.S-1)*c.XIn*c.C+seg.segLen > len(in) {
		return nil, 0, false
	}
	return in[base:], lda, true
}

// gather copies the tile's k block into buf (MR rows of kgp*kgroup values, zero where a tap
// falls into the padding, past the last pixel, or past the block), and reports whether any
// tap was inside the input.
func (e *engine[A, B, C]) gather(in []A, buf []A, grp int, b *block, p0 int) ([]A, int, bool) {
	c := &e.c
	ld := b.kgp * e.k.kgroup
	anyIn := false
	x := p0 % c.X
	row := p0 / c.X
	y, n := row%c.Y, row/c.Y
	for i := 0; i < e.k.mr; i++ {
		dst := buf[i*ld : (i+1)*ld]
		if p0+i >= e.pixels {
			zero(dst)
			continue
		}
		// The next pixel, without divisions.
		if i > 0 {
			if x++; x == c.X {
				x = 0
				if y++; y == c.Y {
					y = 0
					n++
				}
			}
		}
		if e.gatherRow(in, dst, grp, b, n, y, x) {
			anyIn = true
		}
	}
	return buf, ld, anyIn
}

// gatherRow copies output pixel (n, y, x)'s part of block b into dst (kgp*kgroup values,
// zero where a tap falls into the padding or past the block) and reports whether any tap
// was inside the input.
func (e *engine[A, B, C]) gatherRow(in []A, dst []A, grp int, b *block, n, y, x int) bool {
	c := &e.c
	imgBase := n * c.YIn
	oy, ox := y*c.Stride-c.Pad, x*c.Stride-c.Pad // the window's origin
	if oy+b.khMin*c.Dilation >= 0 && oy+b.khMax*c.Dilation < c.YIn &&
		ox+b.kwMin*c.Dilation >= 0 && ox+b.kwMax*c.Dilation < c.XIn {
		// Every tap inside the input: one move per run, no clipping.
		base := ((imgBase+oy)*c.XIn+ox)*c.C + grp*e.cg
		for ri := range b.runs {
			r := &b.runs[ri]
			move(dst[r.lo:r.hi], in[base+r.delta:])
		}
		zero(dst[b.kLen:])
		return true
	}
	anyIn := false
	for ri := range b.runs {
		r := &b.runs[ri]
		d := dst[r.lo:r.hi]
		iy := y*c.Stride + r.kh*c.Dilation - c.Pad
		ix := x*c.Stride + r.kw*c.Dilation - c.Pad         // column of the run's first tap; step 1
		vLo, vHi := max(0, -ix), min(r.taps-1, c.XIn-1-ix) // taps of the run inside the input
		if iy < 0 || iy >= c.YIn || vLo > vHi {
			zero(d)
			continue
		}
		anyIn = true
		// Copy the inside taps' values, clear the rest of the run. Indices are relative
		// to the run's first tap start (r.first, in reduction indices).
		inLo := max(r.lo, r.first+vLo*e.cg-b.kOff)
		inHi := min(r.hi, r.first+(vHi+1)*e.cg-b.kOff)
		zero(dst[r.lo:max(r.lo, inLo)])
		if inLo < inHi {
			src := ((imgBase+iy)*c.XIn+ix)*c.C + grp*e.cg + inLo + b.kOff - r.first
			move(dst[inLo:inHi], in[src:src+inHi-inLo])
		}
		zero(dst[max(r.lo, inHi):r.hi])
	}
	zero(dst[b.kLen:])
	return anyIn
}

// runsFor splits a block into runs: taps that are consecutive columns of one filter row are
// one contiguous stretch of an input row when the plan is contig, so a tile row copies
// each run with one move.
func (e *engine[A, B, C]) runsFor(b *block) []run {
	taps := e.segs[b.seg].taps
	tf := b.kOff / e.cg
	tl := (b.kOff + b.kLen - 1) / e.cg
	var runs []run
	b.khMin, b.kwMin = math.MaxInt, math.MaxInt
	for t := tf; t <= tl; {
		u := t
		if e.contig {
			for u < tl && taps[u+1].kh == taps[t].kh && taps[u+1].kw == taps[u].kw+1 {
				u++
			}
		}
		r := run{
			kh: taps[t].kh, kw: taps[t].kw, taps: u - t + 1, first: t * e.cg,
			lo: max(t*e.cg, b.kOff) - b.kOff, hi: min((u+1)*e.cg, b.kOff+b.kLen) - b.kOff,
		}
		c := &e.c
		r.delta = (r.kh*c.Dilation*c.XIn+r.kw*c.Dilation)*c.C + r.lo + b.kOff - r.first
		runs = append(runs, r)
		b.khMin, b.khMax = min(b.khMin, r.kh), max(b.khMax, r.kh)
		b.kwMin, b.kwMax = min(b.kwMin, r.kw), max(b.kwMax, taps[u].kw)
		t = u + 1
	}
	return runs
}

// zeroTile clears rows x nr values of a C tile with row stride ldc: what a kernel call
// with beta = 0 writes for an all-zero A.
func zeroTile[T elem](c []T, ldc, rows, nr int) {
	for i := 0; i < rows; i++ {
		clear(c[i*ldc : i*ldc+nr])
	}
}

// move and zero are copy and clear with a plain loop for the short runs of small-channel
// layers (MNIST conv1 copies 3 values at a time), where a memmove call costs more than the
// copy.
func move[T elem](dst, src []T) {
	if len(dst) > 16 {
		copy(dst, src)
		return
	}
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = src[i]
	}
}

func zero[T elem](dst []T) {
	if len(dst) > 16 {
		clear(dst)
		return
	}
	for i := range dst {
		dst[i] = 0
	}
}
