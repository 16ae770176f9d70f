package cfront

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to the whole front end (lexer, preprocessor, parser,
// lowering): it must return a kernel or an error with a position, never panic or hang.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*.cc")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("#define F(a,b) a+b\nvoid k(input_window_int16 * w) { int x = F(1,2); }")
	f.Add("void k(int16 * p) { v16int16 v = *(v16int16*)&p[4]; *(v16int16*)&p[0] = v; }")
	f.Add("#if 1\n#else\n#endif\nvoid k() { for (int i = 0; i < 4; i++) chess_loop_range(4,) {} }")
	f.Fuzz(func(t *testing.T, src string) {
		k, err := ParseKernel("fuzz.cc", []byte(src), []string{"N=4"})
		if err != nil {
			if _, ok := err.(*Error); !ok && err.Error() == "" {
				t.Fatalf("empty error")
			}
			return
		}
		if err := k.Validate(); err != nil {
			t.Fatalf("front end accepted a kernel that does not validate: %v\n%s", err, src)
		}
	})
}
