package target

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/target/device"
)

// HostName is the host CPU's target name.
const HostName = "host"

// hostKernelSets asks cpu/kernels which kernel sets this CPU runs (its CPUID test, read once at
// start, capped by kernels.MaxISAEnv).
func hostKernelSets() []KernelSet {
	avx2 := kernels.Accelerated()
	cap := " unless " + kernels.MaxISAEnv + " caps it"
	return []KernelSet{
		{Name: "avx512-vnni", Kernels: "I16ZV*, U8S8ZV*, S8U8ZV* (int16 and uint8 GEMM, convolution, depthwise: VPDPWSSD, VPDPBUSD)", Selected: kernels.Runs(kernels.ISAAVX512VNNI),
			Why: "amd64 with AVX-512F, AVX512_VNNI and AVX512VL saved by the OS" + cap},
		{Name: "avx512", Kernels: "F32Z*, F64ZTiles (float GEMM, convolution, depthwise)", Selected: kernels.Runs(kernels.ISAAVX512),
			Why: "amd64 with AVX-512F saved by the OS" + cap},
		{Name: "avx2-vnni", Kernels: "I16V*, U8S8V*, S8U8V* (the VNNI kernels on ymm)", Selected: kernels.Runs(kernels.ISAAVX2VNNI),
			Why: "amd64 with AVX2 and AVX-VNNI" + cap},
		{Name: "avx2+fma", Kernels: "F32, F64, I16, U8S8, S8U8 and their strided, window, indirect, depthwise and tile forms; element-wise", Selected: avx2,
			Why: "amd64 with AVX2 and FMA saved by the OS (not -tags noasm)"},
		{Name: "go", Kernels: "pure-Go fallbacks of every kernel", Selected: !avx2,
			Why: "any other CPU, or -tags noasm"},
	}
}

// hostDatapaths are the multiply-accumulate instructions the selected kernels use: lanes of
// the accumulator register (the register width over the accumulator's bits) x columns (the k
// values one instruction reduces into a lane: VPMADDWD adds 2 int16 products, VPMADDUBSW then
// VPMADDWD 4 uint8 x int8 ones; cpu/kernels' KGroup). MACs per cycle depend on the core's
// multiply pipes, not on CPUID: `sumac bench cpu` measures them (run_peak).
func hostDatapaths() []device.Datapath {
	bits, fbits := 0, 0
	switch {
	case kernels.AVX512():
		bits, fbits = 256, 512
	case kernels.Accelerated():
		bits, fbits = 256, 256
	}
	if bits == 0 {
		return []device.Datapath{{Type: "float32, float64, int16, uint8 x int8", Lanes: 1, Cols: 1, Note: "scalar Go fallbacks"}}
	}
	i16, u8 := "VPMADDWD", "VPMADDUBSW + VPMADDWD (pair sums saturate to int16)"
	switch kernels.ForDType("int16") {
	case kernels.ISAAVX512VNNI:
		bits, i16, u8 = 512, "VPDPWSSD", "VPDPBUSD (exact)"
	case kernels.ISAAVX2VNNI:
		i16, u8 = "VPDPWSSD (VEX)", "VPDPBUSD (VEX, exact)"
	}
	return []device.Datapath{
		{Type: "float32 x float32", Lanes: fbits / 32, Cols: 1, Accumulator: "float32", Note: "VFMADD231PS"},
		{Type: "float64 x float64", Lanes: fbits / 64, Cols: 1, Accumulator: "float64", Note: "VFMADD231PD"},
		{Type: "int16 x int16", Lanes: bits / 32, Cols: kernels.I16KGroup, Accumulator: "int32", Note: i16},
		{Type: "uint8 x int8", Lanes: bits / 32, Cols: kernels.U8KGroup, Accumulator: "int32", Note: u8},
	}
}

// hostMemories lists the caches of CPU 0 as Linux reports them (nothing elsewhere).
func hostMemories() []device.Memory {
	var out []device.Memory
	if runtime.GOOS != "linux" {
		return out
	}
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	for _, d := range dirs {
		read := func(f string) string {
			b, _ := os.ReadFile(filepath.Join(d, f))
			return strings.TrimSpace(string(b))
		}
		level, typ, size := read("level"), read("type"), read("size")
		if level == "" || size == "" || typ == "Instruction" {
			continue
		}
		n, unit := size, 1
		switch {
		case strings.HasSuffix(size, "K"):
			n, unit = strings.TrimSuffix(size, "K"), 1<<10
		case strings.HasSuffix(size, "M"):
			n, unit = strings.TrimSuffix(size, "M"), 1<<20
		}
		v, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		out = append(out, device.Memory{Name: "L" + level + " " + strings.ToLower(typ), Bytes: v * unit, Note: "shared by CPUs " + read("shared_cpu_list")})
	}
	return out
}
