package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/sumacdev/sumac/target"
	"github.com/sumacdev/sumac/target/device"
)

// `sumac help targets [--json]`: every registered target with its datapaths, memories, tile
// model and (host CPU) the kernel sets CPUID picks.
func init() {
	topics["targets"] = func(env *cmdEnv, args []string) error {
		asJSON := false
		for _, a := range args {
			switch a {
			case "--json", "-json":
				asJSON = true
			default:
				return usageErr("unexpected argument %q (want --json or nothing)", a)
			}
		}
		ts := target.All()
		if asJSON {
			return writeJSON(env.stdout, targetsJSON(ts))
		}
		for i, t := range ts {
			if i > 0 {
				fmt.Fprintln(env.stdout)
			}
			printTarget(env, t)
		}
		return nil
	}
}

func printTarget(env *cmdEnv, t *target.Target) {
	w := env.stdout
	fmt.Fprintf(w, "%s: %s\n", t.Name, t.Summary)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  datapath\tlanes x cols\tMACs/cycle\taccumulator\tinstruction")
	for _, d := range t.Datapaths() {
		peak := "measured"
		if d.MACsPerCycle > 0 {
			peak = fmt.Sprint(d.MACsPerCycle)
		}
		fmt.Fprintf(tw, "  %s\t%d x %d\t%s\t%s\t%s\n", d.Type, d.Lanes, d.Cols, peak, d.Accumulator, d.Note)
	}
	tw.Flush()
	if ms := t.Memories(); len(ms) > 0 {
		fmt.Fprintln(w, "  memory:")
		for _, m := range ms {
			fmt.Fprintf(w, "    %-17s %-7s %s\n", m.Name, sizeText(m.Bytes), m.Note)
		}
	}
	if m := t.Tile; m != nil {
		core := device.Kind(device.Core)
		dma := m.DMA(core)
		fmt.Fprintf(w, "  device %s: %d columns x %d rows; core tile: %s data, %s program, %d locks (0..%d), DMA %d S2MM + %d MM2S x %d bits, %d BDs; cascade %d bits\n",
			m.Device(), m.Columns(), m.Rows(), sizeText(m.DataMemBytes(core)), sizeText(m.ProgMemBytes()), m.Locks(core), m.MaxLockValue(),
			dma.S2MM, dma.MM2S, dma.ChannelBits, dma.BDs, m.CascadeBits())
	}
	if t.Compiler != nil {
		fmt.Fprintf(w, "  conv2d compiler: sumac compile / tune --target %s\n", t.Name)
	}
	if t.KernelSets != nil {
		fmt.Fprintln(w, "  kernel sets (CPUID):")
		for _, k := range t.KernelSets() {
			mark := " "
			if k.Selected {
				mark = "*"
			}
			fmt.Fprintf(w, "  %s %-9s %s  [%s]\n", mark, k.Name, k.Kernels, k.Why)
		}
	}
}

func sizeText(b int) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

func targetsJSON(ts []*target.Target) []map[string]any {
	var out []map[string]any
	for _, t := range ts {
		o := map[string]any{"name": t.Name, "summary": t.Summary, "datapaths": t.Datapaths(), "memories": t.Memories(), "compiler": t.Compiler != nil}
		if t.KernelSets != nil {
			o["kernel_sets"] = t.KernelSets()
		}
		if m := t.Tile; m != nil {
			core := device.Kind(device.Core)
			o["device"] = map[string]any{"name": m.Device(), "columns": m.Columns(), "rows": m.Rows(),
				"core_data_bytes": m.DataMemBytes(core), "program_bytes": m.ProgMemBytes(), "banks": m.MemBanks(core),
				"locks": m.Locks(core), "dma": m.DMA(core), "cascade_bits": m.CascadeBits()}
		}
		out = append(out, o)
	}
	return out
}
