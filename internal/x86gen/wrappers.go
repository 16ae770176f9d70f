package x86gen

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// The exported per-type functions of cpu/kernels (F32Tiles, I16StridedRowsTiles,
// U8S8IndirectTiles, ...) are generated from the catalog as well, the way gonum generates
// sgemm.go from dgemm.go: one template per kernel form, instantiated for every element type
// the catalog has kernels of. They check their arguments and call the dispatchers through
// cpu/kernels' generic helpers (packedTiles, stridedTiles, stridedRows, windowTiles,
// indirectTiles), which stay hand-written. Adding a kernel form or type to the catalog adds
// its wrappers; a shape the templates cannot wrap is an error, not a silent gap.

// family is one element type's kernels of one instruction set in a catalog.
type family struct {
	e        Elem
	set      string  // the kernels' instruction set (Kernel.Set)
	mr, nr   int     // the register block: the packed kernel's
	packed   *Kernel // the packed kernel
	strided  []*Kernel
	window   []*Kernel
	indirect []*Kernel // by rows-1; nil entries are missing kernels
}

// name is the wrappers' prefix: the type's tag and the set's suffix (F32, F32Z, I16ZV).
func (f *family) name() string { return elems[f.e].tag + setSuffix[f.set] }

// shapeName prefixes the family's shape constants: the type's shape prefix and the set's
// suffix (F32MR, F32ZNR, U8ZVNR).
func (f *family) shapeName() string { return elems[f.e].shape + setSuffix[f.set] }

// families groups ks by element type and instruction set (in Elem order, then set order).
// Tagged kernels (tuning variants) get no wrappers. Every family needs a packed kernel,
// which fixes its MR x NR; its other kernels must have its NR and at most its MR rows.
func families(ks []Kernel) ([]*family, error) {
	type key struct {
		e   Elem
		set string
	}
	byKey := map[key]*family{}
	for i := range ks {
		k := &ks[i]
		if k.Tag != "" || k.form() != "P" {
			continue
		}
		kk := key{k.Elem, k.Set()}
		if byKey[kk] != nil {
			return nil, fmt.Errorf("x86gen: two packed %s %s kernels (%s, %s): the wrappers need one", elems[k.Elem].tag, k.Set(), byKey[kk].packed.Symbol(), k.Symbol())
		}
		byKey[kk] = &family{e: k.Elem, set: k.Set(), mr: k.MR, nr: k.NR, packed: k,
			strided: make([]*Kernel, k.MR), window: make([]*Kernel, k.MR), indirect: make([]*Kernel, k.MR)}
	}
	for i := range ks {
		k := &ks[i]
		if k.Tag != "" || k.form() == "P" || k.Depthwise {
			continue
		}
		f := byKey[key{k.Elem, k.Set()}]
		if f == nil {
			return nil, fmt.Errorf("x86gen: %s has no packed %s kernel to fix its shape", k.Symbol(), k.Set())
		}
		if k.NR != f.nr || k.MR > f.mr {
			return nil, fmt.Errorf("x86gen: %s: not a %d-column kernel of at most %d rows", k.Symbol(), f.nr, f.mr)
		}
		var set []*Kernel
		switch k.form() {
		case "S":
			set = f.strided
		case "W":
			set = f.window
		case "I":
			set = f.indirect
		}
		set[k.MR-1] = k
	}
	for _, f := range byKey {
		for _, s := range []struct {
			form string
			set  []*Kernel
			full bool // the full tile alone may be wrapped
		}{{"strided", f.strided, true}, {"window", f.window, true}, {"indirect", f.indirect, false}} {
			n := 0
			for _, k := range s.set {
				if k != nil {
					n++
				}
			}
			if n > 0 && n < len(s.set) && !(s.full && n == 1 && s.set[f.mr-1] != nil) {
				return nil, fmt.Errorf("x86gen: %s %s kernels: %d of the %d row counts; the wrappers need all, or (strided, window) the %d-row one alone", f.name(), s.form, n, f.mr, f.mr)
			}
		}
	}
	var out []*family
	for _, f := range byKey {
		out = append(out, f)
	}
	order := map[string]int{}
	for i, s := range sets {
		order[s.name] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].e != out[j].e {
			return out[i].e < out[j].e
		}
		return order[out[i].set] < order[out[j].set]
	})
	shapes := map[string]*family{}
	for _, f := range out {
		if g := shapes[f.shapeName()]; g != nil && (g.mr != f.mr || g.nr != f.nr) {
			return nil, fmt.Errorf("x86gen: %s and %s share shape constants but not their shape", g.name(), f.name())
		}
		shapes[f.shapeName()] = f
	}
	return out, nil
}

// all reports whether set holds a kernel for every row count.
func all(set []*Kernel) bool {
	for _, k := range set {
		if k == nil {
			return false
		}
	}
	return true
}

// funcType is the Go type of k's dispatcher.
func (k Kernel) funcType() string {
	args, _ := k.args()
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = a.typ
	}
	return "func(" + strings.Join(types, ", ") + ")"
}

// table declares a dispatcher array indexed by rows-1.
func table(name, mr string, set []*Kernel) string {
	names := make([]string, len(set))
	for i, k := range set {
		names[i] = k.Dispatcher()
	}
	return fmt.Sprintf("var %s = [%s]%s{%s}\n\n", name, mr, set[0].funcType(), strings.Join(names, ", "))
}

// typeNotes add to a type's single-tile packed wrapper's documentation.
var typeNotes = map[Elem]string{
	U8S8: "\n// Exact only when every adjacent pair sum fits in int16 (see the package documentation).",
	S8U8: "\n// The unsigned operand is B here, so the exactness condition applies to B.",
}

const packedTmpl = `// {T} updates one {mr}x{nr} {C} tile from {A} packed A ({mr}*kg{xg} values) and {B}
// packed B ({nr}*kg{xg} values){groups}, on the {isa} kernel where the CPU runs it
// (its Go fallback computes the same elsewhere).{note}
func {T}(kg int, a []{A}, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	{T}Tiles(1, kg, a, b, c, ldc, alpha, beta)
}

// {T}Tiles updates tiles tiles stacked down C (tile t is rows t*{MR}.. of C) from tiles
// consecutive packed A micro-panels ({MR}*kg{xG} values each) and one packed B micro-panel:
// the inner loop of a blocked GEMM in one call.
func {T}Tiles(tiles, kg int, a []{A}, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	packedTiles({MR}, {NR}, {G}, {kP}, tiles, kg, a, b, c, ldc, alpha, beta, 1)
}

`

const stridedTmpl = `// {T}Strided updates one {mr}x{nr} {C} tile from A read in place (row i at a[i*lda:], {k}{xg}
// values) and packed B ({nr}*{k}{xg} values).
func {T}Strided({k} int, a []{A}, lda int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	{T}StridedTiles(1, {k}, a, lda, b, c, ldc, alpha, beta)
}

// {T}StridedTiles runs {T}Strided on tiles tiles stacked down A and C: tile t reads A
// rows from a[t*{MR}*lda:] and updates C rows from c[t*{MR}*ldc:] (one call for a run of
// output pixels whose rows are lda apart, as a direct convolution's are).
func {T}StridedTiles(tiles, {k} int, a []{A}, lda int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	stridedTiles({MR}, {NR}, {G}, {kS}, tiles, {k}, a, lda, b, c, ldc, alpha, beta, 1)
}

`

const rowsTmpl = `// {T}StridedRows is {T}Strided for a tile of rows rows (1 to {MR}): row i of A at
// a[i*lda:], of C at c[i*ldc:]; nothing past row rows-1 is read or written.
func {T}StridedRows(rows, {k} int, a []{A}, lda int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	{T}StridedRowsTiles(rows, 1, {k}, a, lda, b, c, ldc, alpha, beta)
}

// {T}StridedRowsTiles runs {T}StridedRows on tiles tiles of rows rows stacked down A and C:
// tile t reads A rows from a[t*rows*lda:] and updates C rows from c[t*rows*ldc:] (one call
// for the short tiles that end a convolution's pixels).
func {T}StridedRowsTiles(rows, tiles, {k} int, a []{A}, lda int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	stridedRows({MR}, {NR}, {G}, {t}Rows[:], rows, tiles, {k}, a, lda, b, c, ldc, alpha, beta, 1)
}

`

const windowTmpl = `// {T}WindowTiles is {T}StridedTiles over segs segments of {k}{xg} values: C = alpha*A*B +
// beta*C where row i of tile t reads a[(t*{MR}+i)*lda + s*segStride:] for segment s and B
// holds segs*{k} packed groups.
func {T}WindowTiles(tiles, {k}, segs, segStride int, a []{A}, lda int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	windowTiles({MR}, {NR}, {G}, {kW}, {T}StridedTiles, tiles, {k}, segs, segStride, a, lda, b, c, ldc, alpha, beta, 1)
}

`

const windowRowsTmpl = `// {T}WindowRowsTiles is {T}WindowTiles for tiles of rows rows (1 to {MR}), stacked down A
// and C as in {T}StridedRowsTiles (the end of an output row).
func {T}WindowRowsTiles(rows, tiles, {k}, segs, segStride int, a []{A}, lda int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	checkRows(rows, {MR})
	windowTiles(rows, {NR}, {G}, {t}WindowRows[rows-1], func(tiles, {k} int, a []{A}, lda int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
		{T}StridedRowsTiles(rows, tiles, {k}, a, lda, b, c, ldc, alpha, beta)
	}, tiles, {k}, segs, segStride, a, lda, b, c, ldc, alpha, beta, 1)
}

`

const indirectTmpl = `// {T}IndirectTiles updates tiles tiles of rows rows (1 to {MR}) stacked down C (tile t from
// c[t*rows*ldc:]) with {k}{xg} values of A per row, read through the offset table offs (row
// i of tile t at a[o] for o = offs[t*rows+i] >= 0, at alt[^o] for o < 0), and packed B:
// C = alpha*A*B + beta*C.
func {T}IndirectTiles(rows, tiles, {k} int, a, alt []{A}, offs []int, b []{B}, c []{C}, ldc int, alpha, beta {C}) {
	indirectTiles({MR}, {NR}, {G}, {t}Indirect[:], rows, tiles, {k}, a, alt, offs, b, c, ldc, alpha, beta, 1)
}

`

// wrappers returns the Go source of cpu/kernels' exported per-type functions and shape
// constants for the kernels of ks.
func wrappers(pkg string, ks []Kernel) ([]byte, error) {
	fams, err := families(ks)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "package %s\n\n", pkg)

	// shape constants, once per shape prefix
	b.WriteString("// Register-block shapes of the kernels (rows x columns of the C tile) and their k groups:\n" +
		"// the AVX2 kernels' without a suffix, the AVX-VNNI ones' with V, the AVX-512 ones' with Z,\n" +
		"// the AVX-512 VNNI ones' with ZV.\nconst (\n")
	seen := map[string]bool{}
	var groups []string
	for _, f := range fams {
		e := elems[f.e]
		if seen[f.shapeName()] {
			continue
		}
		seen[f.shapeName()] = true
		fmt.Fprintf(&b, "\t%sMR, %sNR = %d, %d\n", f.shapeName(), f.shapeName(), f.mr, f.nr)
		if e.group > 1 && !seen[e.shape+"/group"] {
			seen[e.shape+"/group"] = true
			groups = append(groups, fmt.Sprintf("\t%sKGroup = %d\n", e.shape, e.group))
		}
	}
	b.WriteString(strings.Join(groups, "") + ")\n\n")

	for _, f := range fams {
		e := elems[f.e]
		g, k, xg, xG, groups := "1", "k", "", "", ""
		if e.group > 1 {
			g, k = e.shape+"KGroup", "kg"
			xg, xG = fmt.Sprintf("*%d", e.group), "*"+g
			groups = fmt.Sprintf(", kg groups of %d consecutive k", e.group)
		}
		note := typeNotes[f.e]
		if f.packed.VNNI && (f.e == U8S8 || f.e == S8U8) {
			note = "\n// VPDPBUSD sums the products in int32 without saturation: exact for every input."
		}
		_, isa := setFlag(f.set)
		r := []string{
			"{T}", f.name(), "{t}", strings.ToLower(f.name()), "{A}", e.goA, "{B}", e.goB, "{C}", e.goC,
			"{MR}", f.shapeName() + "MR", "{NR}", f.shapeName() + "NR", "{G}", g, "{k}", k,
			"{mr}", fmt.Sprint(f.mr), "{nr}", fmt.Sprint(f.nr), "{g}", fmt.Sprint(e.group),
			"{note}", note, "{xg}", xg, "{xG}", xG, "{groups}", groups, "{kP}", f.packed.Dispatcher(),
			"{isa}", isa,
		}
		full := func(set []*Kernel) *Kernel { return set[f.mr-1] }
		if s := full(f.strided); s != nil {
			r = append(r, "{kS}", s.Dispatcher())
		}
		if w := full(f.window); w != nil {
			r = append(r, "{kW}", w.Dispatcher())
		}
		rep := strings.NewReplacer(r...)
		mrConst := f.shapeName() + "MR"
		b.WriteString(rep.Replace(packedTmpl))
		if full(f.strided) != nil {
			b.WriteString(rep.Replace(stridedTmpl))
		}
		if all(f.strided) {
			b.WriteString(table(strings.ToLower(f.name())+"Rows", mrConst, f.strided))
			b.WriteString(rep.Replace(rowsTmpl))
		}
		if full(f.window) != nil {
			if full(f.strided) == nil {
				return nil, fmt.Errorf("x86gen: %s window kernels need the strided one", f.name())
			}
			b.WriteString(rep.Replace(windowTmpl))
		}
		if all(f.window) && all(f.strided) {
			b.WriteString(table(strings.ToLower(f.name())+"WindowRows", mrConst, f.window))
			b.WriteString(rep.Replace(windowRowsTmpl))
		}
		if all(f.indirect) {
			b.WriteString(table(strings.ToLower(f.name())+"Indirect", mrConst, f.indirect))
			b.WriteString(rep.Replace(indirectTmpl))
		}
	}
	dw, err := depthwiseWrappers(ks)
	if err != nil {
		return nil, err
	}
	b.WriteString(dw)
	return b.Bytes(), nil
}

// depthwiseWrappers writes, for each type and set with depthwise kernels, a table of them
// and the exported function that runs it (cpu/kernels' depthwise): every set needs MR 1, 2
// and 4 for one and two vectors.
func depthwiseWrappers(ks []Kernel) (string, error) {
	type key struct {
		e   Elem
		set string
	}
	tables := map[key]*[2][3]*Kernel{}
	var order []key
	for i := range ks {
		k := &ks[i]
		if !k.Depthwise || k.Tag != "" {
			continue
		}
		kk := key{k.Elem, k.Set()}
		if tables[kk] == nil {
			tables[kk] = &[2][3]*Kernel{}
			order = append(order, kk)
		}
		tables[kk][k.dwVecs()-1][map[int]int{1: 0, 2: 1, 4: 2}[k.MR]] = k
	}
	var b strings.Builder
	for _, kk := range order {
		t := tables[kk]
		e := elems[kk.e]
		name := e.tag + setSuffix[kk.set]
		var rows []string
		var k0 *Kernel
		for v := range t {
			var names []string
			for m := range t[v] {
				if t[v][m] == nil {
					return "", fmt.Errorf("x86gen: %s depthwise kernels: MR 1, 2 and 4 of one and two vectors needed", name)
				}
				names = append(names, t[v][m].Dispatcher())
				k0 = t[v][m]
			}
			rows = append(rows, "{"+strings.Join(names, ", ")+"}")
		}
		_, isa := setFlag(kk.set)
		fmt.Fprintf(&b, "// %sDepthwiseLanes is the channel granularity of %sDepthwise.\nconst %sDepthwiseLanes = %d\n\n", name, name, name, k0.dwLanes())
		fmt.Fprintf(&b, "var %sDepthwiseKernels = dwTable[%s, %s, %s]{%d, [2][3]func(int, int, *%s, *int, int, *%s, *%s, int, int){%s}}\n\n",
			strings.ToLower(name), e.goA, k0.dwWeight(), e.goC, k0.dwLanes(), e.goA, k0.dwWeight(), e.goC, strings.Join(rows, ", "))
		fmt.Fprintf(&b, `// %sDepthwise computes px output pixels x ch channels (ch a multiple of %sDepthwiseLanes)
// channel by channel on the %s kernels (their Go fallbacks elsewhere):
// out[x*ostep + c] = sum over taps t of in[x*xstep + taps[2t] + c] * w[taps[2t+1] + c].
func %sDepthwise(px, ch int, in []%s, taps []int, w []%s, out []%s, xstep, ostep int) {
	depthwise(&%sDepthwiseKernels, px, ch, in, taps, w, out, xstep, ostep)
}

`, name, name, isa, name, e.goA, k0.dwWeight(), e.goC, strings.ToLower(name))
	}
	return b.String(), nil
}
