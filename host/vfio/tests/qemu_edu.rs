//! The VFIO backend on a real Linux kernel, without an FPGA: QEMU boots Debian's kernel
//! (software emulation, q35, emulated Intel IOMMU with interrupt remapping) with QEMU's
//! `edu` educational PCI device; the guest binds edu to vfio-pci and runs
//! `vfio_edu_probe` (src/bin), which drives edu through `VfioDevice`: identification,
//! liveness and factorial registers (mmap and pread/pwrite BAR paths), page handles (one
//! 4 KiB page of BAR0 mapped alone: same reads as BAR0, out-of-page accesses refused before
//! they reach edu, on both paths), DMA both ways
//! through IOMMU-mapped buffers (checked byte for byte), MSI on an eventfd, a DMA to an
//! unmapped guard IOVA that the IOMMU must block, a 2 MiB huge-page buffer, IOVA reuse,
//! the fallback to normal pages when huge pages run out, function reset, the open errors
//! (missing device, wrong driver, BAR too small, busy group); then, as an unprivileged
//! user, permission denied on the group node, and after a chown DMA within a 64 KiB
//! locked-memory limit and a refused map beyond it that explains RLIMIT_MEMLOCK.
//!
//! Needs qemu-system-x86, linux-image-amd64, busybox-static and cpio (`make test-vfio`
//! installs them), so it is ignored by default: `make test-vfio` runs it. About 15-40 s
//! on 2 cores.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whole-VM limit; the script's own `timeout` kills QEMU a little earlier.
const LIMIT: Duration = Duration::from_secs(300);

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[test]
#[ignore = "boots a QEMU VM with an emulated IOMMU (needs qemu, a Debian kernel): make test-vfio"]
fn vfio_backend_drives_qemu_edu_through_an_iommu() {
    let probe = env!("CARGO_BIN_EXE_vfio_edu_probe");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("qemu/edu_vm.sh");
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("qemu-edu");
    fs::create_dir_all(&work).unwrap();
    let serial = work.join("serial.log");
    let stderr = work.join("qemu-stderr.log");

    let t0 = Instant::now();
    let mut child = Command::new(&script)
        .arg(&work)
        .arg(probe)
        .env("QEMU_TIMEOUT", (LIMIT.as_secs() - 10).to_string())
        .stdin(Stdio::null())
        .stdout(fs::File::create(&serial).unwrap())
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if t0.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let elapsed = t0.elapsed();
    let log = String::from_utf8_lossy(&fs::read(&serial).unwrap_or_default()).into_owned();
    let err = fs::read_to_string(&stderr).unwrap_or_default();
    let context = format!(
        "after {elapsed:.1?}, script status {status:?}\n--- serial log (tail) ---\n{}\n--- \
         script/QEMU stderr (tail) ---\n{}",
        tail(&log, 40),
        tail(&err, 20)
    );
    assert!(
        status.is_some(),
        "the VM did not finish within {LIMIT:?}: {context}"
    );
    if let Some(fail) = log.lines().find(|l| l.starts_with("FASTHSL-EDU-FAIL")) {
        panic!("the probe failed in the guest: {fail}\n{context}");
    }
    let result = log
        .lines()
        .find_map(|l| l.strip_prefix("FASTHSL-EDU-RESULT "))
        .unwrap_or_else(|| panic!("no result line from the guest: {context}"));
    if let Some(fail) = log.lines().find(|l| l.starts_with("FASTHSL-EDU-USER-FAIL")) {
        panic!("the probe failed as a user in the guest: {fail}\n{context}");
    }
    let user: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("FASTHSL-EDU-USER-RESULT "))
        .collect();
    assert_eq!(
        user,
        ["user_denied=ok", "user_dma_msi=ok user_memlock_error=ok"],
        "as a user: permission denied before the chown, DMA and the memlock refusal after: \
         {context}"
    );
    assert!(
        log.lines().any(|l| l.trim() == "FASTHSL-GUEST-EXIT 0"),
        "the probe did not exit 0: {context}"
    );

    let kv: Vec<(&str, &str)> = result
        .split_whitespace()
        .filter_map(|t| t.split_once('='))
        .collect();
    let get = |k: &str| {
        kv.iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("result line lacks {k}: {result}"))
    };
    for k in [
        "open_errors",
        "iommu_info",
        "liveness",
        "factorial",
        "dma",
        "dma_offset",
        "msi",
        "dma_msi",
        "iommu_guard",
        "dma_2m",
        "dma_reuse",
        "reset",
        "pread_liveness",
        "pread_factorial",
        "pread_dma_msi",
        "page",
        "pread_page",
    ] {
        assert_eq!(get(k), "ok", "check {k} in: {result}");
    }
    for k in ["ident", "pread_ident"] {
        let id = u32::from_str_radix(get(k).trim_start_matches("0x"), 16).unwrap();
        assert_eq!(id & 0xffff, 0x00ed, "edu identification register: {result}");
    }
    // The guest reserves 8 huge pages on its command line, so the first 2 MiB buffer
    // gets one, and the 8th more falls back to normal pages.
    assert_eq!(get("hugepage"), "yes", "{result}");
    assert_eq!(get("hugepage_fallback"), "ok_after_8", "{result}");
    // The guard-page DMA was refused by the IOMMU (not merely absent): the guest kernel
    // logs the remapping fault.
    assert!(
        log.contains("DMAR") && log.contains("fault addr"),
        "no IOMMU fault logged for the DMA to the guard IOVA: {context}"
    );

    eprintln!("qemu_edu: {result}");
    eprintln!("qemu_edu: VM run (initramfs build, boot, probe, power-off) took {elapsed:.1?}");
}
