//! Receive windows with keys (docs/WINDOWS.md) on two simulated nodes (the real RTL):
//! a keyed write lands; a wrong key, a write outside its window, a write that straddles
//! the window's end and a write after deregistration land nothing (the bytes are
//! checked), are counted, logged for the receiver, and never touch memory the driver did
//! not map (the IOMMU-fault count stays 0). Every put path (inline push, push, ring,
//! inline ring) carries the key.

use fasthsl_driver::contract::{desc_flag, err, status_done, DescErr, LmrEntry, WinRej, MTU_MAX};
use fasthsl_driver::{
    Card, CardConfig, Device, DmaBuffer, DriverError, PutPath, RxWindow, WindowPerms, WINDOWS,
};
use fasthsl_rng::Rng;
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;

const RX: usize = 256 << 10;
const SRC: usize = 64 << 10;
const POISON: u8 = 0xA5;
/// Device time for one message: far above what the link needs.
const TIMEOUT_NS: u64 = 5_000_000;
/// Cycles after which a message that was going to land has landed.
const SETTLE_CYCLES: u64 = 20_000;

struct Net {
    cluster: Cluster,
    cards: Vec<Card<SimDevice>>,
    src: DmaBuffer,
}

fn up(spec: &str) -> Net {
    up_with(spec, SimConfig::default())
}

fn up_with(spec: &str, sim: SimConfig) -> Net {
    up_mtu(spec, sim, MTU_MAX as u32)
}

fn up_mtu(spec: &str, sim: SimConfig, mtu: u32) -> Net {
    let topo: Topology = spec.parse().unwrap();
    let cluster = Cluster::new(&topo, sim).unwrap();
    let mut cards = Vec::new();
    for n in 0..topo.nodes() {
        let mut card = Card::open(cluster.device(n)).unwrap();
        let mut cfg = CardConfig::for_node(&topo, n as u16);
        cfg.rx_window_bytes = RX;
        cfg.mtu = mtu;
        card.configure(cfg).unwrap();
        card.write_rx(0, &vec![POISON; RX]).unwrap();
        cards.push(card);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    let src = cards[0].device().dma_alloc(SRC).unwrap();
    Net {
        cluster,
        cards,
        src,
    }
}

impl Net {
    /// Node 0 puts `len` pattern bytes to node `dst` at `remote` with `key`; waits for
    /// the sender's completion (the sender cannot see a refusal yet: no NACK path).
    fn put(&mut self, path: PutPath, dst: usize, remote: u64, key: u16, len: usize) -> u32 {
        let data = pattern(len);
        self.cards[0]
            .device()
            .mem_write(&self.src, 0, &data)
            .unwrap();
        let t = self.cards[0]
            .put_keyed(path, dst as u16, &self.src, 0, remote, key, len, 0)
            .unwrap();
        let c = self.cards[0].wait_completion(&t, TIMEOUT_NS).unwrap();
        assert_eq!(c.result, Ok(()));
        t.msg_id
    }

    fn rx(&self, n: usize) -> Vec<u8> {
        let mut b = vec![0u8; RX];
        self.cards[n].read_rx(0, &mut b).unwrap();
        b
    }

    /// Bytes of node `n`'s receive region that are no longer POISON.
    fn written(&self, n: usize) -> Vec<usize> {
        self.rx(n)
            .iter()
            .enumerate()
            .filter(|(_, &b)| b != POISON)
            .map(|(i, _)| i)
            .collect()
    }

    fn no_lmr(&mut self, n: usize) {
        self.cluster.step(SETTLE_CYCLES);
        assert_eq!(self.cards[n].poll_lmr().unwrap(), vec![], "node {n}");
    }

    fn assert_no_faults(&self) {
        assert_eq!(
            self.cluster.iommu_fault_count(),
            0,
            "{:?}",
            self.cluster.iommu_faults()
        );
        assert!(
            self.cluster.violations().is_empty(),
            "{:?}",
            self.cluster.violations()
        );
    }
}

/// Payload bytes, never POISON (so every landed byte shows).
fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| match (i * 7 + len) as u8 {
            POISON => 0x5A,
            b => b,
        })
        .collect()
}

/// `(count, first, last)` of a list of offsets, for short failure messages.
fn span(v: &[usize]) -> (usize, Option<&usize>, Option<&usize>) {
    (v.len(), v.first(), v.last())
}

/// A refused message: nothing written at node 1, no LMR entry, one more refusal per
/// packet in the counter `reason` belongs to, and the log names the first packet.
fn expect_refused(net: &mut Net, path: PutPath, remote: u64, key: u16, len: usize, reason: WinRej) {
    let before = net.cards[1].window_stats().unwrap();
    let k_before = net.cards[1].counters().unwrap();
    let msg_id = net.put(path, 1, remote, key, len);
    net.no_lmr(1);
    assert_eq!(
        span(&net.written(1)),
        (0, None, None),
        "{reason:?}: bytes landed"
    );
    let after = net.cards[1].window_stats().unwrap();
    let k_after = net.cards[1].counters().unwrap();
    let pkts = len.div_ceil(MTU_MAX as usize) as u32;
    let grew = [
        after.reject_key - before.reject_key,
        after.reject_perm - before.reject_perm,
        after.reject_range - before.reject_range,
    ];
    let want = match reason {
        WinRej::Invalid | WinRej::Key | WinRej::Ctx => [pkts, 0, 0],
        WinRej::Perm => [0, pkts, 0],
        WinRej::Range => [0, 0, pkts],
        other => panic!("not a table refusal: {other:?}"),
    };
    assert_eq!(grew, want, "{reason:?}: counters");
    assert_eq!(
        k_after.rx_pkts, k_before.rx_pkts,
        "{reason:?}: packets written"
    );
    assert_eq!(k_after.err_status & err::WIN_REJECT, err::WIN_REJECT);
    let r = net.cards[1]
        .take_window_reject()
        .unwrap()
        .expect("refusal logged");
    assert_eq!(
        (r.src, r.reason, r.msg_id, r.key, r.addr),
        (0, Ok(reason), msg_id, key, remote),
        "{reason:?}: log"
    );
    assert_eq!(
        net.cards[1].take_window_reject().unwrap(),
        None,
        "log re-armed"
    );
}

fn expect_landed(net: &mut Net, path: PutPath, w: &RxWindow, at: usize, len: usize) {
    let msg_id = net.put(path, 1, w.addr() + at as u64, w.key(), len);
    let e = net.cards[1].wait_lmr(TIMEOUT_NS).unwrap();
    assert_eq!(
        e,
        LmrEntry {
            src: 0,
            status: status_done(DescErr::Ok),
            msg_id,
            addr: w.addr() + at as u64,
            len: len as u32,
            flags: 0,
        }
    );
    let rx = net.rx(1);
    let off = w.offset() + at;
    assert_eq!(rx[off..off + len], pattern(len)[..], "{path:?} {len} B");
    // Clean again for the next case's "nothing written" check.
    net.cards[1].write_rx(off, &vec![POISON; len]).unwrap();
}

#[test]
fn keyed_writes_land_and_every_refusal_lands_nothing() {
    let mut net = up("full:2");
    let a = net.cards[1]
        .register_window(0x1000, 0x4000, WindowPerms::WRITE)
        .unwrap();
    let b = net.cards[1]
        .register_window(0x10000, 0x1000, WindowPerms::WRITE)
        .unwrap();
    assert_ne!(a.key() & 0xF, b.key() & 0xF, "one table index per window");
    assert_ne!(a.key() >> 4, 0, "tag 0 would let key-less writes in");
    assert!(net.cards[1].window_stats().unwrap().enforced);

    // Every path carries the key.
    expect_landed(&mut net, PutPath::InlinePush, &a, 3, 8);
    expect_landed(&mut net, PutPath::InlinePush, &a, 0x100, 64);
    expect_landed(&mut net, PutPath::Push, &a, 0x201, 1000);
    expect_landed(&mut net, PutPath::Ring, &a, 0x3000 - 5, 3000);
    expect_landed(&mut net, PutPath::Ring, &a, 0x10, 5);
    expect_landed(&mut net, PutPath::Push, &a, 0x4000 - 100, 100);
    expect_landed(&mut net, PutPath::Ring, &b, 0, 0x1000);
    assert_eq!(net.cards[1].take_window_reject().unwrap(), None);

    // Wrong tag, no key, another window's address, straddling the end, past the end.
    let wrong_tag = a.key() ^ 0x10;
    expect_refused(
        &mut net,
        PutPath::InlinePush,
        a.addr(),
        wrong_tag,
        8,
        WinRej::Key,
    );
    expect_refused(
        &mut net,
        PutPath::Ring,
        a.addr() + 8,
        wrong_tag,
        2500,
        WinRej::Key,
    );
    // Key 0 (a key-less sender) names index 0, window a, whose tag is never 0.
    assert_eq!(a.index(), 0);
    expect_refused(&mut net, PutPath::Push, a.addr(), 0, 100, WinRej::Key);
    // An index with no window.
    expect_refused(
        &mut net,
        PutPath::Push,
        a.addr(),
        a.key() | 0xF,
        100,
        WinRej::Invalid,
    );
    expect_refused(
        &mut net,
        PutPath::Ring,
        b.addr(),
        a.key(),
        64,
        WinRej::Range,
    );
    expect_refused(
        &mut net,
        PutPath::Push,
        a.addr() + 0x4000 - 8,
        a.key(),
        9,
        WinRej::Range,
    );
    expect_refused(
        &mut net,
        PutPath::InlinePush,
        a.addr() + 0x4000,
        a.key(),
        1,
        WinRej::Range,
    );
    expect_refused(
        &mut net,
        PutPath::Ring,
        a.addr() - 1,
        a.key(),
        2,
        WinRej::Range,
    );

    // After deregistration the old key opens nothing; the other window still works.
    let a_key = a.key();
    let a_addr = a.addr();
    net.cards[1].deregister_window(a).unwrap();
    expect_refused(
        &mut net,
        PutPath::InlinePush,
        a_addr,
        a_key,
        8,
        WinRej::Invalid,
    );
    expect_refused(
        &mut net,
        PutPath::Ring,
        a_addr + 0x100,
        a_key,
        2048,
        WinRej::Invalid,
    );
    expect_landed(&mut net, PutPath::InlinePush, &b, 0x10, 16);

    // The card kept running and nothing reached memory it was not given.
    net.assert_no_faults();
    let k = net.cards[1].counters().unwrap();
    assert_eq!(
        (k.rx_drop_window, k.rx_crc_err, k.rx_drop_malformed),
        (0, 0, 0)
    );
    let k0 = net.cards[0].counters().unwrap();
    assert_eq!(k0.desc_err, 0);
}

#[test]
fn one_refused_packet_costs_the_message_its_lmr_entry() {
    let mut net = up("full:2");
    let a = net.cards[1]
        .register_window(0x2000, 0x1000, WindowPerms::WRITE)
        .unwrap();
    // Three packets; the last one runs past the window's end by one byte.
    let len = 2 * MTU_MAX as usize + 200;
    let at = 0x1000 - len + 1;
    let before = net.cards[1].window_stats().unwrap();
    net.put(PutPath::Ring, 1, a.addr() + at as u64, a.key(), len);
    net.no_lmr(1);
    let after = net.cards[1].window_stats().unwrap();
    assert_eq!(after.reject_range - before.reject_range, 1);
    // The two packets inside the window landed (the window allows them), the refused one
    // did not, and nothing outside the window was touched.
    let want: Vec<usize> = (a.offset() + at..a.offset() + at + 2 * MTU_MAX as usize).collect();
    let got = net.written(1);
    assert_eq!(span(&got), span(&want));
    assert!(got == want, "landed bytes are not exactly the two packets");
    let k = net.cards[1].counters().unwrap();
    assert_eq!((k.rx_pkts, k.rx_msgs), (2, 0));
    net.assert_no_faults();
}

#[test]
fn broadcast_needs_its_permission_and_a_shared_key() {
    // One remote address for every receiver of a broadcast: shared bus addresses.
    let mut net = up_with(
        "full:3",
        SimConfig {
            shared_iova: true,
            ..SimConfig::default()
        },
    );
    // Nodes 1 and 2 register the same key (index 5) for broadcasts; node 2 without the
    // broadcast permission.
    let key = 0x7A5;
    let w1 = net.cards[1]
        .register_window_with_key(
            0x800,
            0x800,
            WindowPerms {
                write: false,
                bcast: true,
            },
            key,
        )
        .unwrap();
    let w2 = net.cards[2]
        .register_window_with_key(0x800, 0x800, WindowPerms::WRITE, key)
        .unwrap();
    assert_eq!((w1.key(), w2.key(), w1.index()), (key, key, 5));
    assert_eq!(w1.addr(), w2.addr());
    let data = pattern(40);
    net.cards[0].device().mem_write(&net.src, 0, &data).unwrap();
    let remote = w1.addr();
    let t = net.cards[0]
        .put_keyed(
            PutPath::Ring,
            2 << 8,
            &net.src,
            0,
            remote,
            key,
            40,
            desc_flag::BCAST,
        )
        .unwrap();
    assert_eq!(
        net.cards[0].wait_completion(&t, TIMEOUT_NS).unwrap().result,
        Ok(())
    );
    let e = net.cards[1].wait_lmr(TIMEOUT_NS).unwrap();
    assert_eq!((e.src, e.len, e.addr), (0, 40, remote));
    let rx1 = net.rx(1);
    assert_eq!(rx1[0x800..0x800 + 40], data[..]);
    // Node 2 refuses it: its window with that key does not allow broadcasts.
    net.no_lmr(2);
    assert_eq!(span(&net.written(2)), (0, None, None));
    let r = net.cards[2]
        .take_window_reject()
        .unwrap()
        .expect("refusal logged");
    assert_eq!((r.src, r.reason, r.key), (0, Ok(WinRej::Perm), key));
    // A write into node 1's broadcast-only window is refused for the permission.
    expect_perm_refusal(&mut net, &w1);
    net.assert_no_faults();
}

fn expect_perm_refusal(net: &mut Net, w: &RxWindow) {
    net.cards[1].write_rx(0, &vec![POISON; RX]).unwrap();
    let before = net.cards[1].window_stats().unwrap();
    net.put(PutPath::InlinePush, 1, w.addr(), w.key(), 8);
    net.no_lmr(1);
    assert_eq!(span(&net.written(1)), (0, None, None));
    let after = net.cards[1].window_stats().unwrap();
    assert_eq!(after.reject_perm - before.reject_perm, 1);
}

#[test]
fn register_checks_its_arguments_and_keys_are_fresh() {
    let mut net = up("full:2");
    let c = &mut net.cards[1];
    assert!(matches!(
        c.register_window(RX - 8, 9, WindowPerms::WRITE),
        Err(DriverError::WindowRange { .. })
    ));
    assert!(matches!(
        c.register_window(usize::MAX, 2, WindowPerms::WRITE),
        Err(DriverError::WindowRange { .. })
    ));
    // No window is registered by a refused call: key-less writes still land.
    assert!(!c.window_stats().unwrap().enforced);
    let mut ws: Vec<RxWindow> = (0..WINDOWS)
        .map(|i| {
            c.register_window(i * 0x100, 0x100, WindowPerms::WRITE)
                .unwrap()
        })
        .collect();
    assert!(matches!(
        c.register_window(0, 8, WindowPerms::WRITE),
        Err(DriverError::WindowsFull { windows: 16 })
    ));
    let w3 = ws.remove(3);
    let old = w3.key();
    assert!(matches!(
        c.register_window_with_key(0, 8, WindowPerms::WRITE, 0x1234),
        Err(DriverError::WindowKeyInUse { key: 0x1234 })
    ));
    c.deregister_window(w3).unwrap();
    // The freed index comes back with a different key, many times over.
    let mut last = old;
    for _ in 0..20 {
        let w = c.register_window(0x300, 0x100, WindowPerms::WRITE).unwrap();
        assert_eq!(w.index(), 3);
        assert_ne!(w.key(), last, "an index reused its previous key");
        assert_ne!(w.key() >> 4, 0);
        last = w.key();
        c.deregister_window(w).unwrap();
    }
    // A fresh configuration forgets the windows: key-less writes land again.
    let mut cfg = c.config().unwrap().clone();
    cfg.rx_window_bytes = RX;
    c.configure(cfg).unwrap();
    assert!(!c.window_stats().unwrap().enforced);
    c.write_rx(0, &vec![POISON; RX]).unwrap();
    let remote = c.rx_iova().unwrap() + 0x40;
    net.put(PutPath::InlinePush, 1, remote, 0, 8);
    let e = net.cards[1].wait_lmr(TIMEOUT_NS).unwrap();
    assert_eq!((e.addr, e.len), (remote, 8));
    net.assert_no_faults();
}

/// The model's copy of a registered window.
#[derive(Clone, Copy)]
struct ModelWin {
    addr: u64,
    len: u64,
    tag: u16,
    write: bool,
}

/// Random windows (registered, deregistered, re-registered) and random keyed puts with
/// every kind of key and address, checked against a model of the contract's checks: the
/// receive region holds exactly the bytes of the accepted packets, an LMR entry comes
/// exactly for messages whose every packet was accepted, and every refusal is counted
/// under its reason.
#[test]
fn random_windows_and_keys_match_the_model() {
    const MTU: u32 = 256;
    let mut net = up_mtu("full:2", SimConfig::default(), MTU);
    let mtu = u64::from(MTU);
    let rx = net.cards[1].rx_iova().unwrap();
    let mut rng = Rng::new(7);
    let mut wins: Vec<Option<RxWindow>> = (0..WINDOWS).map(|_| None).collect();
    let mut model: [Option<ModelWin>; WINDOWS] = [None; WINDOWS];
    let mut stale: Vec<u16> = Vec::new();
    let mut image = vec![POISON; RX];
    let mut want = [0u32; 4]; // rxwin drops, key, perm, range refusals
    let mut outcomes = [0u32; 3]; // messages fully landed, partly landed, refused
    for op in 0..200 {
        // Reshape the table now and then (nothing is in flight between operations).
        if op % 25 == 0 {
            for i in 0..WINDOWS {
                if rng.below_u64(3) == 0 {
                    if let Some(w) = wins[i].take() {
                        stale.push(w.key());
                        net.cards[1].deregister_window(w).unwrap();
                        model[i] = None;
                    }
                }
            }
            for _ in 0..rng.range_u64(1, 6) {
                let off = rng.below_u64(RX as u64 - 1024) as usize;
                let len = rng
                    .below_u64((RX - off) as u64 + 1)
                    .min(rng.range_u64(0, 32 << 10)) as usize;
                let perms = WindowPerms {
                    write: rng.below_u64(6) != 0,
                    bcast: rng.below_u64(2) == 0,
                };
                match net.cards[1].register_window(off, len, perms) {
                    Ok(w) => {
                        model[w.index()] = Some(ModelWin {
                            addr: w.addr(),
                            len: len as u64,
                            tag: w.key() >> 4,
                            write: perms.write,
                        });
                        let i = w.index();
                        wins[i] = Some(w);
                    }
                    Err(DriverError::WindowsFull { .. }) => break,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        let live: Vec<usize> = (0..WINDOWS).filter(|&i| model[i].is_some()).collect();
        let len = match rng.below_u64(4) {
            0 => rng.range_u64(1, 64),
            1 => rng.range_u64(1, 2 * mtu),
            _ => rng.range_u64(1, 8 * mtu),
        } as usize;
        let pick = live
            .get(rng.below_u64(live.len().max(1) as u64) as usize)
            .copied();
        let (key, remote) = match (rng.below_u64(10), pick) {
            // A live window's key, inside it or across its end.
            (0..=5, Some(i)) => {
                let w = model[i].unwrap();
                let at = if rng.below_u64(2) == 0 {
                    rng.below_u64(w.len.max(1))
                } else {
                    w.len.saturating_sub(rng.range_u64(1, 3 * mtu))
                };
                (w.tag << 4 | i as u16, w.addr + at)
            }
            (6, Some(i)) => (
                model[i].unwrap().tag << 4 ^ 0x10 | i as u16,
                model[i].unwrap().addr,
            ),
            (7, _) if !stale.is_empty() => {
                let k = stale[rng.below_u64(stale.len() as u64) as usize];
                (k, rx + rng.below_u64(RX as u64 - len as u64))
            }
            // Outside the receive region altogether (RXWIN).
            (8, _) => (
                rng.next_u64() as u16,
                rx + RX as u64 + rng.below_u64(1 << 20),
            ),
            _ => (
                rng.next_u64() as u16,
                rx + rng.below_u64(RX as u64 - len as u64),
            ),
        };
        // The model, packet by packet (contract order: RXWIN, then the table).
        let mut accepted = Vec::new();
        let mut first_refusal = None;
        let pkts = (len as u64).div_ceil(mtu);
        for p in 0..pkts {
            let a = remote + p * mtu;
            let l = mtu.min(len as u64 - p * mtu);
            let reason = if a < rx || a + l > rx + RX as u64 {
                want[0] += 1;
                Some(WinRej::Rxwin)
            } else {
                let r = match model[usize::from(key & 0xF)] {
                    None => Some(WinRej::Invalid),
                    Some(w) if w.tag != key >> 4 => Some(WinRej::Key),
                    Some(w) if !w.write => Some(WinRej::Perm),
                    Some(w) if a < w.addr || a + l > w.addr + w.len => Some(WinRej::Range),
                    Some(_) => None,
                };
                match r {
                    Some(WinRej::Invalid | WinRej::Key) => want[1] += 1,
                    Some(WinRej::Perm) => want[2] += 1,
                    Some(WinRej::Range) => want[3] += 1,
                    _ => {}
                }
                r
            };
            match reason {
                None => accepted.push((a, l)),
                Some(r) => {
                    first_refusal.get_or_insert((a, r));
                }
            }
        }
        let path = match rng.below_u64(4) {
            0 if len <= 64 => PutPath::InlinePush,
            1 => PutPath::Push,
            2 => PutPath::Ring,
            _ => PutPath::Auto,
        };
        let msg_id = net.put(path, 1, remote, key, len);
        // The sender completed when its last packet left: a few hundred cycles to land.
        net.cluster.step(5_000);
        let data = pattern(len);
        for &(a, l) in &accepted {
            let from = (a - remote) as usize;
            let at = (a - rx) as usize;
            image[at..at + l as usize].copy_from_slice(&data[from..from + l as usize]);
        }
        assert!(
            net.rx(1) == image,
            "op {op}: receive region differs from the model"
        );
        let entries = net.cards[1].poll_lmr().unwrap();
        if accepted.len() as u64 == pkts {
            outcomes[0] += 1;
            assert_eq!(entries.len(), 1, "op {op}: LMR entry missing");
            assert_eq!((entries[0].msg_id, entries[0].addr), (msg_id, remote));
        } else {
            outcomes[if accepted.is_empty() { 2 } else { 1 }] += 1;
            assert_eq!(entries, vec![], "op {op}: LMR entry for a refused message");
        }
        let logged = net.cards[1].take_window_reject().unwrap();
        assert_eq!(
            logged.map(|r| (r.addr, r.reason, r.key, r.msg_id)),
            first_refusal.map(|(a, r)| (a & ((1 << 48) - 1), Ok(r), key, msg_id)),
            "op {op}: refusal log"
        );
    }
    let s = net.cards[1].window_stats().unwrap();
    let k = net.cards[1].counters().unwrap();
    assert_eq!(
        [
            k.rx_drop_window,
            s.reject_key,
            s.reject_perm,
            s.reject_range
        ],
        want
    );
    // The random mix reaches every outcome and every reason, or it proves little.
    assert!(outcomes.iter().all(|&n| n >= 10), "{outcomes:?}");
    assert!(want.iter().all(|&n| n >= 10), "{want:?}");
    net.assert_no_faults();
}

/// Contexts send keyed puts, and a window registered for a context takes only packets
/// addressed to that context: the same key for another context (or for the card's own
/// context 0) is refused with reason CTX, nothing written, counted and logged.
#[test]
fn a_context_window_takes_only_its_own_contexts_packets() {
    use fasthsl_driver::Context;
    let mut net = up("full:2");
    let mut tx = Context::open(net.cluster.device(0), 5, 8, 8).unwrap();
    let mut rx: Vec<Context<SimDevice>> = [2, 3]
        .iter()
        .map(|&n| Context::open(net.cluster.device(1), n, 8, 8).unwrap())
        .collect();
    let w = net.cards[1]
        .register_window_for_context(2, 0x1000, 0x2000, WindowPerms::WRITE)
        .unwrap();
    assert_eq!(w.owner(), 2);
    // A window of context 0 next to it, to check the owner check both ways.
    let w0 = net.cards[1]
        .register_window(0x4000, 0x1000, WindowPerms::WRITE)
        .unwrap();
    let len = MTU_MAX as usize + 300;
    let data = pattern(len);
    net.cards[0].device().mem_write(&net.src, 0, &data).unwrap();

    // The owner context gets it, in its own LMR ring.
    let remote = w.addr() + 0x10;
    let id = tx
        .put_keyed(1, 2, &net.src, 0, remote, w.key(), len, 0)
        .unwrap();
    assert!(tx.wait_all(TIMEOUT_NS).unwrap()[0].result.is_ok());
    let e = rx[0].wait_lmr(TIMEOUT_NS).unwrap();
    assert_eq!(
        (e.src, e.msg_id, e.addr, e.len),
        (0, id, remote, len as u32)
    );
    let off = w.offset() + 0x10;
    assert_eq!(net.rx(1)[off..off + len], data[..]);
    net.cards[1].write_rx(off, &vec![POISON; len]).unwrap();
    assert_eq!(net.cards[1].take_window_reject().unwrap(), None);

    // Refused: (dctx, key, address, reason).
    let cases = [
        (3u8, w.key(), remote, WinRej::Ctx),
        (2, w.key() ^ 0x10, remote, WinRej::Key),
        (0, w.key(), remote, WinRej::Ctx),
        (2, w0.key(), w0.addr(), WinRej::Ctx),
    ];
    for (dctx, key, at, reason) in cases {
        let before = net.cards[1].window_stats().unwrap();
        let k_before = net.cards[1].counters().unwrap();
        let id = tx.put_keyed(1, dctx, &net.src, 0, at, key, len, 0).unwrap();
        assert!(tx.wait_all(TIMEOUT_NS).unwrap()[0].result.is_ok());
        net.no_lmr(1);
        for c in &mut rx {
            assert_eq!(c.poll_lmr().unwrap(), vec![], "dctx {dctx} {reason:?}");
        }
        assert_eq!(
            span(&net.written(1)),
            (0, None, None),
            "dctx {dctx} {reason:?}: bytes landed"
        );
        let after = net.cards[1].window_stats().unwrap();
        let k_after = net.cards[1].counters().unwrap();
        assert_eq!(
            [
                after.reject_key - before.reject_key,
                after.reject_perm - before.reject_perm,
                after.reject_range - before.reject_range
            ],
            [len.div_ceil(MTU_MAX as usize) as u32, 0, 0],
            "dctx {dctx} {reason:?}: counters"
        );
        assert_eq!(k_after.rx_pkts, k_before.rx_pkts);
        let r = net.cards[1]
            .take_window_reject()
            .unwrap()
            .expect("refusal logged");
        assert_eq!(
            (r.src, r.reason, r.msg_id, r.key, r.addr),
            (0, Ok(reason), id, key, at),
            "dctx {dctx}: log"
        );
    }
    // The card kept running: the owner still gets its writes.
    let id = tx
        .put_keyed(1, 2, &net.src, 0, w.addr(), w.key(), 64, 0)
        .unwrap();
    let e = rx[0].wait_lmr(TIMEOUT_NS).unwrap();
    assert_eq!((e.msg_id, e.len), (id, 64));
    assert!(matches!(
        net.cards[1].register_window_for_context(8, 0, 8, WindowPerms::WRITE),
        Err(DriverError::NoSuchContext { n: 8, count: 8 })
    ));
    net.assert_no_faults();
}
