package cfront

import (
	"math"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// The stream moves by port number (intrinsics reference, group intr_streams: get_ss(idx),
// getf_ss, get_wss, getf_wss read 32 or 128 bits from input port idx; put_ms(idx, v),
// putf_ms, put_wms write them to output port idx). A kernel's stream parameters get the
// port numbers from left to right in its argument list, inputs and outputs counted apart
// (UG1076 "Stream-based Access": "The AI Engine compiler automatically allocates the input
// and output stream port IDs from left to right in the argument list of a kernel"), so port
// idx is the kernel's idx-th input (output) stream, which readincr / writeincr move.
//
// The 32-bit moves of a float stream carry raw words in C++ (get_ss returns the word as an
// int, put_ms takes an int): sumac supports them as a word moved from port to port
// (put_ms(i, get_ss(j))), a word read and dropped (get_ss(j);) and a constant written
// (put_ms(i, c): the int c's bits), and names any other use.

// portStream returns the kernel's idx-th input (out false) or output stream parameter.
func (l *lowerer) portStream(c *Call, arg Expr, out bool) kernel.Operand {
	n, err := constEval(arg, l.constEnv)
	if err != nil {
		l.fail(ExprPos(arg), "%s: the port number must be a compile-time constant", c.Fun)
	}
	k := int64(0)
	for _, p := range l.k.Params {
		t := p.Type
		if !t.IsStream() || t.IsCascade() || t.Out != out {
			continue
		}
		if k == n {
			return kernel.V(p)
		}
		k++
	}
	dir := "input"
	if out {
		dir = "output"
	}
	l.fail(c.Pos, "%s(%d, ...): the kernel has %d %s stream parameters (ports are numbered from 0, left to right)", c.Fun, n, k, dir)
	return kernel.Operand{}
}

// portRead lowers get_ss / getf_ss / get_wss / getf_wss (ok false: not one of them).
func (l *lowerer) portRead(b *kernel.Builder, c *Call, dst *kernel.Var) (kernel.Operand, bool) {
	wide, float := false, false
	switch c.Fun {
	case "get_ss":
	case "getf_ss":
		float = true
	case "get_wss":
		wide = true
	case "getf_wss":
		wide, float = true, true
	default:
		return kernel.Operand{}, false
	}
	if len(c.Args) != 1 {
		l.fail(c.Pos, "%s(port) takes one argument", c.Fun)
	}
	s := l.portStream(c, c.Args[0], false)
	e := s.Type().Elem
	// get_ss / get_wss give int words, getf_ss / getf_wss float ones: the stream's type must
	// be theirs (a float stream's raw word from get_ss only where it is moved or dropped)
	okType := e == kernel.Float32
	if !float {
		okType = e == kernel.Int32 || e == kernel.UInt32 || c.Fun == "get_ss" && e == kernel.Float32
	}
	if !okType {
		l.fail(c.Pos, "%s on a stream of %v is not supported (read it with readincr)", c.Fun, e)
	}
	if c.Fun == "get_ss" && e == kernel.Float32 && !l.rawWord {
		l.fail(c.Pos, "get_ss on a float stream returns the raw word as an int: sumac supports it moved to put_ms or dropped")
	}
	rt := kernel.ScalarOf(e)
	if wide {
		rt = kernel.VecOf(e, 128/e.Bits())
	}
	if dst == nil {
		l.sideEffect(c.Pos, effectTarget(c.Args[0]))
	}
	l.checkOp(c.Pos, kernel.OpStreamRead, []kernel.Operand{s}, rt)
	return kernel.V(l.emitInto(b, c.Pos, dst, rt, kernel.OpStreamRead, s)), true
}

// portWrite lowers put_ms / putf_ms / put_wms (false: not one of them).
func (l *lowerer) portWrite(b *kernel.Builder, c *Call) bool {
	switch c.Fun {
	case "put_ms", "putf_ms", "put_wms":
	case "get_ss", "getf_ss", "get_wss", "getf_wss":
		// a read whose value is dropped
		l.rawWord = true
		l.portRead(b, c, nil)
		l.rawWord = false
		return true
	default:
		return false
	}
	if len(c.Args) != 2 {
		l.fail(c.Pos, "%s(port, value) takes two arguments", c.Fun)
	}
	s := l.portStream(c, c.Args[0], true)
	e := s.Type().Elem
	var v kernel.Operand
	switch c.Fun {
	case "put_wms":
		v = l.expr(b, c.Args[1])
		if vt := v.Type(); !vt.IsVector() || vt.Bits() != 128 || vt.Elem != e {
			l.fail(c.Pos, "put_wms writes 128 bits of the stream's type %v, not %v", e, vt)
		}
	case "putf_ms":
		if e != kernel.Float32 {
			l.fail(c.Pos, "putf_ms on a stream of %v is not supported (write it with writeincr)", e)
		}
		v = l.expr(b, c.Args[1])
	default: // put_ms(idx, int)
		if e.Bits() != 32 {
			l.fail(c.Pos, "put_ms writes a 32-bit word: port %s carries %v (write it with writeincr)", exprText(c.Args[0]), e)
		}
		if e != kernel.Float32 {
			v = l.expr(b, c.Args[1])
			break
		}
		// a float stream: the int's bits
		if inner, ok := stripParen(c.Args[1]).(*Call); ok && inner.Fun == "get_ss" && inner.Recv == nil {
			l.rawWord = true
			v = l.expr(b, inner)
			l.rawWord = false
			break
		}
		n, ok := l.ctorEval(c.Args[1])
		if !ok {
			l.fail(ExprPos(c.Args[1]), "put_ms on a float stream writes an int's bits: sumac supports a constant or a word from get_ss there")
		}
		iv := int32(int64(math.Trunc(n.v))) // C++'s conversion of the argument to int
		v = kernel.FImm(math.Float32frombits(uint32(iv)))
	}
	if vt := v.Type(); vt.IsScalar() && vt.Elem != e {
		t := l.k.NewTemp(kernel.ScalarOf(e))
		l.mov(b, t, v, c.Pos)
		v = kernel.V(t)
	}
	ops := []kernel.Operand{s, v}
	l.checkOp(c.Pos, kernel.OpStreamWrite, ops, kernel.Type{})
	b.At(kpos(c.Pos)).Emit(kernel.OpStreamWrite, nil, ops...)
	return true
}
