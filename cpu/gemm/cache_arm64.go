package gemm

// defaultCachesArch: an Arm Neoverse N1 core as AWS Graviton2 and Ampere Altra build it ("Arm
// Neoverse N1 Core Technical Reference Manual": L1 data cache 64 KiB 4-way, private L2 of
// 256 KiB, 512 KiB or 1 MiB 8-way, 64-byte lines; both chips take the 1 MiB L2 and a
// 32 MiB system-level cache shared by all cores). Neoverse V1 (Graviton3) has the same L1d
// and L2. Used where Linux's sysfs does not describe the caches (macOS, other systems);
// an Apple M1 performance core has a larger L1d (128 KiB) and a shared 12 MiB L2, for
// which these sizes block conservatively.
var defaultCachesArch = CacheInfo{
	L1:     Cache{Level: 1, Size: 64 << 10, Ways: 4, Line: 64},
	L2:     Cache{Level: 2, Size: 1 << 20, Ways: 8, Line: 64},
	L3:     Cache{Level: 3, Size: 32 << 20, Ways: 16, Line: 64},
	Source: "default",
}
