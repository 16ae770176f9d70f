package backend

// Memory disambiguation of the scheduler's order edges: two accesses through the same
// pointer register, which neither the first access nor anything between them changes, at
// constant offsets whose 32-bit words do not overlap, touch different words, so a store need
// not stay ordered with the other access. This is the rule of LLVM's BasicAA for two
// addresses decomposed to one base plus constant offsets (NoAlias when the accessed ranges
// are disjoint); a compiler's analysis, not a timing parameter. The loop-carried case also
// needs the pointer unchanged in the whole body (the next iteration then uses the same
// addresses).

// disjointAccesses reports whether ops[i] and ops[j] (i < j, both memory accesses) access
// disjoint bytes in every iteration of the body ops is (or the straight-line code); written
// is writtenRegs(ops).
func disjointAccesses(ops []*vop, i, j int, written map[*vreg]bool) bool {
	a, b := ops[i].mem, ops[j].mem
	if a.ptr == nil || a.ptr != b.ptr || a.bytes <= 0 || b.bytes <= 0 {
		return false
	}
	// in 32-bit words, the smallest unit the memory is accessed in (the cycle simulator's
	// memory-order check, cyclesim memGranule): two int16 halves of a word are not disjoint
	w0a, w1a := floorDiv(a.offset, 4), floorDiv(a.offset+a.bytes+3, 4)
	w0b, w1b := floorDiv(b.offset, 4), floorDiv(b.offset+b.bytes+3, 4)
	if w1a > w0b && w1b > w0a {
		return false // the words overlap
	}
	// the pointer must be the same value at both accesses and in every iteration: no
	// operation of the body writes it (a post-increment included)
	return !written[a.ptr]
}

// writtenRegs is the set of registers the operations of ops write (disjointAccesses).
func writtenRegs(ops []*vop) map[*vreg]bool {
	w := map[*vreg]bool{}
	for _, o := range ops {
		for _, d := range o.defs {
			w[d.r] = true
		}
	}
	return w
}
