//! One run of the lab: every table asked for, measured in turn.

use crate::algo::Algo;
use crate::cells::{Context, throughput};
use crate::progress::CellProgress;
use crate::table::Lab;
use crate::timing::Settings;
use crate::{blocks, keysetup, machine, model, permac, ssh};

/// What a run measures.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Rows of the throughput table; empty means every table of the lab.
    pub algos: Vec<Algo>,
    /// One block size instead of the default six.
    pub bytes: Option<u64>,
    /// Time per cell, instead of the default.
    pub seconds: Option<f64>,
    /// Threads for the throughput table.
    pub jobs: usize,
    /// The whole run in a few seconds, same code path (rough figures).
    pub quick: bool,
    /// The throughput table reads its blocks in turn from a buffer far
    /// larger than the caches.
    pub cold: bool,
}

impl Default for Request {
    fn default() -> Request {
        Request {
            algos: Vec::new(),
            bytes: None,
            seconds: None,
            jobs: 1,
            quick: false,
            cold: false,
        }
    }
}

/// Measures everything `request` asks for.
pub fn run(request: &Request, progress: &dyn CellProgress) -> Lab {
    let mut settings = if request.quick {
        Settings::QUICK
    } else {
        Settings::DEFAULT
    };
    if let Some(seconds) = request.seconds {
        settings.seconds = seconds;
    }
    let everything = request.algos.is_empty();
    let algos: Vec<Algo> = if everything {
        Algo::ALL.to_vec()
    } else {
        request.algos.clone()
    };
    let sizes: Vec<u64> = request
        .bytes
        .map_or_else(|| throughput::DEFAULT_SIZES.to_vec(), |b| vec![b]);
    let cores = crate::default_threads();
    // A quick run checks that the lab runs; its SSH section alone takes
    // longer than the rest (a connection per MAC), and `linerate speed
    // ssh --quick` runs it.
    let ssh_request = (!request.quick).then_some(ssh::SshRequest::FULL);
    let link_algos = model::link_algos(&algos);
    let mut total = throughput::cell_count(&algos, &sizes);
    if everything {
        total += keysetup::cell_count()
            + permac::cell_count()
            + model::cell_count(link_algos.len(), cores)
            + ssh_request.map_or(0, ssh::cell_count);
    }
    progress.begin(total);
    let machine = machine::Machine::detect();
    // RFC 1810's cold data: far larger than a last-level cache, except in a
    // quick run, whose figures are rough anyway.
    let cold_buffer = if request.quick {
        16 << 20
    } else {
        blocks::cold_bytes()
    };
    let ctx = Context {
        settings,
        threads: request.jobs,
        cold: request.cold.then_some(cold_buffer),
        progress,
    };
    let mut tables = Vec::new();
    let speeds = throughput::measure(&ctx, &algos, &sizes);
    let digests = throughput::then_and_now(&speeds);
    tables.push(speeds);
    tables.extend(digests);
    if everything {
        tables.push(keysetup::measure(&ctx));
        let macs = permac::measure(&ctx);
        let macs_then = permac::then_and_now(&macs);
        tables.push(macs);
        tables.push(macs_then);
        tables.extend(match ssh_request {
            Some(r) => ssh::measure(&ctx, r),
            None => vec![ssh::not_measured(
                "left out of a quick run ('linerate speed ssh --quick' runs it)",
            )],
        });
        let (model, model_then) = model::rfc1810(&ctx, cold_buffer);
        tables.push(model);
        tables.push(model_then);
        tables.push(model::links(&ctx, &link_algos, cores));
        tables.push(model::hardware_model());
        tables.push(model::hardware_results());
    }
    progress.finish();
    Lab {
        machine,
        tables,
        quick: request.quick,
    }
}
