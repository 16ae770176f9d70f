package backend

import (
	"fmt"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Loop flattening and address strength reduction (a kernel-to-kernel pass before lowering).
//
// Flattening: a loop whose trip count is a compile-time constant and whose body is straight
// code is replaced by one copy of the body per iteration, the counter a constant in each, when
// the copies together stay small: maxFlattenStmts statements, LLVM's full-unroll policy
// (LoopUnrollPass.cpp: a loop with a constant trip count is fully unrolled when the unrolled
// size stays under -unroll-threshold, 150 by default). A loop marked chess_flatten_loop is
// flattened up to maxForcedFlattenStmts: the source asks for it (UG1079 "Loop Flattening and
// Unrolling"). A loop marked chess_prepare_for_pipelining flattens under the same rule when it
// runs fewer than minPipelineTrip times: full unrolling of a constant trip count comes before
// pipelining, and only a request not to unroll stops it (LLVM LoopUnrollPass.cpp
// computeUnrollCount tries "exact full unrolling" whatever the loop's pipelining hints), and
// the vendor's LLVM leaves a loop to the software pipeliner instead of unrolling it when it
// runs at least 9 times (llvm-aie AIEBaseTargetTransformInfo.cpp adjustUnrollingPreferences,
// -aie-prefer-swp-over-unroll). The loop around the flattened one, now innermost, is the one
// software-pipelined (LLVM's MachinePipeliner takes innermost loops): a loop of two or three
// iterations pipelined on its own overlaps only those, and pays a prologue and an epilogue
// at every entry. Compile also compiles the kernel with the marked loops kept (only the
// others flattened) and keeps the faster program. Nests flatten from the inside out. Inside
// the copies, a value defined afresh (not read by its own definition, not a partial update)
// gets a variable of its own, as SSA renaming does, so the copies do not serialize on one
// register; the last definition keeps the variable's name, which is what code after the
// copies reads. Integer arithmetic on the now-constant counters is folded.
//
// Strength reduction: an access *(q + c) through q = p + n (C pointer arithmetic, the kernel
// IR's ptradd) becomes the access p[n + c] when nothing redefines p or n in between and q is
// read by nothing else: an index the lowering turns into a post-incremented pointer when it
// is affine in the innermost counter (lower.go, indGroup) or an immediate offset when it is a
// constant, where the ptradd needed a shift or a multiply and a pointer add per access.
//
// Compile compiles the kernel with and without this pass and keeps the faster program: it is
// a policy of the compiler's, not a parameter of the timing model.

const (
	maxFlattenStmts       = 150
	maxForcedFlattenStmts = 1024
	// minPipelineTrip: a loop marked chess_prepare_for_pipelining that runs at least this
	// many times stays a loop (llvm-aie's -aie-prefer-swp-over-unroll, 9).
	minPipelineTrip = 9
)

// flattenKernel returns k with its small constant loops flattened and its pointer additions
// forwarded into the accesses, or nil if nothing changed. k is not modified.
func flattenKernel(k *kernel.Kernel) *kernel.Kernel { k2, _ := flattenWith(k, false, false); return k2 }

// narrowKernel is flattenKernel followed by operand narrowing, or nil if that changes
// nothing over flattenKernel.
func narrowKernel(k *kernel.Kernel) *kernel.Kernel { k2, _ := flattenWith(k, true, false); return k2 }

// flattenWith flattens k's small constant loops (those marked chess_prepare_for_pipelining
// too unless keepMarked), forwards its pointer additions and, if narrow, narrows its MAC
// operands. It returns nil if nothing changed, and whether a marked loop was flattened.
func flattenWith(k *kernel.Kernel, narrow, keepMarked bool) (*kernel.Kernel, bool) {
	k2 := *k
	k2.Vars = append([]*kernel.Var(nil), k.Vars...)
	f := &flattener{k: &k2, names: map[string]bool{}, keepMarked: keepMarked}
	for _, v := range k.Vars {
		f.names[v.Name] = true
	}
	k2.Body = f.body(k.Body)
	if f.forwardAll() {
		f.changed = true
	}
	if narrow {
		n1 := f.narrowAll()
		n2 := f.cseAll()
		if !n1 && !n2 {
			return nil, false
		}
		f.changed = true
	}
	if !f.changed {
		return nil, false
	}
	f.dce()
	if k2.Validate() != nil {
		return nil, false
	}
	return &k2, f.nmarked > 0
}

type flattener struct {
	k       *kernel.Kernel
	names   map[string]bool
	changed bool
	nfresh  int
	nloops  int
	// keepMarked: loops marked chess_prepare_for_pipelining stay loops; nmarked counts
	// the marked loops flattened.
	keepMarked bool
	nmarked    int
}

func (f *flattener) fresh(v *kernel.Var) *kernel.Var {
	for {
		f.nfresh++
		name := fmt.Sprintf("%s_f%d", v.Name, f.nfresh)
		if !f.names[name] {
			f.names[name] = true
			nv := f.k.NewVar(name, v.Type)
			nv.Temp = true
			nv.Pos = v.Pos
			return nv
		}
	}
}

// body flattens the loops of a statement list (innermost first).
func (f *flattener) body(body []kernel.Stmt) []kernel.Stmt {
	var out []kernel.Stmt
	for _, st := range body {
		switch s := st.(type) {
		case *kernel.Loop:
			l2 := *s
			l2.Body = f.body(s.Body)
			if seq, ok := f.flatten(&l2); ok {
				out = append(out, seq...)
				continue
			}
			out = append(out, &l2)
		case *kernel.If:
			n := *s
			n.Then, n.Else = f.body(s.Then), f.body(s.Else)
			out = append(out, &n)
		default:
			out = append(out, st)
		}
	}
	return out
}

// flatten returns the copies of l's body, or false when l is not flattened.
func (f *flattener) flatten(l *kernel.Loop) ([]kernel.Stmt, bool) {
	trip, ok := l.TripCount()
	if !ok || trip < 0 || l.Pipelined && (f.keepMarked || trip >= minPipelineTrip) || !l.Start.IsIntImm() || !l.Step.IsIntImm() {
		return nil, false
	}
	limit := int64(maxFlattenStmts)
	if l.Flatten {
		limit = maxForcedFlattenStmts
	}
	if trip*int64(len(l.Body)) > limit {
		return nil, false
	}
	for _, st := range l.Body {
		in, ok := st.(*kernel.Instr)
		if !ok || l.Var != nil && in.Dst == l.Var {
			return nil, false // nested control flow, or the body writes the counter
		}
	}
	var seq []kernel.Stmt
	for c := int64(0); c < trip; c++ {
		if l.Var == nil {
			// no counter (the body does not read it, as in generated kernels): plain copies
			for _, st := range l.Body {
				n := *st.(*kernel.Instr)
				n.Args = append([]kernel.Operand(nil), n.Args...)
				seq = append(seq, &n)
			}
			continue
		}
		seq = append(seq, substVar(l.Body, l.Var, l.Start.Imm+c*l.Step.Imm)...)
	}
	// The counter's final value, for code after the loop that reads it (a dead move otherwise,
	// removed by dce).
	final := l.Start.Imm + trip*l.Step.Imm
	if l.Var == nil {
	} else if l.Var.Type.IsIntScalar() && final >= 0 && final < 1<<31 {
		seq = append(seq, &kernel.Instr{Op: kernel.OpMov, Dst: l.Var, Args: []kernel.Operand{kernel.Imm(final)}, Pos: l.Pos})
	} else {
		return nil, false
	}
	seq = f.rename(seq)
	f.fold(seq)
	f.changed = true
	f.nloops++
	if l.Pipelined {
		f.nmarked++
	}
	return seq, true
}

// renamable reports whether a variable may be split into several (registers, not memory,
// not a parameter).
func renamable(v *kernel.Var) bool {
	if v == nil || v.Param || v.Storage != nil || v.Member {
		return false
	}
	switch v.Type.Class {
	case kernel.Scalar, kernel.Vector, kernel.Accum, kernel.Pointer:
		return true
	}
	return false
}

// freshDef reports whether in defines its destination afresh: all of it, without reading it.
func freshDef(in *kernel.Instr) bool {
	if in.Dst == nil || isPartialUpd(in) {
		return false
	}
	for _, a := range in.Args {
		if a.Var == in.Dst {
			return false
		}
	}
	return true
}

// rename gives every fresh definition in the straight-line seq but the last of each variable
// a new variable, and renames the reads it reaches. (A run of partial updates covering a
// vector is not taken as a fresh definition: tried, its extra registers cost more than the
// overlap gained on the corpus's 2x2 max-pool.)
func (f *flattener) rename(seq []kernel.Stmt) []kernel.Stmt {
	last := map[*kernel.Var]int{}
	for i, st := range seq {
		in := st.(*kernel.Instr)
		if freshDef(in) && renamable(in.Dst) {
			last[in.Dst] = i
		}
	}
	cur := map[*kernel.Var]*kernel.Var{}
	var out []kernel.Stmt
	for i, st := range seq {
		in := st.(*kernel.Instr)
		n := *in
		n.Args = make([]kernel.Operand, len(in.Args))
		for j, a := range in.Args {
			if r, ok := cur[a.Var]; ok && a.Var != nil {
				a.Var = r
			}
			n.Args[j] = a
		}
		if in.Dst != nil {
			switch {
			case freshDef(in) && renamable(in.Dst) && last[in.Dst] != i:
				nv := f.fresh(in.Dst)
				cur[in.Dst] = nv
				n.Dst = nv
			case freshDef(in):
				delete(cur, in.Dst)
			default:
				if r, ok := cur[in.Dst]; ok {
					n.Dst = r // a partial update or an in-place MAC of the current copy
				}
			}
		}
		out = append(out, &n)
	}
	return out
}

// constArg reports whether op takes an integer immediate at argument i (where a constant
// counter may be folded in).
func constArg(op kernel.Op, i int) bool {
	switch {
	case op.IsScalarArith() && !op.IsCompare(), op == kernel.OpMov:
		return true
	case op == kernel.OpPtrAdd, op == kernel.OpLoad, op == kernel.OpStore:
		return i == 1
	}
	return false
}

// small is the range where int and unsigned arithmetic agree and an immediate is exact.
func small(v int64) bool { return v >= 0 && v < 1<<31 }

// fold propagates integer constants through the straight-line seq and folds the integer
// arithmetic on them (address arithmetic on the flattened counters).
func (f *flattener) fold(seq []kernel.Stmt) {
	env := map[*kernel.Var]int64{}
	for i, st := range seq {
		in := st.(*kernel.Instr)
		n := *in
		n.Args = append([]kernel.Operand(nil), in.Args...)
		for j, a := range n.Args {
			if c, ok := env[a.Var]; ok && a.Var != nil && constArg(n.Op, j) {
				n.Args[j] = kernel.Imm(c)
			}
		}
		if n.Dst != nil {
			delete(env, n.Dst)
			dt := n.Dst.Type
			if dt.IsIntScalar() && dt.Elem.Bits() == 32 {
				if v, ok := evalConst(&n); ok {
					n.Op, n.Args = kernel.OpMov, []kernel.Operand{kernel.Imm(v)}
					env[n.Dst] = v
				}
			}
		}
		seq[i] = &n
	}
}

// evalConst evaluates an integer move or arithmetic op on immediates in the small range.
func evalConst(in *kernel.Instr) (int64, bool) {
	for _, a := range in.Args {
		if !a.IsIntImm() || !small(a.Imm) {
			return 0, false
		}
	}
	if in.Op == kernel.OpMov && len(in.Args) == 1 {
		return in.Args[0].Imm, true
	}
	if !in.Op.IsScalarArith() || in.Op.IsCompare() || len(in.Args) == 0 {
		return 0, false
	}
	x := in.Args[0].Imm
	y := int64(0)
	if len(in.Args) > 1 {
		y = in.Args[1].Imm
	}
	r, _, err := kernel.Arith(in.Op, kernel.Int32, x, y)
	if err != nil || !small(r) {
		return 0, false
	}
	return r, true
}

// uses counts the reads of each variable in the kernel (instruction arguments, loop bounds,
// conditions).
func (f *flattener) uses() map[*kernel.Var]int {
	n := map[*kernel.Var]int{}
	kernel.Walk(f.k.Body, func(st kernel.Stmt, _ int) {
		switch s := st.(type) {
		case *kernel.Instr:
			for _, a := range s.Args {
				if a.Var != nil {
					n[a.Var]++
				}
			}
		case *kernel.Loop:
			for _, a := range []kernel.Operand{s.Start, s.Limit, s.Step} {
				if a.Var != nil {
					n[a.Var]++
				}
			}
		case *kernel.If:
			if s.Cond.Var != nil {
				n[s.Cond.Var]++
			}
		}
	})
	return n
}

// forwardAll forwards pointer additions into the accesses through them in every statement
// list of the kernel, one at a time (the read counts are recounted after each).
func (f *flattener) forwardAll() bool {
	any := false
	for {
		changed := false
		f.k.Body = f.forwardOnce(f.k.Body, f.uses(), &changed)
		if !changed {
			return any
		}
		any = true
	}
}

// forwardOnce makes one forward in body or a list nested in it, returning the new list.
func (f *flattener) forwardOnce(body []kernel.Stmt, total map[*kernel.Var]int, changed *bool) []kernel.Stmt {
	for i, st := range body {
		switch s := st.(type) {
		case *kernel.Loop:
			nb := f.forwardOnce(s.Body, total, changed)
			if *changed {
				n := *s
				n.Body = nb
				out := append([]kernel.Stmt(nil), body...)
				out[i] = &n
				return out
			}
		case *kernel.If:
			nt := f.forwardOnce(s.Then, total, changed)
			ne := s.Else
			if !*changed {
				ne = f.forwardOnce(s.Else, total, changed)
			}
			if *changed {
				n := *s
				n.Then, n.Else = nt, ne
				out := append([]kernel.Stmt(nil), body...)
				out[i] = &n
				return out
			}
		}
	}
	out, ok := f.forward(body, total)
	*changed = ok
	return out
}

// forward rewrites, in one statement list, the accesses through one q = ptradd(p, n) as
// accesses through p (see the file comment), and drops q's definition, which then reaches no
// read.
func (f *flattener) forward(body []kernel.Stmt, total map[*kernel.Var]int) ([]kernel.Stmt, bool) {
	for i := 0; i < len(body); i++ {
		d, ok := body[i].(*kernel.Instr)
		if !ok || d.Op != kernel.OpPtrAdd || d.Dst == nil || d.Args[0].Var == nil || !renamable(d.Dst) ||
			d.Dst == d.Args[0].Var || d.Dst == d.Args[1].Var {
			continue
		}
		q, p, nArg := d.Dst, d.Args[0].Var, d.Args[1]
		if !q.Type.IsPointer() || !p.Type.IsPointer() || q.Type.Pointee().Bytes() != p.Type.Pointee().Bytes() || p.Type.Pointee().Bytes() == 0 {
			continue
		}
		// The reads this definition reaches: up to q's next definition in the list; without
		// one, q must be read nowhere else in the kernel.
		redefined := false
		var reads []int
		ok = true
		for j := i + 1; j < len(body) && ok; j++ {
			in, isInstr := body[j].(*kernel.Instr)
			if !isInstr {
				if mentions(body[j], q) {
					ok = false
				}
				if mentions(body[j], p) || nArg.Var != nil && mentions(body[j], nArg.Var) {
					// p or n may change: no read of q may follow
					for k := j + 1; k < len(body); k++ {
						if mentions(body[k], q) {
							ok = false
						}
					}
					break
				}
				continue
			}
			for ai, a := range in.Args {
				if a.Var == q && !((in.Op == kernel.OpLoad || in.Op == kernel.OpStore) && ai == 0) {
					ok = false
				}
			}
			if (in.Op == kernel.OpLoad || in.Op == kernel.OpStore) && in.Args[0].Var == q {
				reads = append(reads, j)
			}
			if in.Dst == q {
				redefined = true
				break
			}
			if in.Dst != nil && (in.Dst == p || in.Dst == nArg.Var) {
				// p or n changes: no read of q may follow
				for k := j + 1; k < len(body); k++ {
					if mentions(body[k], q) {
						ok = false
					}
				}
				break
			}
		}
		if !ok || len(reads) == 0 || !redefined && total[q] != len(reads) {
			continue
		}
		var ins []kernel.Stmt
		repl := map[int]*kernel.Instr{}
		for _, j := range reads {
			in := body[j].(*kernel.Instr)
			idx, okIdx := addIndex(f, nArg, in.Args[1], &ins, in.Pos)
			if !okIdx {
				ok = false
				break
			}
			n := *in
			n.Args = append([]kernel.Operand(nil), in.Args...)
			n.Args[0], n.Args[1] = kernel.V(p), idx
			repl[j] = &n
		}
		if !ok {
			continue
		}
		var out []kernel.Stmt
		for j, st := range body {
			if j == i {
				// q's definition, which reaches no read now: the index additions instead
				// (p and n have their values here)
				out = append(out, ins...)
				continue
			}
			if r := repl[j]; r != nil {
				out = append(out, r)
				continue
			}
			out = append(out, st)
		}
		return out, true
	}
	return body, false
}

// addIndex returns the operand n + c, adding an instruction to ins when it is not constant.
func addIndex(f *flattener, n, c kernel.Operand, ins *[]kernel.Stmt, pos kernel.Pos) (kernel.Operand, bool) {
	if c.IsIntImm() && c.Imm == 0 {
		return n, true
	}
	if n.IsIntImm() && n.Imm == 0 {
		return c, true
	}
	if n.IsIntImm() && c.IsIntImm() {
		return kernel.Imm(n.Imm + c.Imm), true
	}
	if n.IsFloat || c.IsFloat {
		return kernel.Operand{}, false
	}
	t := kernel.Type{Class: kernel.Scalar, Elem: kernel.Int32, Lanes: 1}
	if n.Var != nil {
		t = n.Var.Type
	} else if c.Var != nil {
		t = c.Var.Type
	}
	f.nfresh++
	name := fmt.Sprintf("_idx_f%d", f.nfresh)
	for f.names[name] {
		f.nfresh++
		name = fmt.Sprintf("_idx_f%d", f.nfresh)
	}
	f.names[name] = true
	v := f.k.NewVar(name, t)
	v.Temp = true
	*ins = append(*ins, &kernel.Instr{Op: kernel.OpAdd, Dst: v, Args: []kernel.Operand{n, c}, Pos: pos})
	return kernel.V(v), true
}

// mentions reports whether a statement (with what it contains) reads or writes v.
func mentions(st kernel.Stmt, v *kernel.Var) bool {
	found := false
	kernel.Walk([]kernel.Stmt{st}, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.Instr:
			if s.Dst == v {
				found = true
			}
			for _, a := range s.Args {
				if a.Var == v {
					found = true
				}
			}
		case *kernel.Loop:
			if s.Var == v || s.Start.Var == v || s.Limit.Var == v || s.Step.Var == v {
				found = true
			}
		case *kernel.If:
			if s.Cond.Var == v {
				found = true
			}
		}
	})
	return found
}

// pureScalar reports whether in only computes its destination (a scalar or pointer value
// nothing else observes).
func pureScalar(in *kernel.Instr) bool {
	if in.Dst == nil || !renamable(in.Dst) || in.Dst.Type.Class == kernel.Vector || in.Dst.Type.Class == kernel.Accum {
		return false
	}
	if in.Op == kernel.OpDiv || in.Op == kernel.OpRem || in.Op == kernel.OpShl || in.Op == kernel.OpShr {
		return false // may be undefined (an error the interpreter reports): kept
	}
	return in.Op.IsScalarArith() || in.Op == kernel.OpMov || in.Op == kernel.OpPtrAdd
}

// dce removes the scalar and pointer computations whose results nothing reads.
func (f *flattener) dce() {
	for {
		n := f.uses()
		removed := false
		var walk func(body []kernel.Stmt) []kernel.Stmt
		walk = func(body []kernel.Stmt) []kernel.Stmt {
			var out []kernel.Stmt
			for _, st := range body {
				switch s := st.(type) {
				case *kernel.Instr:
					if pureScalar(s) && n[s.Dst] == 0 {
						removed = true
						continue
					}
				case *kernel.Loop:
					c := *s
					c.Body = walk(s.Body)
					st = &c
				case *kernel.If:
					c := *s
					c.Then, c.Else = walk(s.Then), walk(s.Else)
					st = &c
				}
				out = append(out, st)
			}
			return out
		}
		f.k.Body = walk(f.k.Body)
		if !removed {
			return
		}
	}
}

// Flatten is the pass Compile tries (flattenKernel), for tests and tools: k with its small
// constant loops flattened and its pointer additions forwarded, or nil if nothing changed.
func Flatten(k *kernel.Kernel) *kernel.Kernel { return flattenKernel(k) }

// Operand narrowing (part of the same pass): a MAC reads its Z operand from a 256-bit register
// (wc0/wc1) and its X operand from a 512-bit one, and a compiler loads them there directly.
// Two shapes of source code instead load elsewhere and copy, each copy a vector move on the
// move slot:
//   - v = load(p, i) of 512 bits read only through ext_w(v, k): the halves are loaded as
//     256-bit values h_k = load(p, i + k*32 bytes) and the ext_w results replaced by them
//     (the AI Engine API's mmul widens block_b this way);
//   - t = concat(a, z) with z all zeros (null_*): t = null; t = upd_w(t, 0, a), so that a load
//     of a goes straight into t's low half (lower.go folds a load followed by its upd_*).
// The loads read the same bytes at the same place in the program, so the values are the
// source's bit for bit.

// defUse counts each variable's definitions and reads in the kernel.
func (f *flattener) defUse() (defs, reads map[*kernel.Var]int) {
	defs = map[*kernel.Var]int{}
	kernel.Walk(f.k.Body, func(st kernel.Stmt, _ int) {
		switch s := st.(type) {
		case *kernel.Instr:
			if s.Dst != nil {
				defs[s.Dst]++
			}
		case *kernel.Loop:
			if s.Var != nil {
				defs[s.Var] += 2
			}
		}
	})
	return defs, f.uses()
}

// narrowAll applies operand narrowing in every statement list, one rewrite at a time (the
// counts are recounted after each); it reports a change.
func (f *flattener) narrowAll() bool {
	any := false
	for {
		changed := false
		defs, reads := f.defUse()
		f.k.Body = f.narrowOnce(f.k.Body, defs, reads, &changed)
		if !changed {
			return any
		}
		any = true
	}
}

// narrowOnce makes one narrowing in body or a list nested in it.
func (f *flattener) narrowOnce(body []kernel.Stmt, defs, reads map[*kernel.Var]int, changed *bool) []kernel.Stmt {
	for i, st := range body {
		var nst kernel.Stmt
		switch s := st.(type) {
		case *kernel.Loop:
			if nb := f.narrowOnce(s.Body, defs, reads, changed); *changed {
				n := *s
				n.Body = nb
				nst = &n
			}
		case *kernel.If:
			nt := f.narrowOnce(s.Then, defs, reads, changed)
			ne := s.Else
			if !*changed {
				ne = f.narrowOnce(s.Else, defs, reads, changed)
			}
			if *changed {
				n := *s
				n.Then, n.Else = nt, ne
				nst = &n
			}
		}
		if nst != nil {
			out := append([]kernel.Stmt(nil), body...)
			out[i] = nst
			return out
		}
	}
	out, ok := f.narrowHalves(body, defs, reads)
	if !ok {
		out, ok = f.narrowConcat(body, defs, reads)
	}
	*changed = ok
	return out
}

// readsIn counts the reads of v in the statements (nested ones included).
func readsIn(body []kernel.Stmt, v *kernel.Var) int {
	n := 0
	kernel.Walk(body, func(st kernel.Stmt, _ int) {
		switch s := st.(type) {
		case *kernel.Instr:
			for _, a := range s.Args {
				if a.Var == v {
					n++
				}
			}
		case *kernel.Loop:
			for _, a := range []kernel.Operand{s.Start, s.Limit, s.Step} {
				if a.Var == v {
					n++
				}
			}
		case *kernel.If:
			if s.Cond.Var == v {
				n++
			}
		}
	})
	return n
}

// narrowHalves makes one ext_w narrowing in body.
func (f *flattener) narrowHalves(body []kernel.Stmt, defs, reads map[*kernel.Var]int) ([]kernel.Stmt, bool) {
	for i, st := range body {
		ld, ok := st.(*kernel.Instr)
		if !ok || ld.Op != kernel.OpLoad || ld.Dst == nil || !renamable(ld.Dst) || ld.Dst.Type.Class != kernel.Vector ||
			ld.Dst.Type.Bytes() != 64 || defs[ld.Dst] != 1 || ld.Args[0].Var == nil || !ld.Args[0].Var.Type.IsPointer() {
			continue
		}
		pb := int64(ld.Args[0].Var.Type.Pointee().Bytes())
		if pb == 0 || pb > 32 || 32%pb != 0 || ld.Args[1].IsFloat {
			continue
		}
		v := ld.Dst
		ext := map[int]int64{} // body index -> half
		for j := i + 1; j < len(body); j++ {
			in, isInstr := body[j].(*kernel.Instr)
			if !isInstr {
				continue
			}
			for ai, a := range in.Args {
				if a.Var == v {
					if in.Op == kernel.OpExtW && ai == 0 && in.Args[1].IsIntImm() && in.Dst != nil && defs[in.Dst] == 1 && renamable(in.Dst) &&
						readsIn(body[j+1:], in.Dst) == reads[in.Dst] {
						ext[j] = in.Args[1].Imm
					} else {
						ok = false
					}
				}
			}
		}
		if !ok || len(ext) == 0 || len(ext) != reads[v] {
			continue
		}
		half := map[int64]*kernel.Var{}
		sub := map[*kernel.Var]*kernel.Var{}
		var loads []kernel.Stmt
		for j := i + 1; j < len(body); j++ {
			k, isExt := ext[j]
			if !isExt {
				continue
			}
			e := body[j].(*kernel.Instr)
			h := half[k]
			if h == nil {
				h = f.fresh(v)
				h.Type = e.Dst.Type
				half[k] = h
				idx, okIdx := addIndex(f, ld.Args[1], kernel.Imm(k*32/pb), &loads, ld.Pos)
				if !okIdx {
					return body, false
				}
				loads = append(loads, &kernel.Instr{Op: kernel.OpLoad, Dst: h, Args: []kernel.Operand{ld.Args[0], idx}, Pos: ld.Pos})
			}
			sub[e.Dst] = h
		}
		var out []kernel.Stmt
		for j, st := range body {
			if j == i {
				out = append(out, loads...)
				continue
			}
			if _, isExt := ext[j]; isExt {
				continue
			}
			out = append(out, st)
		}
		substVars(out, sub)
		return out, true
	}
	return body, false
}

// narrowConcat makes one concat-with-zeros narrowing in body: t = concat(a, null_*()) becomes
// t = null_*(); t = upd_w(t, 0, a). With undef_*() for the upper half (a MAC operand grown to
// the X buffer's width, whose upper lanes the MAC does not read) the first is undef_*(), no
// instruction: a is loaded or moved into the low half of t's register and the high half keeps
// whatever it holds, as llvm-aie's AIE1 patterns build a narrower X operand
// (AIE1InstrInfo.td: INSERT_SUBREG of the value into an IMPLICIT_DEF register).
func (f *flattener) narrowConcat(body []kernel.Stmt, defs, reads map[*kernel.Var]int) ([]kernel.Stmt, bool) {
	nulls := map[*kernel.Var]kernel.Op{}
	for _, st := range body {
		if in, ok := st.(*kernel.Instr); ok && (in.Op == kernel.OpNull || in.Op == kernel.OpUndef) && in.Dst != nil && defs[in.Dst] == 1 {
			nulls[in.Dst] = in.Op
		}
	}
	for i, st := range body {
		c, ok := st.(*kernel.Instr)
		if !ok || c.Op != kernel.OpConcat || len(c.Args) != 2 || c.Dst == nil || !renamable(c.Dst) || defs[c.Dst] != 1 ||
			c.Dst.Type.Class != kernel.Vector || c.Args[0].Var == nil || nulls[c.Args[1].Var] == 0 || c.Args[0].Var.Type.Bytes() != 32 {
			continue
		}
		a, t := c.Args[0].Var, c.Dst
		// where a is loaded (a single-use load in this list before the concat), the null and
		// upd_w go around that load; else they replace the concat
		at := i
		for j := 0; j < i; j++ {
			if in, ok := body[j].(*kernel.Instr); ok && in.Dst == a && in.Op == kernel.OpLoad && defs[a] == 1 && reads[a] == 1 {
				at = j
			}
		}
		if at != i {
			for j := at + 1; j < i; j++ {
				if mentions(body[j], t) {
					at = i
				}
			}
		}
		null := &kernel.Instr{Op: nulls[c.Args[1].Var], Dst: t, Pos: c.Pos}
		upd := &kernel.Instr{Op: kernel.OpUpdW, Dst: t, Args: []kernel.Operand{kernel.V(t), kernel.Imm(0), kernel.V(a)}, Pos: c.Pos}
		var out []kernel.Stmt
		for j, st := range body {
			switch {
			case j == at && at != i:
				out = append(out, null, st, upd)
			case j == i && at != i:
			case j == i:
				out = append(out, null, upd)
			default:
				out = append(out, st)
			}
		}
		return out, true
	}
	return body, false
}

// substVars replaces reads of the variables in sub throughout the statements (in place: the
// statements are this pass's copies).
func substVars(body []kernel.Stmt, sub map[*kernel.Var]*kernel.Var) {
	for i, st := range body {
		switch s := st.(type) {
		case *kernel.Instr:
			changed := false
			args := append([]kernel.Operand(nil), s.Args...)
			for j, a := range args {
				if r, ok := sub[a.Var]; ok && a.Var != nil {
					args[j].Var = r
					changed = true
				}
			}
			if changed {
				n := *s
				n.Args = args
				body[i] = &n
			}
		case *kernel.Loop:
			n := *s
			n.Body = append([]kernel.Stmt(nil), s.Body...)
			substVars(n.Body, sub)
			body[i] = &n
		case *kernel.If:
			n := *s
			n.Then = append([]kernel.Stmt(nil), s.Then...)
			n.Else = append([]kernel.Stmt(nil), s.Else...)
			substVars(n.Then, sub)
			substVars(n.Else, sub)
			body[i] = &n
		}
	}
}

// Narrow is Flatten followed by operand narrowing (the third variant Compile tries), or nil
// if narrowing changes nothing.
func Narrow(k *kernel.Kernel) *kernel.Kernel { return narrowKernel(k) }

// Redundant loads (with operand narrowing, the third variant): a load of the same address as
// an earlier load in the same statement list, with no memory write (store, window write) and
// no change of the pointer or index in between, reads the earlier value, as a compiler's
// common-subexpression elimination does (onnx2versal's 5x5 convolution dereferences one
// weight pointer at each of its fpmacs: one load, not fifty).

// cseAll removes redundant loads in every statement list; it reports a change.
func (f *flattener) cseAll() bool {
	changed := false
	var walk func(body []kernel.Stmt) []kernel.Stmt
	walk = func(body []kernel.Stmt) []kernel.Stmt {
		out := make([]kernel.Stmt, 0, len(body))
		for _, st := range body {
			switch s := st.(type) {
			case *kernel.Loop:
				n := *s
				n.Body = walk(s.Body)
				st = &n
			case *kernel.If:
				n := *s
				n.Then, n.Else = walk(s.Then), walk(s.Else)
				st = &n
			}
			out = append(out, st)
		}
		defs, reads := f.defUse()
		if nb, ok := f.cse(out, defs, reads); ok {
			changed = true
			return nb
		}
		return out
	}
	f.k.Body = walk(f.k.Body)
	return changed
}

// cse removes the redundant loads of one statement list (their single-definition results
// replaced by the earlier loads' in the list).
func (f *flattener) cse(body []kernel.Stmt, defs, reads map[*kernel.Var]int) ([]kernel.Stmt, bool) {
	type key struct {
		p   *kernel.Var
		idx kernel.Operand
		t   kernel.Type
	}
	avail := map[key]*kernel.Var{}
	sub := map[*kernel.Var]*kernel.Var{}
	drop := map[int]bool{}
	kill := func(v *kernel.Var) {
		for k, x := range avail {
			if k.p == v || k.idx.Var == v || x == v {
				delete(avail, k)
			}
		}
	}
	for i, st := range body {
		in, ok := st.(*kernel.Instr)
		if !ok {
			// control flow: anything may change inside
			avail = map[key]*kernel.Var{}
			continue
		}
		switch in.Op {
		case kernel.OpStore, kernel.OpWinWrite, kernel.OpWinWriteIncr:
			avail = map[key]*kernel.Var{}
		}
		if in.Op == kernel.OpLoad && in.Dst != nil && in.Args[0].Var != nil && !in.Args[1].IsFloat {
			k := key{in.Args[0].Var, in.Args[1], in.Dst.Type}
			if x := avail[k]; x != nil && defs[in.Dst] == 1 && renamable(in.Dst) && readsIn(body[i+1:], in.Dst) == reads[in.Dst] {
				sub[in.Dst] = x
				drop[i] = true
				continue
			}
			if in.Dst != in.Args[0].Var && in.Dst != in.Args[1].Var && defs[in.Dst] == 1 && renamable(in.Dst) {
				kill(in.Dst)
				avail[k] = in.Dst
				continue
			}
		}
		if in.Dst != nil {
			kill(in.Dst)
		}
	}
	if len(drop) == 0 {
		return body, false
	}
	var out []kernel.Stmt
	for i, st := range body {
		if !drop[i] {
			out = append(out, st)
		}
	}
	// the replaced values are read only in this list (checked above)
	for len(sub) > 0 {
		substVars(out, sub)
		next := map[*kernel.Var]*kernel.Var{}
		for a, b := range sub {
			if c, ok := sub[b]; ok {
				next[a] = c
			}
		}
		sub = next
	}
	return out, true
}

// CompileTransformed compiles a kernel Flatten or Narrow returned the way Compile compiles its
// variants (spilled live ranges split in long blocks), for tests and tools.
func CompileTransformed(k *kernel.Kernel, opt Options) (*Program, error) {
	opt.trySplit = true
	return compileKernel(k, opt)
}
