//! `linerate speed --json`: the machine, and every table with its cells as
//! objects (`algorithm`, `bytes` where the table has sizes, the figure
//! under its unit's key, its kind, and for measured cells the median's
//! spread, trial count and noisy flag; `not_available` with the reason
//! where there is no figure), and the seed quotations. Each cell also
//! names its figure's key and unit, and each table its rows, so that
//! [`crate::load`] reads a saved run back into the same [`Lab`]
//! (`linerate report --from lab.json`).

use crate::table::{Cell, Lab, Table, Value};
use serde_json::{Map, Value as Json, json};

/// The `format` of a saved run; [`crate::load`] reads this one only.
pub const FORMAT: &str = "linerate-lab/1";

/// The whole lab as one JSON object.
pub fn render(lab: &Lab) -> Json {
    let m = &lab.machine;
    let backends: Map<String, Json> = m
        .backends
        .iter()
        .map(|(algos, backend)| (algos.to_string(), Json::from(backend.clone())))
        .collect();
    json!({
        "format": FORMAT,
        "machine": {
            "cpu": m.cpu,
            "features": m.features,
            "backends": backends,
            "threads": m.threads,
            "core_hz": m.core_hz,
            "tsc_hz": m.tsc_hz,
            "commit": m.commit,
            "version": m.version,
            "date": m.date,
        },
        "quick": lab.quick,
        "tables": lab.tables.iter().map(table).collect::<Vec<Json>>(),
    })
}

fn table(table: &Table) -> Json {
    json!({
        "id": table.id,
        "title": table.title,
        "columns": table.columns,
        "rows": table.rows.iter().map(|row| json!({
            "label": row.label,
            "cells": row.cells.len(),
        })).collect::<Vec<Json>>(),
        "notes": table.notes,
        "seeds": table.seeds.iter().map(|s| json!({
            "id": s.id,
            "source": s.source,
            "title": s.title,
            "quotation": s.quotation,
        })).collect::<Vec<Json>>(),
        "cells": table.rows.iter().flat_map(|row| {
            row.cells.iter().map(|c| cell(&row.label, c))
        }).collect::<Vec<Json>>(),
    })
}

/// A cell as an object; a figure that is not finite (never expected) is
/// written as not available rather than as invalid JSON.
pub fn cell(row: &str, c: &Cell) -> Json {
    let mut o = Map::new();
    o.insert("algorithm".into(), Json::from(c.algorithm.clone()));
    o.insert("row".into(), Json::from(row));
    if let Some(bytes) = c.bytes {
        o.insert("bytes".into(), Json::from(bytes));
    }
    if let Some(threads) = c.threads {
        o.insert("threads".into(), Json::from(threads));
    }
    o.insert("kind".into(), Json::from(c.value.kind()));
    o.insert("key".into(), Json::from(c.key.to_string()));
    o.insert("unit".into(), Json::from(c.unit.name()));
    match &c.value {
        Value::NotAvailable(why) => {
            o.insert("not_available".into(), Json::from(why.clone()));
        }
        Value::Text(text) => {
            o.insert(c.key.to_string(), Json::from(text.clone()));
        }
        value => match value.number().and_then(serde_json::Number::from_f64) {
            Some(n) => {
                o.insert(c.key.to_string(), Json::Number(n));
            }
            None => {
                o.insert("kind".into(), Json::from("not_available"));
                o.insert("not_available".into(), Json::from("no finite figure"));
            }
        },
    }
    if let Value::Measured(_, m) = &c.value {
        o.insert("spread".into(), json!(m.spread));
        o.insert("trials".into(), json!(m.trials));
        o.insert("noisy".into(), json!(m.noisy()));
        o.insert("seconds_per_call".into(), json!(m.seconds));
        o.insert("calls".into(), json!(m.calls));
    }
    Json::Object(o)
}
