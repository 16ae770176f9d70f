package cfront

import (
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// The AI Engine API (aie::) as kernels use it on AIE1, lowered to the intrinsic IR.

// opAPIDone marks a binary expression apiBinary lowered completely (its result is the first
// operand).
const opAPIDone = kernel.OpInvalid

// apiObj is an API object that is not a register value (aie::mmul).
type apiObj struct {
	kind string
}

// apiCall lowers a call of an API function or an ADF builtin with a value.
func (l *lowerer) apiCall(b *kernel.Builder, c *Call, dst *kernel.Var) (kernel.Operand, bool) {
	if o, ok := l.builtinValue(b, c, dst); ok {
		return o, true
	}
	if strings.HasPrefix(c.Fun, "aie::") {
		l.fail(c.Pos, "%s is not supported yet", c.Fun)
	}
	return kernel.Operand{}, false
}

func (l *lowerer) apiAutoObject(b *kernel.Builder, d *Declarator, init Expr) *sym { return nil }

func (l *lowerer) apiObject(b *kernel.Builder, d *Declarator, t *TypeName) *sym {
	l.fail(d.Pos, "%s objects are not supported yet", t.Base)
	return nil
}

func (l *lowerer) apiObjValue(b *kernel.Builder, x *Ident, s *sym) kernel.Operand {
	l.fail(x.Pos, "%s is an object, not a value", x.Name)
	return kernel.Operand{}
}

func (l *lowerer) apiObjMethod(b *kernel.Builder, c *Call, s *sym, dst *kernel.Var) (kernel.Operand, bool) {
	l.fail(c.Pos, "member function %s is not supported", c.Fun)
	return kernel.Operand{}, false
}

func (l *lowerer) apiMethod(b *kernel.Builder, c *Call, dst *kernel.Var) (kernel.Operand, bool) {
	l.fail(c.Pos, "member function %s is not supported", c.Fun)
	return kernel.Operand{}, false
}

func (l *lowerer) apiNeg(b *kernel.Builder, p Pos, a kernel.Operand) kernel.Operand {
	l.fail(p, "negation of %v is not supported", a.Type())
	return kernel.Operand{}
}

// apiBinary lowers a binary operator on vectors or accumulators: + and - are the vector
// adds of the intrinsics' operator+ / operator-.
func (l *lowerer) apiBinary(b *kernel.Builder, x *Binary, a, c kernel.Operand) (kernel.Op, kernel.Operand, kernel.Operand) {
	switch x.Op {
	case "+":
		return kernel.OpVAdd, a, c
	case "-":
		return kernel.OpVSub, a, c
	}
	l.fail(x.Pos, "operator %s on %v and %v is not supported", x.Op, a.Type(), c.Type())
	return 0, a, c
}
