package interp

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Program is a kernel compiled to a flat instruction array: loops become an entry and a
// back-edge instruction, operands become slot numbers, and MACs with constant parameters
// carry their decoded operand selection. A Program can run many times.
type Program struct {
	k       *kernel.Kernel
	code    []cinstr
	nInts   int
	nVecs   int
	nAccs   int
	slotOf  []int32 // by variable ID
	classOf []kernel.Class
}

type code uint8

const (
	cOp       code = iota // a kernel op
	cLoopInit             // evaluate bounds, set the counter, skip the loop if it runs 0 times
	cLoopNext             // step the counter, jump back while the condition holds
	cIf                   // jump to jump if the condition is zero
	cJump                 // jump to jump
)

type operand struct {
	imm  bool
	isF  bool
	val  int64 // immediate value (float32 bits when isF)
	id   int32 // variable ID
	slot int32 // slot in the variable's class
	elem kernel.Elem
	typ  kernel.Type
}

type cinstr struct {
	code code
	op   kernel.Op
	src  *kernel.Instr
	dst  operand
	has  bool // has a destination
	args []operand
	ct   kernel.Elem // computation type of scalar arithmetic
	yt   kernel.Elem // the type its second operand converts to (a shift count's own)

	// MACs
	form     kernel.MACForm
	lay      kernel.MACLayout
	kind     kernel.MACKind
	sel      kernel.MACSel
	constSel bool
	xe, ze   kernel.Elem
	xLen     int
	zLen     int

	// loops
	loop *kernel.Loop
	ctr  operand // the counter (a hidden slot when the loop has no variable)
	lim  int32   // hidden slot holding the limit
	jump int     // LoopInit: pc after the loop; LoopNext: pc of the body
}

// Compile checks k and compiles it.
func Compile(k *kernel.Kernel) (*Program, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	p := &Program{k: k, slotOf: make([]int32, len(k.Vars)), classOf: make([]kernel.Class, len(k.Vars))}
	for i, v := range k.Vars {
		p.classOf[i] = v.Type.Class
		switch v.Type.Class {
		case kernel.Vector:
			p.slotOf[i] = int32(p.nVecs)
			p.nVecs++
		case kernel.Accum:
			p.slotOf[i] = int32(p.nAccs)
			p.nAccs++
		default:
			p.slotOf[i] = int32(p.nInts)
			p.nInts++
		}
	}
	if err := p.block(k.Body); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Program) operand(o kernel.Operand) operand {
	if o.Var == nil {
		if o.IsFloat {
			return operand{imm: true, isF: true, val: int64(math.Float32bits(o.F)), elem: kernel.Float32, typ: kernel.ScalarOf(kernel.Float32)}
		}
		return operand{imm: true, val: o.Imm, elem: kernel.Int32, typ: kernel.ScalarOf(kernel.Int32)}
	}
	v := o.Var
	return operand{id: int32(v.ID), slot: p.slotOf[v.ID], elem: v.Type.Elem, typ: v.Type}
}

func (p *Program) hidden() int32 {
	p.nInts++
	return int32(p.nInts - 1)
}

func (p *Program) block(body []kernel.Stmt) error {
	for _, s := range body {
		switch s := s.(type) {
		case *kernel.Instr:
			ci, err := p.instr(s)
			if err != nil {
				return err
			}
			p.code = append(p.code, ci)
		case *kernel.Loop:
			init := cinstr{code: cLoopInit, loop: s, lim: p.hidden()}
			if s.Var != nil {
				init.ctr = p.operand(kernel.V(s.Var))
			} else {
				init.ctr = operand{id: -1, slot: p.hidden(), elem: kernel.Int32, typ: kernel.ScalarOf(kernel.Int32)}
			}
			init.args = []operand{p.operand(s.Start), p.operand(s.Limit)}
			at := len(p.code)
			p.code = append(p.code, init)
			if err := p.block(s.Body); err != nil {
				return err
			}
			next := init
			next.code = cLoopNext
			next.jump = at + 1
			p.code = append(p.code, next)
			p.code[at].jump = len(p.code)
		case *kernel.If:
			c := cinstr{code: cIf, args: []operand{p.operand(s.Cond)}, src: &kernel.Instr{Pos: s.Pos}}
			at := len(p.code)
			p.code = append(p.code, c)
			if err := p.block(s.Then); err != nil {
				return err
			}
			if len(s.Else) == 0 {
				p.code[at].jump = len(p.code)
				continue
			}
			j := len(p.code)
			p.code = append(p.code, cinstr{code: cJump})
			p.code[at].jump = len(p.code)
			if err := p.block(s.Else); err != nil {
				return err
			}
			p.code[j].jump = len(p.code)
		}
	}
	return nil
}

// ctype is the computation type of a value from args: C's usual arithmetic conversions.
func ctype(args []operand) kernel.Elem {
	ct := kernel.Int32
	for _, a := range args {
		ct = kernel.Promote(ct, a.elem)
	}
	return ct
}

func (p *Program) instr(in *kernel.Instr) (cinstr, error) {
	ci := cinstr{code: cOp, op: in.Op, src: in}
	for _, a := range in.Args {
		ci.args = append(ci.args, p.operand(a))
	}
	if in.Dst != nil {
		ci.dst, ci.has = p.operand(kernel.V(in.Dst)), true
	}
	switch {
	case in.Op.IsScalarArith():
		y := ci.args[0].elem
		if len(ci.args) > 1 {
			y = ci.args[1].elem
		}
		ci.ct, ci.yt = kernel.ArithTypes(in.Op, ci.args[0].elem, y)
	case in.Op.IsMAC():
		f, err := kernel.FormOf(in.Op, in.Args)
		if err != nil {
			return ci, &Error{Pos: in.Pos, Msg: err.Error()}
		}
		ci.form, ci.kind = f, kernel.KindOf(in.Op)
		ci.lay = kernel.Layout(f, in.Op.Info().Acc)
		x, z := in.Args[ci.lay.X].Type(), in.Args[ci.lay.Z].Type()
		ci.xe, ci.ze, ci.xLen, ci.zLen = x.Elem, z.Elem, x.Lanes, z.Lanes
		if params, ok := constParams(in.Args, ci.lay); ok {
			if err := kernel.DecodeMAC(f, ci.xLen, ci.zLen, params, &ci.sel); err != nil {
				return ci, &Error{Pos: in.Pos, Msg: fmt.Sprintf("%v: %v", in.Op, err)}
			}
			ci.constSel = true
		}
	}
	return ci, nil
}

// paramIdx lists the parameter positions of a layout in MACParams field order.
func paramIdx(l kernel.MACLayout) [10]int {
	return [10]int{l.XStart, l.XOffs, l.XOffsHi, l.XStep, l.XSquare, l.ZStart, l.ZOffs, l.ZOffsHi, l.ZStep, l.ZSquare}
}

func fillParams(p *kernel.MACParams, vals [10]int64) {
	*p = kernel.MACParams{XStart: vals[0], XOffs: vals[1], XOffsHi: vals[2], XStep: vals[3], XSquare: vals[4],
		ZStart: vals[5], ZOffs: vals[6], ZOffsHi: vals[7], ZStep: vals[8], ZSquare: vals[9]}
}

func constParams(args []kernel.Operand, l kernel.MACLayout) (kernel.MACParams, bool) {
	var vals [10]int64
	for i, a := range paramIdx(l) {
		if a < 0 {
			continue
		}
		if !args[a].IsIntImm() {
			return kernel.MACParams{}, false
		}
		vals[i] = args[a].Imm
	}
	var p kernel.MACParams
	fillParams(&p, vals)
	return p, true
}
