package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// AMX tile kernels (docs/cpu-amx.md): one call updates tiles 32 x 32 blocks of C stacked
// down C (each 2 x 2 tiles of 16 x 16 int32 or float32) from kg k steps of tiles consecutive
// packed A panels and one packed B panel. A k step is 64 bytes of k: 64 int8 values or 32
// bf16 values.
//
// Packed A, per k step: the tile of rows 0-15 then the tile of rows 16-31, each 16 rows of 64
// bytes (a row's 64 bytes of k in order): AMXTileBytes*2 bytes a step.
// Packed B, per k step: the tile of columns 0-15 then of columns 16-31, each 16 rows of 64
// bytes in the VNNI layout: row r holds, for each of the 16 columns, the 4 int8 values of k
// = 4r..4r+3 (bf16: the 2 values of k = 2r, 2r+1) of that column.
const (
	AMXBlock     = 32   // rows and columns of C per call
	AMXKStep     = 64   // bytes of k per step
	AMXTileBytes = 1024 // one packed tile: 16 rows x 64 bytes
)

type amxElem uint8

const (
	amxu8s8 amxElem = iota
	amxs8s8
	amxbf16
)

// amxOp and amxProgram mirror internal/x86gen's AMXOp and AMXProgram: the generated tables
// (zamxprog.go) are the programs the assembly kernels were generated from.
type amxOp struct{ op, t, t1, t2, ptr, off int }

type amxProgram struct {
	elem                      amxElem
	step                      int
	indirect                  bool // A read in place through an offset table (amxRunConv)
	loadC, zeroC, body, store []amxOp
}

const (
	amxOpLoad = iota
	amxOpStore
	amxOpZero
	amxOpDot
)

// amxTiles is the model's tile register file: eight tiles of 16 rows x 64 bytes (palette 1
// as the kernels configure it, every tile 16 x 64).
type amxTiles [8][16][64]byte

// amxRun runs program p on the Go model of the tile instructions: what the assembly kernel
// computes, instruction by instruction (the same loads, stores and tile multiplies on the
// same addresses). The multiplies follow the Intel SDM's pseudo-code (TDPBUSD, TDPBSSD:
// int32 sums of 4 byte products, wrapping; TDPBF16PS: per output an even and an odd fp32
// partial sum over the tile's 16 k pairs, each a fused multiply-add with round to nearest
// even, denormal inputs read as zero and denormal results flushed; then the two are added and
// the sum added to C, each rounded once).
func amxRun(p *amxProgram, kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles int) {
	as := unsafe.Slice(a, tiles*kg*p.step)
	bs := unsafe.Slice(b, kg*p.step)
	cs := unsafe.Slice((*byte)(c), (32*tiles-1)*ldc+2*AMXKStep)
	for t := 0; t < tiles; t++ {
		at := as[t*kg*p.step:]
		amxRunBlock(p, kg, func(o amxOp, s int) ([]byte, int) { return at[s*p.step+o.off:], AMXKStep }, bs, cs[32*t*ldc:], ldc, load)
	}
}

// amxRunConv is amxRun for a direct convolution program (p.indirect): block t's A tiles of
// step s are read in place at a + t*32*lda + offs[s] (rows 0-15) and 16*lda further (rows
// 16-31), with row stride lda (lda and offs in elements).
func amxRunConv(p *amxProgram, kg int, a, b *byte, c unsafe.Pointer, ldc, load, tiles, lda int, offs *int) {
	eb := 1 // lda and offs count elements: bytes, or bf16 values
	if p.elem == amxbf16 {
		eb = 2
	}
	lda *= eb
	os := make([]int, kg)
	ext := 0
	for i, o := range unsafe.Slice(offs, kg) {
		os[i] = o * eb
		ext = max(ext, os[i])
	}
	as := unsafe.Slice(a, (32*tiles-1)*lda+ext+AMXKStep)
	bs := unsafe.Slice(b, kg*p.step)
	cs := unsafe.Slice((*byte)(c), (32*tiles-1)*ldc+2*AMXKStep)
	for t := 0; t < tiles; t++ {
		at := as[t*32*lda:]
		amxRunBlock(p, kg, func(o amxOp, s int) ([]byte, int) {
			if o.ptr == amxPtrAX16 {
				return at[os[s]+16*lda+o.off:], lda
			}
			return at[os[s]+o.off:], lda
		}, bs, cs[32*t*ldc:], ldc, load)
	}
}

// Pointer kinds of a program (internal/x86gen AMXPtrA..AMXPtrAX16).
const (
	amxPtrA = iota
	amxPtrB
	amxPtrC
	amxPtrC16
	amxPtrAX
	amxPtrAX16
)

// amxRunBlock is one block of amxRun: the program's loads or zeroing of C, kg steps, stores;
// aAt gives A's operand of step s (packed A, or the input in place).
func amxRunBlock(p *amxProgram, kg int, aAt func(o amxOp, s int) ([]byte, int), bs, cs []byte, ldc, load int) {
	var tm amxTiles
	at := func(o amxOp, s int) ([]byte, int) {
		switch o.ptr {
		case amxPtrA, amxPtrAX, amxPtrAX16:
			return aAt(o, s)
		case amxPtrB:
			return bs[s*p.step+o.off:], AMXKStep
		case amxPtrC:
			return cs[o.off:], ldc
		}
		return cs[16*ldc+o.off:], ldc
	}
	exec := func(o amxOp, s int) {
		switch o.op {
		case amxOpLoad:
			m, stride := at(o, s)
			for r := 0; r < 16; r++ {
				copy(tm[o.t][r][:], m[r*stride:][:64])
			}
		case amxOpStore:
			m, stride := at(o, s)
			for r := 0; r < 16; r++ {
				copy(m[r*stride:][:64], tm[o.t][r][:])
			}
		case amxOpZero:
			tm[o.t] = [16][64]byte{}
		case amxOpDot:
			amxDot(p.elem, &tm[o.t], &tm[o.t1], &tm[o.t2])
		}
	}
	ops := p.zeroC
	if load != 0 {
		ops = p.loadC
	}
	for _, o := range ops {
		exec(o, 0)
	}
	for s := 0; s < kg; s++ {
		for _, o := range p.body {
			exec(o, s)
		}
	}
	for _, o := range p.store {
		exec(o, 0)
	}
}

// amxDot is one tile multiply: dst (16 x 16 lanes of 4 bytes) += src1 (16 rows x 16 k groups)
// times src2 (16 k groups x 16 columns, VNNI layout).
func amxDot(e amxElem, dst, s1, s2 *[16][64]byte) {
	le := binary.LittleEndian
	if e == amxbf16 {
		h := func(t *[16][64]byte, r, i int) uint16 { return le.Uint16(t[r][2*i:]) }
		for m := 0; m < 16; m++ {
			var temp [32]float32
			for k := 0; k < 16; k++ {
				for n := 0; n < 16; n++ {
					temp[2*n] = ftz(temp[2*n] + bf16In(h(s1, m, 2*k))*bf16In(h(s2, k, 2*n)))
					temp[2*n+1] = ftz(temp[2*n+1] + bf16In(h(s1, m, 2*k+1))*bf16In(h(s2, k, 2*n+1)))
				}
			}
			for n := 0; n < 16; n++ {
				t := ftz(temp[2*n] + temp[2*n+1])
				d := ftz(math.Float32frombits(le.Uint32(dst[m][4*n:]))) // DAZ
				le.PutUint32(dst[m][4*n:], math.Float32bits(ftz(d+t)))
			}
		}
		return
	}
	for m := 0; m < 16; m++ {
		for n := 0; n < 16; n++ {
			acc := int32(le.Uint32(dst[m][4*n:]))
			for k := 0; k < 16; k++ {
				for i := 0; i < 4; i++ {
					x := int32(s1[m][4*k+i]) // TDPBUSD: unsigned A
					if e == amxs8s8 {
						x = int32(int8(s1[m][4*k+i]))
					}
					acc += x * int32(int8(s2[k][4*n+i]))
				}
			}
			le.PutUint32(dst[m][4*n:], uint32(acc))
		}
	}
}

// AMX reports whether the AMX tile kernels are in use: the CPU has AMX-TILE, AMX-INT8 and
// AMX-BF16, the OS granted the tile data, and the cap (MaxISAEnv, LimitISA) allows ISAAMX.
// Without them the AMX functions below run the Go model of the instructions (slow: tests).
func AMX() bool { return amxInUse() }

func checkAMX(tiles, kg, aLen, bLen, cLen, ldc int) {
	if kg < 1 || tiles < 1 {
		panic(fmt.Sprintf("kernels: AMX k step count %d or block count %d is not positive", kg, tiles))
	}
	if ldc < AMXBlock {
		panic(fmt.Sprintf("kernels: ldc=%d is smaller than the AMX block %d", ldc, AMXBlock))
	}
	check("A", aLen, tiles*kg*2*AMXTileBytes)
	check("B", bLen, kg*2*AMXTileBytes)
	check("C", cLen, (tiles*AMXBlock-1)*ldc+AMXBlock)
}

// amxCalls runs tiles blocks in calls of boundedly many tile multiplies (an assembly call
// is not preemptible: about 50 us each at most).
func amxCalls(tiles, kg int, f func(t0, n int)) {
	step := max(1, 1024/kg)
	for t0 := 0; t0 < tiles; t0 += step {
		f(t0, min(step, tiles-t0))
	}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// AMXU8S8 updates tiles 32 x 32 int32 blocks stacked down c (row stride ldc; block t at row
// 32t) with kg k steps of packed uint8 A (block t: the t-th panel of kg steps) and int8 B
// (TDPBUSD): C = A*B, or C += A*B when load is set; sums wrap modulo 2^32.
func AMXU8S8(tiles, kg int, a []uint8, b []int8, c []int32, ldc int, load bool) {
	checkAMX(tiles, kg, len(a), len(b), len(c), ldc)
	amxCalls(tiles, kg, func(t0, n int) {
		kAMXU8S8(kg, &a[t0*kg*2*AMXTileBytes], (*byte)(unsafe.Pointer(&b[0])), unsafe.Pointer(&c[t0*AMXBlock*ldc]), 4*ldc, b2i(load), n)
	})
}

// AMXS8S8 is AMXU8S8 with int8 A (TDPBSSD).
func AMXS8S8(tiles, kg int, a []int8, b []int8, c []int32, ldc int, load bool) {
	checkAMX(tiles, kg, len(a), len(b), len(c), ldc)
	amxCalls(tiles, kg, func(t0, n int) {
		kAMXS8S8(kg, (*byte)(unsafe.Pointer(&a[t0*kg*2*AMXTileBytes])), (*byte)(unsafe.Pointer(&b[0])), unsafe.Pointer(&c[t0*AMXBlock*ldc]), 4*ldc, b2i(load), n)
	})
}

// AMXBF16 is the bf16 x bf16 -> float32 kernel (TDPBF16PS): packed A and B hold bf16 values
// (uint16; a k step is 32 of them per row), C float32.
func AMXBF16(tiles, kg int, a []uint16, b []uint16, c []float32, ldc int, load bool) {
	checkAMX(tiles, kg, 2*len(a), 2*len(b), len(c), ldc)
	amxCalls(tiles, kg, func(t0, n int) {
		kAMXBF16(kg, (*byte)(unsafe.Pointer(&a[t0*kg*AMXTileBytes])), (*byte)(unsafe.Pointer(&b[0])), unsafe.Pointer(&c[t0*AMXBlock*ldc]), 4*ldc, b2i(load), n)
	})
}

// AMXConvU8S8 is the direct convolution tile kernel (TDPBUSD): it updates tiles 32 x 32
// int32 blocks stacked down c (row stride ldc; block t at row 32t) with kg k steps, step s
// reading its two A tiles in place at a[t*32*lda + offs[s]:] and 16 rows further (row stride
// lda bytes: 16 consecutive pixels x 64 bytes of channels) and its two B tiles from the
// packed VNNI panel b (AMXU8S8's B layout, one step after another): C = A*B, or C += A*B
// when load is set; sums wrap modulo 2^32. The input must extend 64 bytes past the last
// tile row read (the bytes past a run's real channels meet zero weights).
func AMXConvU8S8(tiles, kg int, a []uint8, lda int, offs []int, b []int8, c []int32, ldc int, load bool) {
	checkAMXConv(tiles, kg, len(a), lda, offs, 1, len(b), len(c), ldc)
	amxCalls(tiles, kg, func(t0, n int) {
		kAMXConvU8S8(kg, &a[t0*AMXBlock*lda], (*byte)(unsafe.Pointer(&b[0])), unsafe.Pointer(&c[t0*AMXBlock*ldc]), 4*ldc, b2i(load), n, lda, &offs[0])
	})
}

// AMXConvS8S8 is AMXConvU8S8 with int8 A (TDPBSSD).
func AMXConvS8S8(tiles, kg int, a []int8, lda int, offs []int, b []int8, c []int32, ldc int, load bool) {
	checkAMXConv(tiles, kg, len(a), lda, offs, 1, len(b), len(c), ldc)
	amxCalls(tiles, kg, func(t0, n int) {
		kAMXConvS8S8(kg, (*byte)(unsafe.Pointer(&a[t0*AMXBlock*lda])), (*byte)(unsafe.Pointer(&b[0])), unsafe.Pointer(&c[t0*AMXBlock*ldc]), 4*ldc, b2i(load), n, lda, &offs[0])
	})
}

// checkAMXConv checks a direct convolution call's operands, counted in elements of eb bytes.
func checkAMXConv(tiles, kg, aLen, lda int, offs []int, eb, bLen, cLen, ldc int) {
	if kg < 1 || tiles < 1 || lda < 1 {
		panic(fmt.Sprintf("kernels: AMX k step count %d, block count %d or lda %d is not positive", kg, tiles, lda))
	}
	if len(offs) < kg {
		panic(fmt.Sprintf("kernels: %d A offsets for %d k steps", len(offs), kg))
	}
	ext := 0
	for _, o := range offs[:kg] {
		if o < 0 {
			panic(fmt.Sprintf("kernels: negative A offset %d", o))
		}
		ext = max(ext, o)
	}
	if ldc < AMXBlock {
		panic(fmt.Sprintf("kernels: ldc=%d is smaller than the AMX block %d", ldc, AMXBlock))
	}
	check("A", aLen, (tiles*AMXBlock-1)*lda+ext+AMXKStep/eb)
	check("B", bLen, kg*2*AMXTileBytes/eb)
	check("C", cLen, (tiles*AMXBlock-1)*ldc+AMXBlock)
}

// AMXConvBF16 is AMXConvU8S8 for bf16 (TDPBF16PS, float32 C): a, b hold bf16 values (uint16;
// a k step is 32 of them), lda and offs count bf16 values. Unlike the integer kernels, the
// values a step reads past its real k must be finite (they meet zero weights: 0 x Inf = NaN).
func AMXConvBF16(tiles, kg int, a []uint16, lda int, offs []int, b []uint16, c []float32, ldc int, load bool) {
	checkAMXConv(tiles, kg, len(a), lda, offs, 2, len(b), len(c), ldc)
	amxCalls(tiles, kg, func(t0, n int) {
		kAMXConvBF16(kg, (*byte)(unsafe.Pointer(&a[t0*AMXBlock*lda])), (*byte)(unsafe.Pointer(&b[0])), unsafe.Pointer(&c[t0*AMXBlock*ldc]), 4*ldc, b2i(load), n, lda, &offs[0])
	})
}
