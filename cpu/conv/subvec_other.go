//go:build !amd64 || noasm

package conv

// subVec subtracts v from each of the len(dst)/len(v) consecutive vectors of dst (wrapping).
func subVec(dst, v []int32) { subVecGo(dst, v) }
