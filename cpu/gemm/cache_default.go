//go:build !arm64

package gemm

// defaultCachesArch: the sizes of this workplace's Zen3 machines (HOST-ZEN3: L1d 32 KiB, L2
// 512 KiB per core, L3 32 MiB shared), which are also typical of current x86 server cores.
var defaultCachesArch = CacheInfo{
	L1:     Cache{Level: 1, Size: 32 << 10, Ways: 8, Line: 64},
	L2:     Cache{Level: 2, Size: 512 << 10, Ways: 8, Line: 64},
	L3:     Cache{Level: 3, Size: 32 << 20, Ways: 16, Line: 64},
	Source: "default",
}
