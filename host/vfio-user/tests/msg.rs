//! The message layer (fasthsl-msg) runs unchanged on cards reached over vfio-user: two
//! served cards of one simulated cluster, driven from this process through the
//! vfio-user client backend, exchange eager and rendezvous messages both ways.

mod common;
use common::{serve, watchdog};
use fasthsl_device::{Device, Pace};
use fasthsl_driver::{Card, CardConfig};
use fasthsl_msg::{Bootstrap, Endpoint, MsgConfig, DEFAULT_SHORT_MAX};
use fasthsl_topology::Topology;
use fasthsl_vfio_user::{sim_regs, VfioUserDevice};

/// Modeled time allowed for all messages of one size.
const TIMEOUT_NS: u64 = 5_000_000;

fn data(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt))
        .collect()
}

#[test]
fn eager_and_rendezvous_messages_over_vfio_user() {
    watchdog(120);
    let (server, dir) = serve(2, "msg");
    let topo = Topology::full(2).unwrap();
    let mut cards = Vec::new();
    for (n, p) in server.sockets().iter().enumerate() {
        let mut c = Card::open(VfioUserDevice::connect(p).unwrap()).unwrap();
        let mut cc = CardConfig::for_node(&topo, n as u16);
        cc.rx_window_bytes = 2 << 20;
        c.configure(cc).unwrap();
        cards.push(c);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    let boot = Bootstrap::new(cards.iter().map(|c| c.rx_iova().unwrap()).collect());
    let mut eps: Vec<Endpoint<VfioUserDevice>> = cards
        .into_iter()
        .map(|c| Endpoint::new(c, &boot, MsgConfig::default()).unwrap())
        .collect();

    // 1 B and 8 B and the largest eager size go into slots; one byte more and 100 KiB go
    // by rendezvous (the receiver's buffer is written directly).
    let sizes = [1, 8, DEFAULT_SHORT_MAX, DEFAULT_SHORT_MAX + 1, 100 << 10];
    for (k, &len) in sizes.iter().enumerate() {
        for (s, d) in [(0usize, 1usize), (1, 0)] {
            let tag = 100 + k as u32;
            let msg = data(len, (k * 2 + s) as u8);
            let buf = eps[d].alloc(len).unwrap();
            let rreq = eps[d].irecv(s as u16, tag, &buf).unwrap();
            let sreq = eps[s].isend(d as u16, tag, &msg).unwrap();
            let (mut rdone, mut sdone) = (None, None);
            let start = eps[0].card().device().now_ns();
            while rdone.is_none() || sdone.is_none() {
                if rdone.is_none() {
                    rdone = eps[d].test(&rreq).unwrap();
                }
                if sdone.is_none() {
                    sdone = eps[s].test(&sreq).unwrap();
                }
                let dev = eps[0].card().device();
                assert!(
                    dev.now_ns() - start < TIMEOUT_NS,
                    "{len} B {s}->{d}: not done"
                );
                dev.relax(Pace::Step);
            }
            let st = rdone.unwrap();
            assert_eq!(
                (st.src, st.tag, st.len, st.truncated),
                (s as u16, tag, len, false)
            );
            let mut got = vec![0u8; len];
            eps[d].read(&buf, 0, &mut got).unwrap();
            assert!(got == msg, "{len} B {s}->{d}: data differs");
            eps[d].free(buf);
        }
    }
    for (n, ep) in eps.iter().enumerate() {
        let st = ep.stats();
        // Three eager and two rendezvous sizes, each received once by each node.
        assert_eq!((st.short_recv, st.rdv_recv), (3, 2), "node {n}: {st:?}");
        assert_eq!(
            (st.protocol_errors, st.put_errors),
            (0, 0),
            "node {n}: {st:?}"
        );
        // The layer ran behind its keyed receive window (MsgConfig::windows, the default):
        // the card checked every key and refused none of the layer's puts.
        let win = ep.card().window_stats().unwrap();
        assert!(win.enforced && win.rejected() == 0, "node {n}: {win:?}");
        let faults = ep.card().device().sim_read(sim_regs::IOMMU_FAULTS).unwrap();
        assert_eq!(faults, Some(0), "node {n}");
    }
    drop(eps);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
