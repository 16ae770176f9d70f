package backend

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Scalar replacement of small local arrays: a local array of scalars that the kernel only
// reads and writes element by element at constant indices (as it is once the loops over it
// are flattened, flatten.go) becomes one scalar variable per element accessed, kept in
// registers; its loads and stores become moves. This is LLVM's SROA (scalar replacement of
// aggregates: an alloca accessed only by loads and stores at constant offsets is split into
// scalars, then promoted to registers by mem2reg), a choice of the compiler's, not a timing
// parameter. sumac promotes arrays of at most maxPromotedElems accessed elements, half the
// scalar register file (AM009: r0-r15), so that promotion alone does not crowd out the
// kernel's other scalars; Compile keeps the variant only when it is faster.

const maxPromotedElems = 8

// promoteArrays returns k with its promotable local arrays replaced by scalars, or nil if
// it has none. k is not modified.
func promoteArrays(k *kernel.Kernel) *kernel.Kernel {
	// candidates: local scalar arrays; any use other than a load or store at a constant
	// index disqualifies
	elems := map[*kernel.Var]map[int64]bool{}
	for _, v := range k.Vars {
		if v.Storage != nil && v.Storage.Kind == kernel.LocalArray && v.Type.IsPointer() && v.Type.Pointee().IsScalar() {
			elems[v] = map[int64]bool{}
		}
	}
	if len(elems) == 0 {
		return nil
	}
	bad := map[*kernel.Var]bool{}
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.Instr:
			for i, a := range s.Args {
				if a.Var == nil || elems[a.Var] == nil {
					continue
				}
				el := elemOfPtr(a.Var)
				switch {
				case i == 0 && s.Op == kernel.OpLoad && s.Args[1].Var == nil && !s.Args[1].IsFloat && s.Dst.Type == el:
					elems[a.Var][s.Args[1].Imm] = true
				case i == 0 && s.Op == kernel.OpStore && s.Args[1].Var == nil && !s.Args[1].IsFloat &&
					(s.Args[2].Var != nil && s.Args[2].Var.Type == el || s.Args[2].Var == nil):
					elems[a.Var][s.Args[1].Imm] = true
				default:
					bad[a.Var] = true
				}
			}
			if s.Dst != nil && elems[s.Dst] != nil {
				bad[s.Dst] = true
			}
		case *kernel.Loop:
			for _, o := range []kernel.Operand{s.Start, s.Limit, s.Step} {
				if o.Var != nil && elems[o.Var] != nil {
					bad[o.Var] = true
				}
			}
		case *kernel.If:
			if s.Cond.Var != nil && elems[s.Cond.Var] != nil {
				bad[s.Cond.Var] = true
			}
		}
	})
	k2 := *k
	k2.Vars = append([]*kernel.Var(nil), k.Vars...)
	repl := map[*kernel.Var]map[int64]*kernel.Var{}
	var entry []kernel.Stmt
	for idx, v := range k.Vars {
		es, ok := elems[v]
		if !ok || bad[v] || len(es) == 0 || len(es) > maxPromotedElems {
			continue
		}
		n := int64(v.Storage.Bytes / v.Type.Pointee().Bytes())
		for i := range es {
			if i < 0 || i >= n {
				bad[v] = true // an access outside the array: left to the interpreter's report
			}
		}
		if bad[v] {
			continue
		}
		repl[v] = map[int64]*kernel.Var{}
		// the array itself is no longer used: no storage to place or address to set
		nv := *v
		nv.Storage = nil
		k2.Vars[idx] = &nv
	}
	if len(repl) == 0 {
		return nil
	}
	names := map[string]bool{}
	for _, v := range k.Vars {
		names[v.Name] = true
	}
	for _, v := range k.Vars {
		if repl[v] == nil {
			continue
		}
		el := elemOfPtr(v)
		eb := el.Bytes()
		for i := range elems[v] {
			name := fmt.Sprintf("%s_e%d", v.Name, i)
			for j := 1; names[name]; j++ {
				name = fmt.Sprintf("%s_e%d_%d", v.Name, i, j)
			}
			names[name] = true
			e := k2.NewVar(name, el)
			e.Pos = v.Pos
			repl[v][i] = e
			// the element's value when the kernel starts: the array's initializer (zeros
			// when it has none), as the memory holds it
			var bits uint64
			if init := v.Storage.Init; init != nil && int(i+1)*eb <= len(init) {
				b := make([]byte, 8)
				copy(b, init[int(i)*eb:int(i+1)*eb])
				bits = binary.LittleEndian.Uint64(b)
			}
			val := kernel.Imm(signExtend(bits, eb, el.Elem.Signed()))
			if el.Elem == kernel.Float32 {
				val = kernel.FImm(math.Float32frombits(uint32(bits)))
			}
			entry = append(entry, &kernel.Instr{Op: kernel.OpMov, Dst: e, Args: []kernel.Operand{val}, Pos: v.Pos})
		}
	}
	k2.Body = append(entry, promoteBody(k.Body, repl)...)
	if k2.Validate() != nil {
		return nil
	}
	return &k2
}

// elemOfPtr is the element type of a pointer variable's pointee.
func elemOfPtr(v *kernel.Var) kernel.Type { return kernel.ScalarOf(v.Type.Pointee().Elem) }

func signExtend(bits uint64, bytes int, signed bool) int64 {
	sh := 64 - 8*uint(bytes)
	if signed {
		return int64(bits<<sh) >> sh
	}
	return int64(bits << sh >> sh)
}

func promoteBody(ss []kernel.Stmt, repl map[*kernel.Var]map[int64]*kernel.Var) []kernel.Stmt {
	out := make([]kernel.Stmt, 0, len(ss))
	for _, s := range ss {
		switch s := s.(type) {
		case *kernel.Loop:
			l := *s
			l.Body = promoteBody(s.Body, repl)
			out = append(out, &l)
		case *kernel.If:
			x := *s
			x.Then, x.Else = promoteBody(s.Then, repl), promoteBody(s.Else, repl)
			out = append(out, &x)
		case *kernel.Instr:
			if (s.Op == kernel.OpLoad || s.Op == kernel.OpStore) && s.Args[0].Var != nil && repl[s.Args[0].Var] != nil {
				e := repl[s.Args[0].Var][s.Args[1].Imm]
				if s.Op == kernel.OpLoad {
					out = append(out, &kernel.Instr{Op: kernel.OpMov, Dst: s.Dst, Args: []kernel.Operand{kernel.V(e)}, Pos: s.Pos})
				} else {
					out = append(out, &kernel.Instr{Op: kernel.OpMov, Dst: e, Args: []kernel.Operand{s.Args[2]}, Pos: s.Pos})
				}
				continue
			}
			out = append(out, s)
		default:
			out = append(out, s)
		}
	}
	return out
}
