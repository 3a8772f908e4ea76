//! The raw system calls: VFIO ioctls, mmap, eventfd, ppoll, getrlimit.
//!
//! Every `unsafe` block of the crate that talks to the kernel is here or in `device.rs`,
//! each with the argument for why it is sound.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;

/// `_IO(';', 100 + n)`: VFIO ioctls carry no size or direction in their number.
const fn vfio_io(n: u32) -> u32 {
    (b';' as u32) << 8 | (100 + n)
}

pub(crate) const VFIO_GET_API_VERSION: u32 = vfio_io(0);
pub(crate) const VFIO_CHECK_EXTENSION: u32 = vfio_io(1);
pub(crate) const VFIO_SET_IOMMU: u32 = vfio_io(2);
pub(crate) const VFIO_GROUP_GET_STATUS: u32 = vfio_io(3);
pub(crate) const VFIO_GROUP_SET_CONTAINER: u32 = vfio_io(4);
pub(crate) const VFIO_GROUP_GET_DEVICE_FD: u32 = vfio_io(6);
pub(crate) const VFIO_DEVICE_GET_INFO: u32 = vfio_io(7);
pub(crate) const VFIO_DEVICE_GET_REGION_INFO: u32 = vfio_io(8);
pub(crate) const VFIO_DEVICE_GET_IRQ_INFO: u32 = vfio_io(9);
pub(crate) const VFIO_DEVICE_SET_IRQS: u32 = vfio_io(10);
pub(crate) const VFIO_DEVICE_RESET: u32 = vfio_io(11);
pub(crate) const VFIO_IOMMU_GET_INFO: u32 = vfio_io(12);
pub(crate) const VFIO_IOMMU_MAP_DMA: u32 = vfio_io(13);
pub(crate) const VFIO_IOMMU_UNMAP_DMA: u32 = vfio_io(14);

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// An ioctl whose argument is a plain integer.
pub(crate) fn ioctl_int(fd: &File, req: u32, arg: libc::c_ulong) -> io::Result<libc::c_int> {
    // SAFETY: the VFIO requests used with this helper (GET_API_VERSION, CHECK_EXTENSION,
    // SET_IOMMU, DEVICE_RESET) take an integer by value or nothing, so the kernel
    // dereferences no memory of ours.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), req as libc::Ioctl, arg) })
}

/// An ioctl whose argument is a pointer to `T`.
///
/// # Safety
/// `req` must be a request whose argument is a `T` (the VFIO structs start with `argsz`,
/// which the caller sets to the size of `T`), so the kernel reads and writes at most
/// `size_of::<T>()` bytes through the pointer.
pub(crate) unsafe fn ioctl_ptr<T>(fd: &File, req: u32, arg: &mut T) -> io::Result<libc::c_int> {
    // SAFETY: `arg` is a live, exclusive reference to a `T`; the caller guarantees that
    // the request accesses no more than a `T` through it.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), req as libc::Ioctl, arg as *mut T) })
}

/// An ioctl whose argument is a variable-length VFIO struct (fixed part, then capability
/// chain) in `buf`; the caller has written `argsz` = `buf.len() * 8` into its first bytes.
pub(crate) fn ioctl_buf(fd: &File, req: u32, buf: &mut [u64]) -> io::Result<libc::c_int> {
    debug_assert_eq!(
        buf[0] as u32 as usize,
        buf.len() * 8,
        "argsz must be the buffer size"
    );
    // SAFETY: VFIO "info" requests (GET_INFO with capabilities) read argsz from the start
    // of the struct and write at most argsz bytes; argsz is the buffer's length, and the
    // buffer is 8-aligned like the structs.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), req as libc::Ioctl, buf.as_mut_ptr()) })
}

/// `VFIO_GROUP_SET_CONTAINER`: the argument is a pointer to the container's fd.
pub(crate) fn group_set_container(group: &File, container: &File) -> io::Result<()> {
    let mut fd: libc::c_int = container.as_raw_fd();
    // SAFETY: VFIO_GROUP_SET_CONTAINER reads one c_int through its argument.
    unsafe { ioctl_ptr(group, VFIO_GROUP_SET_CONTAINER, &mut fd) }.map(drop)
}

/// `VFIO_GROUP_GET_DEVICE_FD`: the argument is the device's name as a C string.
pub(crate) fn group_get_device_fd(group: &File, name: &str) -> io::Result<File> {
    let c = std::ffi::CString::new(name).map_err(io::Error::other)?;
    // SAFETY: the kernel reads a NUL-terminated string through the pointer, which `c`
    // keeps alive for the call.
    let fd = check(unsafe {
        libc::ioctl(
            group.as_raw_fd(),
            VFIO_GROUP_GET_DEVICE_FD as libc::Ioctl,
            c.as_ptr(),
        )
    })?;
    // SAFETY: on success the ioctl returned a new file descriptor that nobody else owns.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// A memory mapping, unmapped on drop.
#[derive(Debug)]
pub(crate) struct Mapping {
    pub(crate) ptr: NonNull<u8>,
    pub(crate) len: usize,
}

impl Mapping {
    /// Maps `len` bytes of `fd` at `offset`, shared, read-write (a device BAR).
    pub(crate) fn device(fd: &File, len: usize, offset: u64) -> io::Result<Mapping> {
        // SAFETY: a fresh mapping chosen by the kernel (addr NULL) overlaps nothing we
        // own; the fd and offset come from VFIO's region info.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                offset as libc::off_t,
            )
        };
        Self::from_mmap(p, len)
    }

    /// Zeroed anonymous memory of `len` bytes (a multiple of the page size), backed by
    /// 2 MiB huge pages when `huge` (then `len` must be a multiple of 2 MiB; fails with
    /// ENOMEM when no huge page is free: see /proc/sys/vm/nr_hugepages).
    pub(crate) fn anonymous(len: usize, huge: bool) -> io::Result<Mapping> {
        let mut flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        if huge {
            flags |= libc::MAP_HUGETLB | libc::MAP_HUGE_2MB;
        }
        // SAFETY: as above; anonymous memory is zero-filled by the kernel.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                -1,
                0,
            )
        };
        Self::from_mmap(p, len)
    }

    fn from_mmap(p: *mut libc::c_void, len: usize) -> io::Result<Mapping> {
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr =
            NonNull::new(p.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned NULL"))?;
        Ok(Mapping { ptr, len })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` describe a mapping this value created and owns; no
        // reference into it outlives the owner (accesses go through raw pointers).
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}

/// A non-blocking eventfd.
pub(crate) fn eventfd() -> io::Result<File> {
    // SAFETY: eventfd takes no pointers.
    let fd = check(unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) })?;
    // SAFETY: a fresh descriptor that nobody else owns.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// Waits until `fd` is readable or `timeout_ns` passes; returns whether it is readable.
pub(crate) fn poll_readable(fd: &File, timeout_ns: u64) -> io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000).min(i64::MAX as u64) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: one valid pollfd and a valid timespec, both alive for the call; no
        // signal mask.
        let r = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        match check(r) {
            Ok(n) => return Ok(n > 0 && pfd.revents & libc::POLLIN != 0),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The soft RLIMIT_MEMLOCK in bytes (`u64::MAX`: unlimited).
pub(crate) fn memlock_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit through a valid pointer.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut r) } == 0;
    ok.then_some(if r.rlim_cur == libc::RLIM_INFINITY {
        u64::MAX
    } else {
        // rlim_t is 32 bits on some targets.
        #[allow(clippy::unnecessary_cast)]
        let cur = r.rlim_cur as u64;
        cur
    })
}

/// The system page size.
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf takes no pointers.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}
