//! A saved run read back: the JSON that [`crate::json::render`] writes
//! (`linerate speed --json > lab.json`) parsed into the same [`Lab`], so
//! that `linerate report --from lab.json` renders the figures of that run
//! instead of measuring again. Reading is strict: a file that is not a
//! saved run of this format is an error naming the table and cell at
//! fault, never a report with holes.

use crate::json::FORMAT;
use crate::machine::{FAMILIES, Machine};
use crate::seeds::{self, Seed};
use crate::table::{Cell, Lab, Row, Table, Unit, Value};
use crate::timing::Measurement;
use serde_json::{Map, Value as Json};

/// Why a saved run could not be read: where in it, and what is wrong.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct LoadError(String);

type Result<T> = std::result::Result<T, LoadError>;

fn error(at: &str, what: impl std::fmt::Display) -> LoadError {
    if at.is_empty() {
        LoadError(what.to_string())
    } else {
        LoadError(format!("{at}: {what}"))
    }
}

/// Parses a saved run from its JSON text.
pub fn parse(text: &str) -> Result<Lab> {
    let json: Json =
        serde_json::from_str(text).map_err(|e| error("", format!("not JSON ({e})")))?;
    from_json(&json)
}

/// Reads a saved run from its parsed JSON.
pub fn from_json(json: &Json) -> Result<Lab> {
    let top = object(json, "")?;
    match top.get("format").and_then(Json::as_str) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(error(
                "",
                format!("format '{other}' is not one this linerate reads ('{FORMAT}')"),
            ));
        }
        None => {
            return Err(error(
                "",
                format!("not a saved run of 'linerate speed --json' (no \"format\": \"{FORMAT}\")"),
            ));
        }
    }
    let machine = machine(field(top, "machine", "")?)?;
    let quick = boolean(top, "quick", "")?;
    let tables = array(field(top, "tables", "")?, "tables")?
        .iter()
        .enumerate()
        .map(|(i, t)| table(t, &format!("table {}", i + 1)))
        .collect::<Result<Vec<Table>>>()?;
    Ok(Lab {
        machine,
        tables,
        quick,
    })
}

fn machine(json: &Json) -> Result<Machine> {
    let at = "machine";
    let m = object(json, at)?;
    let mut backends: Vec<(String, String)> = object(field(m, "backends", at)?, "backends")?
        .iter()
        .map(|(family, backend)| {
            let backend = backend
                .as_str()
                .ok_or_else(|| error("machine: backends", format!("'{family}' is not a string")))?;
            Ok((family.clone(), backend.to_string()))
        })
        .collect::<Result<_>>()?;
    // A JSON object keeps no order; every output lists families in one.
    backends.sort_by_key(|(family, _)| {
        FAMILIES
            .iter()
            .position(|f| f == family)
            .unwrap_or(FAMILIES.len())
    });
    Ok(Machine {
        cpu: string(m, "cpu", at)?,
        features: array(field(m, "features", at)?, "machine: features")?
            .iter()
            .map(|f| {
                f.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| error("machine: features", "not a list of strings"))
            })
            .collect::<Result<_>>()?,
        backends,
        threads: count(m, "threads", MAX_THREADS, at)?,
        core_hz: optional_number(m, "core_hz", at)?
            .map(|hz| in_range(hz, 0.0, "core_hz", at))
            .transpose()?,
        tsc_hz: optional_number(m, "tsc_hz", at)?
            .map(|hz| in_range(hz, 0.0, "tsc_hz", at))
            .transpose()?,
        commit: string(m, "commit", at)?,
        version: string(m, "version", at)?,
        date: string(m, "date", at)?,
    })
}

fn table(json: &Json, at: &str) -> Result<Table> {
    let t = object(json, at)?;
    let id = string(t, "id", at)?;
    let at = format!("table '{id}'");
    let at = at.as_str();
    let seeds = array(field(t, "seeds", at)?, at)?
        .iter()
        .map(|s| seed(s, at))
        .collect::<Result<Vec<&'static Seed>>>()?;
    let mut cells = array(field(t, "cells", at)?, at)?.iter().enumerate();
    let mut rows = Vec::new();
    for row in array(field(t, "rows", at)?, at)? {
        let r = object(row, at)?;
        let label = string(r, "label", at)?;
        // No row holds more cells than the table has.
        let n: usize = count(r, "cells", cells.len() as u64, at)?;
        let mut row_cells = Vec::with_capacity(n);
        for _ in 0..n {
            let (i, c) = cells
                .next()
                .ok_or_else(|| error(at, format!("row '{label}' has fewer cells than it says")))?;
            let cell_at = format!("{at}: cell {}", i + 1);
            let c = object(c, &cell_at)?;
            if string(c, "row", &cell_at)? != label {
                return Err(error(&cell_at, format!("not in row '{label}'")));
            }
            row_cells.push(cell(c, &cell_at)?);
        }
        rows.push(Row {
            label,
            cells: row_cells,
        });
    }
    if let Some((i, _)) = cells.next() {
        return Err(error(at, format!("cell {} is in no row", i + 1)));
    }
    Ok(Table {
        id,
        title: string(t, "title", at)?,
        columns: strings(field(t, "columns", at)?, at)?,
        rows,
        notes: strings(field(t, "notes", at)?, at)?,
        seeds,
    })
}

/// A quotation is the program's own text: a saved run names it by id.
fn seed(json: &Json, at: &str) -> Result<&'static Seed> {
    let id = string(object(json, at)?, "id", at)?;
    seeds::ALL
        .iter()
        .copied()
        .find(|s| s.id == id)
        .ok_or_else(|| error(at, format!("unknown seed quotation '{id}'")))
}

fn cell(c: &Map<String, Json>, at: &str) -> Result<Cell> {
    let key = string(c, "key", at)?;
    let unit_name = string(c, "unit", at)?;
    let unit = Unit::from_name(&unit_name)
        .ok_or_else(|| error(at, format!("unknown unit '{unit_name}'")))?;
    let kind = string(c, "kind", at)?;
    let figure = || -> Result<f64> {
        let v = c
            .get(&key)
            .and_then(Json::as_f64)
            .ok_or_else(|| error(at, format!("a {kind} cell without a number under '{key}'")))?;
        // A change in percent is the one figure below zero, and nothing
        // falls by more than all of it.
        let lowest = if unit == Unit::Percent { -100.0 } else { 0.0 };
        in_range(v, lowest, &key, at)
    };
    let value = match kind.as_str() {
        "measured" => Value::Measured(
            figure()?,
            Measurement {
                seconds: figure_at_least_zero(c, "seconds_per_call", at)?,
                spread: figure_at_least_zero(c, "spread", at)?,
                trials: count(c, "trials", MAX_TRIALS, at)?,
                calls: count(c, "calls", MAX_CALLS, at)?,
            },
        ),
        "derived" => Value::Derived(figure()?),
        "model" => Value::Model(figure()?),
        "quoted" => Value::Quoted(figure()?),
        "synthesised" => Value::Synthesised(figure()?),
        "text" => Value::Text(string(c, &key, at)?),
        "not_available" => Value::NotAvailable(string(c, "not_available", at)?),
        other => return Err(error(at, format!("unknown kind '{other}'"))),
    };
    Ok(Cell {
        algorithm: string(c, "algorithm", at)?,
        bytes: optional_count(c, "bytes", MAX_BYTES, at)?,
        threads: optional_count(c, "threads", MAX_THREADS, at)?,
        key: key.into(),
        unit,
        value,
    })
}

/// The largest figure a saved run may hold: far above any rate, clock or
/// time this lab measures (1e15 bytes/s is a petabyte a second), far
/// below where the arithmetic of a renderer would overflow.
pub const MAX_FIGURE: f64 = 1e15;

/// The smallest figure other than zero (a femtosecond per call).
pub const MIN_FIGURE: f64 = 1e-15;

/// Counts: trials per figure, calls per trial, block bytes, threads.
const MAX_TRIALS: u64 = 1_000_000;
const MAX_CALLS: u64 = 1 << 50;
const MAX_BYTES: u64 = 1 << 50;
const MAX_THREADS: u64 = 1 << 20;

/// `v` where it is zero or between [`MIN_FIGURE`] and [`MAX_FIGURE`] in
/// size, and not below `lowest`; else an error naming `key`.
fn in_range(v: f64, lowest: f64, key: &str, at: &str) -> Result<f64> {
    let size = v.abs();
    if v >= lowest && size <= MAX_FIGURE && (v == 0.0 || size >= MIN_FIGURE) {
        Ok(v)
    } else {
        let sign = if lowest < 0.0 {
            format!("from {lowest} to")
        } else {
            "0, or".to_string()
        };
        Err(error(
            at,
            format!("\"{key}\" is {v:e}: out of range ({sign} {MIN_FIGURE:e} to {MAX_FIGURE:e})"),
        ))
    }
}

fn figure_at_least_zero(o: &Map<String, Json>, key: &str, at: &str) -> Result<f64> {
    in_range(number(o, key, at)?, 0.0, key, at)
}

fn object<'a>(json: &'a Json, at: &str) -> Result<&'a Map<String, Json>> {
    json.as_object()
        .ok_or_else(|| error(at, "not a JSON object"))
}

fn array<'a>(json: &'a Json, at: &str) -> Result<&'a Vec<Json>> {
    json.as_array().ok_or_else(|| error(at, "not a JSON array"))
}

fn field<'a>(o: &'a Map<String, Json>, key: &str, at: &str) -> Result<&'a Json> {
    o.get(key).ok_or_else(|| error(at, format!("no \"{key}\"")))
}

fn string(o: &Map<String, Json>, key: &str, at: &str) -> Result<String> {
    field(o, key, at)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| error(at, format!("\"{key}\" is not a string")))
}

fn strings(json: &Json, at: &str) -> Result<Vec<String>> {
    array(json, at)?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .ok_or_else(|| error(at, "not a list of strings"))
        })
        .collect()
}

fn boolean(o: &Map<String, Json>, key: &str, at: &str) -> Result<bool> {
    field(o, key, at)?
        .as_bool()
        .ok_or_else(|| error(at, format!("\"{key}\" is not true or false")))
}

fn number(o: &Map<String, Json>, key: &str, at: &str) -> Result<f64> {
    field(o, key, at)?
        .as_f64()
        .ok_or_else(|| error(at, format!("\"{key}\" is not a number")))
}

fn optional_number(o: &Map<String, Json>, key: &str, at: &str) -> Result<Option<f64>> {
    match o.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(_) => number(o, key, at).map(Some),
    }
}

/// A whole number from 0 to `max`.
fn count<T: TryFrom<u64>>(o: &Map<String, Json>, key: &str, max: u64, at: &str) -> Result<T> {
    let n = field(o, key, at)?
        .as_u64()
        .ok_or_else(|| error(at, format!("\"{key}\" is not a count")))?;
    if n > max {
        return Err(error(
            at,
            format!("\"{key}\" is {n}: out of range (at most {max})"),
        ));
    }
    T::try_from(n).map_err(|_| error(at, format!("\"{key}\" is {n}: out of range")))
}

fn optional_count<T: TryFrom<u64>>(
    o: &Map<String, Json>,
    key: &str,
    max: u64,
    at: &str,
) -> Result<Option<T>> {
    match o.get(key) {
        None => Ok(None),
        Some(_) => count(o, key, max, at).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::render;
    use crate::table::Lab;
    use crate::timing::Measurement;

    /// A lab with every kind of cell, rows without cells and with equal
    /// labels, and figures that a shortest-form float printer must keep.
    fn sample() -> Lab {
        let mut machine = Machine::detect();
        machine.core_hz = None;
        let mut t = Table::new("throughput", "Throughput", &["algorithm", "8", "64"]);
        let m = Measurement {
            seconds: 1.0 / 3.0,
            spread: 0.123_456_789_012_345_67,
            trials: 5,
            calls: 1 << 40,
        };
        t.row(
            "md5",
            vec![
                Cell::new(
                    "md5",
                    "bytes_per_second",
                    Unit::BytesPerSecond,
                    Value::Measured(0.1 + 0.2, m),
                )
                .bytes(8)
                .threads(2),
                Cell::new("md5", "x", Unit::Ratio, Value::Derived(MIN_FIGURE)),
            ],
        );
        t.row("empty", vec![]);
        t.row(
            "same",
            vec![Cell::new(
                "a",
                "t",
                Unit::Number,
                Value::Text("words".into()),
            )],
        );
        t.row(
            "same",
            vec![Cell::new(
                "b",
                "n",
                Unit::Mhz,
                Value::NotAvailable("why".into()),
            )],
        );
        t.row(
            "other",
            vec![
                Cell::new("c", "m", Unit::Mbps, Value::Model(MAX_FIGURE / 3.0)),
                Cell::new("c", "q", Unit::Percent, Value::Quoted(-2.5)),
                Cell::new("c", "s", Unit::Mhz, Value::Synthesised(55.1)),
            ],
        );
        t.note("a note");
        t.seeds.push(&seeds::FPGA2015);
        Lab {
            machine,
            tables: vec![t, Table::new("empty_table", "Nothing", &[])],
            quick: true,
        }
    }

    #[test]
    fn a_rendered_lab_reads_back_equal() {
        let lab = sample();
        let text = serde_json::to_string_pretty(&render(&lab)).unwrap();
        assert_eq!(parse(&text).unwrap(), lab);
    }

    #[test]
    fn what_is_not_a_saved_run_is_refused_with_where() {
        let lab = sample();
        let good = render(&lab);
        assert!(parse("{").unwrap_err().to_string().starts_with("not JSON"));
        let mut j = good.clone();
        j.as_object_mut().unwrap().remove("format");
        assert!(
            parse(&j.to_string())
                .unwrap_err()
                .to_string()
                .contains("no \"format\"")
        );
        let mut j = good.clone();
        j["tables"][0]["cells"][1]["unit"] = "furlongs".into();
        assert_eq!(
            parse(&j.to_string()).unwrap_err().to_string(),
            "table 'throughput': cell 2: unknown unit 'furlongs'"
        );
        let mut j = good.clone();
        j["tables"][0]["rows"][0]["cells"] = 3.into();
        assert_eq!(
            parse(&j.to_string()).unwrap_err().to_string(),
            "table 'throughput': cell 3: not in row 'md5'"
        );
        let mut j = good.clone();
        j["tables"][0]["seeds"][0]["id"] = "nobody".into();
        assert!(
            parse(&j.to_string())
                .unwrap_err()
                .to_string()
                .contains("unknown seed quotation 'nobody'")
        );
        let mut j = good;
        j["tables"][0]["cells"][0]
            .as_object_mut()
            .unwrap()
            .remove("bytes_per_second");
        assert_eq!(
            parse(&j.to_string()).unwrap_err().to_string(),
            "table 'throughput': cell 1: a measured cell without a number under 'bytes_per_second'"
        );
    }

    #[test]
    fn figures_out_of_range_are_refused_with_where() {
        let good = render(&sample());
        let refused = |edit: &dyn Fn(&mut Json)| {
            let mut j = good.clone();
            edit(&mut j);
            parse(&j.to_string()).unwrap_err().to_string()
        };
        assert_eq!(
            refused(&|j| j["tables"][0]["cells"][0]["bytes_per_second"] = 1e308.into()),
            "table 'throughput': cell 1: \"bytes_per_second\" is 1e308: out of range (0, or 1e-15 to 1e15)"
        );
        assert_eq!(
            refused(&|j| j["tables"][0]["cells"][0]["bytes_per_second"] = (-1.0).into()),
            "table 'throughput': cell 1: \"bytes_per_second\" is -1e0: out of range (0, or 1e-15 to 1e15)"
        );
        assert!(
            refused(&|j| j["tables"][0]["cells"][1]["x"] = 1e-308.into())
                .starts_with("table 'throughput': cell 2: \"x\" is 1e-308: out of range")
        );
        assert!(
            refused(&|j| j["tables"][0]["cells"][5]["q"] = (-101.0).into()).starts_with(
                "table 'throughput': cell 6: \"q\" is -1.01e2: out of range (from -100 to"
            )
        );
        assert_eq!(
            refused(&|j| j["tables"][0]["cells"][0]["trials"] = u64::MAX.into()),
            "table 'throughput': cell 1: \"trials\" is 18446744073709551615: out of range (at most 1000000)"
        );
        assert!(
            refused(&|j| j["tables"][0]["cells"][0]["spread"] = 1e300.into())
                .contains("\"spread\"")
        );
        assert!(
            refused(&|j| j["tables"][0]["cells"][0]["bytes"] = u64::MAX.into())
                .contains("\"bytes\"")
        );
        assert!(
            refused(&|j| j["machine"]["threads"] = u64::MAX.into())
                .starts_with("machine: \"threads\"")
        );
        assert!(
            refused(&|j| j["machine"]["tsc_hz"] = 1e300.into()).starts_with("machine: \"tsc_hz\"")
        );
        // A row that claims more cells than its table has is refused
        // before anything is set aside for them.
        assert_eq!(
            refused(&|j| j["tables"][0]["rows"][0]["cells"] = u64::MAX.into()),
            "table 'throughput': \"cells\" is 18446744073709551615: out of range (at most 7)"
        );
    }
}
