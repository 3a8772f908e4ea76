//! [`forward_device!`]: the [`Device`](crate::Device) methods a wrapper passes unchanged
//! to the device it wraps, written once.

/// Inside an `impl Device for ...`, writes the listed [`Device`](crate::Device) methods
/// as calls of the same method on an inner device; the impl states only the methods
/// that differ. `self` is named by the caller (macro hygiene), then the inner device as
/// an expression of it, then the methods:
///
/// ```
/// use fasthsl_device::{forward_device, Device, DeviceError};
///
/// /// Counts register reads, passes everything else through.
/// struct Counting<D> {
///     dev: D,
///     reads: std::cell::Cell<u64>,
/// }
///
/// impl<D: Device> Device for Counting<D> {
///     fn bar_read32(&self, offset: u32) -> Result<u32, DeviceError> {
///         self.reads.set(self.reads.get() + 1);
///         self.dev.bar_read32(offset)
///     }
///     forward_device!(self => self.dev; name, bar_write32, dma_alloc, dma_free, mem_write,
///         mem_read, relax, wait_irq, now_ns, cycles, mem_read_u64, mem_write_u64);
/// }
/// ```
///
/// A method left out takes the trait's default where it has one (`mem_read_u64`,
/// `mem_write_u64`: a byte copy through `mem_read`/`mem_write`, not the inner device's
/// own version), or fails to compile where it has none.
#[macro_export]
macro_rules! forward_device {
    ($self:ident => $inner:expr; $($method:ident),+ $(,)?) => {
        $($crate::forward_device!(@one $self, $inner, $method);)+
    };
    (@one $self:ident, $inner:expr, name) => {
        fn name(&$self) -> String {
            $inner.name()
        }
    };
    (@one $self:ident, $inner:expr, bar_read32) => {
        fn bar_read32(&$self, offset: u32) -> Result<u32, $crate::DeviceError> {
            $inner.bar_read32(offset)
        }
    };
    (@one $self:ident, $inner:expr, bar_write32) => {
        fn bar_write32(&$self, offset: u32, value: u32) -> Result<(), $crate::DeviceError> {
            $inner.bar_write32(offset, value)
        }
    };
    (@one $self:ident, $inner:expr, dma_alloc) => {
        fn dma_alloc(&$self, len: usize) -> Result<$crate::DmaBuffer, $crate::DeviceError> {
            $inner.dma_alloc(len)
        }
    };
    (@one $self:ident, $inner:expr, dma_free) => {
        fn dma_free(&$self, buf: $crate::DmaBuffer) -> Result<(), $crate::DeviceError> {
            $inner.dma_free(buf)
        }
    };
    (@one $self:ident, $inner:expr, mem_write) => {
        fn mem_write(
            &$self,
            buf: &$crate::DmaBuffer,
            offset: usize,
            data: &[u8],
        ) -> Result<(), $crate::DeviceError> {
            $inner.mem_write(buf, offset, data)
        }
    };
    (@one $self:ident, $inner:expr, mem_read) => {
        fn mem_read(
            &$self,
            buf: &$crate::DmaBuffer,
            offset: usize,
            out: &mut [u8],
        ) -> Result<(), $crate::DeviceError> {
            $inner.mem_read(buf, offset, out)
        }
    };
    (@one $self:ident, $inner:expr, relax) => {
        fn relax(&$self, pace: $crate::Pace) {
            $inner.relax(pace)
        }
    };
    (@one $self:ident, $inner:expr, wait_irq) => {
        fn wait_irq(&$self, timeout_ns: u64) -> Result<bool, $crate::DeviceError> {
            $inner.wait_irq(timeout_ns)
        }
    };
    (@one $self:ident, $inner:expr, now_ns) => {
        fn now_ns(&$self) -> u64 {
            $inner.now_ns()
        }
    };
    (@one $self:ident, $inner:expr, cycles) => {
        fn cycles(&$self) -> Option<u64> {
            $inner.cycles()
        }
    };
    (@one $self:ident, $inner:expr, mem_read_u64) => {
        fn mem_read_u64(
            &$self,
            buf: &$crate::DmaBuffer,
            offset: usize,
        ) -> Result<u64, $crate::DeviceError> {
            $inner.mem_read_u64(buf, offset)
        }
    };
    (@one $self:ident, $inner:expr, mem_write_u64) => {
        fn mem_write_u64(
            &$self,
            buf: &$crate::DmaBuffer,
            offset: usize,
            value: u64,
        ) -> Result<(), $crate::DeviceError> {
            $inner.mem_write_u64(buf, offset, value)
        }
    };
}
