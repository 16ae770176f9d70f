package cfront

// Config says how to read a kernel source file.
type Config struct {
	// Defines are -D options: NAME or NAME=VALUE.
	Defines []string
	// Instance names the kernel to lower when the file does not define exactly one: a
	// function ("fir"), a function template instance ("SecondOrderSection<1>"), a kernel class
	// or class template instance with its constructor arguments
	// ("MacFloat<float, 28, 128, 1>", "Scale<int16>(3)"), as the ADF graph's
	// kernel::create / kernel::create_object would.
	Instance string
	// IncludeDirs are searched for #include "..." after the including file's directory, and
	// for #include <...>.
	IncludeDirs []string
	// ReadFile reads an included file (nil: os.ReadFile).
	ReadFile func(path string) ([]byte, error)
}
