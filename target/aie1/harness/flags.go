package harness

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// ParseFlags reads the NAME=VALUE options of `sumac sim` (--window NAME=BYTES, --input
// NAME=FILE, --scalar NAME=VALUE) into opt, checking that each names a parameter of the right
// kind and that every scalar parameter has a value. A float scalar's value is written as a
// decimal number.
func ParseFlags(k *kernel.Kernel, opt *Options, windows, inputs, scalars []string) error {
	opt.Sizes, opt.Inputs, opt.Scalars = map[string]int{}, map[string][]byte{}, map[string]int64{}
	region := func(flagName, name string, streamOK bool) error {
		p, err := Param(k, name)
		if err != nil {
			return fmt.Errorf("%s %s: %w", flagName, name, err)
		}
		if !p.Type.IsWindow() && !p.Type.IsPointer() && !(streamOK && p.Type.IsStream() && !p.Type.Out) {
			return fmt.Errorf("%s %s: %s is a %v, not a window or buffer", flagName, name, name, p.Type)
		}
		return nil
	}
	for _, w := range windows {
		name, val, ok := strings.Cut(w, "=")
		n, err := strconv.Atoi(val)
		if !ok || err != nil || n < 0 {
			return fmt.Errorf("--window %q: want NAME=BYTES", w)
		}
		if err := region("--window", name, true); err != nil {
			return err
		}
		opt.Sizes[name] = n
	}
	for _, in := range inputs {
		name, path, ok := strings.Cut(in, "=")
		if !ok {
			return fmt.Errorf("--input %q: want NAME=FILE", in)
		}
		if err := region("--input", name, true); err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n, ok := opt.Sizes[name]; ok && len(b) > n {
			return fmt.Errorf("--input %s: %d bytes for a %d-byte region", name, len(b), n)
		}
		opt.Inputs[name] = b
	}
	for _, sc := range scalars {
		name, val, ok := strings.Cut(sc, "=")
		if !ok {
			return fmt.Errorf("--scalar %q: want NAME=VALUE", sc)
		}
		p, err := Param(k, name)
		if err != nil {
			return fmt.Errorf("--scalar %s: %w", name, err)
		}
		switch {
		case p.Type.IsIntScalar():
			v, err := strconv.ParseInt(val, 0, 64)
			if err != nil {
				return fmt.Errorf("--scalar %q: want NAME=INTEGER", sc)
			}
			opt.Scalars[name] = v
		case p.Type.IsScalar():
			f, err := strconv.ParseFloat(val, 32)
			if err != nil {
				return fmt.Errorf("--scalar %q: want NAME=NUMBER", sc)
			}
			opt.Scalars[name] = int64(math.Float32bits(float32(f)))
		default:
			return fmt.Errorf("--scalar %s: %s is a %v, not a scalar parameter", name, name, p.Type)
		}
	}
	for _, p := range k.Params {
		if _, ok := opt.Scalars[p.Name]; p.Type.IsScalar() && !ok {
			return fmt.Errorf("kernel %s needs a value for its scalar parameter %s: --scalar %s=VALUE", k.Name, p.Name, p.Name)
		}
	}
	return nil
}

// ParsePLIO reads the --plio PORT=WIDTH[@MHZ] options of `sumac sim` into opt.PLIO: PORT is a
// stream parameter's name or "all" (every stream parameter but cascades), WIDTH the PLIO's bits
// (32, 64 or 128) and MHZ its PL clock (default: cyclesim.DefaultPLMHz, a quarter of the AI
// Engine clock, UG1079). A later option for a port replaces an earlier one.
func ParsePLIO(k *kernel.Kernel, opt *Options, specs []string) error {
	for _, spec := range specs {
		name, val, ok := strings.Cut(spec, "=")
		if !ok || name == "" {
			return fmt.Errorf("--plio %q: want PORT=WIDTH[@MHZ]", spec)
		}
		width, freq, hasFreq := strings.Cut(val, "@")
		var pl cyclesim.PLIO
		var err error
		if pl.Bits, err = strconv.Atoi(width); err != nil {
			return fmt.Errorf("--plio %q: width %q is not a number of bits (32, 64 or 128)", spec, width)
		}
		if hasFreq {
			if pl.MHz, err = strconv.ParseFloat(freq, 64); err != nil || pl.MHz <= 0 {
				return fmt.Errorf("--plio %q: clock %q is not a frequency in MHz", spec, freq)
			}
		}
		if err := pl.Valid(); err != nil {
			return fmt.Errorf("--plio %q: %w", spec, err)
		}
		var ports []string
		if name == "all" {
			for _, p := range k.Params {
				if p.Type.IsStream() && !p.Type.IsCascade() {
					ports = append(ports, p.Name)
				}
			}
			if len(ports) == 0 {
				return fmt.Errorf("--plio %q: kernel %s has no stream parameter", spec, k.Name)
			}
		} else {
			p, err := Param(k, name)
			if err != nil {
				return fmt.Errorf("--plio %s: %w", name, err)
			}
			if !p.Type.IsStream() || p.Type.IsCascade() {
				return fmt.Errorf("--plio %s: %s is a %v, not a stream", name, name, p.Type)
			}
			ports = []string{name}
		}
		if opt.PLIO == nil {
			opt.PLIO = map[string]cyclesim.PLIO{}
		}
		for _, n := range ports {
			opt.PLIO[n] = pl
		}
	}
	return nil
}
