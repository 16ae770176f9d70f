package versal

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/target/aie1"
)

// Machine describes the Versal VC1902 / VCK190 around one AI Engine tile: clocks, the memory
// levels and the paths between them. Every field cites its source (keys of docs/versal.md's
// source list); several are uncertain, so every field can be changed with a JSON file
// (LoadMachine) or one at a time (Set, the CLI's --set key=value). Rates are converted to
// bytes per AIE cycle by the methods below; the model counts AIE cycles throughout.
type Machine struct {
	// AIEClockGHz: the VCK190's xcvc1902-2MP runs the array at 1.25 GHz (XD100 "Summary of AI
	// Engine Architecture"; UG1354 runs its DPU at 1250 MHz); DS957 lists 1.0-1.3 GHz by
	// speed grade. Seed 004 quotes 160 GMAC/s per tile at 1.25 GHz.
	AIEClockGHz float64 `json:"aie_clock_ghz"`
	// PLClockMHz: the PL clock feeding PLIO streams. AM009 "Performance" lists PL 500 MHz (half
	// the AIE clock) and UG1079 2022.2 ("Performance Comparison Between AI Engine/PL and AI
	// Engine/NoC Interfaces") quotes 4 GB/s per 64-bit PLIO at 500 MHz. The AIE compiler's
	// default --pl-freq is a quarter of the AIE clock (UG1076 "AI Engine Compiler Options").
	PLClockMHz float64 `json:"pl_clock_mhz"`
	// PLIOBits: width of one PL->AIE stream at the PL interface tile (AM009 "AI Engine to
	// Programmable Logic Interface": 8 x 64-bit streams in, 6 out per PL interface tile).
	PLIOBits int `json:"plio_bits"`
	// StreamBits: width of a stream-switch port and of a core stream inside the array, one
	// word per AIE cycle (AM009 "AXI4-Stream Interconnect"; "AI Engine Interfaces").
	StreamBits int `json:"stream_bits"`
	// Streams: PL or GMIO streams a placement may route into one tile's memory modules (its own
	// and its neighbours'), each landing on a separate tile DMA S2MM channel. Each memory
	// module has 2 S2MM channels (AM009 "AI Engine Memory Module"); a column carries at most 6
	// upward 32-bit streams (XD100 "Why Packet Switching?"), so 4 streams over the own and one
	// neighbour's module (two columns) is within both limits.
	Streams int `json:"streams"`
	// TileDMABits: one tile DMA channel moves one 32-bit word per AIE cycle; 2 S2MM + 2 MM2S
	// channels per memory module, 16 buffer descriptors, 16 locks (AM009 "AI Engine Memory
	// Module"; UG1079 "Memory and DMA Programming").
	TileDMABits int `json:"tile_dma_bits"`
	TileDMAS2MM int `json:"tile_dma_s2mm"`
	TileDMAMM2S int `json:"tile_dma_mm2s"`
	TileBDs     int `json:"tile_bds"`
	TileLocks   int `json:"tile_locks"`
	// LockCycles: acquiring and releasing one lock costs at least 7 cycles (XD100 "Interfaces").
	// A DMA transfer on a pre-programmed BD chain pays one acquire and one release per buffer.
	LockCycles int `json:"lock_cycles"`
	// ShimBDWords: 32-bit words of one AIE1 shim DMA buffer descriptor (aie-rt
	// XAIE_SHIMDMA_NUM_BD_WORDS = 5; tile BDs have 7). A GMIO transfer issued by the PS writes
	// them and one queue register over the array's AXI4-MM port.
	ShimBDWords int `json:"shim_bd_words"`
	// ShimChannelGBps: one shim DMA channel moves 4 GB/s between the array and the DMA
	// (UG1079 2022.2 "Performance Comparison ..."); the tutorial measures 3.3 GB/s for one
	// output port alone (XD100 "AI Engine GMIO Performance Profile").
	ShimChannelGBps float64 `json:"shim_channel_gbps"`
	// NoCPortGBps: the shim DMA's 128-bit AXI master into the NoC, 16 GB/s (XD100 "Buffer
	// Descriptors overview"); NMUs 16 GB/s each direction (UG1076 "Introduction").
	NoCPortGBps float64 `json:"noc_port_gbps"`
	// DDRGBps: aggregate GMIO traffic saturates near 10.9 GB/s on the VCK190, "limited by NoC
	// and DDR bandwidth" (XD100 "AI Engine GMIO Performance Profile", AIE-cycle method). The
	// VCK190's DDR4 peak was not found in a source.
	DDRGBps float64 `json:"ddr_gbps"`
	// DDRLatencyNs: time from a GMIO transfer's start to its first data through NoC and DDR.
	// Not found in a source: 0 hides it (a lower bound); set it to see the sensitivity.
	DDRLatencyNs float64 `json:"ddr_latency_ns"`
	// AXIMMGBps, AXIMMBits: the PS's memory-mapped path into the array: 32-bit AXI4-MM,
	// "designed max 1.5 GB/s", "not designed to carry the bulk of data" (AM009 "Array
	// Interface Memory-Mapped AXI4 Interconnect"). The ARM copy of seeds 001/004 and the PS's
	// register writes for GMIO use it.
	AXIMMGBps float64 `json:"axi_mm_gbps"`
	AXIMMBits int     `json:"axi_mm_bits"`
	// ARMStoreNs: time per 32-bit store of the ARM copy into tile memory. 0 means posted
	// stores at the AXI4-MM path's designed rate (4 B / 1.5 GB/s = 2.67 ns); a non-posted
	// (strongly ordered) store waits for its write response instead. No source gives that
	// round trip (docs/versal.md: seed 001's 8,309-cycle copy implies 11.5 ns).
	ARMStoreNs float64 `json:"arm_store_ns"`
	// TileMemBytes, NeighbourModules: 32 KB per tile; a core reaches its own module and three
	// neighbours' (AM009 "AI Engine Interfaces"; target/aie1 DataMemBytes, Neighbours).
	TileMemBytes     int `json:"tile_mem_bytes"`
	NeighbourModules int `json:"neighbour_modules"`
	// StackBytes, HeapBytes, SyncBytes: the AIE compiler's defaults, allocated in the tile's
	// data memory (UG1076 "AI Engine Compiler Options": stack 1024, heap 1024, sync buffer 32).
	StackBytes int `json:"stack_bytes"`
	HeapBytes  int `json:"heap_bytes"`
	SyncBytes  int `json:"sync_bytes"`
	// WindowBuffers: a window (buffer) port gets two buffers (ping-pong) and locks by default
	// (XD100 "single_aie_gmio"; UG1079 "Buffer vs. Stream in Data Communication").
	WindowBuffers int `json:"window_buffers"`
	// PLRAMBytes: BRAM 4.3 MB + URAM 16.3 MB (seed 001 Table I, s.III-B; UG1273 "Programmable
	// Logic"); a URAM port reads 72 bits per PL cycle (UG1273), so PL RAM never limits a
	// 64-bit PLIO.
	PLRAMBytes int64 `json:"pl_ram_bytes"`
	// DDRBytes: the VCK190 has 8 GB DDR4 + 8 GB LPDDR4 (UG1702 "Platform info for
	// xilinx_vck190_base"); seeds 001 and 004 say "2 GB DDR4".
	DDRBytes int64 `json:"ddr_bytes"`

	// The array above the tiles (array.go). Tile facts (rows, columns, locks, DMA channels,
	// neighbours, cascade width) come from the device model (target/aie1 VC1902), not from here.

	// PLIOColumns: interface tiles with a PL connection that a design can use, 39 of the 50
	// (AM009 "AI Engine to Programmable Logic Interface").
	PLIOColumns int `json:"plio_columns"`
	// PLInChannels, PLOutChannels: 64-bit PL->AIE and AIE->PL streams of one PL interface tile,
	// 8 and 6; a 128-bit PLIO takes two of them, a 32- or 64-bit PLIO one (AM009, same page).
	PLInChannels  int `json:"pl_in_channels"`
	PLOutChannels int `json:"pl_out_channels"`
	// ColumnUpStreams, ColumnDownStreams: 32-bit streams the stream switches of one column carry
	// north (into the array) and south (out of it), 6 and 4 (XD100 "Why Packet Switching?": at
	// most 6 streams up and 4 down per column; AM009 "AXI4-Stream Interconnect").
	ColumnUpStreams   int `json:"column_up_streams"`
	ColumnDownStreams int `json:"column_down_streams"`
	// PLIOMaxMHz: the fastest AIE-PL interface clock with the array at 1.25 GHz, 625 MHz (DS957
	// "AI Engine Switching Characteristics": 650/625/575/525/500 MHz by speed grade).
	PLIOMaxMHz float64 `json:"plio_max_mhz"`
	// PacketHeaderWords: a packet-switched stream sends one 32-bit header word before each
	// packet (AM009 "AXI4-Stream Interconnect", packet switching); circuit-switched and broadcast
	// streams send none.
	PacketHeaderWords int `json:"packet_header_words"`
	// SwitchHopCycles: latency of one stream switch (AM009 "AXI4-Stream Interconnect": 2 cycles
	// through a port's FIFO); it adds latency to a route, not occupancy.
	SwitchHopCycles int `json:"switch_hop_cycles"`
}

// DefaultMachine is the VCK190 as the sources above describe it.
func DefaultMachine() *Machine {
	return &Machine{
		AIEClockGHz:      aie1.ClockHz / 1e9,
		PLClockMHz:       500,
		PLIOBits:         64,
		StreamBits:       32,
		Streams:          4,
		TileDMABits:      32,
		TileDMAS2MM:      2,
		TileDMAMM2S:      2,
		TileBDs:          16,
		TileLocks:        16,
		LockCycles:       7,
		ShimBDWords:      5,
		ShimChannelGBps:  4,
		NoCPortGBps:      16,
		DDRGBps:          10.9,
		DDRLatencyNs:     0,
		AXIMMGBps:        1.5,
		AXIMMBits:        32,
		ARMStoreNs:       0,
		TileMemBytes:     aie1.DataMemBytes,
		NeighbourModules: len(aie1.Neighbours) - 1,
		StackBytes:       1024,
		HeapBytes:        1024,
		SyncBytes:        32,
		WindowBuffers:    2,
		PLRAMBytes:       4_300_000 + 16_300_000,
		DDRBytes:         8 << 30,

		PLIOColumns:       39,
		PLInChannels:      8,
		PLOutChannels:     6,
		ColumnUpStreams:   6,
		ColumnDownStreams: 4,
		PLIOMaxMHz:        625,
		PacketHeaderWords: 1,
		SwitchHopCycles:   2,
	}
}

// LoadMachine reads a JSON object of fields to change (keys as in Set) over the defaults.
func LoadMachine(r io.Reader) (*Machine, error) {
	m := DefaultMachine()
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("machine file: %v (keys: %s)", err, strings.Join(MachineKeys(), ", "))
	}
	return m, m.Validate()
}

// MachineKeys lists the settable keys.
func MachineKeys() []string {
	var keys []string
	t := reflect.TypeOf(Machine{})
	for i := 0; i < t.NumField(); i++ {
		keys = append(keys, t.Field(i).Tag.Get("json"))
	}
	sort.Strings(keys)
	return keys
}

// Set changes one field by its JSON key, e.g. Set("streams", "2").
func (m *Machine) Set(key, value string) error {
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("json") != key {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(value, 0, 64)
			if err != nil {
				return fmt.Errorf("machine %s=%q: want an integer", key, value)
			}
			f.SetInt(n)
		case reflect.Float64:
			x, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return fmt.Errorf("machine %s=%q: want a number", key, value)
			}
			f.SetFloat(x)
		}
		return m.validateFields()
	}
	return fmt.Errorf("machine has no parameter %q (keys: %s)", key, strings.Join(MachineKeys(), ", "))
}

// Validate rejects values the model cannot use, alone or together.
func (m *Machine) Validate() error {
	if err := m.validateFields(); err != nil {
		return err
	}
	if m.Streams > (m.NeighbourModules+1)*m.TileDMAS2MM {
		return fmt.Errorf("machine streams = %d: more than the %d S2MM channels of the modules a core reaches", m.Streams, (m.NeighbourModules+1)*m.TileDMAS2MM)
	}
	return nil
}

// validateFields checks each field alone (Set calls it, so that settings may pass through a
// combination Validate rejects on the way to one it accepts).
func (m *Machine) validateFields() error {
	pos := map[string]float64{
		"aie_clock_ghz": m.AIEClockGHz, "pl_clock_mhz": m.PLClockMHz, "plio_bits": float64(m.PLIOBits),
		"stream_bits": float64(m.StreamBits), "streams": float64(m.Streams), "tile_dma_bits": float64(m.TileDMABits),
		"tile_dma_s2mm": float64(m.TileDMAS2MM), "tile_dma_mm2s": float64(m.TileDMAMM2S), "tile_bds": float64(m.TileBDs),
		"tile_locks": float64(m.TileLocks), "shim_channel_gbps": m.ShimChannelGBps, "noc_port_gbps": m.NoCPortGBps,
		"ddr_gbps": m.DDRGBps, "axi_mm_gbps": m.AXIMMGBps, "axi_mm_bits": float64(m.AXIMMBits),
		"tile_mem_bytes": float64(m.TileMemBytes), "window_buffers": float64(m.WindowBuffers),
		"pl_ram_bytes": float64(m.PLRAMBytes), "ddr_bytes": float64(m.DDRBytes),
		"plio_columns": float64(m.PLIOColumns), "pl_in_channels": float64(m.PLInChannels),
		"pl_out_channels": float64(m.PLOutChannels), "column_up_streams": float64(m.ColumnUpStreams),
		"column_down_streams": float64(m.ColumnDownStreams), "plio_max_mhz": m.PLIOMaxMHz,
	}
	for k, x := range pos {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("machine %s = %v: must be positive", k, x)
		}
	}
	nonneg := map[string]float64{
		"lock_cycles": float64(m.LockCycles), "shim_bd_words": float64(m.ShimBDWords), "ddr_latency_ns": m.DDRLatencyNs,
		"arm_store_ns": m.ARMStoreNs, "neighbour_modules": float64(m.NeighbourModules), "stack_bytes": float64(m.StackBytes),
		"heap_bytes": float64(m.HeapBytes), "sync_bytes": float64(m.SyncBytes),
		"packet_header_words": float64(m.PacketHeaderWords), "switch_hop_cycles": float64(m.SwitchHopCycles),
	}
	for k, x := range nonneg {
		if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("machine %s = %v: must not be negative", k, x)
		}
	}
	if m.NeighbourModules > 3 {
		return fmt.Errorf("machine neighbour_modules = %d: a core reaches at most 3 neighbours' modules (AM009)", m.NeighbourModules)
	}
	return nil
}

// bytesPerCycle converts GB/s to bytes per AIE cycle.
func (m *Machine) bytesPerCycle(gbps float64) float64 { return gbps / m.AIEClockGHz }

// nsCycles converts nanoseconds to AIE cycles.
func (m *Machine) nsCycles(ns float64) float64 { return ns * m.AIEClockGHz }

// StreamRate is one stream-switch port: StreamBits per AIE cycle.
func (m *Machine) StreamRate() float64 { return float64(m.StreamBits) / 8 }

// TileDMARate is one tile DMA channel: TileDMABits per AIE cycle.
func (m *Machine) TileDMARate() float64 { return float64(m.TileDMABits) / 8 }

// PLIORate is one PLIO stream into tile memory, bytes per AIE cycle: the PL side's width at
// the PL clock, the array's 32-bit stream and the tile DMA channel, whichever is slowest
// (64 bits x 500 MHz = 4 GB/s = 3.2 B/cycle at 1.25 GHz).
func (m *Machine) PLIORate() float64 {
	pl := float64(m.PLIOBits) / 8 * m.PLClockMHz / (m.AIEClockGHz * 1000)
	return math.Min(pl, math.Min(m.StreamRate(), m.TileDMARate()))
}

// GMIORate is one GMIO channel between DDR and tile memory, bytes per AIE cycle: the shim DMA
// channel, its NoC port, the array stream and the tile DMA channel, whichever is slowest.
// Aggregate DDR traffic is limited separately (DDRRate).
func (m *Machine) GMIORate() float64 {
	r := math.Min(m.bytesPerCycle(m.ShimChannelGBps), m.bytesPerCycle(m.NoCPortGBps))
	return math.Min(r, math.Min(m.StreamRate(), m.TileDMARate()))
}

// DDRRate is the aggregate rate of GMIO traffic, bytes per AIE cycle.
func (m *Machine) DDRRate() float64 { return m.bytesPerCycle(m.DDRGBps) }

// AXIMMWordCycles is the time of one 32-bit access over the PS's AXI4-MM path into the array
// at its designed rate.
func (m *Machine) AXIMMWordCycles() float64 {
	return m.nsCycles(float64(m.AXIMMBits) / 8 / m.AXIMMGBps)
}

// ARMWordCycles is the time of one 32-bit store of the ARM copy.
func (m *Machine) ARMWordCycles() float64 {
	return math.Max(m.AXIMMWordCycles(), m.nsCycles(m.ARMStoreNs))
}

// UsableTileBytes is the tile memory a kernel's buffers may use: the own module less the
// compiler's stack, heap and sync buffer, plus the neighbours' modules if allowed.
func (m *Machine) UsableTileBytes(neighbours int) int {
	n := min(neighbours, m.NeighbourModules)
	return (n+1)*m.TileMemBytes - m.StackBytes - m.HeapBytes - m.SyncBytes
}

// MachineFrom is the default machine changed by a JSON file (if file is not empty) and then
// by KEY=VALUE settings.
func MachineFrom(file string, sets []string) (*Machine, error) {
	m := DefaultMachine()
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if m, err = LoadMachine(f); err != nil {
			return nil, err
		}
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("machine setting %q: want KEY=VALUE", s)
		}
		if err := m.Set(k, v); err != nil {
			return nil, err
		}
	}
	return m, m.Validate()
}
