//! Commands for real cards, through VFIO.

use anyhow::{Context, Result};
use fasthsl_driver::contract::err;
use fasthsl_driver::{Card, Counters, CsrState, Device, RouterState, WinStats};
use fasthsl_vfio::VfioDevice;
use serde_json::{json, Map, Value};

/// `fasthsl list`.
pub fn list(json_out: bool) -> Result<()> {
    let cards = fasthsl_vfio::list().context("scanning the PCI bus")?;
    if json_out {
        let v: Vec<Value> = cards
            .iter()
            .map(|c| {
                json!({
                    "address": c.address.to_string(),
                    "vendor": format!("{:04x}", c.vendor),
                    "device": format!("{:04x}", c.device),
                    "driver": c.driver,
                    "iommu_group": c.iommu_group,
                    "ready": c.ready(),
                })
            })
            .collect();
        outln!("{}", Value::Array(v));
        return Ok(());
    }
    if cards.is_empty() {
        outln!(
            "no FastHSL card found (looked for PCI id {:04x}:{:04x} in /sys/bus/pci/devices).",
            fasthsl_driver::contract::PCI_VENDOR_ID,
            fasthsl_driver::contract::PCI_DEVICE_ID
        );
        outln!(
            "hint: check that the board is seated and its bitstream loaded (`lspci -nn`), \
             or try the simulated cluster: `fasthsl demo`"
        );
        return Ok(());
    }
    outln!(
        "{:<14} {:<10} {:<14} {:<6} status",
        "address",
        "id",
        "driver",
        "group"
    );
    for c in &cards {
        let status = if c.ready() {
            "ready (fasthsl info --device ADDR)".to_string()
        } else if c.iommu_group.is_none() {
            "IOMMU off: boot with intel_iommu=on / amd_iommu=on".to_string()
        } else {
            format!(
                "bind to vfio-pci first (fasthsl info --device {} explains)",
                c.address
            )
        };
        outln!(
            "{:<14} {:04x}:{:04x}  {:<14} {:<6} {status}",
            c.address.to_string(),
            c.vendor,
            c.device,
            c.driver.as_deref().unwrap_or("(none)"),
            c.iommu_group.map_or("-".to_string(), |g| g.to_string()),
        );
    }
    Ok(())
}

fn open(addr: &str) -> Result<Card<VfioDevice>> {
    let dev = VfioDevice::open(addr).with_context(|| format!("cannot open {addr}"))?;
    Card::open(dev).with_context(|| format!("{addr} is not a usable FastHSL card"))
}

/// `(name, value)` pairs as a JSON object.
pub fn object<'a, T: Into<Value>>(fields: impl IntoIterator<Item = (&'a str, T)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect::<Map<_, _>>(),
    )
}

/// Router page as JSON.
pub fn router_json(r: &RouterState) -> Value {
    json!({
        "id": r.id,
        "ports": r.ports,
        "drop": r.drop,
        "eep": r.eep,
        "tables": r.tables.iter().map(|t| t.iter().map(|(e, b, p)| json!({
            "entry": e, "lo": b.lo, "hi": b.hi, "port": p
        })).collect::<Vec<_>>()).collect::<Vec<_>>(),
    })
}

/// Prints counters as an aligned table.
pub fn print_counters(c: &Counters) {
    for (name, v) in c.fields() {
        if name == "err_status" {
            outln!("  {name:<18} {v:#x} {:?}", err::names(v));
        } else {
            outln!("  {name:<18} {v}");
        }
    }
}

/// Prints the receive window refusal counters (docs/WINDOWS.md).
pub fn print_window_stats(w: &WinStats) {
    for (name, v) in w.fields() {
        outln!("  {name:<18} {v}");
    }
    outln!("  {:<18} {}", "win_enforce", w.enforced);
}

/// The receive window refusal counters as JSON.
pub fn window_json(w: &WinStats) -> Value {
    let mut v = object(w.fields());
    v["enforce"] = w.enforced.into();
    v
}

/// Prints the router page: identity, drops, tables.
pub fn print_router(r: &RouterState) {
    outln!(
        "  RT_ID {:#010x}, {} ports; drops per input {:?}, EEP per input {:?}",
        r.id,
        r.ports,
        r.drop,
        r.eep
    );
    for (p, t) in r.tables.iter().enumerate() {
        let entries: Vec<String> = t
            .iter()
            .map(|(_, b, port)| format!("{}..={} -> {}", b.lo, b.hi, port))
            .collect();
        outln!("  input {p}: {}", entries.join(", "));
    }
}

fn print_csr(s: &CsrState) {
    for (name, v) in s.fields() {
        outln!("  {name:<17} {v:#x}");
    }
}

/// Prints the status and notification registers (push path, interrupts, coalescing).
pub fn print_status(s: &CsrState) {
    for (name, v) in s.status_fields() {
        outln!("  {name:<18} {v:#x}");
    }
}

/// `fasthsl info --device ADDR`.
pub fn info(addr: &str, json_out: bool) -> Result<()> {
    let card = open(addr)?;
    let csr = card.csr_state()?;
    let cnt = card.counters()?;
    let win = card.window_stats()?;
    let rt = card.router_state()?;
    if json_out {
        let v = json!({
            "device": card.device().name(),
            "version": format!("{}.{}", card.version() >> 16, card.version() & 0xFFFF),
            "interrupts": card.device().has_interrupts(),
            "csr": object(csr.fields()),
            "counters": object(cnt.fields()),
            "windows": window_json(&win),
            "router": router_json(&rt),
        });
        outln!("{v}");
        return Ok(());
    }
    outln!(
        "{}: FastHSL card, contract {}.{}, MSI {}",
        card.device().name(),
        card.version() >> 16,
        card.version() & 0xFFFF,
        if card.device().has_interrupts() {
            "on"
        } else {
            "off"
        }
    );
    outln!("registers:");
    print_csr(&csr);
    outln!("counters:");
    print_counters(&cnt);
    print_window_stats(&win);
    outln!("router page:");
    print_router(&rt);
    Ok(())
}

/// `fasthsl stats --device ADDR`.
pub fn stats(addr: &str, json_out: bool) -> Result<()> {
    let card = open(addr)?;
    let cnt = card.counters()?;
    let win = card.window_stats()?;
    let csr = card.csr_state()?;
    if json_out {
        outln!(
            "{}",
            json!({
                "device": card.device().name(),
                "counters": object(cnt.fields()),
                "windows": window_json(&win),
                "status": object(csr.status_fields()),
            })
        );
    } else {
        outln!("{}:", card.device().name());
        print_counters(&cnt);
        print_window_stats(&win);
        outln!("status:");
        print_status(&csr);
    }
    Ok(())
}
