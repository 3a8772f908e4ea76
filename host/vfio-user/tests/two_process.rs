//! Two driver processes, one per node socket of a `full:2` cluster served over
//! vfio-user, doing remote writes: node 0 puts into node 1, node 1 checks the data and
//! its LMR entries and takes the interrupt through its eventfd.
//!
//! The server runs in this test's process (threads); each client is this test binary
//! re-executed with a role in the environment (only `client_role` runs there).

mod common;
use common::{serve, watchdog};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fasthsl_contract::{desc_flag, int};
use fasthsl_device::Device;
use fasthsl_driver::{Card, CardConfig};
use fasthsl_topology::Topology;
use fasthsl_vfio_user::{sim_regs, VfioUserDevice};

const ROLE: &str = "FASTHSL_VU_ROLE";
const SOCK: &str = "FASTHSL_VU_SOCK";
const PEER: &str = "FASTHSL_VU_PEER_IOVA";
/// Modeled time limits; real time is bounded by the parent's watchdog.
const TIMEOUT_NS: u64 = 200_000;
const BIG: usize = 3000;
const BIG_OFF: u64 = 64;
const SMALL_OFF: u64 = 8192;

fn pattern(i: usize) -> u8 {
    (i * 7 + 3) as u8
}

fn spawn(role: &str, sock: &Path, peer: Option<u64>) -> Child {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "client_role", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(SOCK, sock)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    if let Some(p) = peer {
        c.env(PEER, p.to_string());
    }
    c.spawn().expect("re-executing the test binary")
}

/// Reads lines until one starts with `tag`; returns the rest.
fn expect_line(r: &mut impl BufRead, tag: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            r.read_line(&mut line).unwrap() > 0,
            "client ended before {tag}"
        );
        // libtest may print "test client_role ... " on the same line first.
        if let Some(i) = line.find(tag) {
            return line[i + tag.len()..].trim().to_string();
        }
    }
}

fn wait_ok(mut c: Child, deadline: Instant, who: &str) {
    loop {
        if let Some(st) = c.try_wait().unwrap() {
            assert!(st.success(), "{who} failed: {st}");
            return;
        }
        if Instant::now() > deadline {
            let _ = c.kill();
            panic!("{who} still running at the deadline");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn two_driver_processes_put_across_two_sockets() {
    watchdog(90);
    let (server, dir) = serve(2, "e2e");
    let socks = server.sockets().to_vec();
    assert_eq!(socks, vec![dir.join("node0.sock"), dir.join("node1.sock")]);
    let deadline = Instant::now() + Duration::from_secs(60);

    let mut rx = spawn("recv", &socks[1], None);
    let mut rx_out = BufReader::new(rx.stdout.take().unwrap());
    let iova = u64::from_str_radix(&expect_line(&mut rx_out, "READY"), 16).unwrap();

    let tx = spawn("send", &socks[0], Some(iova));
    wait_ok(tx, deadline, "sender");

    writeln!(rx.stdin.as_mut().unwrap(), "GO").unwrap();
    let got = expect_line(&mut rx_out, "GOT");
    wait_ok(rx, deadline, "receiver");
    assert_eq!(got, "2 messages");

    for n in 0..2 {
        let s = server.stats(n);
        assert_eq!(s.bad_requests.load(std::sync::atomic::Ordering::Relaxed), 0);
        assert_eq!(
            s.broken_connections
                .load(std::sync::atomic::Ordering::Relaxed),
            0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The body of a client process (does nothing in a normal test run).
#[test]
fn client_role() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let sock = PathBuf::from(std::env::var(SOCK).unwrap());
    let topo = Topology::full(2).unwrap();
    let dev = VfioUserDevice::connect(&sock).unwrap();
    let node = dev.node().unwrap() as u16;
    let mut card = Card::open(dev).unwrap();
    card.configure(CardConfig::for_node(&topo, node)).unwrap();
    assert_eq!(card.program_routes(&topo).unwrap(), vec![usize::from(node)]);
    match role.as_str() {
        "send" => {
            assert_eq!(node, 0);
            let peer: u64 = std::env::var(PEER).unwrap().parse().unwrap();
            let buf = card.device().dma_alloc(16384).unwrap();
            let data: Vec<u8> = (0..BIG).map(pattern).collect();
            card.device().mem_write(&buf, 0, &data).unwrap();
            card.device().mem_write(&buf, 8192, b"ABCDEFGH").unwrap();
            let t1 = card
                .put(1, &buf, 0, peer + BIG_OFF, BIG, desc_flag::IRQ_REMOTE)
                .unwrap();
            let t2 = card.put(1, &buf, 8192, peer + SMALL_OFF, 8, 0).unwrap();
            for t in [t1, t2] {
                let c = card.wait_completion(&t, TIMEOUT_NS).unwrap();
                assert_eq!(c.result, Ok(()));
            }
            let faults = card.device().sim_read(sim_regs::IOMMU_FAULTS).unwrap();
            assert_eq!(faults, Some(0));
            card.device().dma_free(buf).unwrap();
        }
        "recv" => {
            assert_eq!(node, 1);
            let rx = card.rx_iova().unwrap();
            println!("READY {rx:x}");
            std::io::stdout().flush().unwrap();
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).unwrap();
            assert_eq!(line.trim(), "GO");
            // The first message asked for an interrupt: it arrives on the eventfd.
            let bits = card.wait_interrupt(TIMEOUT_NS).unwrap();
            assert!(bits.is_some_and(|b| b & int::LMR_NEW != 0), "{bits:?}");
            let a = card.wait_lmr(TIMEOUT_NS).unwrap();
            let b = card.wait_lmr(TIMEOUT_NS).unwrap();
            assert_eq!((a.src, a.addr, a.len), (0, rx + BIG_OFF, BIG as u32));
            assert_eq!(a.flags & desc_flag::IRQ_REMOTE, desc_flag::IRQ_REMOTE);
            assert_eq!((b.src, b.addr, b.len), (0, rx + SMALL_OFF, 8));
            let mut got = vec![0u8; BIG];
            card.read_rx(BIG_OFF as usize, &mut got).unwrap();
            assert!(got.iter().enumerate().all(|(i, &x)| x == pattern(i)));
            let mut around = [0u8; 1];
            card.read_rx(BIG_OFF as usize + BIG, &mut around).unwrap();
            assert_eq!(around[0], 0, "nothing past the message");
            let mut small = [0u8; 8];
            card.read_rx(SMALL_OFF as usize, &mut small).unwrap();
            assert_eq!(&small, b"ABCDEFGH");
            let faults = card.device().sim_read(sim_regs::IOMMU_FAULTS).unwrap();
            assert_eq!(faults, Some(0));
            println!("GOT 2 messages");
        }
        other => panic!("unknown role {other}"),
    }
}
