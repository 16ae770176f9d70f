package cfront

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Types, declarations, file-scope variables and kernel class members.

type tctx uint8

const (
	ctxParam tctx = iota
	ctxLocal
	ctxGlobal
	ctxField
	ctxCast
)

// tinfo is what a written type means.
type tinfo struct {
	t    kernel.Type
	port kernel.Port
	n    int // elements of a buffer port's extents (0: unknown)
	tile bool
	api  *TypeName // an AI Engine API object type (aie::mmul)
}

var complexTypes = map[string]bool{"cint16": true, "cint32": true, "cfloat": true, "cacc48": true, "cacc80": true, "caccfloat": true}

// elemOf maps a scalar type name (int16, float, unsigned int, ...) to an element type.
func (l *lowerer) elemOf(t *TypeName) kernel.Elem {
	if t == nil {
		l.fail(Pos{}, "missing element type")
	}
	if complexTypes[t.Base] || strings.HasPrefix(t.Base, "v") && strings.Contains(t.Base, "cint") {
		l.fail(t.Pos, "complex types (%s) are not supported in sumac's AIE1 subset", t.Base)
	}
	if t.Ptr > 0 || len(t.Args) > 0 {
		l.fail(t.Pos, "%s is not a scalar element type", t)
	}
	switch t.Base {
	case "size_t":
		return kernel.UInt32
	case "bool":
		l.fail(t.Pos, "bool is not supported in the AIE kernel subset (use int)")
	case "int64", "uint64", "int64_t", "uint64_t":
		l.fail(t.Pos, "64-bit integers are not supported: the AIE1 scalar unit is 32-bit")
	}
	kt, err := kernel.ParseType(t.Base)
	if err != nil || kt.Class != kernel.Scalar {
		l.fail(t.Pos, "%s is not a scalar element type", t.Base)
	}
	return kt.Elem
}

// accElem maps an accumulator tag (acc48, acc80, accfloat and the API's acc32..acc72) to
// the AIE1 accumulator lane (API "accum_native_types": acc16..acc48 are acc48 lanes,
// acc56..acc80 acc80 lanes; accfloat is a float vector).
func (l *lowerer) accElem(t *TypeName) (kernel.Elem, bool) {
	switch t.Base {
	case "acc16", "acc24", "acc32", "acc40", "acc48":
		return kernel.Acc48, true
	case "acc56", "acc64", "acc72", "acc80":
		return kernel.Acc80, true
	case "accfloat":
		return kernel.Float32, true
	}
	if complexTypes[t.Base] {
		l.fail(t.Pos, "complex accumulators (%s) are not supported in sumac's AIE1 subset", t.Base)
	}
	return 0, false
}

func (l *lowerer) constArg(a *TArg, what string) int64 {
	if a.Expr == nil {
		l.fail(a.Type.Pos, "%s must be a constant, not a type", what)
	}
	v, _, err := constEvalU(a.Expr, l.constEnv)
	if err != nil {
		l.fail(ExprPos(a.Expr), "%s must be a compile-time constant", what)
	}
	return v
}

func (l *lowerer) typeArg(t *TypeName, i int, what string) *TypeName {
	if i >= len(t.Args) || t.Args[i].Type == nil {
		l.fail(t.Pos, "%s<...>: argument %d must be %s", t.Base, i+1, what)
	}
	return t.Args[i].Type
}

// typeOf maps a written type to its meaning. Windows, streams and buffers are parameters
// only (UG1079 "Window and Streaming Data API", "Buffer Ports").
func (l *lowerer) typeOf(t *TypeName, ctx tctx) tinfo {
	portOnly := func(what, spelled string) {
		if ctx != ctxParam {
			l.fail(t.Pos, "%s is a kernel parameter of type %s", what, spelled)
		}
	}
	switch t.Base {
	case "input_window", "output_window":
		e := l.elemOf(l.typeArg(t, 0, "an element type"))
		portOnly("a window", t.Base+"<T> *")
		if t.Ptr != 1 {
			l.fail(t.Pos, "a window is a kernel parameter of type %s<T> *", t.Base)
		}
		if t.Base == "output_window" {
			return tinfo{t: kernel.OutWindow(e)}
		}
		return tinfo{t: kernel.InWindow(e)}
	case "input_stream", "output_stream", "input_cascade", "output_cascade":
		a := l.typeArg(t, 0, "an element type")
		e, isAcc := l.accElem(a)
		if !isAcc || e == kernel.Float32 {
			if strings.HasSuffix(t.Base, "cascade") {
				l.fail(a.Pos, "a cascade carries acc48 or acc80 lanes on AIE1, not %s", a.Base)
			}
			e = l.elemOf(a)
		}
		portOnly("a stream", t.Base+"<T> *")
		if t.Ptr != 1 {
			l.fail(t.Pos, "a stream is a kernel parameter of type %s<T> *", t.Base)
		}
		if strings.HasPrefix(t.Base, "output") {
			return tinfo{t: kernel.OutStream(e)}
		}
		return tinfo{t: kernel.InStream(e)}
	case "input_buffer", "output_buffer":
		e := l.elemOf(l.typeArg(t, 0, "an element type"))
		portOnly("a buffer", t.Base+"<T> &")
		if !t.Ref || t.Ptr != 0 {
			l.fail(t.Pos, "a buffer port is a kernel parameter of type adf::%s<T> &", t.Base)
		}
		n := 0
		for _, a := range t.Args[1:] {
			if a.Type == nil {
				l.fail(t.Pos, "%s<T, ...>: extra arguments must be adf::extents<N> or adf::margin<M>", t.Base)
			}
			switch a.Type.Base {
			case "extents":
				if len(a.Type.Args) != 1 {
					l.fail(a.Type.Pos, "sumac supports one-dimensional adf::extents<N>")
				}
				n += int(l.constArg(a.Type.Args[0], "the extent"))
			case "margin":
				if len(a.Type.Args) != 1 {
					l.fail(a.Type.Pos, "adf::margin takes one argument")
				}
				n += int(l.constArg(a.Type.Args[0], "the margin"))
			default:
				l.fail(a.Type.Pos, "%s<T, ...>: extra arguments must be adf::extents<N> or adf::margin<M>", t.Base)
			}
		}
		port := kernel.PortInBuffer
		if t.Base == "output_buffer" {
			port = kernel.PortOutBuffer
		}
		return tinfo{t: kernel.PtrTo(e, 1), port: port, n: n}
	case "input_circular_buffer", "output_circular_buffer", "input_async_buffer", "output_async_buffer",
		"input_async_circular_buffer", "output_async_circular_buffer":
		l.fail(t.Pos, "adf::%s ports are not supported yet (use a window, whose position wraps, or a linear buffer)", t.Base)
	case "input_pktstream", "output_pktstream":
		l.fail(t.Pos, "packet streams (%s) are not supported", t.Base)
	case "aie::tile":
		return tinfo{tile: true}
	case "aie::mmul":
		if ctx != ctxLocal {
			l.fail(t.Pos, "an aie::mmul object is a local variable of the kernel")
		}
		return tinfo{api: t}
	case "aie::vector", "aie::accum":
		vt := l.apiValueType(t)
		if t.Ptr > 0 {
			return tinfo{t: kernel.PtrTo(vt.Elem, vt.Lanes)}
		}
		return tinfo{t: vt}
	case "aie::mask":
		l.fail(t.Pos, "aie::mask is not supported yet")
	case "auto":
		l.fail(t.Pos, "auto needs an initializer")
	case "void":
		if t.Ptr == 0 {
			l.fail(t.Pos, "a variable cannot have type void")
		}
		l.fail(t.Pos, "void pointers are not supported in the AIE kernel subset")
	}
	if templateTypes[t.Base] || strings.HasPrefix(t.Base, "aie::") || strings.HasPrefix(t.Base, "std::") {
		l.fail(t.Pos, "type %s is not supported in sumac's AIE1 subset", t.Base)
	}
	if complexTypes[t.Base] || strings.Contains(t.Base, "cint") || strings.Contains(t.Base, "cacc") {
		l.fail(t.Pos, "complex types (%s) are not supported in sumac's AIE1 subset", t.Base)
	}
	if strings.HasPrefix(t.Base, "input_window_") || strings.HasPrefix(t.Base, "output_window_") {
		if t.Ptr != 1 || ctx != ctxParam {
			l.fail(t.Pos, "a window is a kernel parameter of type %s *", t.Base)
		}
		kt, err := kernel.ParseType(t.Base)
		if err != nil {
			l.fail(t.Pos, "%v", err)
		}
		return tinfo{t: kt}
	}
	if strings.HasPrefix(t.Base, "input_stream_") || strings.HasPrefix(t.Base, "output_stream_") {
		if t.Ptr != 1 || ctx != ctxParam {
			l.fail(t.Pos, "a stream is a kernel parameter of type %s *", t.Base)
		}
		kt, err := kernel.ParseType(t.Base)
		if err != nil {
			l.fail(t.Pos, "%v", err)
		}
		return tinfo{t: kt}
	}
	if t.Ptr > 1 {
		l.fail(t.Pos, "pointers to pointers are not supported in the AIE kernel subset")
	}
	switch t.Base {
	case "size_t":
		return tinfo{t: l.ptrOr(kernel.ScalarOf(kernel.UInt32), t.Ptr)}
	case "bool", "int64", "uint64", "int64_t", "uint64_t", "double":
		l.elemOf(&TypeName{Pos: t.Pos, Base: t.Base})
	}
	s := t.Base + strings.Repeat("*", t.Ptr)
	kt, err := kernel.ParseType(s)
	if err != nil {
		l.fail(t.Pos, "unsupported type %s: %v", s, err)
	}
	if kt.Class == kernel.Window || kt.Class == kernel.Stream {
		l.fail(t.Pos, "a %v is a kernel parameter written with a '*'", kt.Class)
	}
	return tinfo{t: kt}
}

func (l *lowerer) ptrOr(t kernel.Type, ptr int) kernel.Type {
	if ptr > 0 {
		return kernel.PtrTo(t.Elem, t.Lanes)
	}
	return t
}

// apiValueType maps aie::vector<T, N> and aie::accum<tag, N> to the AIE1 register types they
// live in (API "detail/aie1": vectors are the intrinsic vector types, acc48 tags accumulate in
// 48-bit lanes, acc80 in 80-bit ones, accfloat in float vectors).
func (l *lowerer) apiValueType(t *TypeName) kernel.Type {
	if len(t.Args) != 2 || t.Args[0].Type == nil {
		l.fail(t.Pos, "%s takes <type, lanes>", t.Base)
	}
	n := int(l.constArg(t.Args[1], "the number of lanes"))
	var kt kernel.Type
	if t.Base == "aie::vector" {
		kt = kernel.VecOf(l.elemOf(t.Args[0].Type), n)
	} else {
		e, ok := l.accElem(t.Args[0].Type)
		if !ok {
			l.fail(t.Args[0].Type.Pos, "aie::accum<%s, %d>: the accumulator tag must be acc32..acc80 or accfloat", t.Args[0].Type.Base, n)
		}
		if e == kernel.Float32 {
			kt = kernel.VecOf(kernel.Float32, n)
		} else {
			kt = kernel.AccOf(e, n)
		}
	}
	if !kt.Valid() {
		l.fail(t.Pos, "%s<%s, %d> is not an AIE1 register type (sumac supports the types of one register: 128 to 1024-bit vectors, 8 or 16 acc48 lanes, 4 or 8 acc80 lanes)", t.Base, t.Args[0].Type.Base, n)
	}
	return kt
}

// param declares a kernel parameter.
func (l *lowerer) param(p *Param) {
	ty := *p.Type
	l.checkName(p.Pos, p.Name)
	var v *kernel.Var
	switch {
	case ty.Ref && len(ty.Dims) > 0:
		// T (&a)[N]: a run-time parameter array (RTP port)
		dims := l.arrayDims(&ty, ty.Dims, nil)
		et := l.typeOf(&TypeName{Pos: ty.Pos, Base: ty.Base, Args: ty.Args}, ctxLocal).t
		v = l.b.At(kpos(p.Pos)).Param(p.Name, kernel.PtrTo(et.Elem, et.Lanes))
		v.Port, v.Array = kernel.PortArrayRef, product(dims)
		l.bind(p.Name, &sym{kind: symArray, v: v, dims: dims})
	case len(ty.Dims) > 0:
		// T a[N]: a pointer
		et := l.typeOf(&TypeName{Pos: ty.Pos, Base: ty.Base, Args: ty.Args, Ptr: ty.Ptr}, ctxLocal).t
		v = l.b.At(kpos(p.Pos)).Param(p.Name, kernel.PtrTo(et.Elem, et.Lanes))
		l.bind(p.Name, &sym{v: v})
	default:
		ti := l.typeOf(&ty, ctxParam)
		if ty.Ref && ti.port != kernel.PortInBuffer && ti.port != kernel.PortOutBuffer {
			l.fail(p.Pos, "reference parameters are supported for buffer ports and arrays (T (&a)[N]), not %s", ty.String())
		}
		if ti.tile || ti.api != nil {
			l.fail(p.Pos, "a kernel parameter cannot have type %s", ty.Base)
		}
		v = l.b.At(kpos(p.Pos)).Param(p.Name, ti.t)
		v.Port, v.Array = ti.port, ti.n
		l.bind(p.Name, &sym{v: v})
	}
	v.Restrict = ty.Restrict
}

func product(d []int) int {
	n := 1
	for _, x := range d {
		n *= x
	}
	return n
}

// arrayDims evaluates the dimensions of an array; an empty first dimension takes the
// initializer's length.
func (l *lowerer) arrayDims(t *TypeName, dims []Expr, init Expr) []int {
	var out []int
	for i, d := range dims {
		if d == nil {
			il, ok := init.(*InitList)
			if i != 0 || !ok {
				l.fail(t.Pos, "an array dimension is missing")
			}
			out = append(out, len(il.Elems))
			continue
		}
		v, _, err := constEvalU(d, l.constEnv)
		if err != nil {
			l.fail(ExprPos(d), "an array dimension must be a compile-time constant")
		}
		if v <= 0 || v > 1<<20 {
			l.fail(ExprPos(d), "array dimension %d out of range", v)
		}
		out = append(out, int(v))
	}
	return out
}

// decl lowers a local declaration.
func (l *lowerer) decl(b *kernel.Builder, s *DeclStmt) {
	for _, d := range s.Names {
		l.declOne(b, s, d, kernel.LocalArray)
	}
}

func (l *lowerer) declOne(b *kernel.Builder, s *DeclStmt, d *Declarator, kind kernel.StorageKind) {
	ty := *s.Type
	ty.Ptr += d.Ptr
	dims := append(append([]Expr(nil), s.Type.Dims...), d.Dims...)
	if d.Ref || ty.Ref {
		l.fail(d.Pos, "reference variables are not supported (only buffer and array parameters are references)")
	}
	l.checkName(d.Pos, d.Name)
	if ty.Static && kind == kernel.LocalArray {
		l.note(d.Pos, "static", "static %s: its value persists between kernel calls; sumac runs one call, so it starts from its initializer", d.Name)
		kind = kernel.StaticArray
	}
	if ty.Base == "auto" {
		if d.Init == nil || len(dims) > 0 || ty.Ptr > 0 {
			l.fail(d.Pos, "auto %s needs an initializer (and no array or pointer declarator)", d.Name)
		}
		l.resetEffects()
		init := d.Init
		if p, ok := init.(*Paren); ok {
			if il, ok := p.X.(*InitList); ok && len(il.Elems) == 1 {
				init = il.Elems[0]
			}
		}
		if s := l.apiAutoObject(b, d, init); s != nil {
			l.bind(d.Name, s)
			return
		}
		o := l.expr(b, init)
		t := o.Type()
		if o.IsImm() {
			if o.IsFloat {
				t = kernel.ScalarOf(kernel.Float32)
			} else {
				t = kernel.ScalarOf(kernel.Int32)
			}
			if !l.modified[d.Name] {
				if o.IsFloat {
					l.bind(d.Name, &sym{kind: symFConst, fval: o.F})
				} else {
					l.bind(d.Name, &sym{kind: symConst, isConst: true, val: int64(int32(o.Imm))})
				}
				return
			}
		}
		if t.IsWindow() || t.IsStream() {
			l.fail(d.Pos, "auto %s cannot hold a %v", d.Name, t.Class)
		}
		v := l.newVar(b, d.Pos, d.Name, t)
		l.bind(d.Name, &sym{v: v})
		l.mov(b, v, o, ExprPos(init))
		return
	}
	ti := l.typeOf(&ty, ctxLocal)
	if ti.tile {
		l.bind(d.Name, &sym{kind: symTile})
		return
	}
	if ti.api != nil {
		l.bind(d.Name, l.apiObject(b, d, ti.api))
		return
	}
	if len(dims) > 0 {
		l.bind(d.Name, l.array(b, d, ti.t, &ty, dims, kind))
		return
	}
	t := ti.t
	if v := l.laneView(d, t); v != nil {
		l.bind(d.Name, &sym{kind: symView, v: v})
		return
	}
	if t.IsScalar() && t.Elem != kernel.Float32 && d.Init != nil && !l.modified[d.Name] {
		v, u, err := constEvalU(d.Init, l.constEnv)
		if err == nil {
			l.bind(d.Name, &sym{kind: symConst, isConst: true, val: convertConst(v, t), unsigned: u || !t.Elem.Signed()})
			return
		}
		if !isNotConst(err) {
			panic(bail{err.(*Error)})
		}
		if f, ok := l.constFloat(d.Init); ok && ty.Const {
			// an integer constant from a float expression: C converts by truncation
			l.bind(d.Name, &sym{kind: symConst, isConst: true, val: convertConst(int64(f), t), unsigned: !t.Elem.Signed()})
			return
		}
	}
	if t.IsScalar() && t.Elem == kernel.Float32 && d.Init != nil && !l.modified[d.Name] && ty.Const {
		if f, ok := l.constFloat(d.Init); ok {
			l.bind(d.Name, &sym{kind: symFConst, fval: f})
			return
		}
	}
	v := l.newVar(b, d.Pos, d.Name, t)
	l.bind(d.Name, &sym{v: v}) // in C a declarator's scope starts before its initializer
	if d.Init != nil {
		l.resetEffects()
		init := d.Init
		if p, ok := init.(*Paren); ok { // T x(a)
			if il, ok := p.X.(*InitList); ok && len(il.Elems) == 1 {
				init = il.Elems[0]
			}
		}
		if il, ok := init.(*InitList); ok {
			if len(il.Elems) == 0 && (t.IsVector() || t.IsAcc()) { // T x{} : zeros
				b.At(kpos(d.Pos)).Set(v, kernel.OpNull)
				return
			}
			if len(il.Elems) != 1 {
				l.fail(il.Pos, "a brace initializer with %d values for %s (%v) is not supported", len(il.Elems), d.Name, t)
			}
			init = il.Elems[0]
		}
		l.into(b, v, init)
	}
}

// array declares an array with storage of its own (the caller binds the returned symbol).
func (l *lowerer) array(b *kernel.Builder, d *Declarator, et kernel.Type, ty *TypeName, dimsE []Expr, kind kernel.StorageKind) *sym {
	if !et.IsScalar() && !et.IsVector() {
		l.fail(d.Pos, "arrays of %v are not supported", et)
	}
	dims := l.arrayDims(ty, dimsE, d.Init)
	n := product(dims)
	eb := et.Bytes()
	st := &kernel.Storage{Kind: kind, Bytes: n * eb, Const: ty.Const}
	var runtime []Expr // initializers that are not constants: stored after the declaration
	var runtimeAt []int
	if d.Init != nil {
		il, ok := d.Init.(*InitList)
		if !ok {
			l.fail(ExprPos(d.Init), "an array is initialized with a braced list")
		}
		flat := flattenInit(il)
		if len(flat) > n {
			l.fail(il.Pos, "%d initializers for an array of %d elements", len(flat), n)
		}
		st.Init = make([]byte, n*eb)
		for i, e := range flat {
			if !et.IsScalar() {
				l.fail(ExprPos(e), "only arrays of scalars can have initializers")
			}
			bits, ok := l.constBits(e, et.Elem)
			if !ok {
				runtime = append(runtime, e)
				runtimeAt = append(runtimeAt, i)
				continue
			}
			putBits(st.Init[i*eb:], bits, eb)
		}
		if allZero(st.Init) {
			st.Init = nil
		}
	}
	name := d.Name
	irName := name
	for k := 1; l.k.Lookup(irName) != nil; k++ {
		irName = name + "_" + itoa(k)
	}
	v := l.k.NewVar(irName, kernel.PtrTo(et.Elem, et.Lanes))
	v.Pos = kpos(d.Pos)
	v.Storage = st
	if kind == kernel.LocalArray && !ty.Const && d.Init != nil && l.loops > 0 {
		// C++ [dcl.init.aggr]: a local array declared in a loop body is initialized each
		// time its declaration runs (elements past the list are zero), not once when the
		// kernel starts: store every constant element here (the run-time ones follow)
		isRuntime := map[int]bool{}
		for _, i := range runtimeAt {
			isRuntime[i] = true
		}
		flat := flattenInit(d.Init.(*InitList))
		for i := 0; i < n; i++ {
			if isRuntime[i] {
				continue
			}
			var val kernel.Operand = kernel.Imm(0)
			if et.Elem == kernel.Float32 {
				val = kernel.FImm(0)
			}
			if i < len(flat) {
				val = l.expr(b, flat[i])
			}
			t := l.k.NewTemp(kernel.ScalarOf(et.Elem))
			b.At(kpos(d.Pos)).Mov(t, val)
			b.At(kpos(d.Pos)).Emit(kernel.OpStore, nil, kernel.V(v), kernel.Imm(int64(i)), kernel.V(t))
		}
	}
	for j, e := range runtime {
		val := l.expr(b, e)
		if val.Type() != kernel.ScalarOf(et.Elem) {
			t := l.k.NewTemp(kernel.ScalarOf(et.Elem))
			b.At(kpos(ExprPos(e))).Mov(t, val)
			val = kernel.V(t)
		}
		b.At(kpos(ExprPos(e))).Emit(kernel.OpStore, nil, kernel.V(v), kernel.Imm(int64(runtimeAt[j])), val)
	}
	return &sym{kind: symArray, v: v, dims: dims}
}

func itoa(n int) string { return strconv.Itoa(n) }

func flattenInit(il *InitList) []Expr {
	var out []Expr
	for _, e := range il.Elems {
		if sub, ok := e.(*InitList); ok {
			out = append(out, flattenInit(sub)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

func putBits(dst []byte, v int64, n int) {
	switch n {
	case 1:
		dst[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(dst, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(dst, uint32(v))
	}
}

// constBits evaluates a constant initializer converted to element type e (float: its bits).
func (l *lowerer) constBits(x Expr, e kernel.Elem) (int64, bool) {
	if v, _, err := constEvalU(x, l.constEnv); err == nil {
		if e == kernel.Float32 {
			return int64(math.Float32bits(float32(v))), true
		}
		return e.Wrap(v), true
	}
	if f, ok := l.constFloat(x); ok {
		if e == kernel.Float32 {
			return int64(math.Float32bits(f)), true
		}
		return e.Wrap(int64(f)), true
	}
	return 0, false
}

// globals binds the file-scope declarations: integer and float constants at once, the rest
// when the kernel first uses them (a header's unused tables cost nothing).
func (l *lowerer) globals(ds []*DeclStmt) {
	for _, s := range ds {
		for _, d := range s.Names {
			if l.constGlobal(s, d) {
				continue
			}
			l.bind(d.Name, &sym{kind: symLazy, decl: s, dc: d})
		}
	}
}

// constGlobal binds a const scalar with a constant initializer as a constant.
func (l *lowerer) constGlobal(s *DeclStmt, d *Declarator) bool {
	ty := s.Type
	if d.Init == nil || len(d.Dims) > 0 || len(ty.Dims) > 0 || d.Ptr > 0 || ty.Ptr > 0 || (!ty.Const && !l.isEnum(s)) {
		return false
	}
	switch ty.Base {
	case "float":
		if f, ok := l.constFloat(d.Init); ok {
			l.bind(d.Name, &sym{kind: symFConst, fval: f})
			return true
		}
		return false
	}
	kt, err := kernel.ParseType(ty.Base)
	if ty.Base == "size_t" {
		kt, err = kernel.ScalarOf(kernel.UInt32), nil
	}
	if err != nil || !kt.IsIntScalar() {
		return false
	}
	v, u, cerr := constEvalU(d.Init, l.constEnv)
	if cerr != nil {
		if f, ok := l.constFloat(d.Init); ok {
			v, u, cerr = int64(f), false, nil
		}
	}
	if cerr != nil {
		return false
	}
	l.bind(d.Name, &sym{kind: symConst, isConst: true, val: convertConst(v, kt), unsigned: u || !kt.Elem.Signed()})
	return true
}

func (l *lowerer) isEnum(s *DeclStmt) bool { return s.Type.Base == "int" && s.Type.Const }

// materialize lowers a file-scope variable on its first use, its initialization at kernel
// entry.
func (l *lowerer) materialize(scope int, name string, s *sym) *sym {
	d, ds := s.dc, s.decl
	saved := l.scopes
	l.scopes = l.scopes[:scope+1]
	defer func() { l.scopes = saved }()
	delete(l.scopes[scope], name)
	top := len(l.scopes) - 1
	_ = top
	kind := kernel.GlobalArray
	if ds.Type.Static {
		kind = kernel.GlobalArray
	}
	effects := l.effects
	l.declOne(l.entry, ds, d, kind)
	l.effects = effects
	ns := l.scopes[scope][name]
	if ns == nil {
		l.fail(d.Pos, "internal: %s not bound", name)
	}
	saved[scope][name] = ns
	return ns
}

// classMembers binds a kernel class's members: reference-to-array members become parameters
// (REGISTER_PARAMETER), scalar members initialized from constructor arguments become
// constants (or variables when the kernel changes them), array members get storage.
func (l *lowerer) classMembers(f *File) {
	c := f.Class
	classScope := l.scopes[1]
	// the constructor
	var ct *Ctor
	scalars := func(x *Ctor) int {
		n := 0
		for _, p := range x.Params {
			if !(p.Type.Ref && len(p.Type.Dims) > 0) {
				n++
			}
		}
		return n
	}
	for _, x := range c.Ctors {
		if scalars(x) == len(f.CtorArgs) {
			ct = x
			break
		}
	}
	if ct == nil && len(c.Ctors) == 1 {
		ct = c.Ctors[0] // the error names what is missing or extra
	}
	if ct == nil && len(c.Ctors) > 0 {
		l.fail(c.Pos, "no constructor of %s takes %d arguments besides the arrays the graph passes", c.Name, len(f.CtorArgs))
	}
	if ct == nil && len(f.CtorArgs) > 0 {
		l.fail(ExprPos(f.CtorArgs[0]), "%s has no constructor, but %d constructor arguments were given", c.Name, len(f.CtorArgs))
	}
	// constructor parameters: scalars take the given arguments; reference-to-array parameters
	// are the arrays the graph passes (regions with inputs)
	type cparam struct {
		p     *Param
		array bool
		val   *sym
		text  string
	}
	var cps []*cparam
	ctorEnv := map[string]*cparam{}
	if ct != nil {
		i := 0
		for _, p := range ct.Params {
			cp := &cparam{p: p}
			switch {
			case p.Type.Ref && len(p.Type.Dims) > 0:
				cp.array = true
			default:
				if i >= len(f.CtorArgs) {
					l.fail(p.Pos, "%s's constructor needs a value for %s: --instance '%s(...)'", c.Name, p.Name, c.Name)
				}
				a := f.CtorArgs[i]
				ti := l.typeOf(p.Type, ctxLocal)
				if !ti.t.IsScalar() {
					l.fail(p.Pos, "constructor parameter %s has type %v; sumac passes scalars and arrays", p.Name, ti.t)
				}
				cp.val = l.constSym(a, ti.t)
				cp.text = exprText(a)
				if cp.val == nil {
					l.fail(ExprPos(a), "constructor argument %d must be a constant", i+1)
				}
				i++
			}
			cps = append(cps, cp)
			ctorEnv[p.Name] = cp
		}
		if i < len(f.CtorArgs) {
			l.fail(ExprPos(f.CtorArgs[i]), "%s's constructor takes %d arguments besides the arrays the graph passes, %d given", c.Name, i, len(f.CtorArgs))
		}
	}
	inits := map[string]*MemberInit{}
	if ct != nil {
		for _, mi := range ct.Inits {
			inits[mi.Name] = mi
		}
	}
	// ctor parameters are visible while member initializers are evaluated
	l.push()
	for name, cp := range ctorEnv {
		if cp.val != nil {
			l.bind(name, cp.val)
		}
	}
	memberParam := map[string]int{}
	memberType := map[string]kernel.Type{} // the scalar members
	for _, fld := range c.Fields {
		s := fld.Decl
		for _, d := range s.Names {
			ty := *s.Type
			ty.Ptr += d.Ptr
			mi := inits[d.Name]
			switch {
			case (ty.Ref || d.Ref) && len(d.Dims) > 0:
				// TT (&weights)[W]: bound to a constructor array parameter
				if mi == nil || len(mi.Args) != 1 {
					l.fail(d.Pos, "reference member %s must be bound in the constructor's initializer list", d.Name)
				}
				id, ok := stripParen(mi.Args[0]).(*Ident)
				cp := (*cparam)(nil)
				if ok {
					cp = ctorEnv[id.Name]
				}
				if cp == nil || !cp.array {
					l.fail(mi.Pos, "reference member %s must be bound to a constructor array parameter", d.Name)
				}
				dims := l.arrayDims(&ty, d.Dims, nil)
				et := l.typeOf(&TypeName{Pos: ty.Pos, Base: ty.Base, Args: ty.Args}, ctxLocal).t
				v := l.k.AddParam(d.Name, kernel.PtrTo(et.Elem, et.Lanes))
				v.Pos, v.Port, v.Array, v.Member = kpos(d.Pos), kernel.PortArrayRef, product(dims), true
				memberParam[cp.p.Name] = len(l.k.Params) - 1
				classScope[d.Name] = &sym{kind: symArray, v: v, dims: dims}
			case ty.Ref || d.Ref:
				l.fail(d.Pos, "reference member %s: sumac supports references to arrays (T (&a)[N])", d.Name)
			case len(d.Dims) > 0 || len(ty.Dims) > 0:
				if ty.Static && !ty.Const {
					l.fail(d.Pos, "static array members are not supported")
				}
				if mi != nil {
					l.fail(mi.Pos, "array member %s cannot be initialized in the initializer list", d.Name)
				}
				et := l.typeOf(&TypeName{Pos: ty.Pos, Base: ty.Base, Args: ty.Args, Ptr: ty.Ptr}, ctxLocal).t
				kind := kernel.MemberArray
				if ty.Static {
					kind = kernel.GlobalArray
				}
				classScope[d.Name] = l.array(l.entry, d, et, &ty, append(append([]Expr(nil), ty.Dims...), d.Dims...), kind)
			default:
				ti := l.typeOf(&ty, ctxField)
				if ti.tile || ti.api != nil {
					l.fail(d.Pos, "member %s of type %s is not supported", d.Name, ty.Base)
				}
				if ti.t.IsScalar() {
					memberType[d.Name] = ti.t
				}
				var init Expr
				switch {
				case mi != nil:
					if len(mi.Args) != 1 {
						l.fail(mi.Pos, "member %s is initialized with %d values", d.Name, len(mi.Args))
					}
					init = mi.Args[0]
				case d.Init != nil:
					init = d.Init
				}
				if ti.t.IsScalar() && init != nil && !l.modified[d.Name] {
					if s := l.constSym(init, ti.t); s != nil {
						classScope[d.Name] = s
						continue
					}
				}
				v := l.newVar(l.entry, d.Pos, d.Name, ti.t)
				classScope[d.Name] = &sym{v: v}
				if init != nil {
					l.resetEffects()
					l.into(l.entry, v, init)
				}
			}
		}
	}
	if ct != nil && ct.Body != nil {
		l.ctorBody(c, ct.Body, classScope, memberType)
	}
	l.pop()
	// the constructor arguments as the harness passes them
	for _, cp := range cps {
		if cp.array {
			idx, ok := memberParam[cp.p.Name]
			if !ok {
				// an array parameter no member keeps: still an argument
				et := l.typeOf(&TypeName{Pos: cp.p.Type.Pos, Base: cp.p.Type.Base, Args: cp.p.Type.Args}, ctxLocal).t
				dims := l.arrayDims(cp.p.Type, cp.p.Type.Dims, nil)
				name := cp.p.Name
				for k := 1; l.k.Lookup(name) != nil; k++ {
					name = cp.p.Name + "_" + itoa(k)
				}
				v := l.k.AddParam(name, kernel.PtrTo(et.Elem, et.Lanes))
				v.Pos, v.Port, v.Array, v.Member = kpos(cp.p.Pos), kernel.PortArrayRef, product(dims), true
				idx = len(l.k.Params) - 1
			}
			l.ctor = append(l.ctor, kernel.CtorArg{Param: idx})
			continue
		}
		l.ctor = append(l.ctor, kernel.CtorArg{Param: -1, Value: cp.text})
	}
}

// constSym evaluates a constant for a scalar of type t (nil: not a constant).
func (l *lowerer) constSym(e Expr, t kernel.Type) *sym {
	if t.Elem == kernel.Float32 {
		// a float constant, or an integer one converted (float x = 0;)
		if v, _, ok := l.constNum(e); ok {
			return &sym{kind: symFConst, fval: float32(v)}
		}
		return nil
	}
	if v, u, err := constEvalU(e, l.constEnv); err == nil {
		return &sym{kind: symConst, isConst: true, val: convertConst(v, t), unsigned: u || !t.Elem.Signed()}
	}
	if f, ok := l.constFloat(e); ok {
		return &sym{kind: symConst, isConst: true, val: convertConst(int64(f), t), unsigned: !t.Elem.Signed()}
	}
	return nil
}

// exprText writes a constant expression back as C++ (for the emulation harness).
func exprText(e Expr) string {
	switch x := e.(type) {
	case *IntLit:
		return x.Text
	case *FloatLit:
		return x.Text
	case *Ident:
		return x.Name
	case *Paren:
		return "(" + exprText(x.X) + ")"
	case *Unary:
		return x.Op + exprText(x.X)
	case *Binary:
		return exprText(x.X) + " " + x.Op + " " + exprText(x.Y)
	}
	return "0"
}

// constFloat evaluates a floating-point constant expression (float literals, float
// constants, integer constants converted, + - * /, casts, std::numeric_limits<float>).
func (l *lowerer) constFloat(e Expr) (float32, bool) {
	v, isF, ok := l.constNum(e)
	if !ok || !isF {
		return 0, false
	}
	return float32(v), true
}

// constNum evaluates e as a number: its value and whether it has type float.
func (l *lowerer) constNum(e Expr) (float64, bool, bool) {
	switch x := e.(type) {
	case *FloatLit:
		return float64(x.Value), true, true
	case *Paren:
		return l.constNum(x.X)
	case *Ident:
		if s := l.lookup(x.Name); s != nil && s.kind == symFConst {
			return float64(s.fval), true, true
		}
	case *Unary:
		v, f, ok := l.constNum(x.X)
		if ok && f {
			switch x.Op {
			case "-":
				return float64(-float32(v)), true, true
			case "+":
				return v, true, true
			}
		}
	case *Binary:
		a, fa, oka := l.constNum(x.X)
		c, fc, okc := l.constNum(x.Y)
		if oka && okc && (fa || fc) {
			p, q := float32(a), float32(c)
			switch x.Op {
			case "+":
				return float64(p + q), true, true
			case "-":
				return float64(p - q), true, true
			case "*":
				return float64(p * q), true, true
			case "/":
				return float64(p / q), true, true
			}
		}
	case *Cast:
		v, f, ok := l.constNum(x.X)
		if ok && x.Type.Ptr == 0 {
			switch x.Type.Base {
			case "float":
				return float64(float32(v)), true, true
			}
			if f {
				return float64(int64(v)), false, true
			}
		}
	case *Call:
		if v, ok := l.numericLimits(x); ok {
			return v, true, true
		}
	}
	if v, u, err := constEvalU(e, l.constEnv); err == nil {
		if u {
			return float64(uint32(v)), false, true
		}
		return float64(v), false, true
	}
	return 0, false, false
}

// numericLimits evaluates std::numeric_limits<float>::lowest(), max(), min(), infinity(),
// epsilon() (C++ [numeric.limits]), and std::numeric_limits<double>::infinity(), the one
// double limit a float holds exactly (onnx2versal's `float c =
// -std::numeric_limits<double>::infinity();`): sumac has no double values, so the constant
// is only used as a float.
func (l *lowerer) numericLimits(c *Call) (float64, bool) {
	rest, ok := strings.CutPrefix(c.Fun, "std::numeric_limits<>::")
	if !ok || len(c.TArgs) != 1 || c.TArgs[0].Type == nil || len(c.Args) != 0 || c.TArgs[0].Type.Ptr != 0 {
		return 0, false
	}
	switch c.TArgs[0].Type.Base {
	case "float":
	case "double":
		if rest == "infinity" {
			return math.Inf(1), true
		}
		l.fail(c.Pos, "std::numeric_limits<double>::%s(): sumac has no double values (only infinity() is taken, as a float)", rest)
	default:
		return 0, false
	}
	switch rest {
	case "lowest":
		return -math.MaxFloat32, true
	case "max":
		return math.MaxFloat32, true
	case "min":
		return math.SmallestNonzeroFloat32 * (1 << 23), true // FLT_MIN, the smallest normal
	case "infinity":
		return math.Inf(1), true
	case "epsilon":
		return float64(math.Nextafter32(1, 2) - 1), true
	}
	return 0, false
}

// laneView recognizes `T *p = (T *)&v;` with v a vector variable of T lanes, a pointer the
// kernel never changes (onnx2versal's `float *acc_ptr = (float *) &acc1;`): p[i] then reads
// lane i of v's current value (ext_elem) and p[i] = x writes it (upd_elem), as the pointer
// into the register's memory image would. Any other use of p is an error naming it.
func (l *lowerer) laneView(d *Declarator, t kernel.Type) *kernel.Var {
	if d.Init == nil || !t.IsPointer() || l.modified[d.Name] {
		return nil
	}
	e := stripParen(d.Init)
	for {
		c, ok := e.(*Cast)
		if !ok {
			break
		}
		e = stripParen(c.X)
	}
	u, ok := e.(*Unary)
	if !ok || u.Op != "&" {
		return nil
	}
	id, ok := stripParen(u.X).(*Ident)
	if !ok {
		return nil
	}
	s := l.lookup(id.Name)
	if s == nil || s.kind != symVar || !s.v.Type.IsVector() || s.v.Type.Elem != t.Pointee().Elem || !t.Pointee().IsScalar() {
		return nil
	}
	return s.v
}
