package cfront

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// The ADF window and stream functions beyond the intrinsic table (kernel.LookupCall), the
// kernel-class and buffer-port member functions, the cycle counter, and helper functions
// (inlined).

// suffixLanes reads the N of name_vN.
func suffixLanes(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || n > 128 {
		return 0, false
	}
	return n, true
}

// templateLanes reads the N of name<N>.
func (l *lowerer) templateLanes(c *Call) int {
	if len(c.TArgs) != 1 {
		l.fail(c.Pos, "%s<N> takes one template argument", c.Fun)
	}
	return int(l.constArg(c.TArgs[0], "the number of lanes"))
}

// builtinStmt lowers the statement-level ADF calls: window_decr, window_incr_vN /
// window_decr_vN (UG1079 "Window and Streaming Data API"), writeincr_vN and the
// WRITEINCR(port, s, v) macro of older kernels.
func (l *lowerer) builtinStmt(b *kernel.Builder, c *Call) bool {
	name := c.Fun
	incr := func(w Expr, n kernel.Operand, scale int64, neg bool) {
		wo := l.expr(b, w)
		if !wo.Type().IsWindow() {
			l.fail(ExprPos(w), "%s takes a window, not %v", name, wo.Type())
		}
		if scale != 1 {
			if n.IsIntImm() {
				n = kernel.Imm(n.Imm * scale)
			} else {
				n = l.emitBinary(b, c.Pos, kernel.OpMul, n, kernel.Imm(scale))
			}
		}
		if neg {
			n = l.neg(b, n, c.Pos)
		}
		args := []kernel.Operand{wo, n}
		l.checkOp(c.Pos, kernel.OpWinIncr, args, kernel.Type{})
		b.At(kpos(c.Pos)).Emit(kernel.OpWinIncr, nil, args...)
	}
	need := func(k int) {
		if len(c.Args) != k {
			l.fail(c.Pos, "%s takes %d arguments, %d given", name, k, len(c.Args))
		}
	}
	switch {
	case name == "put_wms":
		// put_wms(port, v): a 128-bit write to output stream port `port` (AIE intrinsics
		// guide "Stream Operations"), the kernel's port-th output stream parameter
		need(2)
		c2 := *c
		c2.Fun, c2.Args = "writeincr_v4", []Expr{l.streamPort(c, c.Args[0], true), c.Args[1]}
		return l.builtinStmt(b, &c2)
	case name == "window_decr":
		need(2)
		incr(c.Args[0], l.expr(b, c.Args[1]), 1, true)
		return true
	case name == "window_incr_v" || name == "window_decr_v":
		need(2)
		n := l.templateLanes(c)
		incr(c.Args[0], l.expr(b, c.Args[1]), int64(n), name == "window_decr_v")
		return true
	case strings.HasPrefix(name, "window_incr_v") || strings.HasPrefix(name, "window_decr_v"):
		n, ok := suffixLanes(name, name[:len("window_incr_v")])
		if !ok {
			return false
		}
		need(2)
		incr(c.Args[0], l.expr(b, c.Args[1]), int64(n), strings.HasPrefix(name, "window_decr"))
		return true
	case name == "writeincr" || strings.HasPrefix(name, "writeincr_v") || name == "WRITEINCR" || name == "WRITEINCRW":
		args := c.Args
		if strings.HasPrefix(name, "WRITEINCR") {
			if len(args) != 3 {
				l.fail(c.Pos, "%s(port, stream, value) takes 3 arguments", name)
			}
			args = args[1:]
		}
		if len(args) == 3 { // writeincr(s, v, tlast)
			l.note(c.Pos, "tlast", "the TLAST argument of writeincr is ignored (sumac's streams carry no packet boundaries)")
			args = args[:2]
		}
		if len(args) != 2 {
			l.fail(c.Pos, "%s(stream, value) takes 2 arguments", name)
		}
		s := l.expr(b, args[0])
		v := l.expr(b, args[1])
		if n, ok := suffixLanes(name, "writeincr_v"); ok && (!v.Type().IsVector() && !v.Type().IsAcc() || v.Type().Lanes != n) {
			l.fail(c.Pos, "%s writes %d lanes, not %v", name, n, v.Type())
		}
		if st := s.Type(); st.IsStream() && !st.Elem.IsAcc() && v.Type().IsScalar() && v.Type().Elem != st.Elem {
			// writeincr(output_stream<int32>*, int32) called with an int16: C++'s implicit
			// conversion to the parameter's type (UG1079 "Window and Streaming Data API" declares
			// one writeincr per stream type, writeincr(output_stream<float>*, float), ...). An
			// int constant written to a float stream is folded to the float constant, as the
			// cast (float) 3 is: the emitted text then reads back to the same kernel.
			if st.Elem == kernel.Float32 && v.IsIntImm() {
				from := kernel.Int32
				if v.Imm > math.MaxInt32 || v.Imm < math.MinInt32 {
					from = kernel.UInt32 // a large literal such as 0xFFFFFFFF
				}
				v = kernel.FImm(math.Float32frombits(uint32(kernel.Convert(v.Imm, from, kernel.Float32))))
			}
		}
		if st := s.Type(); st.IsStream() && !st.Elem.IsAcc() && v.Type().IsScalar() && v.Type().Elem != st.Elem {
			t := l.k.NewTemp(kernel.ScalarOf(st.Elem))
			l.mov(b, t, v, c.Pos)
			v = kernel.V(t)
		}
		ops := []kernel.Operand{s, v}
		l.checkOp(c.Pos, kernel.OpStreamWrite, ops, kernel.Type{})
		b.At(kpos(c.Pos)).Emit(kernel.OpStreamWrite, nil, ops...)
		return true
	case name == "window_acquire" || name == "window_release":
		l.fail(c.Pos, "%s (asynchronous windows) is not supported", name)
	case name == "get_cycles" || name == "chess_copy" || name == "chess_manifest":
		l.expr(b, c) // a value dropped
		return true
	}
	return false
}

// builtinValue lowers the value-level ADF calls: readincr / readincr_vN / readincr_v<N>
// (streams and cascades), READINCR(port, s), window_readincr_v<N> / window_read_v<N>,
// get_cycles(), chess_copy(x) and chess_manifest(x).
func (l *lowerer) builtinValue(b *kernel.Builder, c *Call, dst *kernel.Var) (kernel.Operand, bool) {
	name := c.Fun
	var lanes int
	switch {
	case name == "getf_wss":
		// getf_wss(port): a v4float read from input stream port `port` (AIE intrinsics guide
		// "Stream Operations"), the kernel's port-th input stream parameter
		if len(c.Args) != 1 {
			l.fail(c.Pos, "getf_wss(port) takes 1 argument")
		}
		s := l.streamPort(c, c.Args[0], false)
		if st := l.expr(b, s).Type(); st.Elem != kernel.Float32 {
			l.fail(c.Pos, "getf_wss reads floats, but input stream %s carries %v", exprText(s), st.Elem)
		}
		c2 := *c
		c2.Fun, c2.Args = "readincr_v4", []Expr{s}
		return l.builtinValue(b, &c2, dst)
	case name == "readincr" || name == "READINCR" || name == "READINCRW":
		lanes = 1
	case name == "readincr_v":
		lanes = l.templateLanes(c)
	case strings.HasPrefix(name, "readincr_v"):
		n, ok := suffixLanes(name, "readincr_v")
		if !ok {
			return kernel.Operand{}, false
		}
		lanes = n
	case name == "window_readincr_v" || name == "window_read_v" || name == "window_readdecr_v":
		n := l.templateLanes(c)
		op := kernel.OpWinReadIncr
		if name == "window_read_v" {
			op = kernel.OpWinRead
		}
		if name == "window_readdecr_v" {
			l.fail(c.Pos, "window_readdecr_v is not supported (read, then window_decr)")
		}
		if len(c.Args) != 1 {
			l.fail(c.Pos, "%s takes one window argument", name)
		}
		if op == kernel.OpWinReadIncr && dst == nil {
			l.sideEffect(c.Pos, effectTarget(c.Args[0]))
		}
		w := l.expr(b, c.Args[0])
		if !w.Type().IsWindow() {
			l.fail(c.Pos, "%s takes one window argument", name)
		}
		rt := kernel.VecOf(w.Type().Elem, n)
		l.checkOp(c.Pos, op, []kernel.Operand{w}, rt)
		return kernel.V(l.emitInto(b, c.Pos, dst, rt, op, w)), true
	case name == "get_cycles":
		if len(c.Args) != 0 {
			l.fail(c.Pos, "get_cycles takes no arguments")
		}
		return l.cycles(b, c.Pos, dst), true
	case name == "chess_copy" || name == "chess_manifest":
		if len(c.Args) != 1 {
			l.fail(c.Pos, "%s takes one argument", name)
		}
		return l.expr(b, c.Args[0]), true
	default:
		if v, ok := l.intLimits(c); ok {
			return kernel.Imm(v), true
		}
		return kernel.Operand{}, false
	}
	// a stream or cascade read
	args := c.Args
	if strings.HasPrefix(name, "READINCR") {
		if len(args) != 2 {
			l.fail(c.Pos, "%s(port, stream) takes 2 arguments", name)
		}
		args = args[1:]
	}
	if len(args) == 2 && lanes == 1 { // readincr(s, tlast)
		l.fail(c.Pos, "readincr with a TLAST output is not supported")
	}
	if len(args) != 1 {
		l.fail(c.Pos, "%s takes one stream argument", name)
	}
	if dst == nil {
		l.sideEffect(c.Pos, effectTarget(args[0]))
	}
	s := l.expr(b, args[0])
	st := s.Type()
	if !st.IsStream() || st.Out {
		l.fail(ExprPos(args[0]), "%s reads an input stream, not %v", name, st)
	}
	var rt kernel.Type
	switch {
	case st.IsCascade():
		if lanes == 1 {
			l.fail(c.Pos, "a cascade is read with readincr_v<N> (a whole accumulator), not %s", name)
		}
		rt = kernel.AccOf(st.Elem, lanes)
	case lanes == 1:
		rt = kernel.ScalarOf(st.Elem)
	default:
		rt = kernel.VecOf(st.Elem, lanes)
	}
	if !rt.Valid() {
		l.fail(c.Pos, "%s on %v: %d lanes is not a register type", name, st, lanes)
	}
	l.checkOp(c.Pos, kernel.OpStreamRead, []kernel.Operand{s}, rt)
	if dst != nil && dst.Type != rt && dst.Type.IsScalar() && rt.IsScalar() {
		// int x = readincr(input_stream<int16>*): read, then C's conversion
		v := l.emitInto(b, c.Pos, nil, rt, kernel.OpStreamRead, s)
		l.mov(b, dst, kernel.V(v), c.Pos)
		return kernel.V(dst), true
	}
	return kernel.V(l.emitInto(b, c.Pos, dst, rt, kernel.OpStreamRead, s)), true
}

// emitInto emits dst = op(args) with dst a new temporary of type t when nil.
func (l *lowerer) emitInto(b *kernel.Builder, p Pos, dst *kernel.Var, t kernel.Type, op kernel.Op, args ...kernel.Operand) *kernel.Var {
	if dst == nil || (dst.Type != t && !(dst.Type.IsScalar() && t.IsScalar())) {
		v := l.k.NewTemp(t)
		b.At(kpos(p)).Emit(op, v, args...)
		if dst != nil {
			l.mov(b, dst, kernel.V(v), p)
			return dst
		}
		return v
	}
	b.At(kpos(p)).Emit(op, dst, args...)
	return dst
}

// cycles reads the tile's cycle counter (aie::tile::cycles(), get_cycles()).
func (l *lowerer) cycles(b *kernel.Builder, p Pos, dst *kernel.Var) kernel.Operand {
	t := kernel.ScalarOf(kernel.UInt32)
	if dst != nil && dst.Type.IsIntScalar() && dst.Type.Elem.Bits() == 32 {
		t = dst.Type
	}
	l.checkOp(p, kernel.OpCycles, nil, t)
	return kernel.V(l.emitInto(b, p, dst, t, kernel.OpCycles))
}

// intLimits evaluates std::numeric_limits<T>::max() / min() / lowest() for integer T.
func (l *lowerer) intLimits(c *Call) (int64, bool) {
	rest, ok := strings.CutPrefix(c.Fun, "std::numeric_limits<>::")
	if !ok || len(c.TArgs) != 1 || c.TArgs[0].Type == nil || len(c.Args) != 0 {
		return 0, false
	}
	if b := c.TArgs[0].Type.Base; b == "float" || b == "double" {
		return 0, false
	}
	e := l.elemOf(c.TArgs[0].Type)
	lo, hi := e.Range()
	switch rest {
	case "max":
		return hi, true
	case "min", "lowest":
		return lo, true
	}
	return 0, false
}

// methodCall lowers a member function call: tile.cycles(), a buffer port's data() and
// size(), and the AI Engine API's member functions (api.go).
func (l *lowerer) methodCall(b *kernel.Builder, c *Call, dst *kernel.Var) (kernel.Operand, bool) {
	recv := stripParen(c.Recv)
	// aie::tile::current().cycles() and tile.cycles()
	isTile := false
	if rc, ok := recv.(*Call); ok && rc.Fun == "aie::tile::current" && rc.Recv == nil {
		isTile = true
	}
	var rs *sym
	if id, ok := recv.(*Ident); ok {
		rs = l.lookup(id.Name)
		if rs != nil && rs.kind == symTile {
			isTile = true
		}
	}
	if isTile {
		switch c.Fun {
		case "cycles":
			if len(c.Args) != 0 {
				l.fail(c.Pos, "cycles() takes no arguments")
			}
			return l.cycles(b, c.Pos, dst), true
		case "current":
			return kernel.Operand{}, false
		}
		l.fail(c.Pos, "aie::tile::%s is not supported (only cycles())", c.Fun)
	}
	if rs != nil && rs.kind == symObj {
		return l.apiObjMethod(b, c, rs, dst)
	}
	if rs != nil && rs.kind == symVar && (rs.v.Port == kernel.PortInBuffer || rs.v.Port == kernel.PortOutBuffer) {
		switch c.Fun {
		case "data":
			return kernel.V(rs.v), true
		case "size":
			if rs.v.Array == 0 {
				l.fail(c.Pos, "%s.size(): the buffer's size is set by the graph; declare it with adf::extents<N>", rs.v.Name)
			}
			return kernel.Imm(int64(rs.v.Array)), true
		}
		l.fail(c.Pos, "buffer member function %s is not supported (data(), size())", c.Fun)
	}
	return l.apiMethod(b, c, dst)
}

// returnSlot receives the value of an inlined helper.
type returnSlot struct {
	v    *kernel.Var
	done bool
}

// helper finds a helper function the kernel calls.
func (l *lowerer) helper(name string) *helper {
	if l.file == nil {
		return nil
	}
	for _, h := range l.file.helpers {
		if h.name == name {
			return h
		}
	}
	return nil
}

// targTokens spells a call's template argument for substitution: a type as written, an
// expression as its compile-time value.
func (l *lowerer) targTokens(at Pos, a *TArg) []Token {
	if a.Type != nil {
		toks, err := lex("template argument", []byte(a.Type.String()))
		if err != nil {
			l.fail(at, "template argument %s: %v", a.Type, err)
		}
		var out []Token
		for _, t := range toks {
			if t.Kind != tEOF && t.Kind != tNewline {
				t.Pos = at
				out = append(out, t)
			}
		}
		return out
	}
	v, u, err := constEvalU(a.Expr, l.constEnv)
	if err != nil {
		l.fail(ExprPos(a.Expr), "a template argument must be a compile-time constant")
	}
	text := fmt.Sprint(v)
	if u {
		text += "u"
	}
	return []Token{{Kind: tNumber, Text: text, Pos: at}}
}

// inline lowers a call of a helper function in place: parameters passed by value become
// variables initialized with the arguments; pointers, windows, streams and arrays are passed
// as they are. A helper returns its value with a return at its end.
func (l *lowerer) inline(b *kernel.Builder, c *Call, h *helper, dst *kernel.Var) kernel.Operand {
	var fd *FuncDecl
	var err error
	if h.tmpl != nil {
		if len(c.TArgs) == 0 {
			l.fail(c.Pos, "%s is a function template: call it with its template arguments, %s<...>(...) (sumac does not deduce them)", h.name, h.name)
		}
		var targs [][]Token
		for _, a := range c.TArgs {
			targs = append(targs, l.targTokens(c.Pos, a))
		}
		fd, err = h.tmpl(c.Pos, targs)
	} else {
		fd, err = h.get()
	}
	if err != nil {
		panic(bail{err.(*Error)})
	}
	if l.inlineDepth > 16 {
		l.fail(c.Pos, "helper %s: calls nested more than 16 deep (recursion is not supported)", h.name)
	}
	if len(c.Args) != len(fd.Params) {
		l.fail(c.Pos, "%s takes %d arguments, %d given", h.name, len(fd.Params), len(c.Args))
	}
	// the arguments, evaluated in the caller's scope
	type arg struct {
		o   kernel.Operand
		arr *sym
	}
	var args []arg
	for i, a := range c.Args {
		p := fd.Params[i]
		if p.Type.Ref && len(p.Type.Dims) > 0 || len(p.Type.Dims) > 0 {
			if id, ok := stripParen(a).(*Ident); ok {
				if s := l.lookup(id.Name); s != nil && s.kind == symArray {
					args = append(args, arg{arr: s})
					continue
				}
			}
		}
		args = append(args, arg{o: l.expr(b, a)})
	}
	saved := l.scopes
	savedRet, savedMod := l.ret, l.modified
	l.scopes = append([]map[string]*sym(nil), l.scopes[:1]...) // file scope only
	if len(saved) > 1 && l.file.Class != nil {
		l.scopes = append(l.scopes, saved[1])
	}
	l.push()
	l.modified = map[string]bool{}
	collectModified(fd.Body, l.modified)
	for i, p := range fd.Params {
		a := args[i]
		if a.arr != nil {
			l.bind(p.Name, a.arr)
			continue
		}
		at := a.o.Type()
		switch {
		case at.IsWindow() || at.IsStream() || (at.IsPointer() && (p.Type.Ptr > 0 || len(p.Type.Dims) > 0 || p.Type.Ref)):
			if a.o.Var == nil {
				l.fail(ExprPos(c.Args[i]), "argument %d of %s is not a variable", i+1, h.name)
			}
			l.bind(p.Name, &sym{v: a.o.Var})
		case p.Type.Ref:
			// T &x: the argument variable itself
			if a.o.Var == nil || a.o.Var.Temp {
				l.fail(ExprPos(c.Args[i]), "argument %d of %s binds a reference: pass a variable", i+1, h.name)
			}
			l.bind(p.Name, &sym{v: a.o.Var})
		default:
			pt := l.typeOf(p.Type, ctxLocal).t
			if a.o.IsImm() && !l.modified[p.Name] && pt.IsScalar() {
				if pt.Elem == kernel.Float32 {
					f := a.o.F
					if !a.o.IsFloat {
						f = float32(a.o.Imm)
					}
					l.bind(p.Name, &sym{kind: symFConst, fval: f})
				} else {
					v := a.o.Imm
					if a.o.IsFloat {
						v = int64(a.o.F)
					}
					l.bind(p.Name, &sym{kind: symConst, isConst: true, val: convertConst(v, pt), unsigned: !pt.Elem.Signed()})
				}
				continue
			}
			v := l.newVar(b, p.Pos, p.Name, pt)
			l.bind(p.Name, &sym{v: v})
			l.mov(b, v, a.o, ExprPos(c.Args[i]))
		}
	}
	var ret *returnSlot
	rt := fd.Result
	if rt != nil && !(rt.Base == "void" && rt.Ptr == 0) {
		t := l.typeOf(rt, ctxLocal).t
		rv := dst
		if rv == nil || rv.Type != t {
			rv = l.k.NewTemp(t)
		}
		ret = &returnSlot{v: rv}
	} else {
		ret = &returnSlot{}
	}
	l.ret = ret
	l.inlineDepth++
	effects := l.effects
	l.push()
	l.body(b, fd.Body.Stmts, false)
	l.pop()
	l.inlineDepth--
	l.effects = effects
	l.pop()
	l.scopes, l.ret, l.modified = saved, savedRet, savedMod
	if ret.v == nil {
		return kernel.Operand{}
	}
	if !ret.done {
		l.fail(fd.Pos, "helper %s must end with return value;", h.name)
	}
	return kernel.V(ret.v)
}

// streamPort maps the port number of a port-number stream move (getf_wss, put_wms) to the
// kernel's stream parameter: input (or output) stream port n is the n-th input (or output)
// stream parameter in declaration order, cascades not counted (the kernel names its ports in
// the order the graph connects them; onnx2versal's AddFloat reads getf_wss(0) and
// getf_wss(1) for its parameters inA and inB).
func (l *lowerer) streamPort(c *Call, port Expr, out bool) Expr {
	n, _, err := constEvalU(port, l.constEnv)
	if err != nil {
		l.fail(ExprPos(port), "%s: the stream port must be a constant", c.Fun)
	}
	i := int64(0)
	for _, p := range l.k.Params {
		if !p.Type.IsStream() || p.Type.IsCascade() || p.Type.Out != out {
			continue
		}
		if i == n {
			return &Ident{Pos: c.Pos, Name: p.Name}
		}
		i++
	}
	dir := "input"
	if out {
		dir = "output"
	}
	l.fail(c.Pos, "%s(%d, ...): the kernel has %d %s stream parameters", c.Fun, n, i, dir)
	return nil
}
