package report

// The kinds of the documents sumac wrote before documents named themselves (TagField). Their
// shapes are kept as they are (golden tests and scripts read them): each is recognised by the
// fields only it has. A test runs every command's --json and checks that exactly its kind
// matches (cmd/sumac/cmd_report_test.go).
func init() {
	for _, k := range []Kind{
		{Name: "tune", Writer: "sumac tune --json",
			Match: arrayOf("name", "spec", "schedule", "cycles", "macs_per_cycle", "roofline_macs_per_cycle")},
		{Name: "bench-cpu", Writer: "sumac bench cpu --json",
			Match: arrayOf("name", "op", "dtype", "isa", "gflops", "ref_peak_gflops")},
		{Name: "peers", Writer: "bench/peers: go run . --json",
			Match: arrayOf("name", "op", "dtype", "shape", "sumac_gflops")},
		{Name: "peers-check", Writer: "bench/peers: go run . --check --json",
			Match: arrayOf("name", "dtype", "column", "ok")},
		{Name: "layer-times", Writer: "sumac train mnist --layer-times --json",
			Match: arrayOf("layer", "pass", "base_ns", "simd_ns", "ratio")},
		{Name: "train", Writer: "sumac train mnist --json",
			Match: objectWith("algorithm", "losses", "epoch_seconds")},
		{Name: "sim", Writer: "sumac sim --json",
			Match: objectWith("kernel", "windows", "macs", "outputs_checked", "emulation")},
		{Name: "sim-emit", Writer: "sumac sim --emit cpp|ir --json",
			Match: func(v any) bool {
				o, ok := v.(map[string]any)
				return ok && len(o) == 2 && has(o, "kernel") && (has(o, "cpp") || has(o, "ir"))
			}},
		{Name: "compile", Writer: "sumac compile --json",
			Match: objectWith("spec", "schedule", "emit", "text", "cycles", "verified")},
		{Name: "compile-triplets", Writer: "sumac compile --emit triplets --json",
			Match: objectWith("spec", "schedule", "triplets")},
		{Name: "compile-explain", Writer: "sumac compile --explain --json",
			Match: func(v any) bool { return arrayOf("schedule", "legal")(v) && !arrayOf("cycles")(v) }},
		{Name: "spec", Writer: "sumac spec --json",
			Match: objectWith("spec", "op", "kind", "atype", "macs")},
		{Name: "suite", Writer: "sumac suite list SUITE --json",
			Match: arrayOf("name", "spec", "op", "kind", "atype", "macs")},
		{Name: "suite-list", Writer: "sumac suite list --json",
			Match: arrayOf("name", "description", "workloads")},
		{Name: "report", Writer: "sumac report --json"}, // tagged
	} {
		RegisterKind(k)
	}
}

func has(o map[string]any, k string) bool { _, ok := o[k]; return ok }

// objectWith matches an object that has every key.
func objectWith(keys ...string) func(any) bool {
	return func(v any) bool {
		o, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, k := range keys {
			if !has(o, k) {
				return false
			}
		}
		return true
	}
}

// arrayOf matches a non-empty array of objects that each have every key.
func arrayOf(keys ...string) func(any) bool {
	obj := objectWith(keys...)
	return func(v any) bool {
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			return false
		}
		for _, e := range a {
			if !obj(e) {
				return false
			}
		}
		return true
	}
}
