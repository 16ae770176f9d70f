// Package versal models the Versal VC1902 (VCK190) around one AI Engine tile from mechanism:
// the memory levels (DDR through the NoC, PL BRAM/URAM, the tile's memory and its
// neighbours'), the paths between them (PLIO and GMIO streams, tile and shim DMA with buffer
// descriptors and locks, the ARM's copy over the AXI4-MM path), their capacities, rates and
// per-transfer set-up (Machine, every parameter cited and settable), and one timeline on which
// transfers and the AIE1 cycle simulator's kernel calls run (Timeline: overlap where double
// buffering allows it, serialization where locks force it, cycles per mechanism, a Chrome
// trace).
//
// On it: the BLIS-style GEMM of seed 001 (loops L1-L6, A pre-packed in PL RAM, B_c in DDR,
// B_r in tile memory, C_r through DDR) and the GEMM-like direct convolution of seed 004, each
// in the seeds' placement (under their simulator's assumptions or at real rates) and in
// sumac's placement, every result checked bit for bit against op/ref on a scaled-down shape
// that runs the same code. docs/versal.md explains the model and the figures.
package versal
