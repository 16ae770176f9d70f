// Package mnist loads MNIST-format digit data: the standard IDX files (gzipped or raw) from a
// directory, or the split embedded in the binary (8,000 training and 2,000 test images; see
// data/README.md for its origin and licence).
package mnist

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sumacdev/sumac/nn/idx"
)

//go:embed data/*.gz
var embedded embed.FS

// Set is a set of labelled 28x28 grey images, one byte per pixel, row-major.
type Set struct {
	Rows, Cols int
	Images     []byte // len = N * Rows * Cols
	Labels     []byte // len = N, values 0-9
}

// Len is the number of images.
func (s *Set) Len() int { return len(s.Labels) }

// Image returns the pixels of image i.
func (s *Set) Image(i int) []byte {
	n := s.Rows * s.Cols
	return s.Images[i*n : (i+1)*n]
}

// Standard file-name stems of the MNIST database; a directory may hold each raw or with ".gz".
const (
	TrainImages = "train-images-idx3-ubyte"
	TrainLabels = "train-labels-idx1-ubyte"
	TestImages  = "t10k-images-idx3-ubyte"
	TestLabels  = "t10k-labels-idx1-ubyte"
)

// Embedded returns the embedded training and test sets.
func Embedded() (train, test *Set, err error) {
	sub, err := fs.Sub(embedded, "data")
	if err != nil {
		return nil, nil, err
	}
	return load(sub, "(embedded)nn/mnist/data")
}

// Load reads the training and test sets from dir, which must hold the four standard files,
// each raw or gzipped (name or name.gz).
func Load(dir string) (train, test *Set, err error) {
	return load(os.DirFS(dir), dir)
}

func load(fsys fs.FS, dir string) (train, test *Set, err error) {
	train, err = loadSet(fsys, dir, TrainImages, TrainLabels)
	if err != nil {
		return nil, nil, err
	}
	test, err = loadSet(fsys, dir, TestImages, TestLabels)
	if err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// readIDX reads stem or stem.gz from fsys; errors name the file as dir/name.
func readIDX(fsys fs.FS, dir, stem string) (*idx.File, string, error) {
	for _, name := range []string{stem, stem + ".gz"} {
		path := filepath.Join(dir, name)
		b, err := fs.ReadFile(fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, path, err
		}
		f, err := idx.Parse(b)
		if err != nil {
			return nil, path, fmt.Errorf("%s: %w", path, err)
		}
		return f, path, nil
	}
	return nil, "", fmt.Errorf("%s: neither %s nor %s.gz found", dir, stem, stem)
}

func loadSet(fsys fs.FS, dir, imagesStem, labelsStem string) (*Set, error) {
	im, imPath, err := readIDX(fsys, dir, imagesStem)
	if err != nil {
		return nil, err
	}
	lb, lbPath, err := readIDX(fsys, dir, labelsStem)
	if err != nil {
		return nil, err
	}
	if im.Type != idx.UByte || len(im.Dims) != 3 || im.Dims[1] == 0 || im.Dims[2] == 0 {
		return nil, fmt.Errorf("%s: want unsigned bytes with 3 dimensions (images x rows x cols), got type 0x%02x dimensions %v", imPath, im.Type, im.Dims)
	}
	if lb.Type != idx.UByte || len(lb.Dims) != 1 {
		return nil, fmt.Errorf("%s: want unsigned bytes with 1 dimension, got type 0x%02x dimensions %v", lbPath, lb.Type, lb.Dims)
	}
	if im.Dims[0] != lb.Dims[0] {
		return nil, fmt.Errorf("%s has %d images but %s has %d labels", imPath, im.Dims[0], lbPath, lb.Dims[0])
	}
	for i, l := range lb.Data {
		if l > 9 {
			return nil, fmt.Errorf("%s: label %d of item %d is not a digit", lbPath, l, i)
		}
	}
	return &Set{Rows: im.Dims[1], Cols: im.Dims[2], Images: im.Data, Labels: lb.Data}, nil
}
