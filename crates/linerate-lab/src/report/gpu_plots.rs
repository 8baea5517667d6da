//! The GPU section's plot, from a saved `linerate speed gpu --json` run:
//! MD5 of row batches on the GPU (from host memory, and already on the
//! device) and on the CPU's cores, by batch size, in bits per second
//! beside the link rates RFC 1810 asked about. Reading the run needs no
//! GPU, so any machine renders it (`linerate report --gpu RUN`).

use serde_json::Value;

use super::plots::{Plot, lines_over};
use crate::model::LINK_RATES;

/// The plots of a saved GPU run; the error names what is missing.
pub fn plots(run: &Value) -> Result<Vec<Plot>, String> {
    let gpu = run
        .get("gpu")
        .and_then(Value::as_str)
        .ok_or("not a 'linerate speed gpu --json' run: no \"gpu\"")?;
    let cpu_threads = run.get("cpu_threads").and_then(Value::as_u64).unwrap_or(0);
    let crossover = run
        .get("crossover")
        .and_then(Value::as_array)
        .ok_or("no \"crossover\" series")?;
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for s in crossover {
        let len = s
            .get("row_bytes")
            .and_then(Value::as_u64)
            .ok_or("a crossover series has no \"row_bytes\"")?;
        let points = s
            .get("points")
            .and_then(Value::as_array)
            .ok_or("a crossover series has no \"points\"")?;
        let mut on_gpu = Vec::new();
        let mut on_cpu = Vec::new();
        for p in points {
            let number = |k: &str| {
                p.get(k)
                    .and_then(Value::as_f64)
                    .ok_or(format!("a crossover point has no \"{k}\""))
            };
            let bytes = number("bytes")?;
            on_gpu.push((bytes, bytes * 8.0 / number("gpu_s")?));
            on_cpu.push((bytes, bytes * 8.0 / number("cpu_s")?));
        }
        series.push((format!("GPU host {}", size(len)), on_gpu));
        series.push((format!("CPU x{cpu_threads} {}", size(len)), on_cpu));
    }
    // The large batches already on the GPU: one point each.
    if let Some(batches) = run.get("batches").and_then(Value::as_array) {
        for b in batches {
            let (Some(rows), Some(len), Some(s)) = (
                b.get("rows").and_then(Value::as_f64),
                b.get("row_bytes").and_then(Value::as_u64),
                b.get("device_resident_s").and_then(Value::as_f64),
            ) else {
                continue;
            };
            let bytes = rows * len as f64;
            series.push((
                format!("GPU dev {}", size(len)),
                vec![(bytes, bytes * 8.0 / s)],
            ));
        }
    }
    Ok(vec![Plot {
        title: format!(
            "MD5 of row batches (rows of 64 B, 1 KiB, 16 KiB) on a GPU ({gpu}) and on the CPU's threads against link rates (bits/s by batch bytes, log-log; 'host': rows in host memory, 'dev': already in GPU memory)"
        ),
        svg: lines_over(
            &series,
            "batch bytes",
            "bits/s",
            &LINK_RATES.map(|(name, rate)| (name.to_string(), rate)),
        ),
    }])
}

/// A row length as the legend shows it: 64 B, 1 KiB, 16 KiB.
fn size(len: u64) -> String {
    if len >= 1024 && len.is_multiple_of(1024) {
        format!("{} KiB", len / 1024)
    } else {
        format!("{len} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_run_gives_one_plot_with_every_series() {
        let run: Value = serde_json::from_str(
            r#"{"gpu": "Test GPU", "cpu_threads": 4,
                "crossover": [{"row_bytes": 64, "points": [
                    {"rows": 64, "bytes": 4096, "gpu_s": 0.001, "cpu_s": 0.002},
                    {"rows": 256, "bytes": 16384, "gpu_s": 0.002, "cpu_s": 0.003}]}],
                "batches": [{"rows": 100, "row_bytes": 64, "device_resident_s": 0.0001}]}"#,
        )
        .unwrap();
        let plots = plots(&run).unwrap();
        assert_eq!(plots.len(), 1);
        assert!(plots[0].title.contains("Test GPU"));
        let svg = plots[0].svg.as_ref().unwrap();
        for name in ["GPU host 64 B", "CPU x4 64 B", "GPU dev 64 B", "100M TCP"] {
            assert!(svg.contains(name), "{name}");
        }
    }

    #[test]
    fn what_is_not_a_gpu_run_is_named() {
        let e = plots(&serde_json::json!({"machine": {}})).unwrap_err();
        assert!(e.contains("\"gpu\""), "{e}");
        let e = plots(&serde_json::json!({"gpu": "x", "crossover": [{"points": []}]})).unwrap_err();
        assert!(e.contains("row_bytes"), "{e}");
    }

    #[test]
    fn the_committed_h100_run_renders() {
        let text = include_str!("../../../../docs/gpu/h100-run3.json");
        let run: Value = serde_json::from_str(text).unwrap();
        let plots = plots(&run).unwrap();
        assert!(plots[0].svg.is_ok());
    }
}
