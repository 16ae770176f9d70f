//go:build amd64 && !noasm

package gemm

func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// cpuidCaches reads the cache hierarchy from CPUID: leaf 0x8000001D on AMD (AMD64 APM
// vol. 3, "CPUID Fn8000_001D Cache Topology Information", present when
// Fn8000_0001 ECX bit 22 TopologyExtensions is set) and leaf 4 on Intel (Intel SDM vol. 2A,
// CPUID "Deterministic Cache Parameters Leaf"); both use the same register layout.
func cpuidCaches() []Cache {
	_, b, c, d := cpuid(0, 0)
	vendor := string(le32(b)) + string(le32(d)) + string(le32(c))
	var leaf uint32
	switch vendor {
	case "AuthenticAMD", "HygonGenuine":
		maxExt, _, _, _ := cpuid(0x80000000, 0)
		if maxExt < 0x8000001D {
			return nil
		}
		if _, _, ecx, _ := cpuid(0x80000001, 0); ecx&(1<<22) == 0 {
			return nil
		}
		leaf = 0x8000001D
	case "GenuineIntel":
		if maxStd, _, _, _ := cpuid(0, 0); maxStd < 4 {
			return nil
		}
		leaf = 4
	default:
		return nil
	}
	var out []Cache
	for sub := uint32(0); sub < 16; sub++ {
		eax, ebx, ecx, _ := cpuid(leaf, sub)
		typ := eax & 0x1f // 0: no more caches, 1: data, 2: instruction, 3: unified
		if typ == 0 {
			break
		}
		if typ == 2 {
			continue
		}
		ways := int(ebx>>22) + 1
		parts := int(ebx>>12&0x3ff) + 1
		line := int(ebx&0xfff) + 1
		sets := int(ecx) + 1
		out = append(out, Cache{Level: int(eax >> 5 & 7), Size: ways * parts * line * sets, Ways: ways, Line: line})
	}
	return out
}

func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
