//! Shared memory and event descriptors: the only `unsafe` of the crate (the DMA layer).

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{fence, Ordering};

use fasthsl_sim::ExternalMemory;

/// Page size the protocol's DMA mappings are checked against.
pub(crate) const PAGE: u64 = 4096;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// A `MAP_SHARED` read/write mapping of (part of) a file, unmapped on drop.
pub(crate) struct SharedMap {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is owned by this value (nothing else unmaps it) and holds no
// thread-affine state; moving it to another thread moves the only handle.
unsafe impl Send for SharedMap {}

impl SharedMap {
    /// Maps `len` bytes of `fd` at `offset`. The caller has checked that the file is at
    /// least `offset + len` bytes long (touching pages past its end raises SIGBUS).
    pub(crate) fn new(fd: &File, offset: u64, len: usize) -> io::Result<SharedMap> {
        if len == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty mapping"));
        }
        let off = libc::off_t::try_from(offset)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "offset too large"))?;
        // SAFETY: a fresh mapping chosen by the kernel (null hint), so no existing memory
        // is replaced; the descriptor is valid for the call.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                off,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(SharedMap { ptr: p.cast(), len })
    }

    /// Copies out of the mapping; `offset + out.len()` must be within it (checked).
    pub(crate) fn read(&self, offset: usize, out: &mut [u8]) {
        assert!(offset.checked_add(out.len()).is_some_and(|e| e <= self.len));
        let p = self.ptr.wrapping_add(offset);
        if out.len() == 8 && offset.is_multiple_of(8) {
            // SAFETY: in bounds (asserted) and 8-aligned (page-aligned base). Volatile:
            // the other process writes this memory, so every poll must load again.
            let v = unsafe { p.cast::<u64>().read_volatile() };
            out.copy_from_slice(&v.to_ne_bytes());
        } else {
            // SAFETY: in bounds (asserted); `out` is our own memory, disjoint from the
            // mapping.
            unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
        }
        // What is read after this (e.g. an entry's payload after its status word) is
        // not loaded before it.
        fence(Ordering::Acquire);
    }

    /// Copies into the mapping; `offset + data.len()` must be within it (checked).
    pub(crate) fn write(&self, offset: usize, data: &[u8]) {
        assert!(offset
            .checked_add(data.len())
            .is_some_and(|e| e <= self.len));
        // Earlier stores (payload) become visible before this one (e.g. a status word).
        fence(Ordering::Release);
        let p = self.ptr.wrapping_add(offset);
        if data.len() == 8 && offset.is_multiple_of(8) {
            let v = u64::from_ne_bytes(data.try_into().expect("8 bytes"));
            // SAFETY: in bounds (asserted) and 8-aligned.
            unsafe { p.cast::<u64>().write_volatile(v) };
        } else {
            // SAFETY: in bounds (asserted); `data` is disjoint from the mapping.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        }
        fence(Ordering::Release);
    }
}

impl Drop for SharedMap {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// The simulated card's DMA into a client's memory goes through the mapping.
impl ExternalMemory for SharedMap {
    fn len(&self) -> usize {
        self.len
    }
    fn read(&self, offset: usize, out: &mut [u8]) {
        SharedMap::read(self, offset, out)
    }
    fn write(&mut self, offset: usize, data: &[u8]) {
        SharedMap::write(self, offset, data)
    }
}

/// An anonymous memory file of `len` bytes whose size is sealed, so the server that
/// maps it can trust it never shrinks under its mapping.
pub(crate) fn memfd(name: &str, len: u64) -> io::Result<File> {
    let cname = std::ffi::CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in memfd name"))?;
    // SAFETY: a valid C string for the call; flags only.
    let fd = check(unsafe {
        libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING)
    })?;
    // SAFETY: a fresh descriptor that nobody else owns.
    let file = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    file.set_len(len)?;
    // SAFETY: fcntl with integer arguments on a valid descriptor.
    check(unsafe {
        libc::fcntl(
            file.as_raw_fd(),
            libc::F_ADD_SEALS,
            libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL,
        )
    })?;
    Ok(file)
}

/// Releases the pages of `[offset, offset+len)` of a memory file (they read as zero again).
pub(crate) fn punch_hole(file: &File, offset: u64, len: u64) -> io::Result<()> {
    // SAFETY: fallocate with integer arguments on a valid descriptor.
    check(unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            offset as libc::off_t,
            len as libc::off_t,
        )
    })
    .map(|_| ())
}

/// A non-blocking eventfd.
pub(crate) fn eventfd() -> io::Result<File> {
    // SAFETY: eventfd takes no pointers.
    let fd = check(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })?;
    // SAFETY: a fresh descriptor that nobody else owns.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Adds one to an eventfd's counter (the interrupt "fires").
pub(crate) fn eventfd_signal(fd: &File) -> io::Result<()> {
    use std::io::Write;
    let mut f = fd;
    match f.write(&1u64.to_ne_bytes()) {
        Ok(_) => Ok(()),
        // Counter saturated: the client has not read it for 2^64 - 2 events; it will see
        // "fired" either way.
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
        Err(e) => Err(e),
    }
}

/// Reads and clears an eventfd's counter without blocking; returns whether it had fired.
pub(crate) fn eventfd_take(fd: &File) -> io::Result<bool> {
    use std::io::Read;
    let mut b = [0u8; 8];
    let mut f = fd;
    match f.read(&mut b) {
        Ok(8) => Ok(u64::from_ne_bytes(b) > 0),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
        Err(e) => Err(e),
    }
}

/// Size in bytes of the file behind `fd` (regular files and memfds).
pub(crate) fn file_size(fd: &File) -> io::Result<u64> {
    Ok(fd.metadata()?.len())
}
