//! `fasthsl serve`: the simulated card (or cluster) as a vfio-user server.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use fasthsl_sim::SimConfig;
use fasthsl_topology::Topology;
use fasthsl_vfio_user::{Clock, ServeConfig, Server};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen: a socket path (one node), a directory (node0.sock, node1.sock,
    /// ... inside it) or a pattern with {node} (e.g. /tmp/fasthsl-{node}.sock)
    #[arg(long, value_name = "PATH")]
    socket: PathBuf,
    /// Serve a whole simulated cluster, one socket per node (same SPEC as `demo`)
    /// [default: one card, full:1]
    #[arg(long, value_name = "SPEC", value_parser = crate::parse_topology)]
    topology: Option<Topology>,
    /// Run the clock continuously while a client is attached (needed by guest OSes,
    /// which poll memory without telling the device); default: the clock advances only
    /// on client requests, deterministic for one client
    #[arg(long)]
    free_clock: bool,
}

pub fn run(a: &ServeArgs) -> Result<ExitCode> {
    let topology = match &a.topology {
        Some(t) => t.clone(),
        None => Topology::full(1).expect("one node is a valid topology"),
    };
    let server = Server::start(ServeConfig {
        topology: topology.clone(),
        sim: SimConfig::default(),
        clock: if a.free_clock {
            Clock::Free
        } else {
            Clock::Driven
        },
        socket: a.socket.clone(),
    })
    .with_context(|| format!("serving {topology} on {}", a.socket.display()))?;
    eprintln!(
        "fasthsl serve: {topology}, {} clock; attach with the vfio-user socket of each node:",
        if a.free_clock {
            "free-running"
        } else {
            "driven"
        }
    );
    for (n, p) in server.sockets().iter().enumerate() {
        println!("node {n}: {}", p.display());
    }
    server.wait();
    Ok(ExitCode::SUCCESS)
}
