//! Driver logic that needs no card: configuration limits, the order of put's checks,
//! routing register encoding. Everything that talks to a card runs against the
//! simulated RTL in tests/.

use super::*;

fn topo(s: &str) -> Topology {
    s.parse().unwrap()
}

#[test]
fn config_validation() {
    let t = topo("full:2");
    let ok = CardConfig::for_node(&t, 1);
    assert_eq!(ok.dest_range, 0..=1);
    assert!(ok.validate().is_ok());
    let field = |c: CardConfig| match c.validate() {
        Err(DriverError::BadConfig { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        field(CardConfig {
            mtu: 12,
            ..ok.clone()
        }),
        "mtu"
    );
    assert_eq!(
        field(CardConfig {
            mtu: 0,
            ..ok.clone()
        }),
        "mtu"
    );
    assert_eq!(
        field(CardConfig {
            mtu: 2048,
            ..ok.clone()
        }),
        "mtu"
    );
    assert_eq!(
        field(CardConfig {
            lme_entries: 1,
            ..ok.clone()
        }),
        "lme_entries"
    );
    assert_eq!(
        field(CardConfig {
            lmr_entries: 4097,
            ..ok.clone()
        }),
        "lmr_entries"
    );
    #[allow(clippy::reversed_empty_ranges)]
    let empty = 3..=2;
    assert_eq!(
        field(CardConfig {
            dest_range: empty,
            ..ok.clone()
        }),
        "dest_range"
    );
    assert_eq!(
        field(CardConfig {
            rx_window_bytes: 0,
            ..ok.clone()
        }),
        "rx_window_bytes"
    );
    assert_eq!(field(CardConfig { int_mask: 8, ..ok }), "int_mask");
}

#[test]
fn pre_checks_return_typed_errors_in_order() {
    let r = 0..=3u16;
    assert!(matches!(
        check_put(&r, 1, 0, 10, 0, 0, 0),
        Err(DriverError::ZeroLength)
    ));
    assert!(matches!(
        check_put(&r, 1, 0, usize::MAX, 0, 0, MSG_LEN_MAX as usize + 1),
        Err(DriverError::TooLong { .. })
    ));
    assert!(check_put(&r, 1, 0, MSG_LEN_MAX as usize, 0, 0, MSG_LEN_MAX as usize).is_ok());
    assert!(matches!(
        check_put(&r, 4, 0, 10, 0, 0, 1),
        Err(DriverError::DestOutOfRange {
            dest: 4,
            lo: 0,
            hi: 3
        })
    ));
    assert!(matches!(
        check_put(&r, 3, 0, 10, 5, 0, 6),
        Err(DriverError::LocalRange {
            offset: 5,
            len: 6,
            buf_len: 10
        })
    ));
    assert!(matches!(
        check_put(&r, 3, 0, 10, usize::MAX, 0, 6),
        Err(DriverError::LocalRange { .. })
    ));
    assert!(matches!(
        check_put(&r, 3, 0, 10, 0, u64::MAX - 2, 6),
        Err(DriverError::RemoteRange { .. })
    ));
    // 48-bit remote addresses (contract 1.5): ending at 2^48 is fine, one byte more is not.
    assert!(check_put(&r, 3, 0, 10, 0, (1 << 48) - 6, 6).is_ok());
    assert!(matches!(
        check_put(&r, 3, 0, 10, 0, (1 << 48) - 5, 6),
        Err(DriverError::RemoteRange { .. })
    ));
    assert!(matches!(
        check_put(&r, 3, 0, 10, 0, 1 << 48, 6),
        Err(DriverError::RemoteRange { .. })
    ));
    assert!(check_put(&r, 3, 0, 10, 4, 0, 6).is_ok());
    // Broadcasts: dest is lo | hi << 8, both inside DEST_RANGE, lo <= hi.
    let bc = crate::desc_flag::BCAST;
    assert!(check_put(&r, 3 << 8, bc, 10, 0, 0, 6).is_ok());
    assert!(check_put(&r, 1 | 2 << 8, bc, 10, 0, 0, 6).is_ok());
    assert!(matches!(
        check_put(&r, 2 | 1 << 8, bc, 10, 0, 0, 6),
        Err(DriverError::BcastRange { lo: 2, hi: 1, .. })
    ));
    assert!(matches!(
        check_put(&r, 4 << 8, bc, 10, 0, 0, 6),
        Err(DriverError::BcastRange { hi: 4, .. })
    ));
}

#[test]
fn route_registers_invalidate_unused_entries() {
    let t = topo("full:2");
    let regs = route_registers(&t.routing_tables().unwrap()[0].inputs);
    assert_eq!(regs.len(), 64);
    // Router 0 of full:2: node 0 on port 0, node 1 on port 1.
    assert_eq!(regs[0], (0, 0, 0, 1 << 31));
    assert_eq!(regs[1], (0, 1, 1 | 1 << 16, 1 << 31 | 1));
    assert!(regs[2..8].iter().all(|r| r.2 == 0 && r.3 == 0));
}

#[test]
fn error_messages_name_the_err_status_bits() {
    let e = DriverError::ConfigErrors {
        err_status: err::LME_PROD_RANGE | err::RX_DROP,
    };
    let s = e.to_string();
    assert!(s.contains("[\"LME_PROD_RANGE\", \"RX_DROP\"]"), "{s}");
    let e = DriverError::ConfigRejected {
        register: "MTU",
        wrote: 12,
        read: 1024,
        err_status: err::CSR_BAD_VALUE,
    };
    let s = e.to_string();
    assert!(
        s.starts_with("MTU: wrote 0xc, card reads back 0x400"),
        "{s}"
    );
    assert!(s.contains("CSR_BAD_VALUE"), "{s}");
}
