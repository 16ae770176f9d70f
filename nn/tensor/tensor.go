// Package tensor is the fp32 tensor of sumac's neural-network layers: a shape, row-major strides
// and contiguous storage, with vector access along the innermost dimension (seed 003 section 1:
// vectors are taken from the last dimension whose size exceeds 1, since only those elements are
// consecutive in memory).
package tensor

import (
	"fmt"
	"strings"
)

// Lanes is the number of fp32 lanes of the host's vector registers (AVX2 ymm: 8 x 32 bits).
const Lanes = 8

// Vec is one AVX2 register's worth of fp32 values. A *Vec obtained from Tensor.Vec aliases the
// tensor's storage, so assigning through it writes the tensor (like seed 003's V16).
type Vec = [Lanes]float32

// Tensor is a dense row-major fp32 tensor. The storage is always contiguous; Reshape gives views
// that share it.
type Tensor struct {
	shape   []int
	strides []int
	data    []float32
}

// New returns a zero tensor of the given shape. It panics on a negative dimension (a programming
// error: layer code computes shapes from validated sizes).
func New(shape ...int) *Tensor {
	n := 1
	for _, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("tensor: negative dimension in %v", shape))
		}
		n *= d
	}
	return &Tensor{shape: append([]int(nil), shape...), strides: rowMajor(shape), data: make([]float32, n)}
}

// From wraps data (not copied) as a tensor of the given shape.
func From(data []float32, shape ...int) (*Tensor, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("tensor: negative dimension in %v", shape)
		}
		n *= d
	}
	if n != len(data) {
		return nil, fmt.Errorf("tensor: %d values for shape %v (want %d)", len(data), shape, n)
	}
	return &Tensor{shape: append([]int(nil), shape...), strides: rowMajor(shape), data: data}, nil
}

func rowMajor(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// Shape returns the dimensions (do not modify).
func (t *Tensor) Shape() []int { return t.shape }

// Strides returns the row-major strides in elements (do not modify).
func (t *Tensor) Strides() []int { return t.strides }

// Dim returns dimension i.
func (t *Tensor) Dim(i int) int { return t.shape[i] }

// Rank is the number of dimensions.
func (t *Tensor) Rank() int { return len(t.shape) }

// Len is the number of elements.
func (t *Tensor) Len() int { return len(t.data) }

// Data returns the contiguous storage.
func (t *Tensor) Data() []float32 { return t.data }

// Offset returns the storage index of an element. Missing trailing indices are 0 (as in seed 003's
// tensor::V4 default arguments). It panics on an out-of-range index, like a slice access.
func (t *Tensor) Offset(idx ...int) int {
	if len(idx) > len(t.shape) {
		panic(fmt.Sprintf("tensor: %d indices for rank %d", len(idx), len(t.shape)))
	}
	o := 0
	for i, x := range idx {
		if x < 0 || x >= t.shape[i] {
			panic(fmt.Sprintf("tensor: index %v out of range for shape %v", idx, t.shape))
		}
		o += x * t.strides[i]
	}
	return o
}

// At returns an element.
func (t *Tensor) At(idx ...int) float32 { return t.data[t.Offset(idx...)] }

// Set assigns an element.
func (t *Tensor) Set(v float32, idx ...int) { t.data[t.Offset(idx...)] = v }

// Row returns the consecutive elements that start at idx and run to the end of the innermost
// dimension of size > 1 (the trailing size-1 dimensions are contiguous with it). Writes through
// the slice change the tensor.
func (t *Tensor) Row(idx ...int) []float32 {
	o := t.Offset(idx...)
	last := len(t.shape) - 1
	for last > 0 && t.shape[last] == 1 {
		last--
	}
	end := o + 1
	if last >= 0 && len(t.shape) > 0 {
		// Elements from idx[last] to the end of dimension `last`, with its trailing unit dimensions.
		var at int
		if last < len(idx) {
			at = idx[last]
		}
		end = o + (t.shape[last]-at)*t.strides[last]
	}
	return t.data[o:end:end]
}

// Vec returns the Lanes consecutive elements starting at idx along the innermost dimension of
// size > 1, as an aliasing vector. It panics if fewer than Lanes elements remain in that row.
func (t *Tensor) Vec(idx ...int) *Vec {
	r := t.Row(idx...)
	return (*Vec)(r[:Lanes])
}

// Reshape returns a view with another shape and the same number of elements.
func (t *Tensor) Reshape(shape ...int) (*Tensor, error) {
	return From(t.data, shape...)
}

// MustReshape is Reshape for shapes computed by layer code (a mismatch is a programming error).
func (t *Tensor) MustReshape(shape ...int) *Tensor {
	r, err := t.Reshape(shape...)
	if err != nil {
		panic(err)
	}
	return r
}

// Zero sets every element to 0.
func (t *Tensor) Zero() { clear(t.data) }

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	c := New(t.shape...)
	copy(c.data, t.data)
	return c
}

// SameShape reports whether u has t's shape.
func (t *Tensor) SameShape(u *Tensor) bool {
	if len(t.shape) != len(u.shape) {
		return false
	}
	for i := range t.shape {
		if t.shape[i] != u.shape[i] {
			return false
		}
	}
	return true
}

// String describes the shape, e.g. "tensor[64 1 28 28]".
func (t *Tensor) String() string {
	s := make([]string, len(t.shape))
	for i, d := range t.shape {
		s[i] = fmt.Sprint(d)
	}
	return "tensor[" + strings.Join(s, " ") + "]"
}

// Ensure returns t if it has the given shape, else a new zero tensor of that shape; layers use it
// to reuse output buffers across batches of the same size.
func Ensure(t *Tensor, shape ...int) *Tensor {
	if t != nil && len(t.shape) == len(shape) {
		same := true
		for i := range shape {
			if t.shape[i] != shape[i] {
				same = false
				break
			}
		}
		if same {
			return t
		}
	}
	return New(shape...)
}
