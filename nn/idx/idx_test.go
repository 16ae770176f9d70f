package idx

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() *File {
	f := &File{Type: UByte, Dims: []int{3, 2, 4}}
	for i := 0; i < 24; i++ {
		f.Data = append(f.Data, byte(i*11))
	}
	return f
}

func TestRoundTripRawAndGzip(t *testing.T) {
	for _, gz := range []bool{false, true} {
		var buf bytes.Buffer
		var err error
		if gz {
			err = EncodeGzip(&buf, sample())
		} else {
			err = Encode(&buf, sample())
		}
		if err != nil {
			t.Fatal(err)
		}
		if !gz {
			// Header bytes as the MNIST page specifies: magic 0x00000803, then dims big-endian.
			want := []byte{0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 4}
			if !bytes.Equal(buf.Bytes()[:16], want) {
				t.Fatalf("header % x, want % x", buf.Bytes()[:16], want)
			}
		}
		f, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("gzip=%v: %v", gz, err)
		}
		s := sample()
		if f.Type != s.Type || len(f.Dims) != 3 || f.Dims[0] != 3 || f.Dims[1] != 2 || f.Dims[2] != 4 || !bytes.Equal(f.Data, s.Data) {
			t.Fatalf("gzip=%v: got %+v", gz, f)
		}
	}
}

func TestCorruptInputErrors(t *testing.T) {
	var raw bytes.Buffer
	if err := Encode(&raw, sample()); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	if err := EncodeGzip(&gz, sample()); err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), gz.Bytes()...)
	flipped[len(flipped)-6] ^= 0xff // inside the CRC-32 trailer
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "header: truncated"},
		{"bad magic", append([]byte{1, 2}, raw.Bytes()[2:]...), "bad magic"},
		{"bad type", append([]byte{0, 0, 7}, raw.Bytes()[3:]...), "unknown element type"},
		{"zero dims", []byte{0, 0, 8, 0}, "zero dimensions"},
		{"truncated dims", raw.Bytes()[:9], "dimension 1: truncated"},
		{"truncated data", raw.Bytes()[:20], "data truncated: 4 of 24 bytes"},
		{"trailing", append(append([]byte(nil), raw.Bytes()...), 9), "trailing bytes"},
		{"huge", []byte{0, 0, 8, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "exceed"},
		{"truncated gzip", gz.Bytes()[:len(gz.Bytes())-10], "truncated"},
		{"gzip checksum", flipped, "gzip"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "train-images-idx3-ubyte")
	if err := os.WriteFile(p, []byte{0, 0, 8, 1, 0, 0, 0, 5, 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error %v should name %s and say truncated", err, p)
	}
}

func TestEncodeRejectsInconsistentFiles(t *testing.T) {
	var buf bytes.Buffer
	for _, f := range []*File{
		{Type: 3, Dims: []int{1}, Data: []byte{0}},
		{Type: UByte, Dims: nil},
		{Type: UByte, Dims: []int{2}, Data: []byte{0}},
		{Type: Int32, Dims: []int{1}, Data: []byte{0}},
	} {
		if err := Encode(&buf, f); err == nil {
			t.Errorf("Encode(%+v) accepted", f)
		}
	}
}

func FuzzParse(f *testing.F) {
	var raw, gz bytes.Buffer
	_ = Encode(&raw, sample())
	_ = EncodeGzip(&gz, sample())
	f.Add(raw.Bytes())
	f.Add(gz.Bytes())
	f.Add([]byte{0, 0, 0x0d, 1, 0, 0, 0, 1, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			return
		}
		// Whatever parses must re-encode to an equivalent file.
		var out bytes.Buffer
		if err := Encode(&out, file); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := Parse(out.Bytes())
		if err != nil || !bytes.Equal(again.Data, file.Data) || len(again.Dims) != len(file.Dims) {
			t.Fatalf("round trip changed the file: %v", err)
		}
	})
}
