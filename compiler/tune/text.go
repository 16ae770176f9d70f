package tune

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints tuning results as sumac tune does: a table of the convolutions (schedule
// fields beside seed 000's choice), one of the contractions with their refusals, notes, and
// the geometric mean per type.
func WriteText(w io.Writer, rs []Result) {
	var convs, cons []Result
	for _, r := range rs {
		if r.GEMM != nil {
			cons = append(cons, r)
		} else {
			convs = append(convs, r)
		}
	}
	if len(cons) > 0 {
		writeContractions(w, cons)
	}
	if len(convs) == 0 {
		writeNotes(w, rs)
		return
	}
	rs = convs
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tdtype\tblock\tO\tW\tI\tvec\tSW\tux\tuy\tuk\torder\tfuse\tcycles\tMACs/cyc\tpct_peak\troofline\tverified\tpaper: vec ux uy uk order")
	for _, r := range rs {
		s := r.Sched
		paper := "-"
		if p := r.Paper; p != nil {
			paper = fmt.Sprintf("%s %d %d %d %s", p.VectorLoop, p.UnrollX, p.UnrollY, p.UnrollK, p.LoopOrder)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%.2f\t%.1f\t%.2f\t%v\t%s\n",
			r.Name, r.DType, strings.ReplaceAll(r.Block, " ", ","), s.Out, s.W, s.In, s.Vec, r.SWLoop, s.UX, s.UY, s.UK, s.Order, s.Fusion,
			r.Cycles, r.MACsPerCycle, r.PctPeak, r.Roofline, r.Verified, paper)
	}
	tw.Flush()
	writeNotes(w, rs)
}

// writeContractions prints the gemm and einsum results: the chosen block and its cycles,
// and the reasons candidates were refused.
func writeContractions(w io.Writer, rs []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tdtype\tschedule\tcycles\tMACs/cyc\tpct_peak\troofline\tspills\tlegal/candidates\tverified")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.2f\t%.1f\t%.2f\t%d\t%d/%d\t%v\n", r.Name, r.DType, r.Schedule, r.Cycles, r.MACsPerCycle, r.PctPeak, r.Roofline, r.Spills, r.Legal, r.Candidates, r.Verified)
	}
	tw.Flush()
	for _, r := range rs {
		for i, f := range r.Refused {
			if i == 3 {
				fmt.Fprintf(w, "refused (%s): %d more reasons\n", r.Name, len(r.Refused)-3)
				break
			}
			fmt.Fprintf(w, "refused (%s): %d candidates: %s\n", r.Name, f.Candidates, f.Reason)
		}
	}
}

func writeNotes(w io.Writer, rs []Result) {
	for _, r := range rs {
		if r.CallNote != "" {
			fmt.Fprintf(w, "note: %s: %s\n", r.Name, r.CallNote)
		}
		if r.PeelRegions > 0 {
			win := "packed"
			if r.PeelCycles < r.Cycles {
				win = "peeled"
			}
			fmt.Fprintf(w, "note: %s: padding packed %d cycles (zero border %d bytes), peeled %d cycles in %d regions (verified: %v): %s wins\n",
				r.Name, r.Cycles, r.PadBytes, r.PeelCycles, r.PeelRegions, r.PeelVerified, win)
		}
		if r.DupBytes > 0 {
			fmt.Fprintf(w, "note: %s: %d of the kernel's %d bytes duplicate the input (schedule dup=%d)\n", r.Name, r.DupBytes, r.Bytes, r.Sched.Dup)
		}
		if !r.Verified {
			fmt.Fprintf(w, "NOT VERIFIED: %s: %s\n", r.Name, r.VerifyNote)
		}
	}
	dts, g := Geomean(rs)
	for _, d := range dts {
		fmt.Fprintf(w, "geomean %s: %.2f MACs/cycle\n", d, g[d])
	}
	evaluated, stored := 0, 0
	for _, r := range rs {
		evaluated, stored = evaluated+r.Evaluated, stored+r.Stored
	}
	fmt.Fprintf(w, "candidates: %d evaluated in this run, %d taken from the store\n", evaluated, stored)
}

// WriteShardText prints what a sharded run put into the store at loc.
func WriteShardText(w io.Writer, rs []Result, loc string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tshard\tcandidates\tevaluated\tstored")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", r.Name, r.Shard, r.Candidates, r.Evaluated, r.Stored)
	}
	tw.Flush()
	_, err := fmt.Fprintf(w, "records in %s; 'sumac tune' without --shard chooses the winners from them\n", loc)
	return err
}
