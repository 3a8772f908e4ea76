//! `fasthsl bench ...`: the performance experiments. Each prints one JSON object per line
//! with `--json`, and draws its curves with `--plot FILE.png`. All but `router` also run
//! on cards (`--device`, through `bringup::Testbed`).

pub mod bcast;
pub mod exchange;
pub mod pingpong;
pub mod router;
pub mod sharing;

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

/// The benchmarks.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Traffic generators at the ports of one RCUBE router (or of a whole network with
    /// --topology): accepted load and latency vs. offered load
    Router(router::RouterArgs),
    /// Put ping-pong latency and streaming bandwidth between two nodes, 1 B to 1 MiB (with
    /// --layer also the message layer's ping-pong)
    Pingpong(pingpong::PingpongArgs),
    /// The MPC paper's CADNA exchange on the message layer: 3 processes each send a
    /// 32-byte value to the other two; mean time of one exchange
    Exchange(exchange::ExchangeArgs),
    /// Broadcast latency vs. node count on the message layer (binomial tree), root's
    /// call to the last receiver's completion
    Bcast(bcast::BcastArgs),
    /// Bandwidth sharing under conflict: flows of a scheme file started together, each
    /// one's penalty against its time alone and against a max-min fair share
    Sharing(sharing::SharingArgs),
}

/// Runs one benchmark.
pub fn run(cmd: &BenchCommand) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Router(a) => router::run(a),
        BenchCommand::Pingpong(a) => pingpong::run(a),
        BenchCommand::Exchange(a) => exchange::run(a),
        BenchCommand::Bcast(a) => bcast::run(a),
        BenchCommand::Sharing(a) => sharing::run(a),
    }
}
