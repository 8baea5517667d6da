//! The speed lab's data model, which every output (text, JSON, HTML,
//! Markdown, plots) renders: tables of rows of cells. A cell says where its
//! figure comes from: measured in this run (with median, spread and trial
//! count), derived from this run's measurements, computed by a model,
//! quoted from a seed document, synthesised by hw/ (not measured here), or
//! not available, with the reason.

use crate::seeds::Seed;
use crate::timing::Measurement;
use std::borrow::Cow;

/// How a figure is shown, and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes per second, shown as openssl does: 1000s of bytes per second.
    BytesPerSecond,
    /// Nanoseconds.
    Nanoseconds,
    /// Bytes (a cost expressed as bytes that could have been processed).
    Bytes,
    /// Megabits per second.
    Mbps,
    /// Gigabits per second.
    Gbps,
    /// Millions of (dependent, one-cycle) instructions per second.
    Mips,
    /// Cycles per byte.
    CyclesPerByte,
    /// Gigahertz.
    Ghz,
    /// Megahertz.
    Mhz,
    /// A ratio (speed-up, now over then).
    Ratio,
    /// A percentage.
    Percent,
    /// A plain number (a count, an area).
    Number,
}

impl Unit {
    /// Every unit, for reading a saved run back.
    pub const ALL: [Unit; 12] = [
        Unit::BytesPerSecond,
        Unit::Nanoseconds,
        Unit::Bytes,
        Unit::Mbps,
        Unit::Gbps,
        Unit::Mips,
        Unit::CyclesPerByte,
        Unit::Ghz,
        Unit::Mhz,
        Unit::Ratio,
        Unit::Percent,
        Unit::Number,
    ];

    /// The unit's name in JSON (`"unit"` of a cell).
    pub fn name(self) -> &'static str {
        match self {
            Unit::BytesPerSecond => "bytes_per_second",
            Unit::Nanoseconds => "ns",
            Unit::Bytes => "bytes",
            Unit::Mbps => "mbps",
            Unit::Gbps => "gbps",
            Unit::Mips => "mips",
            Unit::CyclesPerByte => "cycles_per_byte",
            Unit::Ghz => "ghz",
            Unit::Mhz => "mhz",
            Unit::Ratio => "ratio",
            Unit::Percent => "percent",
            Unit::Number => "number",
        }
    }

    /// The unit named `name` in JSON.
    pub fn from_name(name: &str) -> Option<Unit> {
        Unit::ALL.into_iter().find(|u| u.name() == name)
    }

    /// `value` in this unit, for a table cell.
    pub fn show(self, value: f64) -> String {
        match self {
            Unit::BytesPerSecond => format!("{:.2}k", value / 1e3),
            Unit::Nanoseconds => format!("{value:.1}"),
            Unit::Bytes => format!("{value:.1}"),
            Unit::Mbps | Unit::Mips => format!("{value:.0}"),
            Unit::Gbps => format!("{value:.2}"),
            Unit::CyclesPerByte => format!("{value:.2}"),
            Unit::Ghz => format!("{value:.2}"),
            Unit::Mhz => format!("{value:.2}"),
            Unit::Ratio => format!("{value:.2}x"),
            Unit::Percent => format!("{value:+.1}%"),
            Unit::Number => {
                if value.fract() == 0.0 && value.abs() < 1e15 {
                    format!("{value:.0}")
                } else {
                    format!("{value:.2}")
                }
            }
        }
    }
}

/// Where a figure comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Timed in this run: the figure in the cell's unit, and its timing.
    Measured(f64, Measurement),
    /// Computed from figures measured in this run.
    Derived(f64),
    /// A model's prediction (RFC 1810's formulas), not a measurement.
    Model(f64),
    /// Quoted from a seed document (the table names which).
    Quoted(f64),
    /// From hw/results/results.json: synthesised by hw/syn/run.sh, not
    /// measured in this run.
    Synthesised(f64),
    /// Words, not a figure (a link list, a device name).
    Text(String),
    /// No figure, and why.
    NotAvailable(String),
}

impl Value {
    /// The figure, if the cell has one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Measured(v, _)
            | Value::Derived(v)
            | Value::Model(v)
            | Value::Quoted(v)
            | Value::Synthesised(v) => Some(*v),
            Value::Text(_) | Value::NotAvailable(_) => None,
        }
    }

    /// The JSON `kind` of the cell.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Measured(..) => "measured",
            Value::Derived(_) => "derived",
            Value::Model(_) => "model",
            Value::Quoted(_) => "quoted",
            Value::Synthesised(_) => "synthesised",
            Value::Text(_) => "text",
            Value::NotAvailable(_) => "not_available",
        }
    }

    /// Whether the figure was measured and its trials disagree.
    pub fn noisy(&self) -> bool {
        matches!(self, Value::Measured(_, m) if m.noisy())
    }
}

/// One figure of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The algorithm (or machine, device) the figure is about.
    pub algorithm: String,
    /// The block or packet size, for tables that have one.
    pub bytes: Option<u64>,
    /// Threads the figure was measured on, where that matters.
    pub threads: Option<usize>,
    /// The JSON key of the figure: `bytes_per_second`, `set_key_ns`...
    pub key: Cow<'static, str>,
    pub unit: Unit,
    pub value: Value,
}

impl Cell {
    /// A cell for `algorithm` with no size or thread count.
    pub fn new(
        algorithm: &str,
        key: impl Into<Cow<'static, str>>,
        unit: Unit,
        value: Value,
    ) -> Cell {
        Cell {
            algorithm: algorithm.to_string(),
            bytes: None,
            threads: None,
            key: key.into(),
            unit,
            value,
        }
    }

    pub fn bytes(mut self, bytes: u64) -> Cell {
        self.bytes = Some(bytes);
        self
    }

    pub fn threads(mut self, threads: usize) -> Cell {
        self.threads = Some(threads);
        self
    }

    /// The text of the cell in a table: the figure, `?` after a noisy one,
    /// `n/a` where there is none.
    pub fn show(&self) -> String {
        match &self.value {
            Value::Text(text) => text.clone(),
            Value::NotAvailable(_) => "n/a".to_string(),
            value => {
                let figure = value
                    .number()
                    .map_or_else(String::new, |v| self.unit.show(v));
                if value.noisy() {
                    format!("{figure}?")
                } else {
                    figure
                }
            }
        }
    }
}

/// A row: its label and its cells, one per column after the label.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: String,
    pub cells: Vec<Cell>,
}

/// A table of the lab.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// A stable name: `throughput`, `key_setup`...
    pub id: String,
    pub title: String,
    /// The heading of the label column, then one per cell column.
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    /// Sentences printed under the table: units, what a figure means.
    pub notes: Vec<String>,
    /// The seed tables this one mirrors, quoted beside it.
    pub seeds: Vec<&'static Seed>,
}

impl Table {
    pub fn new(id: &str, title: &str, columns: &[&str]) -> Table {
        Table {
            id: id.to_string(),
            title: title.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
            seeds: Vec::new(),
        }
    }

    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    pub fn row(&mut self, label: impl Into<String>, cells: Vec<Cell>) {
        self.rows.push(Row {
            label: label.into(),
            cells,
        });
    }

    /// Every cell, in row order.
    pub fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.rows.iter().flat_map(|r| r.cells.iter())
    }

    /// The cell of `algorithm` at `bytes` with `threads` (any if `None`).
    pub fn find(
        &self,
        algorithm: &str,
        bytes: Option<u64>,
        threads: Option<usize>,
    ) -> Option<&Cell> {
        self.cells().find(|c| {
            c.algorithm == algorithm
                && (bytes.is_none() || c.bytes == bytes)
                && (threads.is_none() || c.threads == threads)
        })
    }

    /// Notes explaining every not-available cell, one per distinct reason.
    pub fn unavailable_reasons(&self) -> Vec<String> {
        let mut reasons: Vec<String> = Vec::new();
        for cell in self.cells() {
            if let Value::NotAvailable(why) = &cell.value {
                let line = format!("{}: {why}", cell.algorithm);
                if !reasons.contains(&line) {
                    reasons.push(line);
                }
            }
        }
        reasons
    }

    /// Whether any measured cell is noisy.
    pub fn any_noisy(&self) -> bool {
        self.cells().any(|c| c.value.noisy())
    }
}

/// Everything one run of the lab produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Lab {
    pub machine: crate::machine::Machine,
    pub tables: Vec<Table>,
    /// A `--quick` run: short trials, rough figures (every output says so).
    pub quick: bool,
}

/// What every output of a `--quick` run says of its figures.
pub const QUICK_NOTE: &str = "quick run (--quick): every trial is short, the figures are rough; \
     for checking that the lab runs, not for comparing";

impl Lab {
    pub fn table(&self, id: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.id == id)
    }
}
