package interp

import (
	"testing"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// FuzzRun builds small random kernels from the fuzz input (windows, a pointer buffer,
// scalars, vectors, accumulators and a loop; ops with random immediates) and runs those that
// validate: the interpreter may return an error but must never panic.
func FuzzRun(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{200, 17, 3, 99, 250, 1, 0, 0, 7, 7, 7, 128, 64, 32, 16, 8})
	f.Fuzz(func(t *testing.T, prog []byte) {
		pos := 0
		next := func() int64 {
			if pos >= len(prog) {
				return 0
			}
			pos++
			return int64(prog[pos-1])
		}
		k := kernel.New("fz")
		b := kernel.NewBuilder(k)
		in := b.Param("in", kernel.InWindow(kernel.Int16))
		out := b.Param("out", kernel.OutWindow(kernel.Int16))
		p := b.Param("p", kernel.PtrTo(kernel.Int16, 1))
		n := b.Param("n", kernel.ScalarOf(kernel.Int32))
		x := b.Decl("x", kernel.VecOf(kernel.Int16, 32))
		z := b.Decl("z", kernel.VecOf(kernel.Int16, 16))
		acc := b.Decl("acc", kernel.AccOf(kernel.Acc48, 16))
		s := b.Decl("s", kernel.ScalarOf(kernel.Int32))
		body := b
		if next()%2 == 0 {
			_, body = b.For(nil, kernel.Imm(0), kernel.Imm(next()%5), 1)
		}
		for steps := 0; steps < 24 && pos < len(prog); steps++ {
			imm := func() kernel.Operand { return kernel.Imm(next() - 64) }
			switch next() % 12 {
			case 0:
				w := body.OpT(kernel.OpWinReadIncr, kernel.VecOf(kernel.Int16, 16), kernel.V(in))
				body.Set(x, kernel.OpUpdW, kernel.V(x), kernel.Imm(next()%2), kernel.V(w))
			case 1:
				body.Set(z, kernel.OpLoad, kernel.V(p), imm())
			case 2:
				body.MAC(acc, kernel.OpMac16, acc, x, z, kernel.MACArgs{XStart: imm(), XOffs: kernel.Imm(next() << 8 * next()),
					XOffsHi: imm(), XSquare: kernel.Imm(next() * 257), ZStart: imm(), ZOffs: imm(), ZOffsHi: imm(), ZStep: imm()})
			case 3:
				r := body.Op(kernel.OpSRS, kernel.V(acc), kernel.Imm(next()%70))
				body.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(r))
			case 4:
				body.Set(s, kernel.OpDiv, kernel.V(n), imm())
			case 5:
				body.Set(s, kernel.OpShl, kernel.V(s), imm())
			case 6:
				body.Emit(kernel.OpWinIncr, nil, kernel.V(in), imm())
			case 7:
				body.Emit(kernel.OpStore, nil, kernel.V(p), kernel.V(s), kernel.V(z))
			case 8:
				q := body.Op(kernel.OpPtrAdd, kernel.V(p), imm())
				body.Set(z, kernel.OpLoad, kernel.V(q), kernel.V(s))
			case 9:
				e := body.Op(kernel.OpExtElem, kernel.V(z), kernel.V(s))
				body.Set(z, kernel.OpUpdElem, kernel.V(z), imm(), kernel.V(e))
			case 10:
				body.Set(acc, kernel.OpUPS, kernel.V(z), kernel.Imm(next()%64))
			case 11:
				body.Set(z, kernel.OpExtW, kernel.V(x), kernel.V(s))
			}
		}
		if b.Err() != nil || k.Validate() != nil {
			return
		}
		_, _ = Run(k, Config{Sizes: map[string]int{"in": int(next()) * 32, "out": int(next()) * 32, "p": int(next()) * 16},
			Scalars: map[string]int64{"n": next() - 128}, MaxSteps: 10000})
	})
}
