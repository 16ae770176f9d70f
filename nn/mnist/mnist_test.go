package mnist

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sumacdev/sumac/nn/idx"
)

func TestEmbeddedSplit(t *testing.T) {
	train, test, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 8000 || test.Len() != 2000 || train.Rows != 28 || train.Cols != 28 {
		t.Fatalf("train %d test %d %dx%d", train.Len(), test.Len(), train.Rows, train.Cols)
	}
	// Every class is present in both sets and images are not blank.
	for _, s := range []*Set{train, test} {
		var counts [10]int
		for _, l := range s.Labels {
			counts[l]++
		}
		for d, c := range counts {
			if c < s.Len()/20 {
				t.Errorf("digit %d only %d times", d, c)
			}
		}
		for i := 0; i < s.Len(); i += 97 {
			sum := 0
			for _, p := range s.Image(i) {
				sum += int(p)
			}
			if sum < 255*20 {
				t.Errorf("image %d nearly blank", i)
			}
		}
	}
	// No image of the test set also appears in the training set (the split is disjoint).
	seen := map[string]bool{}
	for i := 0; i < train.Len(); i++ {
		seen[string(train.Image(i))] = true
	}
	dup := 0
	for i := 0; i < test.Len(); i++ {
		if seen[string(test.Image(i))] {
			dup++
		}
	}
	if dup > 0 {
		t.Errorf("%d test images also in the training set", dup)
	}
}

func writeSet(t *testing.T, dir string, gz bool, images, labels *idx.File, prefix string) {
	t.Helper()
	for stem, f := range map[string]*idx.File{prefix + "-images-idx3-ubyte": images, prefix + "-labels-idx1-ubyte": labels} {
		var buf bytes.Buffer
		name := stem
		var err error
		if gz {
			name += ".gz"
			err = idx.EncodeGzip(&buf, f)
		} else {
			err = idx.Encode(&buf, f)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func tiny(n int) (*idx.File, *idx.File) {
	im := &idx.File{Type: idx.UByte, Dims: []int{n, 2, 3}, Data: make([]byte, n*6)}
	lb := &idx.File{Type: idx.UByte, Dims: []int{n}, Data: make([]byte, n)}
	for i := range im.Data {
		im.Data[i] = byte(i)
	}
	for i := range lb.Data {
		lb.Data[i] = byte(i % 10)
	}
	return im, lb
}

func TestLoadRawAndGzip(t *testing.T) {
	dir := t.TempDir()
	im, lb := tiny(5)
	writeSet(t, dir, false, im, lb, "train")
	im2, lb2 := tiny(3)
	writeSet(t, dir, true, im2, lb2, "t10k")
	train, test, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 5 || test.Len() != 3 || train.Rows != 2 || train.Cols != 3 || train.Image(1)[0] != 6 || test.Labels[2] != 2 {
		t.Fatalf("loaded %+v %+v", train, test)
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	im, lb := tiny(5)
	writeSet(t, dir, true, im, lb, "train")
	writeSet(t, dir, true, im, lb, "t10k")
	// Truncate the gzipped test images.
	p := filepath.Join(dir, TestImages+".gz")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v does not name %s", err, p)
	}

	// Label count mismatch, bad label, wrong dimensions, missing file.
	im3, lb3 := tiny(4)
	writeSet(t, dir, true, im, lb3, "t10k")
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "4 labels") {
		t.Errorf("mismatch: %v", err)
	}
	lb3.Data[1] = 10
	writeSet(t, dir, true, im3, lb3, "t10k")
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a digit") {
		t.Errorf("bad label: %v", err)
	}
	writeSet(t, dir, true, lb, lb, "t10k")
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "3 dimensions") {
		t.Errorf("dims: %v", err)
	}
	if _, _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("missing: %v", err)
	}
}

// FuzzLoad feeds arbitrary bytes as the image and label files: the loader must return a set
// consistent with itself or an error naming a file, never panic.
func FuzzLoad(f *testing.F) {
	im, lb := tiny(3)
	var a, b bytes.Buffer
	idx.Encode(&a, im)
	idx.EncodeGzip(&b, lb)
	f.Add(a.Bytes(), b.Bytes())
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		fsys := fstest.MapFS{
			TrainImages:         {Data: images},
			TrainLabels + ".gz": {Data: labels},
			TestImages:          {Data: images},
			TestLabels + ".gz":  {Data: labels},
		}
		train, _, err := load(fsys, "dir")
		if err != nil {
			if !strings.Contains(err.Error(), "dir/") {
				t.Fatalf("error %q names no file", err)
			}
			return
		}
		if len(train.Images) != train.Len()*train.Rows*train.Cols {
			t.Fatalf("%d pixels for %d images of %dx%d", len(train.Images), train.Len(), train.Rows, train.Cols)
		}
		for _, l := range train.Labels {
			if l > 9 {
				t.Fatalf("label %d", l)
			}
		}
	})
}
