// aie1_emul_harness.h: the I/O side of a sumac emulation harness (see target/aie1/emul/harness.go).
// The harness main reads one input file (the kernel's windows, buffers and scalars), runs the
// kernel, and writes one output file (the final contents of every window and buffer, the MAC
// and narrowing counts, and the accumulator trace). All integers are little-endian.
#ifndef SUMAC_AIE1_EMUL_HARNESS_H
#define SUMAC_AIE1_EMUL_HARNESS_H

#include <string>
#include <vector>

namespace aie_emul {

// The data memory image the windows and buffers are placed in when the input gives their
// addresses (the interpreter's placement): the 128 KB a core addresses (AM009 "Load and
// Store Unit"), zero where no buffer is, plus 64 bytes of slack. A kernel that reads past a
// buffer then reads the same bytes as the interpreter: the next buffer's or zeros.
alignas(64) static unsigned char g_image[0x20000 + 64];

struct Harness {
    std::vector<std::vector<unsigned char>> mem; // per parameter (scalars: 8 bytes)
    std::vector<unsigned char *> base;           // per parameter: its bytes (in g_image or in mem)
    std::vector<int> kinds;                      // 0 window, 1 pointer, 2 scalar, 3 input stream, 4 output stream
    const char *out;

    static unsigned long long rd(FILE *f, int n) {
        unsigned long long v = 0;
        for (int i = 0; i < n; i++) {
            int c = std::fgetc(f);
            if (c == EOF)
                fail("harness: input file truncated");
            v |= (unsigned long long)c << (8 * i);
        }
        return v;
    }
    static void wr(FILE *f, unsigned long long v, int n) {
        for (int i = 0; i < n; i++)
            std::fputc((int)((v >> (8 * i)) & 0xFF), f);
    }

    Harness(int argc, char **argv) {
        if (argc != 5)
            fail("usage: %s INPUT OUTPUT ROUND SAT", argv[0]);
        FILE *f = std::fopen(argv[1], "rb");
        if (!f)
            fail("cannot open %s", argv[1]);
        char magic[8];
        if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, "SUMACIN3", 8) != 0)
            fail("harness: %s is not a sumac emulation input", argv[1]);
        int n = (int)rd(f, 4);
        for (int i = 0; i < n; i++) {
            kinds.push_back((int)rd(f, 1));
            long long addr = (long long)rd(f, 8); // -1: not in the image
            unsigned long long len = rd(f, 8);
            // 64 bytes of slack: a vector read at the end of a buffer never leaves the allocation
            std::vector<unsigned char> b(len + 64);
            if (len && std::fread(b.data(), 1, len, f) != len)
                fail("harness: input file truncated");
            if (addr >= 0) {
                if ((unsigned long long)addr + len > 0x20000)
                    fail("harness: parameter %d (%llu bytes at 0x%llx) is outside the data memory image", i, len, (unsigned long long)addr);
                std::memcpy(g_image + addr, b.data(), len);
                base.push_back(g_image + addr);
            } else {
                base.push_back(nullptr);
            }
            mem.push_back(b);
            sizes.push_back(len);
        }
        for (int i = 0; i < n; i++)
            if (!base[i])
                base[i] = mem[i].data();
        int nc = (int)rd(f, 4);
        for (int i = 0; i < nc; i++)
            g_cycle_reads.push_back((long long)rd(f, 8));
        std::fclose(f);
        out = argv[2];
        g_round = std::atoi(argv[3]);
        g_sat = std::atoi(argv[4]);
    }
    std::vector<unsigned long long> sizes;

    template <typename T, bool OUT> aie_window<T, OUT> window(int i, const char *name) {
        return aie_window<T, OUT>{(T *)base[i], (long long)(sizes[i] / sizeof(T)), (T *)base[i], name};
    }
    template <typename T, bool OUT> aie_stream<T, OUT> stream(int i, const char *name) {
        aie_stream<T, OUT> s;
        s.name = name;
        if (!OUT)
            s.data.assign(mem[i].begin(), mem[i].begin() + sizes[i]);
        return s;
    }
    // output streams: the bytes written are the parameter's final contents
    template <typename T> void stream_out(int i, const aie_stream<T, true> &s) {
        mem[i].assign(s.data.begin(), s.data.end());
        sizes[i] = s.data.size();
    }
    template <typename T> adf::aie_buffer_port<T> buffer(int i) {
        return adf::aie_buffer_port<T>{(T *)base[i], (unsigned)(sizes[i] / sizeof(T))};
    }
    template <typename T> T *pointer(int i) { return (T *)base[i]; }
    long long scalar(int i) {
        long long v;
        std::memcpy(&v, mem[i].data(), 8);
        return v;
    }

    void finish() {
        FILE *f = std::fopen(out, "wb");
        if (!f)
            fail("cannot create %s", out);
        std::fwrite("SUMACOUT", 1, 8, f);
        wr(f, mem.size(), 4);
        for (size_t i = 0; i < mem.size(); i++) {
            wr(f, sizes[i], 8);
            std::fwrite(kinds[i] == 4 ? mem[i].data() : base[i], 1, sizes[i], f);
        }
        wr(f, (unsigned long long)g_macs, 8);
        wr(f, (unsigned long long)g_narrowed, 8);
        wr(f, (unsigned long long)g_saturated, 8);
        wr(f, g_trace.size(), 8);
        for (const TraceRec &r : g_trace) {
            wr(f, (unsigned long long)r.lanes, 4);
            for (i128 v : r.v) {
                wr(f, (unsigned long long)(u128)v, 8);
                wr(f, (unsigned long long)((u128)v >> 64), 8);
            }
        }
        if (std::fclose(f) != 0)
            fail("writing %s failed", out);
    }
};

} // namespace aie_emul

#endif
