package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/emul"
	"github.com/sumacdev/sumac/target/aie1/harness"
)

func needGXX(t *testing.T) {
	t.Helper()
	if _, err := emul.Compiler(); err != nil {
		t.Skip("no C++ compiler (g++): the sim emulation check needs one")
	}
}

func TestSimErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.cc")
	os.WriteFile(bad, []byte("void k(input_window_int16 * in, output_window_int16 * out) {\n    v16int16 v = window_readincr_v16(in);\n    while (1) { window_writeincr(out, v); }\n}\n"), 0o644)
	code, out, errs := run(t, "sim", bad, "--no-emul")
	if code != 2 || out != "" || !strings.Contains(errs, "bad.cc:3:5: while loops are not supported") {
		t.Errorf("unsupported construct: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	oow := filepath.Join(dir, "oow.cc")
	os.WriteFile(oow, []byte("void k(input_window_int16 * in, output_window_int16 * out) {\n    for (int i = 0; i < 4; i++) {\n        v16int16 v = window_readincr_v16(in);\n        window_writeincr(out, v);\n    }\n}\n"), 0o644)
	// windows are circular: a 96-byte window read 4 times wraps; a 100-byte one is read past its end
	code, _, errs = run(t, "sim", oow, "--window", "in=100", "--no-emul")
	if code != 2 || !strings.Contains(errs, "oow.cc:3:22: window_readincr_v16(in)") || !strings.Contains(errs, "outside window in") {
		t.Errorf("out-of-window access: exit %d, stderr %q", code, errs)
	}
	for _, args := range [][]string{
		{"sim"},
		{"sim", oow, "--window", "nosuch=4"},
		{"sim", oow, "--round", "sideways"},
		{"sim", oow, "--emit", "asm"},
		{"sim", filepath.Join(dir, "missing.cc")},
	} {
		if code, _, errs := run(t, args...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestSimScalarAndInputFile runs a kernel with a scalar trip count (--scalar) on an input from
// a file (--input): both checks pass and the report counts 3 vectors of outputs.
func TestSimScalarAndInputFile(t *testing.T) {
	needGXX(t)
	dir := t.TempDir()
	k := filepath.Join(dir, "dbl.cc")
	os.WriteFile(k, []byte(`#include <adf.h>
void dbl(input_window_int16 * in, output_window_int16 * out, int n) {
    for (int i = 0; i < n; i++) {
        v16int16 v = window_readincr_v16(in);
        v = operator+(v, v);
        window_writeincr(out, v);
    }
}
`), 0o644)
	in := make([]byte, 96)
	for i := range in {
		in[i] = byte(i * 7)
	}
	inFile := filepath.Join(dir, "in.bin")
	os.WriteFile(inFile, in, 0o644)
	code, out, errs := run(t, "sim", k, "--scalar", "n=3", "--input", "in="+inFile, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r harness.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.OK || r.OutputsChecked != 48 || r.MACs != 0 || r.Windows[0].Inputs != "file" || r.Windows[1].Bytes != 96 {
		t.Errorf("report %+v", r)
	}
	if code, _, errs := run(t, "sim", k, "--no-emul"); code != 2 || !strings.Contains(errs, "--scalar n=VALUE") {
		t.Errorf("missing scalar: exit %d, %q", code, errs)
	}
}

// TestSimEmit: --emit cpp prints the kernel as parsed (and it parses again); --emit bundles adds
// the backend's schedule to the report (or the reason there is none).
func TestSimEmit(t *testing.T) {
	file := "../../target/aie1/testdata/lei_gemm_16x4.cc"
	code, out, errs := run(t, "sim", file, "-DKc=16", "--emit", "cpp")
	if code != 0 || !strings.Contains(out, "void micro_kernel(") || !strings.Contains(out, "chess_loop_range(4, )") {
		t.Fatalf("--emit cpp: exit %d, %q, %s", code, out, errs)
	}
	if _, err := cfront.ParseKernel("emitted.cc", []byte(out), nil); err != nil {
		t.Errorf("--emit cpp output does not parse: %v", err)
	}
	code, out, errs = run(t, "sim", file, "-DKc=16", "--emit", "bundles", "--no-emul", "--json")
	var r harness.Report
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("--emit bundles: exit %d, %s", code, errs)
	}
	if r.Bundles == "" && r.TimingError == "" {
		t.Errorf("--emit bundles: neither a schedule nor a timing error in the report")
	}
	if r.Emulation != "skipped (--no-emul)" || r.OutputsChecked != 0 {
		t.Errorf("--no-emul report: emulation %q, outputs checked %d", r.Emulation, r.OutputsChecked)
	}
}

// TestSimGeneratedKernel: a kernel written by sumac compile --out is also checked against the
// exact reference (its header names the spec and schedule); an edited copy is not.
func TestSimGeneratedKernel(t *testing.T) {
	needGXX(t)
	dir := t.TempDir()
	if code, _, errs := run(t, "compile", "--target", "aie1", "conv2d x=32 y=1 r=3 s=1 dtype=int32", "--out", dir); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, errs)
	}
	file := filepath.Join(dir, "vyasa_conv2d.cc")
	code, out, errs := run(t, "sim", file, "--json")
	var r harness.Report
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("sim: exit %d: %s", code, errs)
	}
	if !r.OK || r.ReferenceOutputs != 32 || !strings.HasPrefix(r.Reference, "checked against op/ref") {
		t.Errorf("reference %q (%d outputs), ok %v, mismatches %v", r.Reference, r.ReferenceOutputs, r.OK, r.Mismatches)
	}
	src, _ := os.ReadFile(file)
	os.WriteFile(file, append(src, []byte("// edited\n")...), 0o644)
	code, out, _ = run(t, "sim", file, "--json", "--no-emul")
	r = harness.Report{}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.ReferenceOutputs != 0 || !strings.HasPrefix(r.Reference, "not checked") {
		t.Errorf("edited kernel: exit %d, reference %q", code, r.Reference)
	}
}

// TestSimInstance runs a kernel class template from the command line, as the ADF graph would
// create it (--instance with template and constructor arguments).
func TestSimInstance(t *testing.T) {
	needGXX(t)
	code, out, errs := run(t, "sim", "../../target/aie1/testdata/adf/scale_bias.cc", "--instance", "ScaleBias<int16, 64, 3, true>(5)", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep harness.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Instance != "ScaleBias<int16, 64, 3, true>" || rep.Kernel != "run" || rep.OutputsChecked != 64 {
		t.Errorf("report: ok %v, instance %q, kernel %q, %d outputs", rep.OK, rep.Instance, rep.Kernel, rep.OutputsChecked)
	}
	code, _, errs = run(t, "sim", "../../target/aie1/testdata/adf/scale_bias.cc", "--no-emul")
	if code != 2 || !strings.Contains(errs, "--instance") {
		t.Errorf("a template without --instance: exit %d, %q", code, errs)
	}
}

// TestSimPLIO: --plio connects a stream port to a PLIO (timing only); bad ports, widths and
// clocks are clear errors (exit 2).
func TestSimPLIO(t *testing.T) {
	dir := t.TempDir()
	cp := filepath.Join(dir, "cp.cc")
	os.WriteFile(cp, []byte("void cp(input_stream_int32 * in, output_stream_int32 * out, input_window_int32 * w) {\n    for (int i = 0; i < 64; i++) chess_prepare_for_pipelining {\n        writeincr(out, readincr(in));\n    }\n}\n"), 0o644)
	cycles := func(args ...string) int64 {
		t.Helper()
		code, out, errs := run(t, append([]string{"sim", cp, "--no-emul", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errs)
		}
		var rep struct{ Cycles int64 }
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Cycles == 0 {
			t.Fatalf("%v: %v %q", args, err, out)
		}
		return rep.Cycles
	}
	free, in64, all32 := cycles(), cycles("--plio", "in=64"), cycles("--plio", "all=32@312.5")
	if !(free < in64 && in64 < all32) {
		t.Errorf("cycles: no PLIO %d, in 64-bit %d, all 32-bit %d", free, in64, all32)
	}
	for _, bad := range []string{"nosuch=64", "w=64", "in=48", "in", "in=64@fast", "in=64@0", "in=64@1000"} {
		code, _, errs := run(t, "sim", cp, "--no-emul", "--plio", bad)
		if code != 2 || !strings.Contains(errs, "--plio") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("--plio %s: exit %d, stderr %q", bad, code, errs)
		}
	}
}
