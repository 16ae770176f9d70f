//go:build amd64 && !noasm

package kernels

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAMXDisassembly disassembles the AMX kernels as linked into this package's test binary
// (GNU objdump) and checks that their tile instructions are exactly their programs' (the same
// instructions, tiles and memory operands in the same order): the bytes the generator writes
// decode to the intended instructions, without needing a CPU that runs them.
func TestAMXDisassembly(t *testing.T) {
	od, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("objdump not found: the AMX encodings are checked against GNU as in internal/x86gen only")
	}
	// go test's own binary has no symbol table: build the package's test binary with one.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH: no binary with symbols to disassemble")
	}
	exe := filepath.Join(t.TempDir(), "kernels.test")
	if out, err := exec.Command(gobin, "test", "-c", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	out, err := exec.Command(od, "-d", "--no-show-raw-insn", exe).Output()
	if err != nil {
		t.Skipf("objdump -d: %v", err)
	}
	// the registers of each pointer kind (base, stride): the GEMM kernels', the direct
	// convolution kernels' (internal/x86gen AMXKernel.emitOp, AMXConvKernel.emitOp)
	gemmReg := []string{"%rsi,%r11,1", "%rdi,%r11,1", "%r8,%r9,1", "%r12,%r9,1"}
	convReg := []string{"", "%rdi,%r10,1", "%r8,%r9,1", "%r12,%r9,1", "%rax,%r11,1", "%r13,%r11,1"}
	for _, k := range []struct {
		sym, op string
		p       *amxProgram
		reg     []string
	}{{"asmAMXU8S8", "tdpbusd", &amxProgU8S8, gemmReg}, {"asmAMXS8S8", "tdpbssd", &amxProgS8S8, gemmReg}, {"asmAMXBF16", "tdpbf16ps", &amxProgBF16, gemmReg},
		{"asmAMXConvU8S8", "tdpbusd", &amxProgConvU8S8, convReg}, {"asmAMXConvS8S8", "tdpbssd", &amxProgConvS8S8, convReg},
		{"asmAMXConvBF16", "tdpbf16ps", &amxProgConvBF16, convReg}} {
		reg := k.reg
		start := strings.Index(string(out), "<github.com/sumacdev/sumac/cpu/kernels."+k.sym+".abi0>:")
		if start < 0 {
			t.Fatalf("%s not in the disassembly", k.sym)
		}
		body := string(out[start:])
		body = body[:strings.Index(body, "\n\n")]
		var got []string
		for _, l := range strings.Split(body, "\n") {
			f := strings.SplitN(l, "\t", 2)
			if len(f) < 2 {
				continue
			}
			ins := strings.Join(strings.Fields(f[1]), " ")
			if strings.HasPrefix(ins, "tile") || strings.HasPrefix(ins, "tdp") || strings.HasPrefix(ins, "ldtilecfg") {
				got = append(got, ins)
			}
		}
		mem := func(o amxOp) string {
			off := ""
			if o.off != 0 || strings.HasPrefix(reg[o.ptr], "%r13,") {
				off = fmt.Sprintf("%#x", o.off) // [r13] has only a displacement form: 0x0
			}
			return off + "(" + reg[o.ptr] + ")"
		}
		want := []string{"ldtilecfg (%rax)"}
		add := func(ops []amxOp) {
			for _, o := range ops {
				tm := func(i int) string { return "%tmm" + string(rune('0'+i)) }
				switch o.op {
				case amxOpLoad:
					want = append(want, "tileloadd "+mem(o)+","+tm(o.t))
				case amxOpStore:
					want = append(want, "tilestored "+tm(o.t)+","+mem(o))
				case amxOpZero:
					want = append(want, "tilezero "+tm(o.t))
				case amxOpDot:
					want = append(want, k.op+" "+tm(o.t2)+","+tm(o.t1)+","+tm(o.t))
				}
			}
		}
		add(k.p.loadC)
		add(k.p.zeroC)
		add(k.p.body)
		add(k.p.store)
		want = append(want, "tilerelease")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s disassembles to\n%s\nwant\n%s", k.sym, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
