//! The report's plots, drawn as SVG text by plotters' SVG backend (no
//! fonts or files needed): throughput against block size (log-log) as
//! small multiples, one panel per family of algorithms so that every
//! series of a panel has its own colour and marker; cycles per byte
//! against the 4.0 bound; data rates against link rates; MD5-P/K's
//! speed-up over K. A plot that cannot be drawn says why instead.

use crate::model::{LATENCY_BOUND_CYCLES_PER_BYTE, LINK_RATES};
use crate::table::{Lab, Table};
use plotters::prelude::*;

/// Two plots side by side fit the page's width.
const SIZE: (u32, u32) = (620, 420);

/// Width of the legend panel at the right of a plot.
const LEGEND_WIDTH: u32 = 150;

/// Font sizes as plotters takes them (its SVG text comes out at about 0.8
/// of these, in pixels): tick labels and legend near 14.5 px, axis names
/// 16 px, labels of reference lines 13 px.
const TICK_FONT: u32 = 18;
const AXIS_FONT: u32 = 20;
const LEGEND_FONT: u32 = 18;
const NOTE_FONT: u32 = 16;

/// Vertical distance between legend entries, in pixels.
const LEGEND_STEP: i32 = 22;

/// Sixteen colours that stay apart on white (Tableau's 10 and six darker).
const PALETTE: [RGBColor; 16] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 128),
    RGBColor(128, 0, 0),
    RGBColor(0, 100, 0),
    RGBColor(85, 85, 0),
    RGBColor(100, 0, 100),
    RGBColor(0, 0, 0),
];

/// The colour of series `i`.
fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The shape of a series' points: series that share a colour (past the
/// palette's sixteen) differ in shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    Triangle,
    Cross,
}

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Cross,
];

/// The marker of series `i`: it changes with every wrap of the palette, so
/// that (colour, marker) is unique for 64 series.
fn marker(i: usize) -> Marker {
    MARKERS[(i + i / PALETTE.len()) % MARKERS.len()]
}

/// Series names beside the chart, each after a line and the marker of its
/// series (`markers[i]`: whether series `i` is drawn with its marker).
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    names: &[String],
    markers: impl Fn(usize) -> bool,
) -> Result<(), String> {
    for (i, name) in names.iter().enumerate() {
        let y = 20 + LEGEND_STEP * i as i32;
        let style = color(i).filled();
        area.draw(&PathElement::new(
            vec![(8, y), (28, y)],
            color(i).stroke_width(2),
        ))
        .map_err(|e| e.to_string())?;
        if markers(i) {
            let at = (18, y);
            let drawn = match marker(i) {
                Marker::Circle => area.draw(&Circle::new(at, 4, style)),
                Marker::Square => area.draw(&Rectangle::new([(14, y - 4), (22, y + 4)], style)),
                Marker::Triangle => area.draw(&TriangleMarker::new(at, 5, style)),
                Marker::Cross => area.draw(&Cross::new(at, 4, color(i).stroke_width(2))),
            };
            drawn.map_err(|e| e.to_string())?;
        }
        area.draw(&Text::new(
            name.clone(),
            (34, y - 8),
            ("sans-serif", LEGEND_FONT).into_font(),
        ))
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Draws `points` with the marker of series `i`.
fn draw_markers<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'_, DB, CT>,
    i: usize,
    points: &[(f64, f64)],
) -> Result<(), String> {
    let color = color(i);
    let style = color.filled();
    let points = points.iter().copied();
    let drawn = match marker(i) {
        Marker::Circle => chart.draw_series(points.map(|p| Circle::new(p, 4, style))),
        Marker::Square => chart.draw_series(
            points.map(|p| EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], style)),
        ),
        Marker::Triangle => chart.draw_series(points.map(|p| TriangleMarker::new(p, 5, style))),
        Marker::Cross => chart.draw_series(points.map(|p| Cross::new(p, 4, color.stroke_width(2)))),
    };
    drawn.map(|_| ()).map_err(|e| e.to_string())
}

/// A plot: its title and its SVG (or the reason there is none).
#[derive(Debug)]
pub struct Plot {
    pub title: String,
    pub svg: Result<String, String>,
}

/// The throughput plot's panels: a title and its rows. Rows of no listed
/// family go to the last panel; `read`, every row's ceiling, is drawn in
/// every panel.
const THROUGHPUT_PANELS: [(&str, &[&str]); 3] = [
    (
        "MD5, multi-buffer and MD5-P/K",
        &["md5", "md5-mb", "md5p4", "md5p8", "md5p16", "md5p32"],
    ),
    (
        "MACs",
        &[
            "hmac-md5",
            "hmac-md5-mb",
            "keyed-md5-mb",
            "hmac-sha1",
            "umac-32",
            "umac-64",
            "umac-96",
            "umac-128",
        ],
    ),
    ("other digests, RC4, the Internet checksum, S3's CRCs", &[]),
];

/// The row every throughput panel shows as its ceiling.
const CEILING: &str = "read";

/// The rows of the cycles/byte plot: MD5 in its forms, against MD5's bound.
const MD5_FAMILY: [&str; 7] = [
    "md5", "md5-mb", "md5p4", "md5p8", "md5p16", "md5p32", "hmac-md5",
];

/// The rows of the link-rate plot: RFC 1810's question, then and now.
const LINK_FAMILY: [&str; 8] = [
    "md5",
    "md5-mb",
    "md5p16",
    "hmac-md5",
    "hmac-md5-mb",
    "keyed-md5-mb",
    "hmac-sha1",
    "umac-64",
];

/// Every plot of the report.
pub fn all(lab: &Lab) -> Vec<Plot> {
    let Some(throughput) = lab.table("throughput") else {
        return Vec::new();
    };
    let hz = clock_hz(lab);
    let mut plots: Vec<Plot> = throughput_panels(throughput)
        .into_iter()
        .map(|(family, rows)| Plot {
            title: format!(
                "Throughput by block size: {family} (bytes/s, log-log; read: the ceiling)"
            ),
            svg: lines(
                &series(throughput, Some(&rows), |_, v| Some(v)),
                "bytes/s",
                &[],
            ),
        })
        .collect();
    plots.extend([
        Plot {
            title: "Cycles per byte by block size, against one MD5 stream's 4.0 bound".into(),
            svg: match hz {
                Some(hz) => lines(
                    &series(throughput, Some(&MD5_FAMILY), |_, v| {
                        (v > 0.0).then(|| hz / v)
                    }),
                    "cycles/byte",
                    &[(
                        "4.0 cycles/byte bound".to_string(),
                        LATENCY_BOUND_CYCLES_PER_BYTE,
                    )],
                ),
                None => Err("no core clock measured".into()),
            },
        },
        Plot {
            title: "Data rate by block size against link rates (bits/s, one core)".into(),
            svg: lines(
                &series(throughput, Some(&LINK_FAMILY), |_, v| Some(v * 8.0)),
                "bits/s",
                &LINK_RATES.map(|(name, rate)| (name.to_string(), rate)),
            ),
        },
        Plot {
            title: "MD5-P/K speed-up over one MD5 stream, by K (largest block)".into(),
            svg: speedup(throughput),
        },
    ]);
    plots
}

/// The rows of each throughput panel, in the table's order, each ending
/// with the ceiling; panels with no row of their own are left out.
fn throughput_panels(throughput: &Table) -> Vec<(&'static str, Vec<&str>)> {
    let listed: Vec<&str> = THROUGHPUT_PANELS
        .iter()
        .flat_map(|(_, rows)| rows.iter().copied())
        .collect();
    let has_ceiling = throughput.rows.iter().any(|r| r.label == CEILING);
    THROUGHPUT_PANELS
        .iter()
        .enumerate()
        .filter_map(|(i, (family, rows))| {
            let last = i == THROUGHPUT_PANELS.len() - 1;
            let mut mine: Vec<&str> = throughput
                .rows
                .iter()
                .map(|r| r.label.as_str())
                .filter(|label| *label != CEILING)
                .filter(|label| rows.contains(label) || (last && !listed.contains(label)))
                .collect();
            if mine.is_empty() {
                return None;
            }
            if has_ceiling {
                mine.push(CEILING);
            }
            Some((*family, mine))
        })
        .collect()
}

/// The core clock: the RFC 1810 model's measurement, else the start's.
fn clock_hz(lab: &Lab) -> Option<f64> {
    lab.table("rfc1810_model")
        .and_then(|t| t.cells().find(|c| c.key == "clock_ghz"))
        .and_then(|c| c.value.number())
        .map(|ghz| ghz * 1e9)
        .or(lab.machine.core_hz)
}

/// (algorithm, [(bytes, y)]) for every row with figures; `f` maps a
/// measured bytes/s figure to the plotted value.
fn series(
    table: &Table,
    only: Option<&[&str]>,
    f: impl Fn(u64, f64) -> Option<f64>,
) -> Vec<(String, Vec<(f64, f64)>)> {
    table
        .rows
        .iter()
        .filter(|row| only.is_none_or(|names| names.contains(&row.label.as_str())))
        .filter_map(|row| {
            let points: Vec<(f64, f64)> = row
                .cells
                .iter()
                .filter_map(|c| {
                    let bytes = c.bytes?;
                    let y = f(bytes, c.value.number()?)?;
                    (y.is_finite() && y > 0.0).then_some((bytes as f64, y))
                })
                .collect();
            (!points.is_empty()).then(|| (row.label.clone(), points))
        })
        .collect()
}

/// Log-log lines, one per series, with labelled horizontal lines.
pub(super) fn lines(
    data: &[(String, Vec<(f64, f64)>)],
    y_label: &str,
    horizontal: &[(String, f64)],
) -> Result<String, String> {
    lines_over(data, "block bytes", y_label, horizontal)
}

/// [`lines`] with the x axis named; x ticks past a million are written in
/// binary units (4 KiB, 1 GiB).
pub(super) fn lines_over(
    data: &[(String, Vec<(f64, f64)>)],
    x_label: &str,
    y_label: &str,
    horizontal: &[(String, f64)],
) -> Result<String, String> {
    let points = data.iter().flat_map(|(_, p)| p.iter());
    let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        if !(plottable(x) && plottable(y)) {
            return Err(format!(
                "a point out of range to plot on log axes: ({x:e}, {y:e})"
            ));
        }
        x_lo = x_lo.min(x);
        x_hi = x_hi.max(x);
        y_lo = y_lo.min(y);
        y_hi = y_hi.max(y);
    }
    if x_lo > x_hi {
        return Err("no measured figures".into());
    }
    // Horizontal lines within a decade of the data are shown.
    let shown: Vec<&(String, f64)> = horizontal
        .iter()
        .filter(|(_, v)| *v >= y_lo / 10.0 && *v <= y_hi * 10.0)
        .collect();
    for (_, v) in &shown {
        y_lo = y_lo.min(*v);
        y_hi = y_hi.max(*v);
    }
    let x_range = (x_lo / 1.5)..(x_hi * 1.5);
    let y_range = (y_lo / 2.0)..(y_hi * 2.0);
    // plotters walks a log axis decade by decade: the walk is kept short.
    for (axis, range) in [("x", &x_range), ("y", &y_range)] {
        let decades = (range.end / range.start).log10();
        if !(decades.is_finite() && decades <= MAX_DECADES) {
            return Err(format!(
                "the {axis} axis would span {decades:.0} decades, more than {MAX_DECADES}"
            ));
        }
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (plot, side) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        let names: Vec<String> = data.iter().map(|(n, _)| n.clone()).collect();
        legend(&side, &names, |_| true)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(76)
            .build_cartesian_2d(x_range.clone().log_scale(), y_range.log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style(("sans-serif", TICK_FONT))
            .axis_desc_style(("sans-serif", AXIS_FONT))
            .light_line_style(WHITE)
            .x_labels(if x_hi > 1e6 { 5 } else { 10 })
            .x_label_formatter(&|v| {
                if x_hi > 1e6 {
                    binary_units(*v)
                } else {
                    format!("{v:.0}")
                }
            })
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (_, points)) in data.iter().enumerate() {
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color(i).stroke_width(2),
                ))
                .map_err(|e| e.to_string())?;
            draw_markers(&mut chart, i, points)?;
        }
        for (j, (name, value)) in shown.into_iter().enumerate() {
            let grey = RGBColor(120, 120, 120);
            // Neighbouring rates (100M, 130M) lie close: their labels are
            // set at staggered places along the line, so they never overlap.
            let at = x_range.start * 1.05 * 5f64.powi((j % 3) as i32);
            chart
                .draw_series(LineSeries::new(
                    [(x_range.start, *value), (x_range.end, *value)],
                    grey.stroke_width(1),
                ))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(std::iter::once(Text::new(
                    name.clone(),
                    (at, *value * 1.08),
                    ("sans-serif", NOTE_FONT).into_font().color(&grey),
                )))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The most decades a log axis spans: a saved run's figures (see
/// [`crate::load::MAX_FIGURE`]) span 30, and the plots' arithmetic (bits
/// from bytes, cycles from a clock) a few more.
const MAX_DECADES: f64 = 48.0;

/// Whether `v` can sit on a log axis whose every arithmetic stays finite.
fn plottable(v: f64) -> bool {
    v.is_finite() && (1e-100..=1e100).contains(&v)
}

/// `v` bytes as 512, 4 KiB, 16 MiB, 1 GiB.
fn binary_units(v: f64) -> String {
    let units = [("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (name, shift) in units {
        let unit = (1u64 << shift) as f64;
        if v >= unit {
            return format!("{:.0} {name}", v / unit);
        }
    }
    format!("{v:.0}")
}

/// MD5-P/K over MD5 at the largest block size both were measured at.
fn speedup(throughput: &Table) -> Result<String, String> {
    let largest = throughput
        .cells()
        .filter(|c| c.algorithm == "md5" && c.value.number().is_some())
        .filter_map(|c| c.bytes)
        .max()
        .ok_or("md5 not measured")?;
    let md5 = throughput
        .find("md5", Some(largest), None)
        .and_then(|c| c.value.number())
        .filter(|v| *v > 0.0)
        .ok_or("md5 not measured")?;
    let points: Vec<(f64, f64)> = std::iter::once((1.0, 1.0))
        .chain([4usize, 8, 16, 32].into_iter().filter_map(|k| {
            let v = throughput
                .find(&format!("md5p{k}"), Some(largest), None)?
                .value
                .number()?;
            Some((k as f64, v / md5))
        }))
        .collect();
    if points.len() < 2 {
        return Err("no MD5-P/K measured".into());
    }
    if let Some(&(k, v)) = points
        .iter()
        .find(|p| !(p.1.is_finite() && (0.0..=1e6).contains(&p.1)))
    {
        return Err(format!("a speed-up out of range to plot: {v:e} at K = {k}"));
    }
    let y_hi = points.iter().map(|p| p.1).fold(32.0, f64::max) * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (plot, side) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        // The ideal is a line only; the measured points carry a marker.
        legend(&side, &["K x (ideal)".into(), "measured".into()], |i| {
            i == 1
        })?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(66)
            .build_cartesian_2d(0.0f64..34.0, 0.0..y_hi)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_desc(format!("K (chains); 1 = MD5; {largest}-byte blocks"))
            .y_desc("speed-up over MD5")
            .label_style(("sans-serif", TICK_FONT))
            .axis_desc_style(("sans-serif", AXIS_FONT))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(
                [(1.0, 1.0), (32.0, 32.0)],
                color(0).stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color(1).stroke_width(2),
            ))
            .map_err(|e| e.to_string())?;
        draw_markers(&mut chart, 1, &points)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_four_series_have_distinct_colour_and_marker() {
        let styles: Vec<((u8, u8, u8), Marker)> = (0..64)
            .map(|i| {
                let RGBColor(r, g, b) = color(i);
                ((r, g, b), marker(i))
            })
            .collect();
        for (i, a) in styles.iter().enumerate() {
            for b in &styles[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn every_series_has_a_legend_entry() {
        let data: Vec<(String, Vec<(f64, f64)>)> = (0..19)
            .map(|i| {
                (
                    format!("series-{i:02}"),
                    vec![(64.0, 1e6 * (i + 1) as f64), (1024.0, 2e6 * (i + 1) as f64)],
                )
            })
            .collect();
        let svg = lines(&data, "bytes/s", &[]).expect("drawn");
        for (name, _) in &data {
            assert_eq!(
                svg.matches(&format!("\n{name}\n</text>")).count(),
                1,
                "{name}"
            );
        }
    }

    #[test]
    fn any_figure_gives_a_plot_or_a_reason_at_once() {
        let start = std::time::Instant::now();
        for y in [
            1e308,
            f64::MAX,
            f64::INFINITY,
            1e-308,
            f64::MIN_POSITIVE,
            1e100,
        ] {
            let data = vec![("md5".to_string(), vec![(8.0, y), (64.0, 1e9)])];
            let drawn = lines(&data, "bytes/s", &[]);
            assert!(drawn.is_err(), "{y:e}: {drawn:?}");
        }
        let data = vec![(
            "md5".to_string(),
            vec![(u64::MAX as f64, 1e15), (8.0, 1e-15)],
        )];
        assert!(lines(&data, "bytes/s", &[]).is_ok());
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
