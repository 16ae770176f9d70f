package harness

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/emul"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// checkEmul runs the g++ emulation of the source on the same inputs and compares every
// window and buffer after the run, the MAC and narrowing counts, and every accumulator before
// it is narrowed (both traces sorted: the emulation may narrow in another order).
func (s *run) checkEmul(rep *Report, res *interp.Result, data map[string][]byte, trace [][]num.Acc) error {
	bin, err := emul.Build(emul.Source{Name: filepath.Base(s.src.File), Text: s.src.Text, Defines: s.src.Defines,
		Dir: filepath.Dir(s.src.File), Includes: s.k.Includes, IncludeDirs: s.src.IncludeDirs}, s.k)
	if errors.Is(err, emul.ErrNoCompiler) {
		return fmt.Errorf("%w; the emulation check needs one", err)
	}
	if err != nil {
		return err
	}
	var mem [][]byte
	// the windows and buffers at the interpreter's addresses, in an image of the data memory:
	// a read past one sees the same bytes in both (interp.OutsideRead)
	addr := map[string]int64{}
	for _, r := range res.Regions {
		if !r.Storage {
			addr[r.Name] = int64(r.Addr)
		}
	}
	var addrs []int64
	for _, p := range s.k.Params {
		a, ok := addr[p.Name]
		if !ok || !isRegion(p) {
			a = -1
		}
		addrs = append(addrs, a)
	}
	for _, p := range s.k.Params {
		if p.Type.IsScalar() {
			b := make([]byte, 8)
			binary.LittleEndian.PutUint64(b, uint64(s.opt.Scalars[p.Name]))
			mem = append(mem, b)
			continue
		}
		mem = append(mem, data[p.Name])
	}
	er, err := bin.Run(mem, emul.Modes{Round: s.opt.Round, Sat: s.opt.Sat, CycleReads: s.cycleReads, Addrs: addrs})
	if err != nil {
		return err
	}
	rep.Emulation = "checked (g++, aie1_emul.h)"
	if bin.Cached {
		rep.Emulation += ", cached binary"
	}
	bad := func(format string, a ...any) { rep.Mismatches = append(rep.Mismatches, fmt.Sprintf(format, a...)) }
	for i, p := range s.k.Params {
		if p.Type.IsScalar() {
			continue
		}
		a, b := res.Data[p.Name], er.Mem[i]
		if len(a) != len(b) {
			bad("%s: %d bytes after the interpreter, %d after the emulation", p.Name, len(a), len(b))
			continue
		}
		sz := p.Type.Elem.Bytes()
		if p.Type.IsStream() {
			sz = streamElemBytes(p.Type)
		}
		n := 0
		for j := 0; j+sz <= len(a); j += sz {
			if !bytes.Equal(a[j:j+sz], b[j:j+sz]) {
				if n < 5 {
					bad("%s element %d: interpreter %s, emulation %s", p.Name, j/sz, elemString(a[j:j+sz], p.Type.Elem), elemString(b[j:j+sz], p.Type.Elem))
				}
				n++
			}
		}
		if n > 5 {
			bad("%s: %d more elements differ", p.Name, n-5)
		}
	}
	if er.MACs != res.MACs {
		bad("MAC count: interpreter %d, emulation %d", res.MACs, er.MACs)
	}
	if er.Narrowed != res.Narrowed || er.Saturated != res.Saturated {
		bad("narrowing: interpreter %d lanes (%d saturated), emulation %d (%d)", res.Narrowed, res.Saturated, er.Narrowed, er.Saturated)
	}
	if len(er.Trace) != len(trace) {
		bad("accumulators: interpreter narrowed %d times, emulation %d times", len(trace), len(er.Trace))
		return nil
	}
	emul.SortTrace(trace)
	emul.SortTrace(er.Trace)
	n := 0
	for i := range trace {
		if len(trace[i]) != len(er.Trace[i]) {
			bad("accumulator record %d: %d lanes vs %d", i, len(trace[i]), len(er.Trace[i]))
			continue
		}
		for l := range trace[i] {
			rep.AccumulatorLanesChecked++
			if trace[i][l].Cmp(er.Trace[i][l]) != 0 {
				if n < 5 {
					bad("accumulator before narrowing (sorted record %d, lane %d): interpreter %v, emulation %v", i, l, trace[i][l], er.Trace[i][l])
				}
				n++
			}
		}
	}
	return nil
}

func elemString(b []byte, e kernel.Elem) string {
	var v kernel.Vec
	copy(v[:], b)
	if e == kernel.Float32 {
		return fmt.Sprint(v.F32(0))
	}
	return fmt.Sprint(v.Lane(e, 0))
}
