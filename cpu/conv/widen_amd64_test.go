//go:build amd64 && !noasm

package conv

// withAVX2 sets whether widenRange may use AVX2 (only to false and back) and reports
// whether the setting changed anything.
func withAVX2(on bool) bool {
	had := hasAVX2
	hasAVX2 = on && cpuHasAVX2
	return had != hasAVX2
}

var cpuHasAVX2 = hasAVX2
