package kernel

// XElemsRead returns one past the highest element of the X buffer that a MAC instruction
// reads (op and args as in the IR: X of its full type, the data selection parameters
// immediates), by the selection rules of DecodeMAC. ok is false when a parameter is not an
// immediate or the selection is invalid. A producer that widens a value into a larger X
// buffer can leave the lanes at and above the value's end undefined when this is at most the
// value's length: the MAC never reads them.
func XElemsRead(op Op, args []Operand) (n int, ok bool) {
	f, err := FormOf(op, args)
	if err != nil {
		return 0, false
	}
	l := Layout(f, op.Info().Acc)
	if len(args) != l.NumArgs {
		return 0, false
	}
	var vals [10]int64
	for i, a := range []int{l.XStart, l.XOffs, l.XOffsHi, l.XStep, l.XSquare, l.ZStart, l.ZOffs, l.ZOffsHi, l.ZStep, l.ZSquare} {
		if a < 0 {
			continue
		}
		if !args[a].IsIntImm() {
			return 0, false
		}
		vals[i] = args[a].Imm
	}
	p := MACParams{XStart: vals[0], XOffs: vals[1], XOffsHi: vals[2], XStep: vals[3], XSquare: vals[4],
		ZStart: vals[5], ZOffs: vals[6], ZOffsHi: vals[7], ZStep: vals[8], ZSquare: vals[9]}
	var sel MACSel
	if err := DecodeMAC(f, args[l.X].Type().Lanes, args[l.Z].Type().Lanes, p, &sel); err != nil {
		return 0, false
	}
	for ln := 0; ln < sel.Lanes; ln++ {
		for c := 0; c < sel.Cols; c++ {
			n = max(n, int(sel.X[ln][c])+1)
		}
	}
	return n, true
}
