package harness

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/cfront"
)

// The pipeline fuzzer: random kernels written from the front end's grammar and random
// mutations of the testdata kernels go through parse -> interpreter -> timing backend ->
// cycle simulator -> emitter (harness.Run without the g++ check, then cemit.Emit). Each input
// must either run or fail with a one-line error; a panic, an empty error or an error of
// several lines fails the test with the input that caused it. An input that runs on both the
// interpreter and the cycle simulator must leave the same final contents in every output
// (windows, buffers, streams, cascades): a difference fails the test too.
//
//	go test ./target/aie1/harness -run TestPipelineNeverPanics            (the seeded sweep)
//	SUMAC_FUZZ_N=20000 go test ./target/aie1/harness -run TestPipelineNeverPanics
//	go test ./target/aie1/harness -run XXX -fuzz FuzzPipeline             (Go's fuzzer)
//
// testdata/fuzz/FuzzPipeline holds the corpus: the inputs that once failed (each with the
// failure it reproduced in a comment) and the seeds.

// pipelineSteps bounds each run (interpreter instructions and simulated cycles), so that a
// mutated loop bound cannot make the sweep hang.
const pipelineSteps = 2_000_000

// pipeline runs one source through everything `sumac sim` does but g++. It returns the
// stage an error came from ("" when the kernel ran) and the error.
func pipeline(src, instance string) (stage string, err error) {
	defer func() {
		if r := recover(); r != nil {
			stage, err = "panic", fmt.Errorf("%v\n%s", r, debug.Stack())
		}
	}()
	k, err := cfront.ParseKernelConfig("fuzz.cc", []byte(src), &cfront.Config{Instance: instance})
	if err != nil {
		return "parse", err
	}
	if _, err := cemit.Emit(k); err != nil {
		return "emit", err
	}
	rep, err := Run(k, Source{File: "fuzz.cc", Text: []byte(src)}, Options{Seed: 1, SkipEmulation: "fuzz", Bundles: true, MaxSteps: pipelineSteps})
	if err != nil {
		return "run", err
	}
	if rep.TimingError != "" {
		return "timing", fmt.Errorf("%s", rep.TimingError)
	}
	// Both executions ran: every output (windows, buffers, streams, cascades) must agree.
	if len(rep.Mismatches) > 0 {
		return "mismatch", fmt.Errorf("%s", strings.Join(rep.Mismatches, "; "))
	}
	return "", nil
}

// checkPipeline fails t when src panics or fails with an error that is not one line.
func checkPipeline(t *testing.T, src, instance string) string {
	t.Helper()
	stage, err := pipeline(src, instance)
	switch {
	case stage == "panic":
		t.Fatalf("panic on:\n%s\n--- instance %q\n%v", src, instance, err)
	case stage == "mismatch":
		t.Errorf("the cycle simulator and the interpreter disagree on:\n%s\n--- instance %q\n%v", src, instance, err)
	case err != nil && strings.TrimSpace(err.Error()) == "":
		t.Fatalf("empty %s error on:\n%s", stage, src)
	case err != nil && strings.Contains(strings.TrimSpace(err.Error()), "\n"):
		t.Fatalf("%s error of several lines on:\n%s\n---\n%v", stage, src, err)
	}
	return stage
}

// seedKernels are the testdata kernels with the instance each needs.
func seedKernels(t testing.TB) []struct{ src, instance string } {
	var out []struct{ src, instance string }
	add := func(glob string) {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			inst := ""
			for _, c := range adfKernels {
				if c.file == filepath.Base(p) {
					inst = c.instance
				}
			}
			if strings.Contains(string(b), "#include \"") {
				continue // needs its header next to it; mutations of it are parse errors only
			}
			out = append(out, struct{ src, instance string }{string(b), inst})
		}
	}
	add("../testdata/*.cc")
	add("../testdata/adf/*.cc")
	return out
}

func TestPipelineNeverPanics(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 100
	}
	if s := os.Getenv("SUMAC_FUZZ_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seeds := seedKernels(t)
	rng := rand.New(rand.NewSource(17))
	stages := map[string]int{}
	for i := 0; i < n; i++ {
		var src, inst string
		if i%2 == 0 {
			src, inst = randomKernel(rng)
		} else {
			s := seeds[rng.Intn(len(seeds))]
			src, inst = mutate(rng, s.src), s.instance
		}
		stages[checkPipeline(t, src, inst)]++
	}
	t.Logf("%d inputs: ran %d, parse errors %d, run errors %d, timing errors %d, emit errors %d, mismatches %d",
		n, stages[""], stages["parse"], stages["run"], stages["timing"], stages["emit"], stages["mismatch"])
	if stages[""] == 0 || stages["timing"]+stages[""] < n/20 {
		t.Errorf("too few inputs reach the cycle simulator: %v", stages)
	}
}

// FuzzPipeline is the same check under Go's fuzzer.
func FuzzPipeline(f *testing.F) {
	for _, s := range seedKernels(f) {
		f.Add(s.src, s.instance)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		src, inst := randomKernel(rng)
		f.Add(src, inst)
	}
	f.Fuzz(func(t *testing.T, src, instance string) {
		checkPipeline(t, src, instance)
	})
}

// ---- mutations of a source text ----

var tokenRE = regexp.MustCompile(`0[xX][0-9a-fA-F]+|[0-9]+|[A-Za-z_][A-Za-z0-9_]*|<<=|>>=|<<|>>|->|\+\+|--|&&|\|\||::|[-+*/%&|^!=<>]=|\s+|.`)

var interesting = []string{"0", "1", "-1", "2", "3", "4", "7", "8", "15", "16", "17", "31", "32", "33", "63", "64",
	"127", "128", "255", "256", "1023", "1024", "32767", "65535", "65536", "0x7fffffff", "0xffffffff", "0x80000000",
	"0x76543210", "0x3120", "100000"}

var dictionary = []string{"if", "else", "for", "int", "unsigned", "float", "int16", "int8", "v16int16", "v8float",
	"v16acc48", "v8acc80", "static", "const", "*", "&", "[", "]", "(", ")", "{", "}", ";", ",", "<", ">",
	"chess_prepare_for_pipelining", "chess_flatten_loop", "chess_loop_range(2,)", "chess_unroll_loop(2)",
	"window_readincr_v16", "window_writeincr", "readincr", "writeincr", "srs", "ups", "mac16", "mul16",
	"fpmac", "fpshuffle", "concat", "upd_elem", "ext_elem", "null_v16int16()", "aie::vector<int16,16>", "aie::add",
	"aie::mul", "aie::mmul<4,4,4,int16,int16>", "i", "0", "?", ":", "=", "+=", "++", "template", "class",
	"#define", "#if", "#endif", "\n", "return", "while", "input_stream<int32>", "output_window<int16>"}

// mutate applies one to four token edits to src.
func mutate(rng *rand.Rand, src string) string {
	toks := tokenRE.FindAllString(src, -1)
	for m := 1 + rng.Intn(4); m > 0 && len(toks) > 0; m-- {
		i := rng.Intn(len(toks))
		switch rng.Intn(6) {
		case 0: // delete
			toks = append(toks[:i], toks[i+1:]...)
		case 1: // duplicate
			toks = append(toks[:i+1], toks[i:]...)
		case 2: // a number becomes an interesting one
			for j := 0; j < 50; j++ {
				k := (i + j) % len(toks)
				if toks[k] != "" && toks[k][0] >= '0' && toks[k][0] <= '9' {
					toks[k] = interesting[rng.Intn(len(interesting))]
					break
				}
			}
		case 3: // swap two tokens
			j := rng.Intn(len(toks))
			toks[i], toks[j] = toks[j], toks[i]
		case 4: // insert a dictionary word
			w := " " + dictionary[rng.Intn(len(dictionary))] + " "
			toks = append(toks[:i], append([]string{w}, toks[i:]...)...)
		case 5: // an identifier becomes another of the file
			var ids []int
			for k, t := range toks {
				if t != "" && (t[0] == '_' || t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z') {
					ids = append(ids, k)
				}
			}
			if len(ids) > 1 {
				toks[ids[rng.Intn(len(ids))]] = toks[ids[rng.Intn(len(ids))]]
			}
		}
	}
	return strings.Join(toks, "")
}

// ---- random kernels from the front end's grammar ----

// gen writes one random kernel: ports of several kinds, nested counted loops with pragmas,
// if/else on compile-time and run-time values, local and static arrays, intrinsics of every
// family, the AI Engine API, window, stream and cascade accesses. It keeps to types that fit
// most of the time, so that many kernels get past the front end; the rest are front-end
// errors, which are checked too.
type gen struct {
	rng   *rand.Rand
	sb    strings.Builder
	vars  map[string][]string // type -> variables in scope
	n     int
	depth int
	// ports
	inW, outW, inS, outS, cin, cout string
	elem                            string
}

func (g *gen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *gen) fresh(ty string) string {
	g.n++
	name := fmt.Sprintf("v%d", g.n)
	g.vars[ty] = append(g.vars[ty], name)
	return name
}

func (g *gen) some(ty string) (string, bool) {
	vs := g.vars[ty]
	if len(vs) == 0 {
		return "", false
	}
	return vs[g.rng.Intn(len(vs))], true
}

func (g *gen) line(format string, args ...any) {
	g.sb.WriteString(strings.Repeat("    ", g.depth+1))
	fmt.Fprintf(&g.sb, format, args...)
	g.sb.WriteString("\n")
}

func randomKernel(rng *rand.Rand) (src, instance string) {
	g := &gen{rng: rng, vars: map[string][]string{}}
	g.elem = g.pick("int16", "int16", "int32", "float", "int8")
	var ps []string
	spell := func(dir, kind, elem string) string {
		if rng.Intn(2) == 0 {
			return fmt.Sprintf("%s_%s<%s> *", dir, kind, elem)
		}
		return fmt.Sprintf("%s_%s_%s *", dir, kind, elem)
	}
	g.inW, g.outW = "in", "out"
	ps = append(ps, spell("input", "window", g.elem)+" in", spell("output", "window", g.elem)+" out")
	if rng.Intn(3) == 0 {
		g.inS = "sin"
		ps = append(ps, spell("input", "stream", g.pick("int32", "int16", "float"))+" sin")
	}
	if rng.Intn(3) == 0 {
		g.outS = "sout"
		ps = append(ps, spell("output", "stream", g.pick("int32", "int16", "float"))+" sout")
	}
	if g.elem == "int16" && rng.Intn(5) == 0 {
		g.cin = "cin"
		ps = append(ps, "input_stream_acc48 * cin")
	}
	if g.elem == "int16" && rng.Intn(5) == 0 {
		g.cout = "cout"
		ps = append(ps, "output_stream_acc48 * cout")
	}
	g.sb.WriteString("#include <adf.h>\n#include <aie_api/aie.hpp>\n")
	if rng.Intn(3) == 0 {
		fmt.Fprintf(&g.sb, "alignas(32) static const int16 tab[16] = {%d, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};\n", rng.Intn(9))
		g.vars["tab"] = []string{"tab"}
	}
	tmpl := rng.Intn(4) == 0
	if tmpl {
		g.sb.WriteString("template <int K, typename T>\n")
	}
	fmt.Fprintf(&g.sb, "void kern(%s) {\n", strings.Join(ps, ", "))
	if tmpl {
		g.vars["int"] = append(g.vars["int"], "K")
	}
	for i := 0; i < 2+rng.Intn(6); i++ {
		g.stmt()
	}
	g.sb.WriteString("}\n")
	if tmpl && rng.Intn(4) != 0 {
		// the instance comes from --instance; without it the template is an error
		return g.sb.String(), fmt.Sprintf("kern<%d, int16>", 1+rng.Intn(4))
	}
	return g.sb.String(), ""
}

// vecType returns a vector type of the kernel's element.
func (g *gen) vecType() (string, int) {
	switch g.elem {
	case "int16":
		return g.pick("v16int16", "v8int16", "v32int16"), 0
	case "int32":
		return g.pick("v8int32", "v4int32", "v16int32"), 0
	case "float":
		return g.pick("v8float", "v4float", "v16float"), 0
	}
	return g.pick("v32int8", "v16int8", "v64int8"), 0
}

func lanesOf(ty string) string {
	return strings.TrimLeft(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(ty[1:], "int16"), "int32"), "float"), "int8"), "uint8"), "v")
}

func (g *gen) stmt() {
	r := g.rng
	switch r.Intn(16) {
	case 0, 1: // window read
		ty, _ := g.vecType()
		v := g.fresh(ty)
		g.line("%s %s = window_readincr_v%s(%s);", ty, v, lanesOf(ty), g.inW)
	case 2: // window write
		ty, _ := g.vecType()
		if v, ok := g.some(ty); ok {
			g.line("window_writeincr(%s, %s);", g.outW, v)
		} else {
			g.line("window_writeincr(%s, null_%s());", g.outW, ty)
		}
	case 3: // a loop
		if g.depth > 2 {
			return
		}
		n := g.pick("2", "4", "8", "3", "16")
		prag := g.pick("", " chess_prepare_for_pipelining", " chess_flatten_loop", " chess_loop_range(2, )", " chess_prepare_for_pipelining chess_loop_range(4, 4)", " [[chess::min_loop_count(2)]]", " chess_unroll_loop(2)")
		if strings.Contains(prag, "[[") {
			g.line("%s", strings.TrimSpace(prag))
			prag = ""
		}
		g.line("for (int i%d = 0; i%d < %s; i%d++)%s {", g.depth, g.depth, n, g.depth, prag)
		saved := cloneVars(g.vars)
		g.vars["int"] = append(g.vars["int"], fmt.Sprintf("i%d", g.depth))
		g.depth++
		for i := 0; i < 1+r.Intn(4); i++ {
			g.stmt()
		}
		g.vars = saved
		g.depth--
		g.line("}")
	case 4: // if on a run-time or compile-time value
		if g.depth > 3 {
			return
		}
		c := g.pick("1", "0", "sizeof(int) == 4")
		if v, ok := g.some("int"); ok && r.Intn(2) == 0 {
			c = fmt.Sprintf("(%s & 1) == 0", v)
		}
		g.line("if (%s) {", c)
		g.depth++
		saved := cloneVars(g.vars)
		g.stmt()
		g.vars = saved
		g.depth--
		if r.Intn(2) == 0 {
			g.line("} else {")
			g.depth++
			g.stmt()
			g.vars = saved
			g.depth--
		}
		g.line("}")
	case 5: // scalar arithmetic
		a := g.pick("3", "-5", "0x10")
		if v, ok := g.some("int"); ok {
			a = v
		}
		v := g.fresh("int")
		g.line("int %s = %s %s %s;", v, a, g.pick("+", "-", "*", "<<", ">>", "&", "^", "/", "%"), g.pick("1", "2", "7"))
		if r.Intn(3) == 0 {
			w := g.fresh("int")
			g.line("int %s = %s > 2 ? %s : -%s;", w, v, v, v)
		}
	case 6: // integer MACs / float MACs
		g.mac()
	case 7: // ext/upd elem, shifts of vectors
		ty, _ := g.vecType()
		if v, ok := g.some(ty); ok {
			e := g.fresh(g.scalarOf(ty))
			g.line("%s %s = ext_elem(%s, %d);", g.scalarOf(ty), e, v, r.Intn(4))
			g.line("%s = upd_elem(%s, %d, %s);", v, v, r.Intn(4), e)
		}
	case 8: // streams
		if g.inS != "" {
			v := g.fresh("int")
			g.line("int %s = readincr(%s);", v, g.inS)
			if r.Intn(2) == 0 {
				w := g.fresh("v4int32")
				g.line("v4int32 %s = readincr_v4(%s);", w, g.inS)
			}
		}
		if g.outS != "" {
			if v, ok := g.some("int"); ok {
				g.line("writeincr(%s, %s);", g.outS, v)
			} else if v, ok := g.some("v4int32"); ok {
				g.line("writeincr_v4(%s, %s);", g.outS, v)
			}
		}
	case 9: // cascades
		if g.cin != "" {
			a := g.fresh("v8acc48")
			g.line("v8acc48 %s = readincr_v8(%s);", a, g.cin)
		}
		if g.cout != "" {
			if a, ok := g.some("v8acc48"); ok {
				g.line("writeincr_v8(%s, %s);", g.cout, a)
			}
		}
	case 10: // the AI Engine API
		g.api()
	case 11: // a local array
		a := fmt.Sprintf("arr%d", g.n)
		g.n++
		g.line("%s %s[8] = {1, 2, 3};", g.pick("int", "int16", "int32"), a)
		g.line("%s[%d] = %s[%d] + 1;", a, r.Intn(8), a, r.Intn(8))
		v := g.fresh("int")
		g.line("int %s = %s[%d];", v, a, r.Intn(8))
	case 12: // window increments
		g.line("window_%s(%s, %s);", g.pick("incr", "decr", "incr_v16", "decr_v8"), g.pick(g.inW, g.outW), g.pick("1", "2", "16"))
	case 13: // scheduling directives
		g.line("%s", g.pick("chess_separator_scheduler();", "chess_memory_fence();", "chess_report(1);"))
	case 14: // cycle counter
		v := g.fresh("int")
		g.line("int %s = get_cycles();", v)
	case 15: // scalar window access
		v := g.fresh(g.elem)
		g.line("%s %s = window_readincr(%s);", g.elem, v, g.inW)
		g.line("window_writeincr(%s, (%s) (%s * 2));", g.outW, g.elem, v)
	}
}

func cloneVars(m map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range m {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func (g *gen) scalarOf(ty string) string {
	for _, e := range []string{"int16", "int32", "float", "uint8", "int8"} {
		if strings.HasSuffix(ty, e) {
			return e
		}
	}
	return "int"
}

func (g *gen) mac() {
	r := g.rng
	switch g.elem {
	case "int16":
		x := g.fresh("v32int16")
		g.line("v32int16 %s = concat(window_readincr_v16(%s), null_v16int16());", x, g.inW)
		z := g.fresh("v16int16")
		g.line("v16int16 %s = window_readincr_v16(%s);", z, g.inW)
		a := g.fresh("v16acc48")
		g.line("v16acc48 %s = mul16(%s, %d, 0x%08x, 0x%08x, 0x3120, %s, %d, 0x76543210, 0xfedcba98, 1);", a, x, 2*r.Intn(4), r.Uint32()&0x77777777, r.Uint32()&0x77777777, z, r.Intn(8))
		if r.Intn(2) == 0 {
			g.line("%s = mac16(%s, %s, 0, 0x03020100, 0x07060504, 0x3210, %s, 0, 0x33323130, 0x37363534, 1);", a, a, x, z)
		}
		y := g.fresh("v16int16")
		g.line("v16int16 %s = srs(%s, %d);", y, a, r.Intn(16))
		g.line("window_writeincr(%s, %s);", g.outW, y)
	case "int32":
		x := g.fresh("v16int32")
		g.line("v16int32 %s = concat(window_readincr_v8(%s), null_v8int32());", x, g.inW)
		z := g.fresh("v8int32")
		g.line("v8int32 %s = window_readincr_v8(%s);", z, g.inW)
		a := g.fresh("v8acc80")
		g.line("v8acc80 %s = lmul8(%s, %d, 0x76543210, %s, 0, 0x76543210);", a, x, r.Intn(8), z)
		y := g.fresh("v8int32")
		g.line("v8int32 %s = srs(%s, %d);", y, a, r.Intn(20))
		g.line("window_writeincr(%s, %s);", g.outW, y)
	case "float":
		x := g.fresh("v8float")
		g.line("v8float %s = window_readincr_v8(%s);", x, g.inW)
		z := g.fresh("v8float")
		g.line("v8float %s = window_readincr_v8(%s);", z, g.inW)
		a := g.fresh("v8float")
		g.line("v8float %s = null_v8float();", a)
		for i := 0; i < 1+r.Intn(4); i++ {
			g.line("%s = %s(%s, %s, %d, 0x76543210, %s, %d, 0);", a, g.pick("fpmac", "fpmsc"), a, x, r.Intn(2), z, r.Intn(8))
		}
		if r.Intn(2) == 0 {
			g.line("%s = fpmax(%s, %s, 0, 0x76543210);", a, a, z)
		}
		g.line("window_writeincr(%s, %s);", g.outW, a)
	default:
		x := g.fresh("v64int8")
		g.line("v64int8 %s = concat(window_readincr_v32(%s), null_v32int8());", x, g.inW)
		z := g.fresh("v32int8")
		g.line("v32int8 %s = window_readincr_v32(%s);", z, g.inW)
		a := g.fresh("v16acc48")
		g.line("v16acc48 %s = mul16(%s, 0, 0x11101110, 16, 0x3120, %s, 0, 0x44440000, 2, 0x1010);", a, x, z)
		y := g.fresh("v16int8")
		g.line("v16int8 %s = bsrs(%s, %d);", y, a, r.Intn(10))
		g.line("window_writeincr(%s, %s);", g.outW, y)
	}
}

func (g *gen) api() {
	r := g.rng
	switch g.elem {
	case "int16":
		switch r.Intn(3) {
		case 0:
			a, b := g.fresh("api16"), g.fresh("api16")
			g.line("aie::vector<int16, 16> %s = window_readincr_v<16>(%s);", a, g.inW)
			g.line("aie::vector<int16, 16> %s = aie::%s(%s, %s);", b, g.pick("add", "sub", "max", "min"), a, g.pick(a, "(int16) 3"))
			acc := fmt.Sprintf("acc%d", g.n)
			g.line("aie::accum<acc48, 16> %s = aie::mul(%s, %s);", acc, a, b)
			g.line("window_writeincr(%s, %s.to_vector<int16>(%d));", g.outW, acc, r.Intn(8))
		case 1:
			m := fmt.Sprintf("mm%d", g.n)
			g.n++
			g.line("aie::mmul<4, 4, 4, int16, int16> %s;", m)
			g.line("%s.mul(window_readincr_v<16>(%s), window_readincr_v<16>(%s));", m, g.inW, g.inW)
			g.line("window_writeincr(%s, %s.to_vector<int16>(%d));", g.outW, m, r.Intn(8))
		default:
			v := g.fresh("api16")
			g.line("aie::vector<int16, 16> %s = aie::broadcast<int16, 16>(%d);", v, r.Intn(100))
			g.line("window_writeincr(%s, aie::add(%s, window_readincr_v<16>(%s)));", g.outW, v, g.inW)
		}
	case "float":
		a := g.fresh("apif")
		g.line("aie::vector<float, 8> %s = window_readincr_v<8>(%s);", a, g.inW)
		acc := fmt.Sprintf("acc%d", g.n)
		g.line("aie::accum<accfloat, 8> %s = aie::mul(%s, %s);", acc, a, g.pick(a, "2.0f"))
		g.line("%s = aie::mac(%s, %s, %s);", acc, acc, a, a)
		g.line("window_writeincr(%s, %s.to_vector<float>());", g.outW, acc)
	default:
		g.line("window_writeincr(%s, aie::zeros<%s, %d>());", g.outW, g.elem, map[string]int{"int32": 8, "int8": 32}[g.elem])
	}
}
