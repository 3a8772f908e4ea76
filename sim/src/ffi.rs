//! The C ABI of `csrc/shim.cpp` and safe owners of the Verilated models (the NIC and
//! the router in its VOQ and FIFO variants).
//!
//! All `unsafe` of the crate lives here. The structs mirror the C++ ones field for field;
//! [`check_abi`] compares their sizes with what the C++ compiler laid out before any
//! model is touched, so a one-sided edit fails loudly instead of corrupting memory.

use std::ffi::c_void;
use std::ptr::NonNull;

/// Inputs of one NIC cycle (C++: `FhNicIn`).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct NicIn {
    pub rx_data: u64,
    pub dma_rd_rsp_data: u64,
    pub csr_wdata: u32,
    pub csr_addr: u16,
    pub csr_valid: u8,
    pub csr_write: u8,
    pub dma_rd_req_ready: u8,
    pub dma_rd_rsp_valid: u8,
    pub dma_rd_rsp_tag: u8,
    pub dma_rd_rsp_last: u8,
    pub dma_wr_ready: u8,
    pub tx_credit: u8,
    pub rx_valid: u8,
    pub rx_last: u8,
    pub rx_err: u8,
    /// The host refuses this read beat (IOMMU fault; a PCIe UR/CA completion).
    pub dma_rd_rsp_err: u8,
    pub pad: [u8; 6],
}

/// Outputs of one NIC cycle (C++: `FhNicOut`), all sampled after the clock edge; the
/// `*_fire` flags (with the payload next to them) are the DMA handshakes that
/// completed on it.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct NicOut {
    pub dma_rd_req_addr: u64,
    pub dma_wr_addr: u64,
    pub dma_wr_data: u64,
    pub tx_data: u64,
    pub csr_rdata: u32,
    pub dma_rd_req_fire: u8,
    pub dma_rd_req_beats: u8,
    pub dma_rd_req_tag: u8,
    pub dma_rd_rsp_fire: u8,
    pub dma_wr_fire: u8,
    pub dma_wr_strb: u8,
    pub csr_rsp_valid: u8,
    pub irq: u8,
    pub tx_valid: u8,
    pub tx_last: u8,
    pub tx_err: u8,
    pub rx_credit: u8,
}

/// Inputs of one router cycle (C++: `FhRouterIn`); masks have one bit per port.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RouterIn {
    pub in_data: [u64; 8],
    pub cfg_wdata: u32,
    pub cfg_addr: u16,
    pub cfg_valid: u8,
    pub cfg_write: u8,
    pub in_valid: u8,
    pub in_last: u8,
    pub in_err: u8,
    pub out_credit: u8,
    pub pad: [u8; 4],
}

/// Outputs of one router cycle (C++: `FhRouterOut`), all registered.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RouterOut {
    pub out_data: [u64; 8],
    pub cfg_rdata: u32,
    pub cfg_rsp_valid: u8,
    pub out_valid: u8,
    pub out_last: u8,
    pub out_err: u8,
    pub in_credit: u8,
    pub pad: [u8; 7],
}

#[repr(C)]
#[derive(Debug, Default)]
struct AbiSizes {
    nic_in: u32,
    nic_out: u32,
    router_in: u32,
    router_out: u32,
}

extern "C" {
    fn fh_abi_sizes(s: *mut AbiSizes);
    fn fh_nic_new() -> *mut c_void;
    fn fh_nic_free(m: *mut c_void);
    fn fh_nic_reset(m: *mut c_void, cycles: u32);
    fn fh_nic_tick(m: *mut c_void, inp: *const NicIn, out: *mut NicOut);
    fn fh_nic_set_skip(m: *mut c_void, on: u8);
    fn fh_router_new() -> *mut c_void;
    fn fh_router_free(m: *mut c_void);
    fn fh_router_reset(m: *mut c_void, cycles: u32);
    fn fh_router_tick(m: *mut c_void, inp: *const RouterIn, out: *mut RouterOut);
    fn fh_router_set_skip(m: *mut c_void, on: u8);
    fn fh_router_fifo_new() -> *mut c_void;
    fn fh_router_fifo_free(m: *mut c_void);
    fn fh_router_fifo_reset(m: *mut c_void, cycles: u32);
    fn fh_router_fifo_tick(m: *mut c_void, inp: *const RouterIn, out: *mut RouterOut);
    fn fh_router_fifo_set_skip(m: *mut c_void, on: u8);
    fn fh_router_deep_new() -> *mut c_void;
    fn fh_router_deep_free(m: *mut c_void);
    fn fh_router_deep_reset(m: *mut c_void, cycles: u32);
    fn fh_router_deep_tick(m: *mut c_void, inp: *const RouterIn, out: *mut RouterOut);
    fn fh_router_deep_set_skip(m: *mut c_void, on: u8);
    fn fh_router_pipe_new() -> *mut c_void;
    fn fh_router_pipe_free(m: *mut c_void);
    fn fh_router_pipe_reset(m: *mut c_void, cycles: u32);
    fn fh_router_pipe_tick(m: *mut c_void, inp: *const RouterIn, out: *mut RouterOut);
    fn fh_router_pipe_set_skip(m: *mut c_void, on: u8);
    fn fh_router_spec_new() -> *mut c_void;
    fn fh_router_spec_free(m: *mut c_void);
    fn fh_router_spec_reset(m: *mut c_void, cycles: u32);
    fn fh_router_spec_tick(m: *mut c_void, inp: *const RouterIn, out: *mut RouterOut);
    fn fh_router_spec_set_skip(m: *mut c_void, on: u8);
    #[cfg(test)]
    fn fh_router_evals(m: *const c_void) -> u64;
    #[cfg(test)]
    fn fh_router_fifo_evals(m: *const c_void) -> u64;
    #[cfg(test)]
    fn fh_router_deep_evals(m: *const c_void) -> u64;
    #[cfg(test)]
    fn fh_router_pipe_evals(m: *const c_void) -> u64;
    #[cfg(test)]
    fn fh_router_spec_evals(m: *const c_void) -> u64;
    #[cfg(feature = "trace")]
    fn fh_router_spec_trace_open(m: *mut c_void, path: *const std::ffi::c_char) -> i32;
    #[cfg(feature = "trace")]
    fn fh_router_spec_trace_flush(m: *mut c_void);
    #[cfg(feature = "trace")]
    fn fh_router_pipe_trace_open(m: *mut c_void, path: *const std::ffi::c_char) -> i32;
    #[cfg(feature = "trace")]
    fn fh_router_pipe_trace_flush(m: *mut c_void);
    #[cfg(feature = "trace")]
    fn fh_router_deep_trace_open(m: *mut c_void, path: *const std::ffi::c_char) -> i32;
    #[cfg(feature = "trace")]
    fn fh_router_deep_trace_flush(m: *mut c_void);
    #[cfg(feature = "trace")]
    fn fh_router_fifo_trace_open(m: *mut c_void, path: *const std::ffi::c_char) -> i32;
    #[cfg(feature = "trace")]
    fn fh_router_fifo_trace_flush(m: *mut c_void);
    #[cfg(feature = "trace")]
    fn fh_nic_trace_open(m: *mut c_void, path: *const std::ffi::c_char) -> i32;
    #[cfg(feature = "trace")]
    fn fh_router_trace_open(m: *mut c_void, path: *const std::ffi::c_char) -> i32;
    #[cfg(feature = "trace")]
    fn fh_nic_trace_flush(m: *mut c_void);
    #[cfg(feature = "trace")]
    fn fh_router_trace_flush(m: *mut c_void);
}

/// Compares the Rust and C++ layouts of the tick structs.
pub(crate) fn check_abi() -> Result<(), String> {
    let mut s = AbiSizes::default();
    // SAFETY: fh_abi_sizes only writes the four u32 fields of the struct we pass, which
    // is a live, exclusively borrowed AbiSizes with the same repr(C) layout.
    unsafe { fh_abi_sizes(&mut s) };
    let ours = [
        ("NicIn", size_of::<NicIn>(), s.nic_in),
        ("NicOut", size_of::<NicOut>(), s.nic_out),
        ("RouterIn", size_of::<RouterIn>(), s.router_in),
        ("RouterOut", size_of::<RouterOut>(), s.router_out),
    ];
    for (name, rust, cpp) in ours {
        if rust != cpp as usize {
            return Err(format!("{name} is {rust} bytes in Rust, {cpp} in C++"));
        }
    }
    Ok(())
}

#[cfg(feature = "trace")]
fn c_path(path: &std::path::Path) -> std::io::Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in trace path"))
}

/// Generates an owner type for one Verilated model: creation, reset, tick, tracing, drop.
macro_rules! model {
    ($name:ident, $in:ty, $out:ty, $new:ident, $free:ident, $reset:ident, $tick:ident,
     $skip:ident, $topen:ident, $tflush:ident) => {
        /// Owns one Verilated model instance (with its own VerilatedContext).
        pub(crate) struct $name {
            ptr: NonNull<c_void>,
        }

        impl $name {
            /// Builds the model. Call [`check_abi`] once before the first model.
            pub(crate) fn new() -> Self {
                // SAFETY: the constructor takes no arguments and returns a heap object
                // owned by the caller (freed exactly once in Drop).
                let raw = unsafe { $new() };
                let ptr = NonNull::new(raw).expect("Verilated model allocation failed");
                $name { ptr }
            }

            /// Holds reset for `cycles` clock cycles and releases it.
            pub(crate) fn reset(&mut self, cycles: u32) {
                // SAFETY: ptr is the live model created in new(); &mut self makes this
                // the only access to it.
                unsafe { $reset(self.ptr.as_ptr(), cycles) }
            }

            /// Runs one clock cycle.
            #[inline]
            pub(crate) fn tick(&mut self, inp: &$in, out: &mut $out) {
                // SAFETY: ptr is the live model; inp and out are valid, non-aliasing
                // repr(C) structs whose layout check_abi verified; the shim reads inp
                // and writes out only during the call.
                unsafe { $tick(self.ptr.as_ptr(), inp, out) }
            }

            /// Allows (default) or forbids skipping evaluations of cycles that provably
            /// change nothing (always off in trace builds).
            pub(crate) fn set_skip(&mut self, on: bool) {
                // SAFETY: ptr is the live model; &mut self makes this the only access.
                unsafe { $skip(self.ptr.as_ptr(), u8::from(on)) }
            }

            /// Starts an FST dump of this model at `path` (before reset, so it starts at 0).
            #[cfg(feature = "trace")]
            pub(crate) fn trace_open(&mut self, path: &std::path::Path) -> std::io::Result<()> {
                let c = c_path(path)?;
                // SAFETY: ptr is the live model; c is a NUL-terminated string that
                // outlives the call (the shim copies the name when opening the file).
                let rc = unsafe { $topen(self.ptr.as_ptr(), c.as_ptr()) };
                if rc == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::other("cannot open the FST file"))
                }
            }

            /// Writes buffered trace data to disk.
            #[cfg(feature = "trace")]
            pub(crate) fn trace_flush(&mut self) {
                // SAFETY: ptr is the live model; flushing a model without a trace is a no-op.
                unsafe { $tflush(self.ptr.as_ptr()) }
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: ptr came from the matching constructor and is freed once, here.
                unsafe { $free(self.ptr.as_ptr()) }
            }
        }
    };
}

model!(
    NicModel,
    NicIn,
    NicOut,
    fh_nic_new,
    fh_nic_free,
    fh_nic_reset,
    fh_nic_tick,
    fh_nic_set_skip,
    fh_nic_trace_open,
    fh_nic_trace_flush
);
model!(
    RouterModel,
    RouterIn,
    RouterOut,
    fh_router_new,
    fh_router_free,
    fh_router_reset,
    fh_router_tick,
    fh_router_set_skip,
    fh_router_trace_open,
    fh_router_trace_flush
);
// The FIFO-input router variant (sim_router with VOQ=0), for the traffic benchmark.
model!(
    RouterFifoModel,
    RouterIn,
    RouterOut,
    fh_router_fifo_new,
    fh_router_fifo_free,
    fh_router_fifo_reset,
    fh_router_fifo_tick,
    fh_router_fifo_set_skip,
    fh_router_fifo_trace_open,
    fh_router_fifo_trace_flush
);
// The VOQ router with 4096-flit input buffers, 2 iSLIP iterations, grant pointers moving
// on every iteration (sim_router with BUF_DEPTH=4096 ITERS=2 GRANT_ALL=1), for the traffic
// benchmark's saturation runs.
model!(
    RouterDeepModel,
    RouterIn,
    RouterOut,
    fh_router_deep_new,
    fh_router_deep_free,
    fh_router_deep_reset,
    fh_router_deep_tick,
    fh_router_deep_set_skip,
    fh_router_deep_trace_open,
    fh_router_deep_trace_flush
);
// The VOQ router with the three pipeline options (sim_router with REG_AVAIL=1 REG_POP=1
// ALLOC_PIPE=1: a 5-cycle hop), for the traffic benchmark.
model!(
    RouterPipeModel,
    RouterIn,
    RouterOut,
    fh_router_pipe_new,
    fh_router_pipe_free,
    fh_router_pipe_reset,
    fh_router_pipe_tick,
    fh_router_pipe_set_skip,
    fh_router_pipe_trace_open,
    fh_router_pipe_trace_flush
);
// The VOQ router with the three-stage allocator (sim_router with REG_AVAIL=1 REG_POP=1
// ALLOC_SPEC=1: a 6-cycle hop; experimental in the RTL), for the traffic benchmark.
model!(
    RouterSpecModel,
    RouterIn,
    RouterOut,
    fh_router_spec_new,
    fh_router_spec_free,
    fh_router_spec_reset,
    fh_router_spec_tick,
    fh_router_spec_set_skip,
    fh_router_spec_trace_open,
    fh_router_spec_trace_flush
);

/// The router models' count of evaluated (not skipped) cycles.
macro_rules! router_evals {
    ($($name:ident => $evals:ident),* $(,)?) => {
        $(
            impl $name {
                /// Cycles this model evaluated since it was built; the others were skipped
                /// as provably unchanged ([`crate::SimConfig::skip_idle`]).
                #[cfg(test)]
                pub(crate) fn evals(&self) -> u64 {
                    // SAFETY: ptr is the live model; the shim only reads a counter.
                    unsafe { $evals(self.ptr.as_ptr()) }
                }
            }
        )*
    };
}
router_evals!(
    RouterModel => fh_router_evals,
    RouterFifoModel => fh_router_fifo_evals,
    RouterDeepModel => fh_router_deep_evals,
    RouterPipeModel => fh_router_pipe_evals,
    RouterSpecModel => fh_router_spec_evals,
);
