package tensor

import "testing"

func TestIndexingAndStrides(t *testing.T) {
	x := New(2, 3, 4)
	if s := x.Strides(); s[0] != 12 || s[1] != 4 || s[2] != 1 {
		t.Fatalf("strides %v", s)
	}
	for i := range x.Data() {
		x.Data()[i] = float32(i)
	}
	if x.At(1, 2, 3) != 23 || x.At(1) != 12 || x.Offset(0, 1) != 4 {
		t.Fatal("At/Offset")
	}
	x.Set(-1, 0, 2, 1)
	if x.Data()[9] != -1 {
		t.Fatal("Set")
	}
	r := x.Row(1, 1)
	if len(r) != 4 || r[0] != 16 {
		t.Fatalf("Row %v", r)
	}
	r = x.Row(1, 1, 2)
	if len(r) != 2 || r[0] != 18 {
		t.Fatalf("Row from inside %v", r)
	}
}

func TestRowSkipsTrailingUnitDims(t *testing.T) {
	// tensor<5,5,1,1>: a.V4(2,0) covers a(2,0:4,0,0) (seed 003 section 1).
	a := New(5, 9, 1, 1)
	for i := range a.Data() {
		a.Data()[i] = float32(i)
	}
	r := a.Row(2, 0)
	if len(r) != 9 || r[0] != 18 || r[8] != 26 {
		t.Fatalf("Row %v", r)
	}
	v := a.Vec(2)
	v[3] = 100 // writes through to the tensor
	if a.At(2, 3, 0, 0) != 100 {
		t.Fatal("Vec does not alias")
	}
}

func TestVecPanicsPastRowEnd(t *testing.T) {
	a := New(2, 10)
	defer func() {
		if recover() == nil {
			t.Fatal("Vec(0,5) with only 5 elements left did not panic")
		}
	}()
	_ = a.Vec(0, 5)
}

func TestFromReshapeErrors(t *testing.T) {
	if _, err := From(make([]float32, 5), 2, 3); err == nil {
		t.Fatal("From accepted 5 values for 2x3")
	}
	if _, err := From(nil, -1); err == nil {
		t.Fatal("negative dim")
	}
	x := New(2, 6)
	y := x.MustReshape(3, 4)
	y.Set(7, 2, 3)
	if x.At(1, 5) != 7 {
		t.Fatal("reshape is not a view")
	}
	if _, err := x.Reshape(5); err == nil {
		t.Fatal("bad reshape accepted")
	}
	if Ensure(x, 2, 6) != x || Ensure(x, 6, 2) == x || !x.SameShape(New(2, 6)) || x.SameShape(y) {
		t.Fatal("Ensure/SameShape")
	}
	if x.String() != "tensor[2 6]" {
		t.Fatal(x.String())
	}
}
