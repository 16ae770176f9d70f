package harness

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// fill makes the initial memory: the given inputs, random integers of at most bits bits,
// floats uniform in [-1, 1], zeros for output windows.
func (s *run) fill(bits int) map[string][]byte {
	r := rand.New(rand.NewPCG(s.opt.Seed, 0x5eed))
	data := map[string][]byte{}
	for _, p := range s.k.Params {
		if !isRegion(p) && !(p.Type.IsStream() && !p.Type.Out) {
			continue
		}
		b := make([]byte, s.sizes[p.Name])
		data[p.Name] = b
		if f, ok := s.opt.Inputs[p.Name]; ok {
			copy(b, f)
			continue
		}
		if p.Type.IsWindow() && p.Type.Out || p.Port == kernel.PortOutBuffer {
			continue
		}
		e := p.Type.Elem
		sz := e.Bytes()
		if p.Type.IsCascade() {
			// cascade lanes: partial sums of products of inputs of bits bits
			sz = streamElemBytes(p.Type)
			bb := min(2*bits+4, e.Bits()-1)
			for i := 0; i+sz <= len(b); i += sz {
				v := r.Int64N(int64(1)<<bb) - int64(1)<<(bb-1)
				for j := 0; j < sz; j++ {
					b[i+j] = byte(v >> (8 * min(j, 7)))
				}
				if v < 0 && sz == 16 {
					for j := 8; j < 16; j++ {
						b[i+j] = 0xFF
					}
				}
			}
			continue
		}
		for i := 0; i+sz <= len(b); i += sz {
			switch {
			case e == kernel.Float32:
				binary.LittleEndian.PutUint32(b[i:], math.Float32bits(float32(r.Float64()*2-1)))
			default:
				bb := min(bits, e.Bits())
				var v int64
				if e.Signed() {
					v = r.Int64N(int64(1)<<bb) - int64(1)<<(bb-1)
				} else {
					v = r.Int64N(int64(1) << bb)
				}
				for j := 0; j < sz; j++ {
					b[i+j] = byte(v >> (8 * j))
				}
			}
		}
	}
	return data
}

// maxBits is the widest integer element among the randomly filled regions.
func (s *run) maxBits() int {
	m := 0
	for _, p := range s.k.Params {
		if isInput(p) && p.Type.Elem.IsInt() {
			if _, ok := s.opt.Inputs[p.Name]; !ok {
				m = max(m, p.Type.Elem.Bits())
			}
		}
	}
	return m
}
