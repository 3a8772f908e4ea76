// extern "C" face of the Verilated models (sim_nic; sim_router built five times:
// Vsim_router with VOQ=1, Vsim_router_fifo with VOQ=0, Vsim_router_deep with VOQ=1,
// 4096-flit buffers and 2 iSLIP iterations, Vsim_router_pipe with VOQ=1 and the three
// pipeline options, Vsim_router_spec with the three-stage allocator) for the Rust side.
//
// One call per model per clock cycle: `*_tick` takes every input of the cycle in one
// struct, runs the cycle (inputs settle with the clock low, then the rising edge) and
// returns every output in another. The struct layouts are mirrored in src/ffi.rs;
// `fh_abi_sizes` lets the Rust side check the two agree before it touches a model.

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "verilated.h"
#include "Vsim_nic.h"
#include "Vsim_router.h"
#include "Vsim_router_fifo.h"
#include "Vsim_router_deep.h"
#include "Vsim_router_pipe.h"
#include "Vsim_router_spec.h"
#include "Vsim_nic___024root.h"
#include "Vsim_router___024root.h"
#include "Vsim_router_fifo___024root.h"
#include "Vsim_router_deep___024root.h"
#include "Vsim_router_pipe___024root.h"
#include "Vsim_router_spec___024root.h"

#ifdef FASTHSL_TRACE
#include "verilated_fst_c.h"
#endif

extern "C" {

struct FhNicIn {
    uint64_t rx_data;
    uint64_t dma_rd_rsp_data;
    uint32_t csr_wdata;
    uint16_t csr_addr;
    uint8_t csr_valid;
    uint8_t csr_write;
    uint8_t dma_rd_req_ready;
    uint8_t dma_rd_rsp_valid;
    uint8_t dma_rd_rsp_tag;
    uint8_t dma_rd_rsp_last;
    uint8_t dma_wr_ready;
    uint8_t tx_credit;
    uint8_t rx_valid;
    uint8_t rx_last;
    uint8_t rx_err;
    uint8_t dma_rd_rsp_err;
    uint8_t pad[6];
};

struct FhNicOut {
    // All sampled after the rising edge. The *_fire fields (with the request/write
    // payload next to them) say which DMA handshakes completed on that edge.
    uint64_t dma_rd_req_addr;
    uint64_t dma_wr_addr;
    uint64_t dma_wr_data;
    uint64_t tx_data;
    uint32_t csr_rdata;
    uint8_t dma_rd_req_fire;
    uint8_t dma_rd_req_beats;
    uint8_t dma_rd_req_tag;
    uint8_t dma_rd_rsp_fire;
    uint8_t dma_wr_fire;
    uint8_t dma_wr_strb;
    uint8_t csr_rsp_valid;
    uint8_t irq;
    uint8_t tx_valid;
    uint8_t tx_last;
    uint8_t tx_err;
    uint8_t rx_credit;
};

struct FhRouterIn {
    uint64_t in_data[8];
    uint32_t cfg_wdata;
    uint16_t cfg_addr;
    uint8_t cfg_valid;
    uint8_t cfg_write;
    uint8_t in_valid;  // one bit per port
    uint8_t in_last;
    uint8_t in_err;
    uint8_t out_credit;
    uint8_t pad[4];
};

struct FhRouterOut {
    uint64_t out_data[8];
    uint32_t cfg_rdata;
    uint8_t cfg_rsp_valid;
    uint8_t out_valid;  // one bit per port
    uint8_t out_last;
    uint8_t out_err;
    uint8_t in_credit;
    uint8_t pad[7];
};

struct FhAbiSizes {
    uint32_t nic_in, nic_out, router_in, router_out;
};

void fh_abi_sizes(FhAbiSizes* s) {
    s->nic_in = sizeof(FhNicIn);
    s->nic_out = sizeof(FhNicOut);
    s->router_in = sizeof(FhRouterIn);
    s->router_out = sizeof(FhRouterOut);
}

}  // extern "C"

namespace {

// A model with its own context, so models never share time or trace state, plus what
// it needs to skip cycles that cannot change anything (see `settle`).
template <typename M, typename In>
struct Model {
    VerilatedContext ctx;
    M* top;
#ifdef FASTHSL_TRACE
    VerilatedFstC* tfp = nullptr;
    uint64_t half_cycles = 0;
    static constexpr bool kCanSkip = false;  // a waveform wants every cycle
#else
    static constexpr bool kCanSkip = true;
#endif
    using Root = std::remove_pointer_t<decltype(M::rootp)>;
    bool skip = kCanSkip;
    uint64_t evals = 0;     // cycles evaluated, not skipped (what skipping saves shows here)
    In last_in{};           // inputs of the last evaluated cycle
    bool quiet = false;     // the state is a fixed point under last_in
    bool have_snap = false; // snap holds the state after an eval with last_in
    uint32_t backoff = 0, backoff_len = 0;
    std::vector<unsigned char> snap;

    explicit Model(const char* name) {
#ifdef FASTHSL_TRACE
        ctx.traceEverOn(true);
#endif
        top = new M(&ctx, name);
        snap.resize(sizeof(Root));
    }
    ~Model() {
#ifdef FASTHSL_TRACE
        if (tfp) {
            tfp->close();
            delete tfp;
        }
#endif
        top->final();
        delete top;
    }
    // Dumps the state at the current half cycle (one time unit per half cycle).
    void dump() {
#ifdef FASTHSL_TRACE
        if (tfp) tfp->dump(half_cycles);
        half_cycles++;
#endif
    }
    // Async active-low reset held over `cycles` clock cycles, then released with the
    // clock low so the first tick starts from a clean edge.
    void reset(uint32_t cycles) {
        top->rst_ni = 0;
        for (uint32_t i = 0; i < cycles; i++) {
            top->clk_i = 0;
            top->eval();
            dump();
            top->clk_i = 1;
            top->eval();
            dump();
        }
        top->clk_i = 0;
        top->rst_ni = 1;
        top->eval();
        quiet = have_snap = false;
        backoff = backoff_len = 0;
    }

    // True when this cycle's evaluation can be skipped: the same inputs as the last
    // evaluated cycle, whose state was a fixed point under them.
    bool can_skip(const In* in) const {
        return quiet && std::memcmp(in, &last_in, sizeof(In)) == 0;
    }

    // After an evaluation: learn whether the state has become a fixed point.
    //
    // The generated root object holds the model's entire state (every flop, memory,
    // input and scheduler flag; the design has no other state), and an eval is a pure
    // function of it. So if two successive evals with identical inputs leave the root
    // byte-for-byte identical, every further eval with those inputs would too, and can
    // be skipped exactly. Snapshots are only taken while the inputs stay unchanged; if
    // the state keeps moving under static inputs (a counter running), tries back off.
    // A try is always a snapshot and the very next eval: states further apart that
    // compare equal only show a period (until session 46 a try compared evals 2, 3, 5,
    // ... apart, and froze a state that cycled with period 3: rcube_spec_alloc's pointer
    // sets, idle).
    void settle(const In* in) {
        if (!skip) return;
        if (std::memcmp(in, &last_in, sizeof(In)) != 0) {
            std::memcpy(&last_in, in, sizeof(In));
            quiet = have_snap = false;
            backoff = backoff_len = 0;
            return;
        }
        if (backoff != 0) {
            backoff--;
            return;
        }
        const void* root = top->rootp;
        if (have_snap) {
            if (std::memcmp(root, snap.data(), snap.size()) == 0) {
                quiet = true;
                return;
            }
            // moved in one cycle: the next try (snapshot, then compare) after a pause
            backoff_len = backoff_len == 0 ? 1 : (backoff_len >= 64 ? 64 : backoff_len * 2);
            backoff = backoff_len;
            have_snap = false;
            return;
        }
        std::memcpy(snap.data(), root, snap.size());
        have_snap = true;
    }
};

// One clock cycle with the inputs already set. Both tops are read only after the
// edge, so the falling-edge eval would just recompute the input logic a second time.
// Telling the scheduler the clock was low (the member build.rs found in this
// Verilator's generated root) makes a single eval a full cycle: inputs settle, then
// the rising edge fires. Without the member, or when tracing (so the clock toggles in
// the waveform), the cycle is two evals.
#if defined(FH_CLK_PREV) && !defined(FASTHSL_TRACE)
template <typename Mod>
inline void cycle(Mod* m) {
    m->top->clk_i = 1;
    m->top->rootp->FH_CLK_PREV = 0;
    m->top->eval();
}
#else
template <typename Mod>
inline void cycle(Mod* m) {
    m->top->clk_i = 0;
    m->top->eval();
    m->dump();
    m->top->clk_i = 1;
    m->top->eval();
    m->dump();
}
#endif

using Nic = Model<Vsim_nic, FhNicIn>;
using Router = Model<Vsim_router, FhRouterIn>;
using RouterFifo = Model<Vsim_router_fifo, FhRouterIn>;
using RouterDeep = Model<Vsim_router_deep, FhRouterIn>;
using RouterPipe = Model<Vsim_router_pipe, FhRouterIn>;
using RouterSpec = Model<Vsim_router_spec, FhRouterIn>;

// One router cycle; the same for every variant (same ports, different parameters).
template <typename Mod>
inline void router_tick(Mod* m, const FhRouterIn* in, FhRouterOut* out) {
    auto* t = m->top;
    // Inputs are applied only when evaluating: skipped cycles have the same inputs.
    if (!m->can_skip(in)) {
        t->in_valid_i = in->in_valid;
        t->in_last_i = in->in_last;
        t->in_err_i = in->in_err;
        std::memcpy(t->in_data_i, in->in_data, sizeof(in->in_data));
        t->out_credit_i = in->out_credit;
        t->cfg_req_valid_i = in->cfg_valid;
        t->cfg_req_write_i = in->cfg_write;
        t->cfg_req_addr_i = in->cfg_addr;
        t->cfg_req_wdata_i = in->cfg_wdata;
        cycle(m);
        m->evals++;
        m->settle(in);
    }
    // Every router output is registered, so the post-edge values are all there is.
    std::memcpy(out->out_data, t->out_data_o, sizeof(out->out_data));
    out->out_valid = t->out_valid_o;
    out->out_last = t->out_last_o;
    out->out_err = t->out_err_o;
    out->in_credit = t->in_credit_o;
    out->cfg_rsp_valid = t->cfg_rsp_valid_o;
    out->cfg_rdata = t->cfg_rsp_rdata_o;
}

#ifdef FASTHSL_TRACE
// Opens an FST file for the model; returns 0 on success. Called before reset so the
// trace starts at time 0. Time advances one unit per half clock cycle.
template <typename Mod>
int trace_open(Mod* m, const char* path) {
    if (m->tfp) return -1;
    m->tfp = new VerilatedFstC;
    m->top->trace(m->tfp, 99);
    m->tfp->open(path);
    if (!m->tfp->isOpen()) {
        delete m->tfp;
        m->tfp = nullptr;
        return -1;
    }
    return 0;
}
#endif

}  // namespace

extern "C" {

void* fh_nic_new(void) { return new Nic("nic"); }
void fh_nic_free(void* m) { delete static_cast<Nic*>(m); }
void fh_nic_set_skip(void* m, uint8_t on) { static_cast<Nic*>(m)->skip = on && Nic::kCanSkip; }
void fh_nic_reset(void* m, uint32_t cycles) { static_cast<Nic*>(m)->reset(cycles); }

void fh_nic_tick(void* mp, const FhNicIn* in, FhNicOut* out) {
    Nic* m = static_cast<Nic*>(mp);
    Vsim_nic* t = m->top;
    // Inputs are applied only when evaluating: skipped cycles have the same inputs.
    if (!m->can_skip(in)) {
        t->csr_req_valid_i = in->csr_valid;
        t->csr_req_write_i = in->csr_write;
        t->csr_req_addr_i = in->csr_addr;
        t->csr_req_wdata_i = in->csr_wdata;
        t->dma_rd_req_ready_i = in->dma_rd_req_ready;
        t->dma_rd_rsp_valid_i = in->dma_rd_rsp_valid;
        t->dma_rd_rsp_data_i = in->dma_rd_rsp_data;
        t->dma_rd_rsp_tag_i = in->dma_rd_rsp_tag;
        t->dma_rd_rsp_last_i = in->dma_rd_rsp_last;
        t->dma_rd_rsp_err_i = in->dma_rd_rsp_err;
        t->dma_wr_ready_i = in->dma_wr_ready;
        t->tx_credit_i = in->tx_credit;
        t->rx_valid_i = in->rx_valid;
        t->rx_last_i = in->rx_last;
        t->rx_err_i = in->rx_err;
        t->rx_data_i = in->rx_data;
        cycle(m);
        m->settle(in);
    }
    out->dma_rd_req_fire = t->dma_rd_req_fire_o;
    out->dma_rd_req_addr = t->dma_rd_req_addr_o;
    out->dma_rd_req_beats = t->dma_rd_req_beats_o;
    out->dma_rd_req_tag = t->dma_rd_req_tag_o;
    out->dma_rd_rsp_fire = t->dma_rd_rsp_fire_o;
    out->dma_wr_fire = t->dma_wr_fire_o;
    out->dma_wr_addr = t->dma_wr_addr_o;
    out->dma_wr_data = t->dma_wr_data_o;
    out->dma_wr_strb = t->dma_wr_strb_o;
    out->csr_rsp_valid = t->csr_rsp_valid_o;
    out->csr_rdata = t->csr_rsp_rdata_o;
    out->irq = t->irq_o;
    out->tx_valid = t->tx_valid_o;
    out->tx_last = t->tx_last_o;
    out->tx_err = t->tx_err_o;
    out->tx_data = t->tx_data_o;
    out->rx_credit = t->rx_credit_o;
}

// The router variants share ports, so they share one set of entry points per model.
#define FH_ROUTER_API(prefix, Type, name)                                         \
    void* prefix##_new(void) { return new Type(name); }                             \
    void prefix##_free(void* m) { delete static_cast<Type*>(m); }                  \
    void prefix##_set_skip(void* m, uint8_t on) {                                   \
        static_cast<Type*>(m)->skip = on && Type::kCanSkip;                         \
    }                                                                               \
    void prefix##_reset(void* m, uint32_t cycles) { static_cast<Type*>(m)->reset(cycles); } \
    uint64_t prefix##_evals(const void* m) { return static_cast<const Type*>(m)->evals; } \
    void prefix##_tick(void* m, const FhRouterIn* in, FhRouterOut* out) {           \
        router_tick(static_cast<Type*>(m), in, out);                                \
    }                                                                               \
    FH_ROUTER_TRACE_API(prefix, Type)

#ifdef FASTHSL_TRACE
#define FH_ROUTER_TRACE_API(prefix, Type)                                         \
    int prefix##_trace_open(void* m, const char* path) {                            \
        return trace_open(static_cast<Type*>(m), path);                             \
    }                                                                               \
    void prefix##_trace_flush(void* m) {                                            \
        if (static_cast<Type*>(m)->tfp) static_cast<Type*>(m)->tfp->flush();        \
    }
#else
#define FH_ROUTER_TRACE_API(prefix, Type)
#endif

FH_ROUTER_API(fh_router, Router, "router")
FH_ROUTER_API(fh_router_fifo, RouterFifo, "router_fifo")
FH_ROUTER_API(fh_router_deep, RouterDeep, "router_deep")
FH_ROUTER_API(fh_router_pipe, RouterPipe, "router_pipe")
FH_ROUTER_API(fh_router_spec, RouterSpec, "router_spec")

#ifdef FASTHSL_TRACE
int fh_nic_trace_open(void* m, const char* path) { return trace_open(static_cast<Nic*>(m), path); }
void fh_nic_trace_flush(void* m) {
    if (static_cast<Nic*>(m)->tfp) static_cast<Nic*>(m)->tfp->flush();
}
#endif

}  // extern "C"
