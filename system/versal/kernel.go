package versal

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// The kernels: the seeds' own micro-kernels as transcribed in the AIE1 testdata folder (found
// in the source tree, see SeedKernelDir), and sumac's block variants embedded from kernels/.

//go:embed kernels/*.cc
var embedded embed.FS

// SeedKernelDir is the folder holding the seeds' transcribed kernels (lei_gemm_16x4.cc,
// lei_conv_8x8_u8.cc). Empty: found by walking up from the working directory to the module
// root and taking target/aie1/testdata.
var SeedKernelDir = ""

const seedKernelRel = "target/aie1/testdata"

func seedKernelDir() (string, error) {
	if SeedKernelDir != "" {
		return SeedKernelDir, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, seedKernelRel, "lei_gemm_16x4.cc")); err == nil {
			return filepath.Join(dir, seedKernelRel), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the seeds' kernels (target/aie1/testdata/lei_*.cc) are not in this directory or above it: run from the sumac source tree or set the kernel folder")
		}
		dir = parent
	}
}

// Kernel is one compiled kernel configuration: the source, its -D values, the region sizes,
// the VLIW program and the cycles of one call from the cycle simulator (the subset has no
// data-dependent control flow, so every call of a configuration takes the same cycles; the
// functional runs below confirm it call by call).
type Kernel struct {
	File      string
	Defines   []string
	Sizes     map[string]int
	Cycles    int64
	MACs      int64 // MACs one call executes
	Breakdown []backend.CostItem
	Params    []string // window and buffer parameters in signature order

	k    *kernel.Kernel
	prog *backend.Program
}

var kernelCache sync.Map // key -> *Kernel or error

// LoadKernel compiles file (a seed kernel by its base name, e.g. "lei_gemm_16x4.cc", or an
// embedded one, "kernels/gemm_16x4_block.cc") with defines, and times one call on the cycle
// simulator.
func LoadKernel(file string, defines ...string) (*Kernel, error) {
	key := file + "|" + strings.Join(defines, ",")
	if v, ok := kernelCache.Load(key); ok {
		if err, bad := v.(error); bad {
			return nil, err
		}
		return v.(*Kernel), nil
	}
	k, err := loadKernel(file, defines)
	if err != nil {
		kernelCache.Store(key, err)
		return nil, err
	}
	kernelCache.Store(key, k)
	return k, nil
}

func loadKernel(file string, defines []string) (*Kernel, error) {
	var src []byte
	var err error
	if strings.HasPrefix(file, "kernels/") {
		src, err = embedded.ReadFile(file)
	} else {
		var dir string
		if dir, err = seedKernelDir(); err == nil {
			src, err = os.ReadFile(filepath.Join(dir, file))
		}
	}
	if err != nil {
		return nil, err
	}
	k, err := cfront.ParseKernel(file, src, defines)
	if err != nil {
		return nil, err
	}
	sizes, err := interp.Measure(k, interp.Config{})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	p, err := backend.Compile(k, backend.Options{Sizes: sizes})
	if err != nil {
		return nil, fmt.Errorf("%s %s: the AIE1 backend cannot compile it: %v", file, strings.Join(defines, " "), err)
	}
	kk := &Kernel{File: file, Defines: defines, Sizes: sizes, k: k, prog: p, Breakdown: p.Breakdown}
	for _, prm := range k.Params {
		if prm.Type.IsWindow() || prm.Type.IsPointer() {
			kk.Params = append(kk.Params, prm.Name)
		}
	}
	data := map[string][]byte{}
	for n, s := range sizes {
		data[n] = make([]byte, s)
	}
	r, err := cyclesim.Run(p, cyclesim.Config{Data: data, Sizes: sizes})
	if err != nil {
		return nil, fmt.Errorf("%s: cycle simulator: %v", file, err)
	}
	kk.Cycles, kk.MACs = r.Cycles, r.MACs
	return kk, nil
}

// Run executes one call on the cycle simulator with the given region contents and returns
// the final contents; it fails if the call took other cycles than the timed one.
func (k *Kernel) Run(data map[string][]byte, round num.Round, sat num.Sat) (map[string][]byte, error) {
	for n, s := range k.Sizes {
		if len(data[n]) != s {
			return nil, fmt.Errorf("%s: region %s has %d bytes, the kernel uses %d", k.File, n, len(data[n]), s)
		}
	}
	r, err := cyclesim.Run(k.prog, cyclesim.Config{Data: data, Sizes: k.Sizes, Round: round, Sat: sat})
	if err != nil {
		return nil, err
	}
	if r.Cycles != k.Cycles {
		return nil, fmt.Errorf("%s: a call took %d cycles, the timed call %d (data-dependent timing?)", k.File, r.Cycles, k.Cycles)
	}
	return r.Data, nil
}

// String names the kernel and its -D values.
func (k *Kernel) String() string {
	d := append([]string(nil), k.Defines...)
	sort.Strings(d)
	return strings.TrimSpace(k.File + " " + strings.Join(d, " "))
}
