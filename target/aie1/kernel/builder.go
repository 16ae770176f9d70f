package kernel

import (
	"errors"
	"fmt"
)

// Builder appends statements to a kernel body or a loop body. Methods record the first
// error of each instruction (see Err) so that generators can build straight-line code
// without checking every call; every instruction is type-checked as it is added.
type Builder struct {
	k    *Kernel
	body *[]Stmt
	pos  Pos
	errs *[]error // shared by a builder and the builders of its loops
}

// NewBuilder returns a builder appending to k.Body.
func NewBuilder(k *Kernel) *Builder {
	return &Builder{k: k, body: &k.Body, errs: new([]error)}
}

// NewBodyBuilder returns a builder appending to body, a statement list the caller places in
// k (for example code to run at kernel entry).
func NewBodyBuilder(k *Kernel, body *[]Stmt) *Builder {
	return &Builder{k: k, body: body, errs: new([]error)}
}

// Kernel returns the kernel being built.
func (b *Builder) Kernel() *Kernel { return b.k }

// At sets the source position of the statements added next.
func (b *Builder) At(p Pos) *Builder { b.pos = p; return b }

// Err returns the errors recorded so far (nil if none).
func (b *Builder) Err() error { return errors.Join(*b.errs...) }

func (b *Builder) fail(err error) {
	if b.pos.IsValid() {
		err = fmt.Errorf("%v: %w", b.pos, err)
	}
	*b.errs = append(*b.errs, err)
}

// Param adds a kernel parameter.
func (b *Builder) Param(name string, t Type) *Var {
	v := b.k.AddParam(name, t)
	v.Pos = b.pos
	return v
}

// Decl declares a local variable (it is not initialized: reading it before a write reads
// zero in the interpreter, which reports it).
func (b *Builder) Decl(name string, t Type) *Var {
	if b.k.Lookup(name) != nil {
		b.fail(fmt.Errorf("variable %s declared twice", name))
	}
	if err := t.check(); err != nil {
		b.fail(fmt.Errorf("variable %s: %v", name, err))
	}
	v := b.k.NewVar(name, t)
	v.Pos = b.pos
	return v
}

// Emit appends dst = op(args...) (dst nil for ops without a result) after checking it.
// The instruction is appended even when the check fails, so the error names its place.
func (b *Builder) Emit(op Op, dst *Var, args ...Operand) *Instr {
	in := &Instr{Op: op, Dst: dst, Args: args, Pos: b.pos}
	if err := CheckInstr(in); err != nil {
		b.fail(err)
	}
	*b.body = append(*b.body, in)
	return in
}

// Set is Emit for an op with a result.
func (b *Builder) Set(dst *Var, op Op, args ...Operand) *Instr { return b.Emit(op, dst, args...) }

// Mov appends dst = src.
func (b *Builder) Mov(dst *Var, src Operand) *Instr { return b.Emit(OpMov, dst, src) }

// Op appends a new temporary = op(args...) and returns the temporary. The type comes from
// ResultType; for ops whose type is not determined by their operands use OpT.
func (b *Builder) Op(op Op, args ...Operand) *Var {
	t, err := ResultType(op, args, Type{})
	if err != nil {
		b.fail(err)
		t = ScalarOf(Int32) // keep building; the error is recorded
	}
	v := b.k.NewTemp(t)
	b.Emit(op, v, args...)
	return v
}

// OpT is Op with the result type given (undef_*, null_*, window reads, loads).
func (b *Builder) OpT(op Op, t Type, args ...Operand) *Var {
	v := b.k.NewTemp(t)
	b.Emit(op, v, args...)
	return v
}

// For appends a loop for (i = start; i < limit; i += step) and returns it with a builder
// for its body. i may be nil. Set the pragmas on the returned Loop.
func (b *Builder) For(i *Var, start, limit Operand, step int64) (*Loop, *Builder) {
	l := &Loop{Var: i, Start: start, Limit: limit, Step: Imm(step), Cmp: Lt, Pos: b.pos}
	*b.body = append(*b.body, l)
	return l, &Builder{k: b.k, body: &l.Body, pos: b.pos, errs: b.errs}
}

// If appends if (cond) {} else {} and returns it with builders for its two branches.
func (b *Builder) If(cond Operand) (*If, *Builder, *Builder) {
	s := &If{Cond: cond, Pos: b.pos}
	*b.body = append(*b.body, s)
	return s, &Builder{k: b.k, body: &s.Then, pos: b.pos, errs: b.errs}, &Builder{k: b.k, body: &s.Else, pos: b.pos, errs: b.errs}
}

// MACArgs are the immediate (or variable) parameters of a MAC intrinsic. Parameters a
// form does not have are ignored. A zero Operand is the immediate 0: set XSquare/ZSquare
// to 0x3210 for the identity permutation.
type MACArgs struct {
	XStart, XOffs, XOffsHi, XStep, XSquare Operand
	ZStart, ZOffs, ZOffsHi, ZStep, ZSquare Operand
}

// MAC appends dst = op(acc, x, params..., z, params...) with the arguments placed in the
// order of the intrinsic's signature (acc is ignored for mul* ops). The form follows
// from op and x's type.
func (b *Builder) MAC(dst *Var, op Op, acc, x, z *Var, p MACArgs) *Instr {
	args, err := MACOperands(op, acc, x, z, p)
	if err != nil {
		b.fail(err)
		in := &Instr{Op: op, Dst: dst, Pos: b.pos}
		*b.body = append(*b.body, in)
		return in
	}
	return b.Emit(op, dst, args...)
}

// MACOperands lays out a MAC call's operands in signature order.
func MACOperands(op Op, acc, x, z *Var, p MACArgs) ([]Operand, error) {
	if x == nil || z == nil {
		return nil, fmt.Errorf("%v: nil X or Z buffer", op)
	}
	hasAcc := op.Info().Acc
	probe := []Operand{V(x)}
	if hasAcc {
		if acc == nil {
			return nil, fmt.Errorf("%v: nil accumulator", op)
		}
		probe = []Operand{V(acc), V(x)}
	}
	f, err := FormOf(op, probe)
	if err != nil {
		return nil, err
	}
	l := Layout(f, hasAcc)
	args := make([]Operand, l.NumArgs)
	set := func(i int, o Operand) {
		if i >= 0 {
			args[i] = o
		}
	}
	if hasAcc {
		set(l.Acc, V(acc))
	}
	set(l.X, V(x))
	set(l.XStart, p.XStart)
	set(l.XOffs, p.XOffs)
	set(l.XOffsHi, p.XOffsHi)
	set(l.XStep, p.XStep)
	set(l.XSquare, p.XSquare)
	set(l.Z, V(z))
	set(l.ZStart, p.ZStart)
	set(l.ZOffs, p.ZOffs)
	set(l.ZOffsHi, p.ZOffsHi)
	set(l.ZStep, p.ZStep)
	set(l.ZSquare, p.ZSquare)
	return args, nil
}
