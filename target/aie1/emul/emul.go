// Package emul runs AIE1 kernels on the host through a C++ emulation of the intrinsics
// (aie1_emul.h, written for sumac): it writes a harness main for a kernel, compiles kernel and
// harness with g++ (caching the binary by content hash in the user cache directory), feeds it
// the kernel's windows, buffers and scalars, and reads back the final memory, the MAC count,
// the narrowing statistics and the accumulator values before every narrowing.
//
// It is the independent second implementation that `sumac sim` checks sumac's Go interpreter
// against, bit for bit.
package emul

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Header is the text of aie1_emul.h.
//
//go:embed aie1_emul.h
var Header string

//go:embed aie1_emul_harness.h
var harnessHeader string

// Flags are the g++ flags every build uses (see the header's comment for why).
var Flags = []string{"-std=c++17", "-O1", "-fno-strict-aliasing", "-ffp-contract=off", "-w"}

// Compiler returns the C++ compiler sumac uses: $CXX if set, else g++ on the PATH.
func Compiler() (string, error) {
	if c := os.Getenv("CXX"); c != "" {
		return exec.LookPath(c)
	}
	return exec.LookPath("g++")
}

// ErrNoCompiler reports that no C++ compiler is installed.
var ErrNoCompiler = errors.New("no C++ compiler (g++) found: install g++ or set CXX")

// Program is a compiled kernel harness.
type Program struct {
	Path   string // the executable
	Kernel *kernel.Kernel
	Cached bool // the binary came from the cache
}

// Source is a kernel's C++ text and the -D options it is compiled with.
type Source struct {
	Name    string // file name, for messages
	Text    []byte
	Defines []string
	// Dir is the directory the kernel's own #include "..." files are found in; Includes are
	// those files (their contents are part of the cache key).
	Dir      string
	Includes []string
	// IncludeDirs are searched after Dir (sumac sim -I)
	IncludeDirs []string
}

var buildMu sync.Mutex

// Build compiles src with a harness for k (the kernel's IR, which gives the function name and
// parameter types; it must come from the same source). The binary is cached under
// CacheDir()/emul/HASH, HASH covering the compiler's version, flags, headers, harness, source
// and defines.
func Build(src Source, k *kernel.Kernel) (*Program, error) {
	cxx, err := Compiler()
	if err != nil {
		return nil, ErrNoCompiler
	}
	main, err := harnessMain(k)
	if err != nil {
		return nil, err
	}
	ver, err := compilerVersion(cxx)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, part := range []string{ver, strings.Join(Flags, " "), Header, harnessHeader, main, string(src.Text), strings.Join(src.Defines, "\x00"), src.Dir, strings.Join(src.IncludeDirs, "\x00")} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	for _, inc := range src.Includes {
		b, err := os.ReadFile(inc)
		if err != nil {
			return nil, fmt.Errorf("emulation: reading %s: %v", inc, err)
		}
		fmt.Fprintf(h, "%d:%s%d:%s", len(inc), inc, len(b), b)
	}
	key := hex.EncodeToString(h.Sum(nil))[:32]
	root := CacheDir()
	if err := os.MkdirAll(root, 0o755); err != nil { // an unwritable cache: fall back to temp
		root = filepath.Join(os.TempDir(), "sumac-cache")
	}
	dir := filepath.Join(root, "emul", key)
	exe := filepath.Join(dir, "kernel")
	if _, err := os.Stat(exe); err == nil {
		return &Program{Path: exe, Kernel: k, Cached: true}, nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	files := map[string]string{
		"aie1_emul.h":         Header,
		"aie1_emul_harness.h": harnessHeader,
		"harness.cc":          main,
		"kernel.cc":           string(src.Text),
		// kernels include the AMD headers; here they are the emulation
		"adf.h":               "#include \"aie1_emul.h\"\n",
		"aie_api/aie.hpp":     "#include \"../aie1_emul.h\"\n",
		"aie_api/aie_adf.hpp": "#include \"../aie1_emul.h\"\n",
		"aie_api/utils.hpp":   "#include \"../aie1_emul.h\"\n",
	}
	for name, text := range files {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	args := append([]string{}, Flags...)
	args = append(args, "-I", tmp)
	for _, d := range append([]string{src.Dir}, src.IncludeDirs...) {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			args = append(args, "-I", abs)
		}
	}
	for _, d := range src.Defines {
		args = append(args, "-D"+d)
	}
	args = append(args, "-o", filepath.Join(tmp, "kernel"), filepath.Join(tmp, "harness.cc"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cxx, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.ReplaceAll(out.String(), tmp+string(filepath.Separator), "")
		if len(msg) > 4000 {
			msg = msg[:4000] + "..."
		}
		return nil, fmt.Errorf("g++ could not compile %s with the emulation header: %v\n%s", src.Name, err, msg)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(exe); statErr != nil { // a concurrent build that won is fine
			return nil, err
		}
	}
	return &Program{Path: exe, Kernel: k}, nil
}

// CacheDir is sumac's cache directory: $SUMAC_CACHE, else the user cache directory's
// "sumac", else a directory under the system temp directory.
func CacheDir() string {
	if d := os.Getenv("SUMAC_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "sumac")
	}
	return filepath.Join(os.TempDir(), "sumac-cache")
}

var versions sync.Map

func compilerVersion(cxx string) (string, error) {
	if v, ok := versions.Load(cxx); ok {
		return v.(string), nil
	}
	out, err := exec.Command(cxx, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", cxx, err)
	}
	v := cxx + "\n" + string(out)
	versions.Store(cxx, v)
	return v, nil
}

// harnessMain writes the harness: one object per parameter, a call of the kernel, the output.
func harnessMain(k *kernel.Kernel) (string, error) {
	if k.Name == "main" {
		return "", fmt.Errorf("a kernel named main cannot be run by the emulation harness (it defines main)")
	}
	var b strings.Builder
	b.WriteString("// Code generated by sumac (target/aie1/emul). DO NOT EDIT.\n")
	b.WriteString("#include \"aie1_emul.h\"\n#include \"aie1_emul_harness.h\"\n#include \"kernel.cc\"\n\n")
	b.WriteString("int main(int argc, char **argv) {\n    aie_emul::Harness h(argc, argv);\n")
	var call []string
	var after []string
	argOf := map[int]string{}
	for i, p := range k.Params {
		t := p.Type
		name := fmt.Sprintf("p%d", i)
		arg := name
		switch t.Class {
		case kernel.Window:
			dir := "false"
			if t.Out {
				dir = "true"
			}
			fmt.Fprintf(&b, "    %s %s = h.window<%s, %s>(%d, %q);\n", t, name, elemC(t.Elem), dir, i, p.Name)
			arg = "&" + name
		case kernel.Stream:
			dir := "false"
			if t.Out {
				dir = "true"
				after = append(after, fmt.Sprintf("    h.stream_out<%s>(%d, %s);\n", elemC(t.Elem), i, name))
			}
			fmt.Fprintf(&b, "    aie_stream<%s, %s> %s = h.stream<%s, %s>(%d, %q);\n", elemC(t.Elem), dir, name, elemC(t.Elem), dir, i, p.Name)
			if !t.IsCascade() { // the port numbers of getf_wss / put_wms
				fmt.Fprintf(&b, "    aie_emul::register_stream(%s);\n", name)
			}
			arg = "&" + name
		case kernel.Pointer:
			pt := t.Pointee().String()
			switch p.Port {
			case kernel.PortArrayRef:
				fmt.Fprintf(&b, "    %s (&%s)[%d] = *(%s (*)[%d])h.pointer<%s>(%d);\n", pt, name, p.Array, pt, p.Array, pt, i)
			case kernel.PortInBuffer, kernel.PortOutBuffer:
				fmt.Fprintf(&b, "    adf::aie_buffer_port<%s> %s = h.buffer<%s>(%d);\n", pt, name, pt, i)
			default:
				fmt.Fprintf(&b, "    %s *%s = h.pointer<%s>(%d);\n", pt, name, pt, i)
			}
		case kernel.Scalar:
			if t.Elem == kernel.Float32 { // a float scalar arrives as its bits (as in interp.Config.Scalars)
				fmt.Fprintf(&b, "    float %s;\n    { uint32_t bits = (uint32_t)h.scalar(%d); std::memcpy(&%s, &bits, 4); }\n", name, i, name)
			} else {
				fmt.Fprintf(&b, "    %s %s = (%s)h.scalar(%d);\n", t, name, t, i)
			}
		default:
			return "", fmt.Errorf("kernel %s: parameter %s of type %v cannot be passed by the harness", k.Name, p.Name, t)
		}
		argOf[i] = arg
		if !p.Member {
			call = append(call, arg)
		}
	}
	switch e := k.Entry; {
	case e != nil && e.Method != "":
		var ctor []string
		for _, a := range e.Ctor {
			if a.Param >= 0 {
				ctor = append(ctor, argOf[a.Param])
			} else {
				ctor = append(ctor, a.Value)
			}
		}
		args := ""
		if len(ctor) > 0 {
			args = "(" + strings.Join(ctor, ", ") + ")"
		}
		fmt.Fprintf(&b, "    static %s kernel_object%s;\n    kernel_object.%s(%s);\n", e.Name, args, e.Method, strings.Join(call, ", "))
	case e != nil:
		fmt.Fprintf(&b, "    %s(%s);\n", e.Name, strings.Join(call, ", "))
	default:
		fmt.Fprintf(&b, "    %s(%s);\n", k.Name, strings.Join(call, ", "))
	}
	b.WriteString(strings.Join(after, ""))
	b.WriteString("    h.finish();\n    return 0;\n}\n")
	return b.String(), nil
}

func elemC(e kernel.Elem) string {
	if e == kernel.Float32 {
		return "float"
	}
	return e.String()
}

// Modes are the shift-round-saturate modes of a run (sumac's num package) and the values its
// reads of the cycle counter return.
type Modes struct {
	Round      num.Round
	Sat        num.Sat
	CycleReads []int64
}

// Result is what a run of the emulation produced.
type Result struct {
	Mem       [][]byte // final contents of each parameter's memory (scalars: 8 bytes)
	MACs      int64
	Narrowed  int64 // accumulator lanes narrowed by srs/lsrs/bsrs/ubsrs
	Saturated int64 // of those, lanes that saturation (or wrapping) changed
	// Trace holds, for every narrowing in execution order, the accumulator's lanes.
	Trace [][]num.Acc
}

// Run executes the program. mem[i] is parameter i's memory: the window's or buffer's bytes,
// a stream's input bytes, or for a scalar its value as 8 little-endian bytes.
func (p *Program) Run(mem [][]byte, m Modes) (*Result, error) {
	if len(mem) != len(p.Kernel.Params) {
		return nil, fmt.Errorf("emul: %d memory images for %d parameters", len(mem), len(p.Kernel.Params))
	}
	dir, err := os.MkdirTemp("", "sumac-emul-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var in bytes.Buffer
	in.WriteString("SUMACIN2")
	binary.Write(&in, binary.LittleEndian, uint32(len(mem)))
	for i, b := range mem {
		kind := byte(0)
		switch t := p.Kernel.Params[i].Type; {
		case t.IsPointer():
			kind = 1
		case t.IsScalar():
			kind = 2
		case t.IsStream() && !t.Out:
			kind = 3
		case t.IsStream():
			kind = 4
		}
		in.WriteByte(kind)
		binary.Write(&in, binary.LittleEndian, uint64(len(b)))
		in.Write(b)
	}
	binary.Write(&in, binary.LittleEndian, uint32(len(m.CycleReads)))
	for _, c := range m.CycleReads {
		binary.Write(&in, binary.LittleEndian, c)
	}
	inPath, outPath := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(inPath, in.Bytes(), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Path, inPath, outPath, fmt.Sprint(int(m.Round)), fmt.Sprint(int(m.Sat)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("emulated kernel %s failed: %s", p.Kernel.Name, msg)
	}
	out, err := os.ReadFile(outPath)
	if err != nil {
		return nil, err
	}
	return parseOutput(out, len(mem))
}

func parseOutput(b []byte, nparams int) (*Result, error) {
	r := bytes.NewReader(b)
	bad := func(what string) (*Result, error) {
		return nil, fmt.Errorf("emul: malformed harness output (%s)", what)
	}
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "SUMACOUT" {
		return bad("magic")
	}
	var n uint32
	if binary.Read(r, binary.LittleEndian, &n) != nil || int(n) != nparams {
		return bad("parameter count")
	}
	res := &Result{}
	for i := 0; i < int(n); i++ {
		var l uint64
		if binary.Read(r, binary.LittleEndian, &l) != nil || l > uint64(r.Len()) {
			return bad("memory length")
		}
		m := make([]byte, l)
		io.ReadFull(r, m)
		res.Mem = append(res.Mem, m)
	}
	var stats [4]uint64
	if binary.Read(r, binary.LittleEndian, &stats) != nil {
		return bad("statistics")
	}
	res.MACs, res.Narrowed, res.Saturated = int64(stats[0]), int64(stats[1]), int64(stats[2])
	for i := uint64(0); i < stats[3]; i++ {
		var lanes uint32
		if binary.Read(r, binary.LittleEndian, &lanes) != nil || lanes > 1024 {
			return bad("trace")
		}
		rec := make([]num.Acc, lanes)
		for j := range rec {
			var lo uint64
			var hi int64
			if binary.Read(r, binary.LittleEndian, &lo) != nil || binary.Read(r, binary.LittleEndian, &hi) != nil {
				return bad("trace lanes")
			}
			rec[j] = num.Acc{Hi: hi, Lo: lo}
		}
		res.Trace = append(res.Trace, rec)
	}
	return res, nil
}

// SortTrace orders narrowing records canonically (lexicographically by lane values). C++
// leaves the order in which a call's arguments are evaluated unspecified (g++ often goes
// right to left), so concat(ubsrs(a, 0), ubsrs(b, 0)) narrows b first under g++ and a first
// in the interpreter: the two traces are compared as multisets, i.e. after sorting both.
func SortTrace(t [][]num.Acc) {
	sort.SliceStable(t, func(i, j int) bool { return cmpRec(t[i], t[j]) < 0 })
}

func cmpRec(a, b []num.Acc) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := a[i].Cmp(b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}
