//! User-level contexts on page handles over vfio-user: on two served cards, a context of
//! each runs on `PageDevice::context` of the card's own connection (a socket serves one
//! connection, so the page handle borrows it), sends and receives as on the simulator,
//! and an access outside its page is refused by the handle: no request reaches the
//! server and the card counts no bad access.

mod common;
use common::{serve, watchdog};
use fasthsl_contract::{ctx_regs as ctx, nic_regs as nic, CTX_COUNT};
use fasthsl_device::{Device, DeviceError, PageDevice};
use fasthsl_driver::{Card, CardConfig, Context, DriverError};
use fasthsl_topology::Topology;
use fasthsl_vfio_user::{sim_regs, VfioUserDevice};

/// Modeled time allowed for the messages.
const TIMEOUT_NS: u64 = 5_000_000;

#[test]
fn contexts_on_page_handles_over_vfio_user() {
    watchdog(120);
    let (server, dir) = serve(2, "ctxpage");
    let topo = Topology::full(2).unwrap();
    let mut cards = Vec::new();
    for (n, p) in server.sockets().iter().enumerate() {
        let mut c = Card::open(VfioUserDevice::connect(p).unwrap()).unwrap();
        let mut cc = CardConfig::for_node(&topo, n as u16);
        cc.rx_window_bytes = 1 << 20;
        c.configure(cc).unwrap();
        cards.push(c);
    }
    for c in &cards {
        c.program_routes(&topo).unwrap();
    }
    let bad = |c: &Card<VfioUserDevice>| {
        let cnt = c.counters().unwrap();
        let req = c.device().sim_read(sim_regs::BAD_REQUESTS).unwrap();
        (cnt.csr_err, cnt.err_status, req)
    };
    let before = [bad(&cards[0]), bad(&cards[1])];

    assert!(matches!(
        PageDevice::context(cards[0].device(), CTX_COUNT as u32),
        Err(DeviceError::BadPage { .. })
    ));
    match Context::open(
        PageDevice::context(cards[0].device(), 2).unwrap(),
        3,
        16,
        16,
    ) {
        Err(DriverError::Device(DeviceError::PageOffset { .. })) => {}
        other => panic!("context 3 through context 2's page: {other:?}"),
    }
    let mut tx = Context::open(
        PageDevice::context(cards[0].device(), 3).unwrap(),
        3,
        16,
        16,
    )
    .unwrap();
    let mut rxc = Context::open(
        PageDevice::context(cards[1].device(), 5).unwrap(),
        5,
        16,
        16,
    )
    .unwrap();
    let rx = cards[1].rx_iova().unwrap();
    let buf = tx.device().dma_alloc(4096).unwrap();
    let data: Vec<u8> = (0..4096).map(|i| (i * 7 + 1) as u8).collect();
    tx.device().mem_write(&buf, 0, &data).unwrap();
    for i in 0..4u64 {
        tx.put(1, 5, &buf, 0, rx + 4096 * i, 1000 + i as usize, 0)
            .unwrap();
    }
    for c in tx.wait_all(TIMEOUT_NS).unwrap() {
        assert_eq!(c.result, Ok(()));
    }
    for i in 0..4u64 {
        let e = rxc.wait_lmr(TIMEOUT_NS).unwrap();
        let len = 1000 + i as usize;
        assert_eq!((e.addr, e.len as usize), (rx + 4096 * i, len));
        let mut back = vec![0u8; len];
        cards[1].read_rx(4096 * i as usize, &mut back).unwrap();
        assert!(back == data[..len], "message {i}");
    }

    let dev = tx.device();
    for off in [
        nic::NODE_ID,
        ctx::page(2) + ctx::LME_PROD,
        ctx::page(4),
        ctx::page(3) + 0x1000,
        ctx::page(3) + 1,
    ] {
        assert!(
            matches!(
                dev.bar_write32(off, 0x55),
                Err(DeviceError::PageOffset { .. })
            ),
            "write to {off:#x}"
        );
        assert!(
            matches!(dev.bar_read32(off), Err(DeviceError::PageOffset { .. })),
            "read of {off:#x}"
        );
    }
    assert_eq!(cards[0].device().bar_read32(nic::NODE_ID).unwrap(), 0);
    drop(tx);
    drop(rxc);
    assert_eq!(
        [bad(&cards[0]), bad(&cards[1])],
        before,
        "the cards saw bad accesses"
    );
    drop(cards);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
