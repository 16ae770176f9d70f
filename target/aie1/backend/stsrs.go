package backend

import "github.com/sumacdev/sumac/target/aie1/kernel"

// storeSRS finds the 8-bit narrowings of a 16-lane 48-bit accumulator (bsrs, ubsrs) whose
// only use is a store of the 16 bytes right after them, and maps each such store to its
// narrowing. The store unit has that pair as one instruction: "vst.48.srsb" / "vst.48.srsbu"
// (VST_SRSS_idx / VST_SRSU_idx in llvm-aie's AIE1InstrInfo.td, itinerary II_STSRS: the
// accumulator goes through the shift-round-saturate path straight to memory), so the
// backend emits one store-slot operation where bsrs + vst would take two (both use the store
// slot: timing.go SlotST). Conditions: a constant shift; the narrowed vector is read only by
// that store, in the same statement list, with only instructions between them, none of which
// writes the accumulator (the store reads it in its cycle 3, aie1.ItinSTSRS).
func storeSRS(k *kernel.Kernel, consts map[*kernel.Var]int64) map[*kernel.Instr]*kernel.Instr {
	reads := map[*kernel.Var]int{}
	defs := map[*kernel.Var]int{}
	kernel.Walk(k.Body, func(st kernel.Stmt, _ int) {
		if in, ok := st.(*kernel.Instr); ok {
			if in.Dst != nil {
				defs[in.Dst]++
			}
			for _, a := range in.Args {
				if a.Var != nil {
					reads[a.Var]++
				}
			}
		}
	})
	out := map[*kernel.Instr]*kernel.Instr{}
	var list func(body []kernel.Stmt)
	list = func(body []kernel.Stmt) {
		for i, st := range body {
			switch s := st.(type) {
			case *kernel.Loop:
				list(s.Body)
				continue
			case *kernel.If:
				list(s.Then)
				list(s.Else)
				continue
			}
			srs, ok := st.(*kernel.Instr)
			if !ok || srs.Op != kernel.OpBSRS && srs.Op != kernel.OpUBSRS || srs.Dst == nil || len(srs.Args) != 2 {
				continue
			}
			acc, v := srs.Args[0].Var, srs.Dst
			if acc == nil || acc.Type.Lanes != 16 || acc.Type.Elem != kernel.Acc48 || v.Type.Bytes() != 16 || defs[v] != 1 || reads[v] != 1 {
				continue
			}
			if sh := srs.Args[1]; !sh.IsIntImm() {
				if _, c := consts[sh.Var]; sh.Var == nil || !c {
					continue
				}
			}
			for _, st2 := range body[i+1:] {
				in, ok := st2.(*kernel.Instr)
				if !ok {
					break
				}
				if in.Op == kernel.OpStore && len(in.Args) == 3 && in.Args[2].Var == v {
					out[in] = srs
					break
				}
				if in.Dst == acc {
					break
				}
			}
		}
	}
	list(k.Body)
	return out
}
