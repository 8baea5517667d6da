#!/usr/bin/env python3
"""Collect hw/syn/build (Yosys stat + nextpnr --report JSON) into
hw/results/results.json and hw/results/results.md.  Called by hw/syn/run.sh."""
import argparse
import json
import re
import statistics
from pathlib import Path

CYCLES_PER_BLOCK = {"md5_iter": 65}
TARGET_MHZ = {"ecp5-25k": 75.0, "ice40-hx8k": 50.0}  # issue 5, section 3
VARIANTS = [("binary", 0), ("binary", 1), ("gray", 0), ("gray", 1)]
DEVICE_ORDER = ["ice40-hx8k", "ice40-up5k", "ecp5-25k", "ecp5-85k"]
DEVICE_PART = {
    "ice40-hx8k": "iCE40HX8K-CT256",
    "ice40-up5k": "iCE40UP5K-SG48",
    "ecp5-25k": "LFE5U-25F speed 6",
    "ecp5-85k": "LFE5U-85F speed 6",
}


def variant_name(counter, gating):
    return counter + ("-gated" if gating else "")


def core_cells(stat_path):
    """LUT/FF/carry counts of the md5_iter module itself (hierarchy kept)."""
    stat = json.loads(Path(stat_path).read_text())
    mods = {k: v for k, v in stat["modules"].items() if k.endswith("md5_iter") and "top_" not in k}
    assert len(mods) == 1, mods.keys()
    cells = next(iter(mods.values()))["num_cells_by_type"]
    ffs = sum(n for t, n in cells.items() if t.startswith(("SB_DFF", "TRELLIS_FF")))
    if "SB_LUT4" in cells:          # iCE40: a carry shares its LC with the sum LUT
        luts, carry = cells.get("SB_LUT4", 0), cells.get("SB_CARRY", 0)
    else:                           # ECP5: each CCU2C holds two LUT4s
        carry = cells.get("CCU2C", 0)
        luts = cells.get("LUT4", 0) + 2 * carry
    return luts, ffs, carry, cells


def summarise_path(report):
    """One line for the worst reg-to-reg path of the clock domain."""
    for cp in report.get("critical_paths", []):
        if cp["from"].startswith("posedge") and cp["to"].startswith("posedge"):
            path = cp["path"]
            logic = sum(s["delay"] for s in path if s["type"] in ("logic", "clk-to-q", "setup"))
            route = sum(s["delay"] for s in path if s["type"] == "routing")
            levels = sum(1 for s in path if s["type"] == "logic")
            names = []
            for s in path:
                net = s.get("net")
                if not net:
                    continue
                n = net.replace("u_core.", "")
                n = re.split(r"_(SB_|LUT4|CCU2|TRELLIS|PFUMX|L6MUX)", n)[0]
                n = n.lstrip("$")
                if n and not n.startswith("nextpnr") and (not names or names[-1] != n):
                    names.append(n)
            src = path[0]["from"]["cell"].replace("u_core.", "")
            src = re.split(r"_(SB_|LUT4|CCU2|TRELLIS|PFUMX|L6MUX)", src)[0]
            return (f"{src} → " + " → ".join(names[:8]) + (" → …" if len(names) > 8 else "")
                    + f" ({levels} cell hops incl. carry bits, {logic:.2f} ns cell + {route:.2f} ns routing)")
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--yosys-version", default="")
    ap.add_argument("--nextpnr-version", default="")
    a = ap.parse_args()
    build, out = Path(a.build), Path(a.out)

    devices = sorted({p.name.split("-")[0] + "-" + p.name.split("-")[1]
                      for p in (build / "pnr").iterdir()},
                     key=lambda d: DEVICE_ORDER.index(d) if d in DEVICE_ORDER else 99)
    rows = []
    for dev in devices:
        fam = dev.split("-")[0]
        for counter, gating in VARIANTS:
            tag = f"{counter}-g{gating}"
            luts, ffs, carry, cells = core_cells(build / "synth" / f"{fam}-{tag}" / "stat.json")
            seeds = []
            for rep_path in sorted((build / "pnr" / f"{dev}-{tag}").glob("seed*/report.json")):
                rep = json.loads(rep_path.read_text())
                fmax = [v["achieved"] for v in rep["fmax"].values()]
                seeds.append({"seed": int(rep_path.parent.name[4:]),
                              "fmax_mhz": round(min(fmax), 2) if fmax else None,
                              "report": rep})
            ok = [s for s in seeds if s["fmax_mhz"] is not None]
            if not ok:
                continue
            med = statistics.median(s["fmax_mhz"] for s in ok)
            # the seed closest to the median supplies utilisation and critical path
            rep_seed = min(ok, key=lambda s: abs(s["fmax_mhz"] - med))
            util = {k: v for k, v in rep_seed["report"]["utilization"].items() if v["used"]}
            cpb = CYCLES_PER_BLOCK["md5_iter"]
            target = TARGET_MHZ.get(dev)
            rows.append({
                "core": "md5_iter",
                "variant": variant_name(counter, gating),
                "counter": counter,
                "gating": gating,
                "device": dev,
                "part": DEVICE_PART.get(dev, dev),
                "luts": luts,
                "ffs": ffs,
                "carry_cells": carry,
                "core_cells_by_type": cells,
                "fmax_mhz": round(med, 2),
                "fmax_seeds_mhz": [s["fmax_mhz"] for s in ok],
                "seeds": [s["seed"] for s in ok],
                "cycles_per_block": cpb,
                "throughput_mbps": round(512 * med / cpb, 1),
                "target_mhz": target,
                "meets_target": (med >= target) if target else None,
                "pnr_utilization_whole_design": util,
                "critical_path": summarise_path(rep_seed["report"]),
            })

    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(rows, indent=1) + "\n")
    (out / "results.md").write_text(markdown(rows, a))


def markdown(rows, a):
    L = []
    L.append("# Synthesis and timing results (generated by `bash hw/syn/run.sh`)\n")
    L.append(f"Tools: {a.yosys_version.split(' (')[0]}; {a.nextpnr_version.strip()}. "
             f"Run time of the last full run: {a.seconds} s. "
             "fMax is the median over the seeds listed (nextpnr's achieved reg-to-reg "
             "fMax for `clk`); throughput = 512 × fMax / cycles per block.\n")
    L.append("`luts`/`ffs` are the `md5_iter` module's own cells (Yosys `stat` with the "
             "hierarchy kept, before flattening for place-and-route); the serialising "
             "wrapper `hw/syn/top_md5_iter.v` (≈ 790 flops) is excluded. On ECP5 `luts` = "
             "LUT4 + 2 × CCU2C (each carry cell holds two LUT4s); on iCE40 the carry "
             "(SB_CARRY) shares the logic cell of its sum LUT, so `luts` = SB_LUT4. "
             "The last column is the whole design (core + wrapper) after placement.\n")
    L.append("| core | variant | device | LUTs | FFs | carry | fMax MHz (median) | seeds MHz | Mb/s | target | whole design (PnR) |")
    L.append("|---|---|---|---:|---:|---:|---:|---|---:|---|---|")
    for r in rows:
        tgt = "—"
        if r["target_mhz"]:
            tgt = f"≥ {r['target_mhz']:g} MHz: " + ("**met**" if r["meets_target"] else
                   f"**missed by {r['target_mhz'] - r['fmax_mhz']:.1f} MHz**")
        u = r["pnr_utilization_whole_design"]
        keys = [k for k in ("ICESTORM_LC", "TRELLIS_COMB", "TRELLIS_FF") if k in u]
        whole = ", ".join(f"{k} {u[k]['used']}/{u[k]['available']}" for k in keys)
        L.append(f"| {r['core']} | {r['variant']} | {r['device']} | {r['luts']} | {r['ffs']} | "
                 f"{r['carry_cells']} | {r['fmax_mhz']:.2f} | "
                 f"{', '.join(f'{x:.1f}' for x in r['fmax_seeds_mhz'])} | "
                 f"{r['throughput_mbps']:.0f} | {tgt} | {whole} |")
    L.append("")
    L.append("Critical path (seed nearest the median; names are Yosys/nextpnr net names "
             "inside `md5_iter`):\n")
    for r in rows:
        L.append(f"* {r['device']} {r['variant']}: {r['critical_path']}")
    L.append("")
    L.append(QUOTES)
    return "\n".join(L) + "\n"


QUOTES = """## Quoted for comparison (not measured here)

The following are **quotations** from the seed documents, copied as printed.

From ../shared/seeds/md5-fpga-timing-area-2015.md (Suhaili & Watanabe, 2015),
Altera Quartus II / TimeQuest, Arria II GX. The header of Table 3 is garbled
in the seed text; the first slack/fMax pair is the "900 mV 100C" model and the
second the "900 mV -40C" model, according to the paper's own prose.

> **Table 3: Synthesis and Implementation of MD5 Design**
>
> | MD5 Design | Device | constraint | slack (ns) 100C | fMax (MHz) 100C | slack (ns) -40C | fMax (MHz) -40C |
> |---|---|---|---|---|---|---|
> | MD5 | Arria II GX | 7 | 0.148 | 145.94 | 0.435 | 152.32 |
> | MD5_Gray | Arria II GX | 7.5 | 0.344 | 139.74 | 0.657 | 146.13 |
> | MD5_Gating | Arria II GX | 7 | 0.113 | 145.2 | 0.37 | 150.83 |
> | MD5_Gray_Gating | Arria II GX | 7 | 0.093 | 144.78 | 0.429 | 152.18 |

> **Table 4: Area Implementation of MD5**
>
> | MD5 Design | Combinational ALUT | Total Register |
> |---|---|---|
> | MD5 | 1989 | 1713 |
> | MD5_Gray | 2140 | 1935 |
> | MD5_Gating | 2080 | 1713 |
> | MD5_Gray_Gating | 2221 | 1936 |

> **Table 5: Synthesis and Implementation Comparison of MD5 design**
>
> | Design | Device | fMax (MHz) | Combinational ALUT (Altera) | Total Register (Altera) | Slices (Xilinx) |
> |---|---|---|---|---|---|
> | MD5 | Arria II | 152.32 | 1989 | 1713 | - |
> | MD5 | Stratix II GX | 103.32 | 1847 | 1633 | - |
> | MD5[3] | Stratix II GX | 102.7 | 1352 | 462 | - |
> | MD5[4] | Virtex II | 78.30 | - | - | 1325 |
> | MD5[5] | Virtex II | 60.20 | - | - | 1369 |
> | MD5[6] | Virtex V | 21 | - | - | 880 |

The paper gives no cycles per block, so its fMax cannot be turned into Mb/s
without assuming one; at this core's 65 cycles per block, 152.32 MHz would be
1200 Mb/s.

From ../shared/seeds/rfc1810-md5-performance.txt (RFC 1810, Touch, 1995):

> "MD5 can be implemented in existing hardware technology at 256 Mbps, and in
> software at 87 Mbps."
>
> "For CMOS, an operation (32-bit addition, including register retrieval and
> storage) costs about 5.2 ns (2.6 ns per add, 2 ns for latching) [6]. There
> are 6 clocks through the most highly-parallelized implementation, resulting
> in 31.2 ns per 32-bit word, or 256 Mbps [6]."
>
> "This would support network bandwidth of 1 Gbps with 4-way chaining, in
> CMOS hardware."
"""

if __name__ == "__main__":
    main()
