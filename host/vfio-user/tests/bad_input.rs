//! Malformed and out-of-range requests get error replies and the server keeps serving;
//! a client that dies in the middle of a message or of a DMA transfer leaves the socket
//! ready for the next client. Raw protocol messages are built here by hand, after the
//! vfio-user specification, so nothing in the client library can "fix" them.

mod common;
use common::{serve, watchdog};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

use fasthsl_contract::{nic_regs as nic, BAR0_SIZE, ID_MAGIC};
use fasthsl_device::Device;
use fasthsl_driver::{Card, CardConfig};
use fasthsl_topology::Topology;
use fasthsl_vfio_user::{sim_regs, VfioUserDevice};

const VERSION: u16 = 1;
const REGION_READ: u16 = 9;
const REGION_WRITE: u16 = 10;
const DMA_MAP: u16 = 2;
const REPLY: u32 = 1;
const ERROR: u32 = 1 << 5;
const ROLE: &str = "FASTHSL_VU_BAD_ROLE";
const SOCK: &str = "FASTHSL_VU_BAD_SOCK";

fn header(id: u16, cmd: u16, size: u32) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&id.to_le_bytes());
    h.extend_from_slice(&cmd.to_le_bytes());
    h.extend_from_slice(&size.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes()); // flags: command
    h.extend_from_slice(&0u32.to_le_bytes()); // error
    h
}

fn region_access(id: u16, cmd: u16, region: u32, offset: u64, count: u32, data: &[u8]) -> Vec<u8> {
    let mut m = header(id, cmd, 32 + data.len() as u32);
    m.extend_from_slice(&offset.to_le_bytes());
    m.extend_from_slice(&region.to_le_bytes());
    m.extend_from_slice(&count.to_le_bytes());
    m.extend_from_slice(data);
    m
}

/// Reads a reply header: (message id, flags, error).
fn reply(s: &mut UnixStream) -> (u16, u32, u32) {
    let mut h = [0u8; 16];
    s.read_exact(&mut h).unwrap();
    let id = u16::from_le_bytes([h[0], h[1]]);
    let flags = u32::from_le_bytes(h[8..12].try_into().unwrap());
    let err = u32::from_le_bytes(h[12..16].try_into().unwrap());
    (id, flags, err)
}

fn read_reg(s: &mut UnixStream, id: u16, region: u32, offset: u64, count: u32) -> Vec<u8> {
    s.write_all(&region_access(id, REGION_READ, region, offset, count, &[]))
        .unwrap();
    let (rid, flags, _) = reply(s);
    assert_eq!((rid, flags), (id, REPLY), "a good read gets a plain reply");
    let mut rest = vec![0u8; 16 + count as usize];
    s.read_exact(&mut rest).unwrap();
    rest.split_off(16)
}

fn connect(p: &Path) -> UnixStream {
    let s = UnixStream::connect(p).unwrap();
    // A server that stops answering fails the test instead of hanging it.
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

#[test]
fn malformed_region_accesses_get_error_replies_and_the_server_keeps_running() {
    watchdog(90);
    let (server, sock) = serve(1, "bad");
    let mut s = connect(&sock);
    let id = u32::from_le_bytes(
        read_reg(&mut s, 1, 0, u64::from(nic::ID), 4)
            .try_into()
            .unwrap(),
    );
    assert_eq!(id, ID_MAGIC);

    let bad: Vec<(&str, Vec<u8>)> = vec![
        (
            "BAR0 past its end",
            region_access(2, REGION_READ, 0, BAR0_SIZE, 4, &[]),
        ),
        (
            "BAR0 offset near u64::MAX",
            region_access(3, REGION_READ, 0, u64::MAX - 1, 4, &[]),
        ),
        (
            "unaligned BAR0 read",
            region_access(4, REGION_READ, 0, 2, 4, &[]),
        ),
        (
            "3-byte BAR0 read",
            region_access(5, REGION_READ, 0, 0, 3, &[]),
        ),
        (
            "region that does not exist",
            region_access(6, REGION_READ, 42, 0, 4, &[]),
        ),
        (
            "empty region (BAR1)",
            region_access(7, REGION_READ, 1, 0, 4, &[]),
        ),
        (
            "BAR0 write past its end",
            region_access(8, REGION_WRITE, 0, BAR0_SIZE + 0x1000, 4, &[1, 2, 3, 4]),
        ),
        (
            "config space past its end",
            region_access(9, REGION_READ, 7, 0x100, 4, &[]),
        ),
        ("oversized simulation step", {
            let big = (sim_regs::MAX_STEP + 1).to_le_bytes();
            region_access(10, REGION_WRITE, 2, sim_regs::STEP, 8, &big)
        }),
        ("DMA_MAP without a file descriptor", {
            let mut m = header(11, DMA_MAP, 16 + 24);
            m.extend_from_slice(&24u32.to_le_bytes()); // argsz
            m.extend_from_slice(&3u32.to_le_bytes()); // read | write
            m.extend_from_slice(&0u64.to_le_bytes()); // offset
            m.extend_from_slice(&0x1_0000_0000u64.to_le_bytes()); // address
            m.extend_from_slice(&4096u64.to_le_bytes()); // size
            m
        }),
    ];
    for (i, (what, msg)) in bad.iter().enumerate() {
        s.write_all(msg).unwrap();
        let (rid, flags, _) = reply(&mut s);
        assert_eq!(rid, i as u16 + 2, "{what}: reply to the right message");
        assert_eq!(
            flags & (REPLY | ERROR),
            REPLY | ERROR,
            "{what}: error reply"
        );
        // Same connection, still served.
        let v = read_reg(&mut s, 100 + i as u16, 0, u64::from(nic::ID), 4);
        assert_eq!(
            u32::from_le_bytes(v.try_into().unwrap()),
            ID_MAGIC,
            "after {what}"
        );
    }
    // The out-of-range write did not land anywhere: the card counts no CSR error...
    let cycle = u64::from_le_bytes(
        read_reg(&mut s, 200, 2, sim_regs::CYCLE, 8)
            .try_into()
            .unwrap(),
    );
    assert!(cycle > 0);
    let refused = u64::from_le_bytes(
        read_reg(&mut s, 201, 2, sim_regs::BAD_REQUESTS, 8)
            .try_into()
            .unwrap(),
    );
    // (the nonexistent region is refused by the library before our backend sees it)
    assert_eq!(refused, bad.len() as u64 - 1);
    assert_eq!(
        server.stats(0).bad_requests.load(Ordering::Relaxed),
        refused
    );
    drop(s);

    // Half a header, then gone; half a write payload, then gone.
    let mut s = connect(&sock);
    s.write_all(&header(1, REGION_READ, 32)[..10]).unwrap();
    drop(s);
    let mut s = connect(&sock);
    let mut m = region_access(1, REGION_WRITE, 0, u64::from(nic::MTU), 4, &[0; 4]);
    m.truncate(34);
    s.write_all(&m).unwrap();
    drop(s);

    // A VERSION payload without its NUL makes the protocol library panic: only that
    // connection goes.
    let mut s = connect(&sock);
    let mut m = header(1, VERSION, 16 + 4 + 3);
    m.extend_from_slice(&[0, 0, 0, 0]); // major, minor
    m.extend_from_slice(b"{}x");
    s.write_all(&m).unwrap();
    let mut b = [0u8; 1];
    assert!(
        matches!(s.read(&mut b), Ok(0) | Err(_)),
        "the connection is dropped"
    );
    drop(s);

    // The next client is served normally, through the real client library.
    let dev = VfioUserDevice::connect(&sock).unwrap();
    assert_eq!(dev.bar_read32(nic::ID).unwrap(), ID_MAGIC);
    assert_eq!(
        server.stats(0).connections_closed.load(Ordering::Relaxed),
        4
    );
    assert!(server.stats(0).broken_connections.load(Ordering::Relaxed) >= 1);
    // The server runs until the process ends; only its socket file is ours to tidy.
    let _ = std::fs::remove_file(&sock);
}

/// Child: starts a 1 MiB put to itself and exits at once, mid-transfer.
#[test]
fn dying_client_role() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    assert_eq!(role, "die");
    let sock = PathBuf::from(std::env::var(SOCK).unwrap());
    let topo = Topology::full(1).unwrap();
    let mut card = Card::open(VfioUserDevice::connect(&sock).unwrap()).unwrap();
    card.configure(CardConfig::for_node(&topo, 0)).unwrap();
    card.program_routes(&topo).unwrap();
    let buf = card.device().dma_alloc(1 << 20).unwrap();
    let rx = card.rx_iova().unwrap();
    card.put(0, &buf, 0, rx, 1 << 20, 0).unwrap();
    // Let the card get going: a few thousand cycles into the transfer.
    for _ in 0..2000 {
        card.device().relax(fasthsl_device::Pace::Step);
    }
    assert!(
        card.poll_lmr().unwrap().is_empty(),
        "the message must still be in flight"
    );
    println!("DYING");
    // No destructors: the socket closes with the process, like a crash.
    std::process::exit(0);
}

#[test]
fn a_client_dying_mid_transfer_leaves_the_server_usable() {
    watchdog(90);
    let (server, sock) = serve(1, "die");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "dying_client_role",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROLE, "die")
        .env(SOCK, &sock)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("DYING"));

    // Next client: the card was disabled and drained, the old memory unmapped.
    let topo = Topology::full(1).unwrap();
    let dev = VfioUserDevice::connect(&sock).unwrap();
    assert_eq!(dev.sim_read(sim_regs::MAPPED_BYTES).unwrap(), Some(0));
    let faults_before = dev.sim_read(sim_regs::IOMMU_FAULTS).unwrap().unwrap();
    let mut card = Card::open(dev).unwrap();
    card.configure(CardConfig::for_node(&topo, 0)).unwrap();
    card.program_routes(&topo).unwrap();
    let buf = card.device().dma_alloc(4096).unwrap();
    card.device().mem_write(&buf, 0, b"after a crash").unwrap();
    let rx = card.rx_iova().unwrap();
    let t = card.put(0, &buf, 0, rx + 16, 13, 0).unwrap();
    assert_eq!(card.wait_completion(&t, 200_000).unwrap().result, Ok(()));
    let e = card.wait_lmr(200_000).unwrap();
    assert_eq!((e.addr, e.len), (rx + 16, 13));
    let mut got = [0u8; 13];
    card.read_rx(16, &mut got).unwrap();
    assert_eq!(&got, b"after a crash");
    // Nothing of the dead client's transfer reached the new client's memory.
    let mut head = [0xAAu8; 16];
    card.read_rx(0, &mut head).unwrap();
    assert_eq!(head, [0; 16]);
    let faults_after = card
        .device()
        .sim_read(sim_regs::IOMMU_FAULTS)
        .unwrap()
        .unwrap();
    assert_eq!(faults_after, faults_before, "the new client's run is clean");
    assert_eq!(
        server.stats(0).connections_closed.load(Ordering::Relaxed),
        1
    );
    let _ = std::fs::remove_file(&sock);
}
