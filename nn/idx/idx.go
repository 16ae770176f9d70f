// Package idx reads and writes the IDX file format of the MNIST database: a 4-byte magic number
// (two zero bytes, a type code, the number of dimensions), the dimensions as big-endian uint32,
// then the data in row-major order. The format is described on the MNIST database page
// (LeCun, Cortes, Burges, "THE MNIST DATABASE of handwritten digits", section "FILE FORMATS").
// Files may be gzip-compressed; Read detects the gzip magic bytes and decompresses.
package idx

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Type codes of the IDX format (third byte of the magic number).
const (
	UByte   byte = 0x08
	SByte   byte = 0x09
	Int16   byte = 0x0B
	Int32   byte = 0x0C
	Float32 byte = 0x0D
	Float64 byte = 0x0E
)

// elemSize is the size in bytes of one element of each type code.
func elemSize(t byte) int {
	switch t {
	case UByte, SByte:
		return 1
	case Int16:
		return 2
	case Int32, Float32:
		return 4
	case Float64:
		return 8
	}
	return 0
}

// MaxBytes bounds the data size Read accepts (1 GiB), so a corrupt header cannot make it
// allocate without limit.
const MaxBytes = 1 << 30

// File is one IDX file: the type code, the dimensions and the raw big-endian data.
type File struct {
	Type byte
	Dims []int
	Data []byte
}

// Len is the number of elements, the product of the dimensions.
func (f *File) Len() int {
	n := 1
	for _, d := range f.Dims {
		n *= d
	}
	return n
}

// Decode parses an IDX stream (already decompressed). The stream must end after the data.
func Decode(r io.Reader) (*File, error) {
	br := bufio.NewReader(r)
	var hdr [4]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, fmt.Errorf("header: %w", truncated(err))
	}
	if hdr[0] != 0 || hdr[1] != 0 {
		return nil, fmt.Errorf("bad magic number %02x%02x%02x%02x (not an IDX file)", hdr[0], hdr[1], hdr[2], hdr[3])
	}
	size := elemSize(hdr[2])
	if size == 0 {
		return nil, fmt.Errorf("unknown element type 0x%02x", hdr[2])
	}
	nd := int(hdr[3])
	if nd == 0 {
		return nil, errors.New("zero dimensions")
	}
	f := &File{Type: hdr[2], Dims: make([]int, nd)}
	total := uint64(size)
	for i := range f.Dims {
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("dimension %d: %w", i, truncated(err))
		}
		d := binary.BigEndian.Uint32(b[:])
		f.Dims[i] = int(d)
		total *= uint64(d)
		if total > MaxBytes {
			return nil, fmt.Errorf("dimensions %v exceed the %d-byte limit", f.Dims[:i+1], MaxBytes)
		}
	}
	// Read in chunks so a header that promises more data than the stream holds costs no more
	// memory than the stream itself.
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, br, int64(total))
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("data truncated: %d of %d bytes", n, total)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("data truncated: stream ends early after %d of %d bytes", n, total)
		}
		return nil, fmt.Errorf("data: %w", err)
	}
	f.Data = buf.Bytes()
	if _, err := br.ReadByte(); err == nil {
		return nil, fmt.Errorf("trailing bytes after %d bytes of data", total)
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("after data: %w", truncated(err))
	}
	return f, nil
}

func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated")
	}
	return err
}

// gzipMagic starts every gzip stream (RFC 1952 section 2.3.1).
var gzipMagic = []byte{0x1f, 0x8b}

// Parse decodes an IDX file held in memory, decompressing it first if it is gzipped.
func Parse(b []byte) (*File, error) {
	if bytes.HasPrefix(b, gzipMagic) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		// Bound the decompressed size: header (4 + 4*255) plus MaxBytes of data.
		lr := &io.LimitedReader{R: zr, N: MaxBytes + 4 + 4*255 + 1}
		f, err := Decode(lr)
		if err != nil {
			return nil, gzipErr(err)
		}
		if err := zr.Close(); err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return f, nil
	}
	return Decode(bytes.NewReader(b))
}

// gzipErr names gzip corruption as such (a checksum or flate error surfaces from Decode's reads).
func gzipErr(err error) error {
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		return fmt.Errorf("gzip: %w", err)
	}
	return err
}

// ReadFile reads and parses an IDX file (raw or gzipped). Errors name the file.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Encode writes f in IDX format (uncompressed).
func Encode(w io.Writer, f *File) error {
	size := elemSize(f.Type)
	if size == 0 {
		return fmt.Errorf("idx: unknown element type 0x%02x", f.Type)
	}
	if len(f.Dims) == 0 || len(f.Dims) > 255 {
		return fmt.Errorf("idx: %d dimensions (need 1..255)", len(f.Dims))
	}
	for _, d := range f.Dims {
		if d < 0 || uint64(d) > 0xffffffff {
			return fmt.Errorf("idx: dimension %d out of range", d)
		}
	}
	if len(f.Data) != f.Len()*size {
		return fmt.Errorf("idx: %d data bytes for dimensions %v (want %d)", len(f.Data), f.Dims, f.Len()*size)
	}
	hdr := []byte{0, 0, f.Type, byte(len(f.Dims))}
	for _, d := range f.Dims {
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(d))
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err := w.Write(f.Data)
	return err
}

// EncodeGzip writes f in IDX format, gzip-compressed with no name or time in the gzip header, so
// the same content gives the same bytes for a given Go release.
func EncodeGzip(w io.Writer, f *File) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if err := Encode(zw, f); err != nil {
		return err
	}
	return zw.Close()
}
