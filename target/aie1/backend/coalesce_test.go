package backend

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// countCopies counts the vector moves of a compiled program that copy or concatenate
// registers (vmov with register operands).
func countCopies(p *Program) int {
	n := 0
	for _, b := range p.Bundles {
		for _, in := range b.Instrs {
			if in.Name == "vmov" && len(in.Uses) > 0 {
				n++
			}
		}
	}
	return n
}

// TestCoalesce compiles AI Engine API mmul kernels (whose lowering copies accumulators and
// concatenates narrowed results) with and without register coalescing: coalescing must
// remove copies and say so. Exactness of the coalesced programs is checked by the harness
// (TestADFKernels runs the same instances through the cycle simulator against the
// interpreter and g++).
func TestCoalesce(t *testing.T) {
	path := filepath.Join("..", "testdata", "adf", "mmul.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	for _, inst := range []string{"matmul<4, 2, 4, int32, int32, 8>", "matmul<4, 4, 8, int16, int16, 16>"} {
		k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{Instance: inst})
		if err != nil {
			t.Fatal(err)
		}
		with, err := compileKernel(k, Options{})
		if err != nil {
			t.Fatalf("%s: %v", inst, err)
		}
		without, err := compileKernel(k, Options{noCoalesce: true})
		if err != nil {
			t.Fatalf("%s without coalescing: %v", inst, err)
		}
		if !strings.Contains(strings.Join(with.Notes, "\n"), "register coalescing removed") {
			t.Errorf("%s: no copy coalesced; notes %v", inst, with.Notes)
		}
		if a, b := countCopies(with), countCopies(without); a >= b {
			t.Errorf("%s: %d register copies with coalescing, %d without", inst, a, b)
		}
	}
}

// loopZeros counts the vzero instructions inside the program's loops.
func loopZeros(p *Program) int {
	n := 0
	for _, l := range p.Loops {
		for b := l.Start; b < l.End; b++ {
			for _, in := range p.Bundles[b].Instrs {
				if in.Name == "vzero" {
					n++
				}
			}
		}
	}
	return n
}

// TestHoistZeros compiles the flattened int16 mmul kernel (each block's A operand widened
// with a zeroed half) with and without moving loop-invariant zeros out of the loop: hoisting
// must leave fewer vzeros in the loop and say so. Exactness: TestADFKernels in the harness.
func TestHoistZeros(t *testing.T) {
	path := filepath.Join("..", "testdata", "adf", "mmul.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{Instance: "matmul<4, 4, 8, int16, int16, 16>"})
	if err != nil {
		t.Fatal(err)
	}
	k2 := narrowKernel(k)
	if k2 == nil {
		t.Skip("not narrowed")
	}
	// the API's grow() leaves the A operand's upper half undefined (no instruction); zeroed
	// (Options.zeroUndef, a variant Compile tries) it is a vzero per block, which hoisting
	// moves out of the loop
	with, err := compileKernel(k2, Options{zeroUndef: true})
	if err != nil {
		t.Fatal(err)
	}
	without, err := compileKernel(k2, Options{noHoist: true, zeroUndef: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(with.Notes, "\n"), "loop-invariant vzeros moved") {
		t.Skipf("no zero hoisted in this instance; notes %v", with.Notes)
	}
	if a, b := loopZeros(with), loopZeros(without); a >= b {
		t.Errorf("%d vzeros in loops with hoisting, %d without", a, b)
	}
}

// TestGrowUndefined: the AI Engine API's grow() of an mmul operand leaves the X buffer's upper
// lanes undefined (the MACs do not read them): the front end emits undef_* there, which costs
// no instruction, so the int16 and int8 mmul kernels compile without a vzero (exactness of the
// undefined lanes never being read: TestADFKernels runs the same instances through the cycle
// simulator against the interpreter and g++).
func TestGrowUndefined(t *testing.T) {
	path := filepath.Join("..", "testdata", "adf", "mmul.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	for _, inst := range []string{"matmul<4, 4, 8, int16, int16, 16>", "matmul<4, 8, 4, int8, int8, 32>", "matmul<4, 2, 4, int32, int32, 8>"} {
		k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{Instance: inst})
		if err != nil {
			t.Fatal(err)
		}
		if !hasUndef(k) {
			t.Errorf("%s: no undef_* in the lowering", inst)
		}
		for _, v := range []*kernel.Kernel{k, narrowKernel(k)} {
			if v == nil {
				continue
			}
			p, err := compileKernel(v, Options{})
			if err != nil {
				t.Fatalf("%s: %v", inst, err)
			}
			for _, b := range p.Bundles {
				for _, in := range b.Instrs {
					if in.Name == "vzero" {
						t.Errorf("%s: a vzero in %v", inst, b)
					}
				}
			}
		}
	}
}

// TestStoreSRS: an int8 mmul's to_vector<int8>() stored at once becomes one store-unit
// instruction (vst.srs: the accumulator narrowed on the way to memory, llvm-aie's
// VST_SRSS_idx) instead of a bsrs and a vst; a narrowing read by anything else stays a bsrs.
// Exactness: TestADFKernels runs the instance through the cycle simulator against the
// interpreter and g++.
func TestStoreSRS(t *testing.T) {
	path := filepath.Join("..", "testdata", "adf", "mmul.cc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	k, err := cfront.ParseKernelConfig(path, src, &cfront.Config{Instance: "matmul<4, 8, 4, int8, int8, 32>"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, b := range p.Bundles {
		for _, in := range b.Instrs {
			count[in.Name]++
			if in.Name == "vst.srs" && in.Slot != aie1.SlotST {
				t.Errorf("vst.srs in slot %v", in.Slot)
			}
		}
	}
	if count["vst.srs"] != 1 || count["bsrs"] != 0 || count["vst"] != 0 {
		t.Errorf("vst.srs %d, bsrs %d, vst %d; want 1, 0, 0", count["vst.srs"], count["bsrs"], count["vst"])
	}
}
