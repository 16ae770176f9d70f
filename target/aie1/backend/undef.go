package backend

import "github.com/sumacdev/sumac/target/aie1/kernel"

// undefParts finds the vector variables set by undef_* whose undefined contents nothing
// reads: every other definition updates a part of the variable itself (upd_v/w/x(t, i, v)),
// the parts written cover its first bytes, and every other read is a MAC's X buffer that
// reads only elements inside those bytes (kernel.XElemsRead). Such a variable is what the
// front end makes of the AI Engine API's grow() for an mmul operand (cfront growUnread; a
// narrower X operand INSERT_SUBREG'd into an IMPLICIT_DEF register in llvm-aie's
// AIE1InstrInfo.td): undef_* generates no instruction, and a part update starts a new value
// (regalloc scanOp), so the register is not live around a loop that only rewrites its low
// half. The cycle simulator then leaves whatever the register held in the unread part.
func undefParts(k *kernel.Kernel) map[*kernel.Var]bool {
	undef := map[*kernel.Var]bool{}
	if !hasUndef(k) {
		return undef
	}
	bad := map[*kernel.Var]bool{}
	written := map[*kernel.Var][]bool{} // by byte
	var macReads []*kernel.Instr
	kernel.Walk(k.Body, func(st kernel.Stmt, _ int) {
		in, ok := st.(*kernel.Instr)
		if !ok {
			return
		}
		if d := in.Dst; d != nil && d.Type.IsVector() {
			switch {
			case in.Op == kernel.OpUndef:
				undef[d] = true
			case (in.Op == kernel.OpUpdV || in.Op == kernel.OpUpdW || in.Op == kernel.OpUpdX) && len(in.Args) == 3 && in.Args[0].Var == d && in.Args[1].IsIntImm():
				w := written[d]
				if w == nil {
					w = make([]bool, d.Type.Bytes())
					written[d] = w
				}
				pb := in.Op.PartBits() / 8
				for b := int(in.Args[1].Imm) * pb; b < (int(in.Args[1].Imm)+1)*pb && b < len(w); b++ {
					if b >= 0 {
						w[b] = true
					}
				}
			default:
				bad[d] = true
			}
		}
		for i, a := range in.Args {
			v := a.Var
			if v == nil || !v.Type.IsVector() {
				continue
			}
			switch {
			case i == 0 && in.Dst == v && (in.Op == kernel.OpUpdV || in.Op == kernel.OpUpdW || in.Op == kernel.OpUpdX):
			case in.Op.IsMAC() && i == kernel.Layout(macForm(in), in.Op.Info().Acc).X:
				macReads = append(macReads, in)
			default:
				bad[v] = true
			}
		}
	})
	out := map[*kernel.Var]bool{}
	for v := range undef {
		if !bad[v] && written[v] != nil {
			out[v] = true
		}
	}
	for _, in := range macReads {
		v := in.Args[kernel.Layout(macForm(in), in.Op.Info().Acc).X].Var
		if !out[v] {
			continue
		}
		n, ok := kernel.XElemsRead(in.Op, in.Args)
		w := written[v]
		eb := v.Type.Elem.Bytes()
		for b := 0; ok && b < n*eb; b++ {
			ok = b < len(w) && w[b]
		}
		if !ok {
			delete(out, v)
		}
	}
	return out
}

func macForm(in *kernel.Instr) kernel.MACForm {
	f, _ := kernel.FormOf(in.Op, in.Args)
	return f
}

// hasUndef reports whether k has an undef_* instruction.
func hasUndef(k *kernel.Kernel) bool {
	found := false
	kernel.Walk(k.Body, func(st kernel.Stmt, _ int) {
		if in, ok := st.(*kernel.Instr); ok && in.Op == kernel.OpUndef {
			found = true
		}
	})
	return found
}

// undefSources finds the variables set only by undef_* and read only as parts of concats
// (t = concat(a, u)) whose undefined parts nothing reads: t is set only there, and every
// read of t is a MAC's X buffer that reads only elements inside the concat's defined parts
// (kernel.XElemsRead). Such a u (the front end's grow() of an mmul operand, not narrowed by
// flatten.go) may hold anything, so its reads do not keep it live around a loop (regalloc
// scanOp): it needs a register only where the concat reads it.
func undefSources(k *kernel.Kernel) map[*kernel.Var]bool {
	out := map[*kernel.Var]bool{}
	if !hasUndef(k) {
		return out
	}
	defs := map[*kernel.Var][]*kernel.Instr{}
	reads := map[*kernel.Var][]*kernel.Instr{}
	kernel.Walk(k.Body, func(st kernel.Stmt, _ int) {
		in, ok := st.(*kernel.Instr)
		if !ok {
			return
		}
		if in.Dst != nil {
			defs[in.Dst] = append(defs[in.Dst], in)
		}
		for _, a := range in.Args {
			if a.Var != nil {
				reads[a.Var] = append(reads[a.Var], in)
			}
		}
	})
	undefOnly := func(v *kernel.Var) bool {
		for _, d := range defs[v] {
			if d.Op != kernel.OpUndef {
				return false
			}
		}
		return len(defs[v]) > 0
	}
	// safeConcat: c's destination is set only by c and read only by MACs within c's
	// defined parts
	safeConcat := func(c *kernel.Instr) bool {
		t := c.Dst
		if c.Op != kernel.OpConcat || t == nil || len(defs[t]) != 1 || len(c.Args) == 0 {
			return false
		}
		pb := t.Type.Bytes() / len(c.Args)
		covered := 0 // defined bytes from the start
		for _, a := range c.Args {
			if a.Var == nil || undefOnly(a.Var) {
				break
			}
			covered += pb
		}
		for _, r := range reads[t] {
			if !r.Op.IsMAC() {
				return false
			}
			x := kernel.Layout(macForm(r), r.Op.Info().Acc).X
			n, ok := kernel.XElemsRead(r.Op, r.Args)
			if !ok || x < 0 || r.Args[x].Var != t || n*t.Type.Elem.Bytes() > covered {
				return false
			}
			for i, a := range r.Args {
				if a.Var == t && i != x {
					return false
				}
			}
		}
		return true
	}
	for v := range defs {
		if !undefOnly(v) || len(reads[v]) == 0 {
			continue
		}
		ok := true
		for _, r := range reads[v] {
			ok = ok && safeConcat(r)
		}
		if ok {
			out[v] = true
		}
	}
	return out
}
