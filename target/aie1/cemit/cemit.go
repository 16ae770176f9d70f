// Package cemit writes a kernel of the target/aie1/kernel IR as C++ in the subset that target/aie1/cfront
// reads: the AIE1 intrinsics, window functions, pointer loads and stores and counted loops
// with the chess pragmas. The output compiles with the AMD AI Engine compiler and, with
// target/aie1/emul's aie1_emul.h, with g++.
//
// Emitting is deterministic and canonical: emit -> parse (target/aie1/cfront) -> emit reproduces the
// text exactly. Temporaries that the front end introduced for nested calls are folded back
// into expressions (each defined and used once, and only where moving the computation to its
// use cannot change the result), so a hand-written kernel comes out looking like its source.
package cemit

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Emit returns the C++ text of k.
func Emit(k *kernel.Kernel) (string, error) {
	if err := k.Validate(); err != nil {
		return "", err
	}
	var bad error
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		if in, ok := s.(*kernel.Instr); ok && bad == nil {
			switch {
			case in.Op == kernel.OpSetRnd && kernel.RoundConstName(num.Round(in.Args[0].Imm)) == "":
				bad = fmt.Errorf("%v: rounding mode %v has no AIE1 set_rnd constant", in.Pos, num.Round(in.Args[0].Imm))
			case in.Op == kernel.OpSetSat && num.Sat(in.Args[0].Imm) == num.Symmetric:
				bad = fmt.Errorf("%v: symmetric saturation has no AIE1 set_sat/clr_sat call", in.Pos)
			}
		}
	})
	if bad != nil {
		return "", bad
	}
	e := &emitter{k: k, uses: map[*kernel.Var]int{}, defs: map[*kernel.Var]int{}, folded: map[*kernel.Instr]bool{},
		foldedVar: map[*kernel.Var]bool{}, counters: map[*kernel.Loop]string{}}
	e.count(k.Body)
	e.planFolds(k.Body)
	e.emit()
	return e.sb.String(), nil
}

type emitter struct {
	k         *kernel.Kernel
	sb        strings.Builder
	uses      map[*kernel.Var]int
	defs      map[*kernel.Var]int
	folded    map[*kernel.Instr]bool // instructions printed inside their user's expression
	foldedVar map[*kernel.Var]bool
	def       map[*kernel.Var]*kernel.Instr
	counters  map[*kernel.Loop]string // names made up for loops without a counter variable
}

func (e *emitter) count(body []kernel.Stmt) {
	kernel.Walk(body, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.Instr:
			for _, a := range s.Args {
				if a.Var != nil {
					e.uses[a.Var]++
				}
			}
			if s.Dst != nil {
				e.defs[s.Dst]++
			}
		case *kernel.Loop:
			for _, o := range []kernel.Operand{s.Start, s.Limit} {
				if o.Var != nil {
					e.uses[o.Var]++
				}
			}
			if s.Var != nil {
				e.defs[s.Var]++
			}
		case *kernel.If:
			if s.Cond.Var != nil {
				e.uses[s.Cond.Var] += 2 // never folded into the condition
			}
		}
	})
}

// sideEffect reports instructions whose evaluation changes state other than their result.
func sideEffect(in *kernel.Instr) bool {
	switch in.Op {
	case kernel.OpWinReadIncr, kernel.OpWinWriteIncr, kernel.OpWinWrite, kernel.OpWinIncr, kernel.OpStore,
		kernel.OpStreamRead, kernel.OpStreamWrite, kernel.OpCycles, kernel.OpBarrier:
		return true
	}
	return false
}

// planFolds marks, in each statement list, the run of instructions immediately before a
// user that define single-use temporaries of that user (transitively): these print inside
// the user's expression. At most one folded instruction per statement may have a side
// effect (the front end's rule: C++ does not order the evaluation of arguments).
func (e *emitter) planFolds(body []kernel.Stmt) {
	e.def = map[*kernel.Var]*kernel.Instr{}
	var plan func(list []kernel.Stmt)
	plan = func(list []kernel.Stmt) {
		for u := len(list) - 1; u >= 0; u-- {
			switch s := list[u].(type) {
			case *kernel.Loop:
				plan(s.Body)
				continue
			case *kernel.If:
				plan(s.Then)
				plan(s.Else)
				continue
			case *kernel.Instr:
				if e.folded[s] {
					continue
				}
				need := map[*kernel.Var]bool{}
				e.addNeeds(s, need)
				effects := 0
				for j := u - 1; j >= 0; j-- {
					in, ok := list[j].(*kernel.Instr)
					if !ok || in.Dst == nil || !need[in.Dst] {
						break
					}
					if sideEffect(in) {
						if effects == 1 {
							break
						}
						effects++
					}
					e.folded[in] = true
					e.foldedVar[in.Dst] = true
					e.def[in.Dst] = in
					delete(need, in.Dst)
					e.addNeeds(in, need)
				}
			}
		}
	}
	plan(body)
}

func (e *emitter) addNeeds(in *kernel.Instr, need map[*kernel.Var]bool) {
	for _, a := range in.Args {
		if v := a.Var; v != nil && v.Temp && !v.Param && e.uses[v] == 1 && e.defs[v] == 1 && v != in.Dst {
			need[v] = true
		}
	}
}

func (e *emitter) emit() {
	k := e.k
	// arrays with storage of their own are file-scope arrays (a local, static or member array
	// behaves the same for one call of the kernel)
	var arrays []*kernel.Var
	for _, v := range k.Vars {
		if v.Storage != nil {
			arrays = append(arrays, v)
		}
	}
	sort.Slice(arrays, func(i, j int) bool { return arrays[i].Name < arrays[j].Name })
	for _, v := range arrays {
		et := v.Type.Pointee()
		n := v.Storage.Bytes / et.Bytes()
		q := "static "
		if v.Storage.Const {
			q = "static const "
		}
		init := ""
		if v.Storage.Init != nil {
			init = " = " + initList(v.Storage.Init, et, n)
		}
		fmt.Fprintf(&e.sb, "alignas(32) %s%s %s[%d]%s;\n", q, et, v.Name, n, init)
	}
	var ps []string
	for _, p := range k.Params {
		ps = append(ps, declString(p.Type, p.Name, p.Restrict))
	}
	sep := ",\n" + strings.Repeat(" ", len("void "+k.Name+"("))
	fmt.Fprintf(&e.sb, "void %s(%s) {\n", k.Name, strings.Join(ps, sep))
	for _, v := range k.Vars {
		if v.Param || e.foldedVar[v] || v.Storage != nil {
			continue
		}
		fmt.Fprintf(&e.sb, "    %s;\n", declString(v.Type, v.Name, false))
	}
	n := 0
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		if l, ok := s.(*kernel.Loop); ok && l.Var == nil {
			name := fmt.Sprintf("_loop%d", n)
			for k.Lookup(name) != nil {
				n++
				name = fmt.Sprintf("_loop%d", n)
			}
			n++
			e.counters[l] = name
			fmt.Fprintf(&e.sb, "    int %s;\n", name)
		}
	})
	e.body(k.Body, 1)
	e.sb.WriteString("}\n")
}

// declString spells a declaration: "v32int16 ar0", "int16 * Br", "input_window_int16 * __restrict w".
func declString(t kernel.Type, name string, restrict bool) string {
	r := ""
	if restrict {
		r = "__restrict "
	}
	switch t.Class {
	case kernel.Window, kernel.Stream:
		return t.String() + " * " + r + name
	case kernel.Pointer:
		return t.Pointee().String() + " * " + r + name
	}
	return t.String() + " " + name
}

func (e *emitter) body(list []kernel.Stmt, depth int) {
	ind := strings.Repeat("    ", depth)
	for _, s := range list {
		switch s := s.(type) {
		case *kernel.Instr:
			if e.folded[s] {
				continue
			}
			e.sb.WriteString(ind + e.stmt(s) + "\n")
		case *kernel.Loop:
			iv := e.counters[s]
			if s.Var != nil {
				iv = s.Var.Name
			}
			step := ""
			switch {
			case s.Step.Imm == 1:
				step = iv + "++"
			case s.Step.Imm == -1:
				step = iv + "--"
			case s.Step.Imm < 0:
				step = fmt.Sprintf("%s -= %d", iv, -s.Step.Imm)
			default:
				step = fmt.Sprintf("%s += %d", iv, s.Step.Imm)
			}
			fmt.Fprintf(&e.sb, "%sfor (%s = %s; %s %v %s; %s)\n", ind, iv, e.operand(s.Start, precAssign), iv, s.Cmp, e.operand(s.Limit, precRel+1), step)
			if s.Pipelined {
				e.sb.WriteString(ind + "    chess_prepare_for_pipelining\n")
			}
			if s.HasRange {
				mx := ""
				if s.RangeMax != 0 {
					mx = strconv.FormatInt(s.RangeMax, 10)
				}
				fmt.Fprintf(&e.sb, "%s    chess_loop_range(%d, %s)\n", ind, s.RangeMin, mx)
			}
			if s.Flatten {
				e.sb.WriteString(ind + "    chess_flatten_loop\n")
			}
			if s.Unroll > 0 {
				fmt.Fprintf(&e.sb, "%s    chess_unroll_loop(%d)\n", ind, s.Unroll)
			}
			e.sb.WriteString(ind + "{\n")
			e.body(s.Body, depth+1)
			e.sb.WriteString(ind + "}\n")
		case *kernel.If:
			fmt.Fprintf(&e.sb, "%sif (%s) {\n", ind, e.operand(s.Cond, precAssign))
			e.body(s.Then, depth+1)
			if len(s.Else) > 0 {
				e.sb.WriteString(ind + "} else {\n")
				e.body(s.Else, depth+1)
			}
			e.sb.WriteString(ind + "}\n")
		}
	}
}

// initList prints an array's initial contents as a braced list of its elements.
func initList(b []byte, et kernel.Type, n int) string {
	var v kernel.Vec
	var parts []string
	sz := et.Bytes()
	for i := 0; i < n; i++ {
		v = kernel.Vec{}
		if (i+1)*sz <= len(b) {
			copy(v[:sz], b[i*sz:(i+1)*sz])
		}
		if et.Elem == kernel.Float32 {
			parts = append(parts, floatLit(v.F32(0)))
		} else {
			parts = append(parts, intLit(et.Elem.Wrap(v.Lane(et.Elem, 0))))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// floatLit prints a float constant that reads back exactly (infinities through
// std::numeric_limits, which the front end knows).
func floatLit(f float32) string {
	switch {
	case math.IsInf(float64(f), 1):
		return "std::numeric_limits<float>::infinity()"
	case math.IsInf(float64(f), -1):
		return "-std::numeric_limits<float>::infinity()"
	}
	s := strconv.FormatFloat(float64(f), 'g', -1, 32)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s + "f"
}

// C operator precedences (higher binds tighter).
const (
	precAssign  = 1
	precCond    = 2
	precOr      = 3
	precXor     = 4
	precAnd     = 5
	precEq      = 6
	precRel     = 7
	precShift   = 8
	precAdd     = 9
	precMul     = 10
	precUnary   = 11
	precPostfix = 12
)

var binPrec = map[kernel.Op]int{
	kernel.OpAdd: precAdd, kernel.OpSub: precAdd, kernel.OpMul: precMul, kernel.OpDiv: precMul, kernel.OpRem: precMul,
	kernel.OpShl: precShift, kernel.OpShr: precShift, kernel.OpAnd: precAnd, kernel.OpOr: precOr, kernel.OpXor: precXor,
	kernel.OpEq: precEq, kernel.OpNe: precEq, kernel.OpLt: precRel, kernel.OpLe: precRel, kernel.OpGt: precRel, kernel.OpGe: precRel,
	kernel.OpPtrAdd: precAdd,
}

func (e *emitter) stmt(in *kernel.Instr) string {
	switch in.Op {
	case kernel.OpSetRnd:
		return "set_rnd(" + kernel.RoundConstName(num.Round(in.Args[0].Imm)) + ");"
	case kernel.OpSetSat:
		if num.Sat(in.Args[0].Imm) == num.None {
			return "clr_sat();"
		}
		return "set_sat();"
	case kernel.OpStore:
		return e.lvalue(in.Args[0], in.Args[1], in.Args[2].Type()) + " = " + e.operand(in.Args[2], precAssign) + ";"
	case kernel.OpBarrier:
		if in.Args[0].Imm == 0 {
			return "chess_separator_scheduler();"
		}
		return fmt.Sprintf("chess_separator_scheduler(%d);", in.Args[0].Imm)
	}
	if in.Dst == nil {
		x, _ := e.expr(in)
		return x + ";"
	}
	x, _ := e.expr(in)
	return in.Dst.Name + " = " + x + ";"
}

// operand prints an operand; a folded temporary prints as its defining expression,
// parenthesized if it binds looser than prec.
func (e *emitter) operand(o kernel.Operand, prec int) string {
	if o.Var == nil {
		if o.IsFloat {
			s := floatLit(o.F)
			if strings.HasPrefix(s, "-") && prec > precUnary {
				return "(" + s + ")"
			}
			return s
		}
		return intLit(o.Imm)
	}
	if in := e.def[o.Var]; in != nil && e.folded[in] {
		x, p := e.expr(in)
		if p < prec {
			return "(" + x + ")"
		}
		return x
	}
	return o.Var.Name
}

// intLit prints an integer immediate: values above INT_MAX (unsigned constants such as
// 0xffffffff) in hex, which C types as unsigned int, so they read back unchanged.
func intLit(v int64) string {
	if v > math.MaxInt32 {
		return fmt.Sprintf("0x%x", v)
	}
	return strconv.FormatInt(v, 10)
}

// hexArg prints MAC selection parameters in hex, as programmers write them.
func (e *emitter) hexArg(o kernel.Operand) string {
	if o.IsIntImm() && o.Imm > 9 {
		return fmt.Sprintf("0x%x", o.Imm)
	}
	return e.operand(o, precAssign)
}

// lvalue prints the memory access p[i] viewed as type t.
func (e *emitter) lvalue(p, i kernel.Operand, t kernel.Type) string {
	base := e.operand(p, precPostfix)
	same := t == p.Type().Pointee()
	zero := i.IsIntImm() && i.Imm == 0
	switch {
	case same && zero:
		return "*" + base
	case same:
		return base + "[" + e.operand(i, precAssign) + "]"
	case zero:
		return "*(" + strings.TrimSpace(declString(kernel.PtrTo(t.Elem, t.Lanes), "", false)) + ") " + base
	}
	return "*(" + strings.TrimSpace(declString(kernel.PtrTo(t.Elem, t.Lanes), "", false)) + ") &" + base + "[" + e.operand(i, precAssign) + "]"
}

// expr prints the right-hand side of an instruction and its precedence.
func (e *emitter) expr(in *kernel.Instr) (string, int) {
	a := in.Args
	switch {
	case in.Op == kernel.OpMov:
		src := a[0]
		if in.Dst.Temp && src.Type() != in.Dst.Type {
			// a folded temporary of another type stands for a cast
			t := in.Dst.Type.String()
			if in.Dst.Type.IsPointer() {
				t = strings.TrimSpace(declString(in.Dst.Type, "", false))
			}
			return "(" + t + ") " + e.operand(src, precUnary), precUnary
		}
		return e.operand(src, precAssign+1), precAssign + 1
	case in.Op == kernel.OpLoad:
		return e.lvalue(a[0], a[1], in.Dst.Type), precUnary
	case in.Op == kernel.OpSelect:
		return e.operand(a[0], precOr+1) + " ? " + e.operand(a[1], precAssign) + " : " + e.operand(a[2], precCond), precCond
	case in.Op == kernel.OpWinPtr:
		return e.operand(a[0], precPostfix) + "->ptr", precPostfix
	case in.Op == kernel.OpNeg || in.Op == kernel.OpNot || in.Op == kernel.OpLNot:
		sym := map[kernel.Op]string{kernel.OpNeg: "-", kernel.OpNot: "~", kernel.OpLNot: "!"}[in.Op]
		x := e.operand(a[0], precUnary)
		if strings.HasPrefix(x, sym) || (sym == "-" && strings.HasPrefix(x, "-")) {
			x = "(" + x + ")" // avoid "--x"
		}
		return sym + x, precUnary
	case binPrec[in.Op] != 0 && in.Op != kernel.OpPtrAdd && a[0].IsIntImm() && a[1].IsIntImm() && !a[0].IsFloat && !a[1].IsFloat:
		// an operation on two constants prints as its value: the front end folds constant
		// expressions, so this keeps emit -> parse -> emit a fixed point
		if v, ok := fold(in.Op, a[0].Imm, a[1].Imm); ok {
			return intLit(v), precUnary
		}
		fallthrough
	case binPrec[in.Op] != 0:
		p := binPrec[in.Op]
		sym := in.Op.Info().Name
		if in.Op == kernel.OpPtrAdd {
			sym = "+"
			if a[1].IsIntImm() && a[1].Imm < 0 {
				return e.operand(a[0], p) + " - " + strconv.FormatInt(-a[1].Imm, 10), p
			}
		}
		return e.operand(a[0], p) + " " + sym + " " + e.operand(a[1], p+1), p
	}
	name := in.Op.Info().Name
	if in.Dst != nil {
		if n := kernel.CallName(in.Op, in.Dst.Type); n != "" {
			name = n
		}
	}
	var args []string
	hex := map[int]bool{}
	if in.Op.IsMAC() {
		if f, err := kernel.FormOf(in.Op, a); err == nil {
			l := kernel.Layout(f, in.Op.Info().Acc)
			for _, i := range []int{l.XOffs, l.XOffsHi, l.XSquare, l.ZOffs, l.ZOffsHi, l.ZSquare} {
				hex[i] = true
			}
		}
	}
	for i, o := range a {
		if hex[i] {
			args = append(args, e.hexArg(o))
		} else {
			args = append(args, e.operand(o, precAssign+1))
		}
	}
	return name + "(" + strings.Join(args, ", ") + ")", precPostfix
}

// fold evaluates op on two int constants with C's 32-bit int arithmetic (immediates have
// type int). Division by zero and shifts out of range are not folded.
func fold(op kernel.Op, x, y int64) (int64, bool) {
	x, y = int64(int32(x)), int64(int32(y))
	w := func(v int64) (int64, bool) { return int64(int32(v)), true }
	b := func(c bool) (int64, bool) {
		if c {
			return 1, true
		}
		return 0, true
	}
	switch op {
	case kernel.OpAdd:
		return w(x + y)
	case kernel.OpSub:
		return w(x - y)
	case kernel.OpMul:
		return w(x * y)
	case kernel.OpDiv, kernel.OpRem:
		if y == 0 || (x == -1<<31 && y == -1) {
			return 0, false
		}
		if op == kernel.OpDiv {
			return w(x / y)
		}
		return w(x % y)
	case kernel.OpShl, kernel.OpShr:
		if y < 0 || y > 31 {
			return 0, false
		}
		if op == kernel.OpShl {
			return w(x << uint(y))
		}
		return w(x >> uint(y))
	case kernel.OpAnd:
		return w(x & y)
	case kernel.OpOr:
		return w(x | y)
	case kernel.OpXor:
		return w(x ^ y)
	case kernel.OpEq:
		return b(x == y)
	case kernel.OpNe:
		return b(x != y)
	case kernel.OpLt:
		return b(x < y)
	case kernel.OpLe:
		return b(x <= y)
	case kernel.OpGt:
		return b(x > y)
	case kernel.OpGe:
		return b(x >= y)
	}
	return 0, false
}
