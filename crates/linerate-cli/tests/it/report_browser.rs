//! The report as a person sees it: the page of a quick lab run rendered by
//! headless Chromium to a screenshot, which must show the page (text and
//! every plot's colours), and every plot with one legend entry per series.
//! Chromium is a peer like tshark: scripts/test-all.sh installs it and
//! sets `LINERATE_PEERS=required`, elsewhere a missing browser is a note.
//! `LINERATE_SCREENSHOTS=DIR` keeps the screenshot for looking at.

use crate::support::peer_missing;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_linerate");

/// The page's width in the screenshot: a laptop's window.
const WIDTH: u32 = 1280;
/// Tall enough for every plot and the first tables.
const HEIGHT: u32 = 6000;

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// `#RRGGBB` as bytes.
type Rgb = [u8; 3];

fn rgb(hex: &str) -> Rgb {
    let n = u32::from_str_radix(hex.trim_start_matches('#'), 16).expect("a #RRGGBB colour");
    [(n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The value of `name="..."` in one SVG tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[start..].split('"').next()
}

/// What one plot shows: its caption, the colours of its data series
/// (polylines of three or more points), its legend swatches (20-pixel
/// horizontal strokes) with the x where their names start, and the
/// legend names.
#[derive(Debug)]
struct Plot {
    caption: String,
    series: BTreeSet<Rgb>,
    swatches: Vec<Rgb>,
    names: Vec<String>,
}

fn plots(page: &str) -> Vec<Plot> {
    page.split("<figure><figcaption>")
        .skip(1)
        .map(|figure| {
            let caption = figure.split("</figcaption>").next().unwrap().to_string();
            let svg = figure.split("</figure>").next().unwrap();
            let mut series = BTreeSet::new();
            let mut swatches = Vec::new();
            let mut name_x = BTreeSet::new();
            for tag in svg.split("<polyline").skip(1) {
                let tag = tag.split("/>").next().unwrap();
                let points: Vec<(i64, i64)> = attr(tag, "points")
                    .unwrap()
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect();
                let color = rgb(attr(tag, "stroke").unwrap());
                if points.len() >= 3 {
                    series.insert(color);
                } else if points.len() == 2
                    && attr(tag, "stroke-width") == Some("2")
                    && points[0].1 == points[1].1
                    && points[1].0 - points[0].0 == 20
                {
                    swatches.push(color);
                    name_x.insert(points[0].0 + 26);
                }
            }
            let names = svg
                .split("<text")
                .skip(1)
                .filter(|tag| {
                    attr(tag, "x")
                        .and_then(|x| x.parse::<i64>().ok())
                        .is_some_and(|x| name_x.contains(&x))
                })
                .map(|tag| {
                    tag.split('>')
                        .nth(1)
                        .unwrap()
                        .split("</text")
                        .next()
                        .unwrap()
                })
                .map(|name| name.trim().to_string())
                .collect();
            Plot {
                caption,
                series,
                swatches,
                names,
            }
        })
        .collect()
}

/// Runs `command`, killed after `limit`; whether it exited 0.
fn run_with_limit(command: &mut Command, limit: Duration) -> bool {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The screenshot's pixels, row-major RGB.
fn pixels(png_path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("screenshot in {other:?}"),
    };
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks(step)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, rgb)
}

#[test]
fn the_report_renders_in_a_browser_with_a_legend_entry_per_series() {
    let Some(browser) = chromium() else {
        peer_missing("chromium not found: the report was not rendered in a browser");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("lab.json");
    let page_path = dir.path().join("report.html");
    let out = Command::new(BIN)
        .args(["speed", "--quick", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    std::fs::write(&lab, &out.stdout).unwrap();
    let saved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows: BTreeSet<String> = saved["tables"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(saved["tables"][0]["id"], "throughput");
    let out = Command::new(BIN)
        .args(["report", "--from"])
        .arg(&lab)
        .arg("-o")
        .arg(&page_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&page_path).unwrap();

    // Every plot: one legend entry (swatch and name) per series, distinct.
    let plots = plots(&page);
    assert!(plots.len() >= 4, "{} plots", plots.len());
    let mut in_throughput = BTreeSet::new();
    for plot in &plots {
        let what = &plot.caption;
        assert!(!plot.series.is_empty(), "{what}: no series drawn");
        assert_eq!(plot.swatches.len(), plot.names.len(), "{what}: {plot:?}");
        let distinct: BTreeSet<&Rgb> = plot.swatches.iter().collect();
        assert_eq!(
            distinct.len(),
            plot.swatches.len(),
            "{what}: colours repeat"
        );
        let names: BTreeSet<&String> = plot.names.iter().collect();
        assert_eq!(names.len(), plot.names.len(), "{what}: names repeat");
        for color in &plot.series {
            assert!(
                plot.swatches.contains(color),
                "{what}: a series in {color:?} has no legend entry"
            );
        }
        if what.starts_with("Throughput by block size") {
            assert!(
                plot.names.len() <= 10,
                "{what}: {} series",
                plot.names.len()
            );
            in_throughput.extend(plot.names.iter().cloned());
        }
    }
    assert_eq!(in_throughput, rows, "every row of the table is in a panel");

    // The browser's rendering of it.
    let shot = dir.path().join("report.png");
    let profile = dir.path().join("profile");
    let rendered = run_with_limit(
        Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--no-first-run",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={WIDTH},{HEIGHT}"))
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("file://{}", page_path.display())),
        Duration::from_secs(120),
    );
    assert!(
        rendered && shot.exists(),
        "{} made no screenshot",
        browser.display()
    );
    if let Some(keep) = std::env::var_os("LINERATE_SCREENSHOTS") {
        std::fs::copy(&shot, Path::new(&keep).join("report.png")).unwrap();
    }
    let (width, height, rgb) = pixels(&shot);
    assert_eq!((width, height), (WIDTH, HEIGHT));
    let near = |p: &[u8], c: &Rgb| p.iter().zip(c).all(|(a, b)| a.abs_diff(*b) <= 6);
    let count = |c: &Rgb| rgb.chunks(3).filter(|p| near(p, c)).count();
    let white = count(&[255, 255, 255]);
    let total = (width * height) as usize;
    assert!(
        white < total * 95 / 100 && white > total / 4,
        "{white} of {total} pixels white: the page did not render"
    );
    // The heading's text, dark, in the first 80 rows.
    let heading = rgb[..(width * 80 * 3) as usize]
        .chunks(3)
        .filter(|p| p.iter().all(|v| *v < 80))
        .count();
    assert!(heading > 200, "{heading} dark pixels in the heading");
    // Every colour of every plot is on the screen: the SVGs were drawn.
    for plot in &plots {
        for color in plot.swatches.iter().chain(&plot.series) {
            assert!(
                count(color) >= 20,
                "{}: colour {color:?} not on the screenshot",
                plot.caption
            );
        }
    }
}
