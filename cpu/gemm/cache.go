package gemm

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Cache describes one data (or unified) cache level of the processor.
type Cache struct {
	Level int // 1, 2, 3
	Size  int // bytes (per instance: per core for L1/L2, the whole slice for L3)
	Ways  int // associativity; 0 when unknown
	Line  int // line size in bytes
}

// CacheInfo is the data-cache hierarchy that block sizes are derived from.
type CacheInfo struct {
	L1, L2, L3 Cache
	Source     string // "cpuid", "sysfs" or "default"
}

// defaultCaches is used when neither CPUID nor sysfs answer (defaultCachesArch: the sizes
// of a typical core of this architecture, in cache_arm64.go and cache_default.go).
var defaultCaches = defaultCachesArch

var (
	cacheOnce sync.Once
	caches    CacheInfo
)

// Caches returns the processor's data caches, detected once: CPUID on amd64, then
// /sys/devices/system/cpu/cpu0/cache (Linux, both architectures), then defaults for any
// level still unknown (on arm64 outside Linux, e.g. macOS, always the defaults).
func Caches() CacheInfo {
	cacheOnce.Do(func() {
		caches = merge(cpuidCaches(), "cpuid")
		if caches.Source == "default" {
			caches = merge(sysfsCaches("/sys/devices/system/cpu/cpu0/cache"), "sysfs")
		}
	})
	return caches
}

// merge fills a CacheInfo from a detected list; levels missing from it keep the defaults,
// and Source names the detector only if it found the L1 and L2.
func merge(list []Cache, source string) CacheInfo {
	ci := defaultCaches
	found := 0
	for _, c := range list {
		if c.Size <= 0 || c.Line <= 0 {
			continue
		}
		switch c.Level {
		case 1:
			ci.L1, found = c, found|1
		case 2:
			ci.L2, found = c, found|2
		case 3:
			ci.L3 = c
		}
	}
	if found == 3 {
		ci.Source = source
	}
	return ci
}

// sysfsCaches reads Linux's cache description (Documentation/ABI/testing/sysfs-devices-system-cpu,
// "/sys/devices/system/cpu/cpuX/cache/indexY/").
func sysfsCaches(dir string) []Cache {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Cache
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(dir, e.Name(), name))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(b))
		}
		if t := read("type"); t != "Data" && t != "Unified" {
			continue
		}
		level, err1 := strconv.Atoi(read("level"))
		size, err2 := parseSize(read("size"))
		if err1 != nil || err2 != nil {
			continue
		}
		ways, _ := strconv.Atoi(read("ways_of_associativity"))
		line, err := strconv.Atoi(read("coherency_line_size"))
		if err != nil || line <= 0 {
			line = 64
		}
		out = append(out, Cache{Level: level, Size: size, Ways: ways, Line: line})
	}
	return out
}

// parseSize parses sysfs sizes such as "32K", "512K", "32768K" or "8M".
func parseSize(s string) (int, error) {
	mul := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mul, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mul, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mul, s = 1<<30, s[:len(s)-1]
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > 1<<40/mul {
		return 0, strconv.ErrSyntax
	}
	return v * mul, nil
}
