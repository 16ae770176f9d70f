package kernel

// Unpack widens lanes 8-bit lanes of x (elements e, Int8 or UInt8) to 16 bits: lane values
// are kept, so signed lanes are sign-extended and unsigned ones zero-extended (intrinsics
// reference, group intr_gpvectorconv_pack, "Pack": unpack).
func Unpack(x *Vec, e Elem, lanes int, out *Vec) {
	var r Vec
	for l := 0; l < lanes; l++ {
		r.SetLane(Int16, l, x.Lane(e, l))
	}
	*out = r
}
