package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/emul"
	"github.com/sumacdev/sumac/target/aie1/gemm"
	"github.com/sumacdev/sumac/target/aie1/harness"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

// listFlag collects a repeated flag (-D, --window, --input, --scalar, --plio).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

const simUsage = `Usage: sumac sim KERNEL.cc [-D NAME=VALUE ...] [-I DIR ...] [--instance KERNEL] [--window NAME=BYTES ...]
                 [--input NAME=FILE ...] [--scalar NAME=VALUE ...] [--plio PORT=WIDTH[@MHZ] ...]
                 [--seed S] [--round MODE] [--sat MODE]
                 [--no-emul] [--emit bundles|cpp|ir] [--json]
       sumac sim --target aie2p|aieml FILE.s ...   (an XDNA tile's listing; see --target aie2p -h)

Runs an AIE1 kernel written in C++ with intrinsics (the subset of docs/aie-sim.md) on sumac's
interpreter, and checks it bit for bit against the same source compiled with g++ and sumac's
emulation header (target/aie1/emul/aie1_emul.h): every window and buffer after the run, and every
accumulator before it is narrowed (srs, lsrs, bsrs, ubsrs). Where the timing backend can
compile the kernel, it also reports cycles, MACs per cycle, spills and stalls.

  -D NAME=VALUE      define a macro (as for a C compiler; -DNAME=VALUE also works)
  -I DIR             also look for the kernel's #include files in DIR
  --instance KERNEL  the kernel to run when the file defines several, or a template instance
                     with its constructor arguments, as the ADF graph creates it:
                     'fir', 'fir<16, 4>', 'MacFloat<float, 28, 128, 1>', 'Scale<int16>(3)'
                     (array arguments of a kernel class's constructor are inputs, left out)
  --window NAME=BYTES  size of a window or buffer; by default the bytes the kernel uses
                     (measured by a first run), placed by target/aie1/interp's policy (one 32 KB memory
                     module each when there are at most four, else packed)
  --input NAME=FILE  initial contents of a window or buffer (raw little-endian bytes); others are
                     random: integers uniform in the widest range (halving until fewer than 1%
                     of narrowed lanes saturate), floats uniform in [-1, 1]; output windows zero
  --scalar NAME=VALUE  value of a scalar kernel parameter
  --plio PORT=WIDTH[@MHZ]  the stream parameter PORT (or all of them: all) is connected straight
                     to a PLIO of WIDTH bits (32, 64, 128) at MHZ on the PL side (default a
                     quarter of the AI Engine clock, UG1079): its words move at WIDTH*MHZ/AIE clock
                     bits a cycle (timing only); by default a stream moves a word a cycle
  --seed S           seed of the random inputs (default 1)
  --round MODE, --sat MODE  shift-round-saturate modes (default floor, saturate; see package num)
  --no-emul          skip the g++ emulation check (the report says so; ok then covers the
                     interpreter run only)
  --emit bundles     print the VLIW schedule of the timing backend (with the report)
  --emit cpp, --emit ir  print the kernel as sumac parsed it (C++ from target/aie1/cemit, or the IR) and
                     stop without running it
  --json             write one JSON object to stdout

Registers read before they are written start at zero and are listed. A read or write outside a
window or buffer stops the run with an error naming the access. Exit status: 0 ok, 1 a check
failed (the report lists the mismatches), 2 bad input.

Example:
  sumac sim target/aie1/testdata/lei_gemm_16x4.cc -D Kc=256 --json
`

func init() {
	c := &command{
		name:    "sim",
		summary: "run an AIE1 intrinsics kernel on the interpreter, check it against g++ emulation, report MACs and cycles",
		usage:   simUsage,
	}
	c.run = func(env *cmdEnv, args []string) error {
		if _, ok := einsumTarget(args); ok {
			return runXDNA(env, "sim", args) // an XDNA tile's listing (sumac sim --target aie2p -h)
		}
		return runSim(env, c, args)
	}
	register(c)
}

// checkSource is the exact-reference check of kernels sumac wrote: convolutions (Vyasa) and
// contractions (gemm, einsum).
func checkSource(src []byte, seed uint64) harness.Reference {
	if r := vyasa.CheckSource(src, seed); r != (harness.Reference{}) {
		return r
	}
	return gemm.CheckSource(src, seed)
}

// splitD turns -DNAME=VALUE into -D NAME=VALUE and -IDIR into -I DIR for the flag package.
func splitD(args []string) []string {
	var out []string
	for _, a := range args {
		if (strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-I")) && len(a) > 2 && !strings.HasPrefix(a, "--") {
			out = append(out, a[:2], a[2:])
			continue
		}
		out = append(out, a)
	}
	return out
}

func runSim(env *cmdEnv, c *command, args []string) error {
	fs := newFlags(env, c)
	var defines, windows, inputs, scalars, includes listFlag
	fs.Var(&defines, "D", "define a macro")
	fs.Var(&includes, "I", "include directory")
	instance := fs.String("instance", "", "kernel instance")
	fs.Var(&windows, "window", "NAME=BYTES")
	fs.Var(&inputs, "input", "NAME=FILE")
	fs.Var(&scalars, "scalar", "NAME=VALUE")
	var plios listFlag
	fs.Var(&plios, "plio", "PORT=WIDTH[@MHZ]")
	seed := fs.Uint64("seed", 1, "random seed")
	roundName := fs.String("round", "floor", "rounding mode")
	satName := fs.String("sat", "saturate", "saturation mode")
	noEmul := fs.Bool("no-emul", false, "skip the g++ check")
	emit := fs.String("emit", "", "bundles")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseFlags(env, c, fs, splitD(args))
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("want one KERNEL.cc (see 'sumac sim -h')")
	}
	switch *emit {
	case "", "bundles", "cpp", "ir":
	default:
		return usageErr("--emit %q: want bundles, cpp or ir", *emit)
	}
	opt := harness.Options{Seed: *seed, Bundles: *emit == "bundles", Reference: checkSource}
	if opt.Round, err = num.ParseRound(*roundName); err != nil {
		return err
	}
	if opt.Sat, err = num.ParseSat(*satName); err != nil {
		return err
	}
	if *noEmul {
		opt.SkipEmulation = "--no-emul"
	}
	file := pos[0]
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, d := range defines {
		if n, _, _ := strings.Cut(d, "="); n == "" {
			return usageErr("-D %q: want NAME or NAME=VALUE", d)
		}
	}
	k, err := cfront.ParseKernelConfig(file, src, &cfront.Config{Defines: defines, Instance: *instance, IncludeDirs: includes})
	if err != nil {
		return err
	}
	if *emit == "cpp" || *emit == "ir" {
		// print the kernel as sumac understood it and stop
		text := k.String()
		if *emit == "cpp" {
			if text, err = cemit.Emit(k); err != nil {
				return err
			}
		}
		if *asJSON {
			return writeJSON(env.stdout, map[string]string{"kernel": k.Name, *emit: text})
		}
		_, err := io.WriteString(env.stdout, text)
		return err
	}
	if err := harness.ParseFlags(k, &opt, windows, inputs, scalars); err != nil {
		return err
	}
	if err := harness.ParsePLIO(k, &opt, plios); err != nil {
		return err
	}
	rep, err := harness.Run(k, harness.Source{File: file, Text: src, Defines: defines, IncludeDirs: includes}, opt)
	if errors.Is(err, emul.ErrNoCompiler) {
		return fmt.Errorf("%w (or pass --no-emul)", err)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(env.stdout, rep); err != nil {
			return err
		}
	} else {
		rep.WriteText(env.stdout)
	}
	if !rep.OK {
		return fmt.Errorf("%w: %d mismatches between the interpreter and the g++ emulation (first: %s)", errCheckFailed, len(rep.Mismatches), rep.Mismatches[0])
	}
	return nil
}
