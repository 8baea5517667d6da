#!/usr/bin/env python3
"""Collect hw/syn/build (Yosys stat + nextpnr --report JSON) into
hw/results/results.json and hw/results/results.md.  Called by hw/syn/run.sh.

results.json is also written, byte for byte, to
crates/linerate-lab/data/hw-results.json (LAB_COPY below; the software
performance lab embeds it), so the two never differ (--lab-copy '' skips
the copy, e.g. for an --out outside the repository's hw/results).

Only the (core, variant, device) triples named by --combos are (re)computed;
the other rows already in results.json are kept, so a partial run merges
into the results instead of replacing them.  Every row records a hash of the
RTL it was built from (`rtl_sha`); rows whose hash differs from the current
sources are marked stale in results.md."""
import argparse
import hashlib
import json
import re
import statistics
import time
from pathlib import Path

HW = Path(__file__).resolve().parent.parent
# The copy of results.json the software performance lab embeds.
LAB_COPY = HW.parent / "crates" / "linerate-lab" / "data" / "hw-results.json"

# cycles per 512-bit block for one stream / for independent blocks
CYCLES_PER_BLOCK = {"md5_iter": 65, "md5p_core": 65, "md5_pipe": 1}
RTL_FILES = {
    "md5_iter": ["rtl/md5_k.vh", "rtl/md5_iter.v", "syn/top_md5_iter.v"],
    "md5p_core": ["rtl/md5_k.vh", "rtl/md5_iter.v", "rtl/md5_words.v", "rtl/md5p_core.v",
                  "syn/top_md5p_core.v"],
    "md5_pipe": ["rtl/md5_k.vh", "rtl/md5_pipe.v", "rtl/md5_pipe_delay.v", "syn/top_md5_pipe.v"],
}
CORE_ORDER = ["md5_iter", "md5p_core", "md5_pipe"]
VARIANT_ORDER = ["binary", "binary-gated", "gray", "gray-gated", "k4", "k8", "k16", "ram", "flops"]
DEVICE_ORDER = ["ice40-hx8k", "ice40-up5k", "ecp5-25k", "ecp5-85k"]
DEVICE_PART = {
    "ice40-hx8k": "iCE40HX8K-CT256",
    "ice40-up5k": "iCE40UP5K-SG48",
    "ecp5-25k": "LFE5U-25F speed 6",
    "ecp5-85k": "LFE5U-85F speed 6",
}
# issue 5, section 3
TARGETS = {
    ("md5_iter", "ecp5-25k"): ("mhz", 75.0),
    ("md5_iter", "ice40-hx8k"): ("mhz", 50.0),
    ("md5p_core:k4", "ecp5-85k"): ("mbps", 2000.0),
    ("md5_pipe", "ecp5-85k"): ("mhz", 100.0),
}
WRAPPER_NOTE = {
    "md5_iter": "top_md5_iter.v: 640-bit input shift register, 128-bit output shift register (~790 flops)",
    "md5p_core": "top_md5p_core.v: registered stream pins, 128-bit output shift register (~180 flops)",
    "md5_pipe": "top_md5_pipe.v: 648-bit input shift register, 136-bit output shift register (~800 flops)",
}


def rtl_sha(core):
    h = hashlib.sha256()
    for f in RTL_FILES[core]:
        h.update((HW / f).read_bytes())
    return h.hexdigest()[:12]


def params_of(core, variant):
    if core == "md5_iter":
        return {"counter": variant.split("-")[0], "gating": int(variant.endswith("-gated"))}
    if core == "md5p_core":
        return {"k": int(variant[1:]), "counter": "binary", "gating": 0}
    # md5_pipe: the storage style of its delayed words (TAG_W = 8 in both)
    return {"store": variant, "tag_w": 8}


def expand(modules, name, memo):
    """Cells of module `name` with every submodule instance expanded."""
    if name in memo:
        return memo[name]
    out = {}
    for t, n in modules[name]["num_cells_by_type"].items():
        # a parametrised submodule is listed under its $paramod$... name in
        # both places, a plain one as "md5_words" here but "\\md5_words" as a
        # module
        sub = t if t in modules else "\\" + t if "\\" + t in modules else None
        if sub:
            for t2, n2 in expand(modules, sub, memo).items():
                out[t2] = out.get(t2, 0) + n * n2
        else:
            out[t] = out.get(t, 0) + n
    memo[name] = out
    return out


def core_cells(stat_path, core):
    """LUT/FF/carry counts of the core (hierarchy kept, the wrapper left out)."""
    stat = json.loads(Path(stat_path).read_text())
    mods = stat["modules"]
    names = [k for k in mods if re.search(r"(^|\\)" + core + r"($|\\)", k) and "top_" not in k]
    assert len(names) == 1, (core, list(mods))
    cells = expand(mods, names[0], {})
    ffs = sum(n for t, n in cells.items() if t.startswith(("SB_DFF", "TRELLIS_FF")))
    if "SB_LUT4" in cells:          # iCE40: a carry shares its LC with the sum LUT
        luts, carry = cells.get("SB_LUT4", 0), cells.get("SB_CARRY", 0)
    else:                           # ECP5: each CCU2C holds two LUT4s
        carry = cells.get("CCU2C", 0)
        luts = cells.get("LUT4", 0) + 2 * carry
    return luts, ffs, carry, cells


def clean(name):
    n = name.replace("u_core.", "")
    n = re.split(r"_(SB_|LUT4|CCU2|TRELLIS|PFUMX|L6MUX|DFF)", n)[0]
    return n.lstrip("$").replace("\\", "")


def summarise_path(report):
    """One line for the worst reg-to-reg path of the clock domain."""
    for cp in report.get("critical_paths", []):
        if cp["from"].startswith("posedge") and cp["to"].startswith("posedge"):
            path = cp["path"]
            logic = sum(s["delay"] for s in path if s["type"] in ("logic", "clk-to-q", "setup"))
            route = sum(s["delay"] for s in path if s["type"] == "routing")
            # LUT levels: logic hops outside carry chains (a carry bit costs < 0.1 ns)
            luts = sum(1 for s in path if s["type"] == "logic" and s["delay"] >= 0.15
                       and "CCU2" not in s["to"]["cell"] and "CARRY" not in s["to"]["cell"]
                       and not (s["to"]["cell"].endswith("_LC") and s["delay"] <= 0.13))
            names = []
            for s in path:
                net = s.get("net")
                if not net:
                    continue
                n = clean(net)
                if n and not n.startswith("nextpnr") and (not names or names[-1] != n):
                    names.append(n)
            src = clean(path[0]["from"]["cell"])
            dst = clean(path[-1]["to"]["cell"])
            mid = " → ".join(names[:6]) + (" → …" if len(names) > 6 else "")
            return (f"{src} ⇒ {dst} via {mid} ({logic:.2f} ns cells + {route:.2f} ns routing "
                    f"= {logic + route:.2f} ns)")
    return ""


def pnr_status(log):
    t = log.read_text(errors="replace") if log.exists() else ""
    if re.search(r"(utilisation|utilization).*exceed|Unable to place|failed to place|"
                 r"too many|does not fit", t, re.I):
        return "does not fit"
    if "ERROR" in t:
        return "place-and-route failed"
    return "place-and-route did not finish"


def build_row(build, core, variant, dev, sha):
    fam = dev.split("-")[0]
    sdir = build / "synth" / core / variant / fam
    pdir = build / "pnr" / core / variant / dev
    if not (sdir / "stat.json").exists():
        return None
    luts, ffs, carry, cells = core_cells(sdir / "stat.json", core)
    seeds, failed, secs = [], [], []
    for sd in sorted(pdir.glob("seed*")):
        rp = sd / "report.json"
        if not rp.exists():
            failed.append(sd)
            continue
        rep = json.loads(rp.read_text())
        fmax = [v["achieved"] for v in rep.get("fmax", {}).values()]
        if not fmax:
            failed.append(sd)
            continue
        if (sd / "seconds").exists():
            secs.append(int((sd / "seconds").read_text()))
        seeds.append({"seed": int(sd.name[4:]), "fmax_mhz": round(min(fmax), 2), "report": rep})
    p = params_of(core, variant)
    k = p.get("k", 1)
    cpb = CYCLES_PER_BLOCK[core]
    row = {"core": core, "variant": variant, **p, "device": dev,
           "part": DEVICE_PART.get(dev, dev), "luts": luts, "ffs": ffs,
           "block_rams": cells.get("DP16KD", 0) + cells.get("SB_RAM40_4K", 0),
           "carry_cells": carry, "core_cells_by_type": cells,
           "cycles_per_block": cpb}
    tkey = (f"{core}:{variant}" if (f"{core}:{variant}", dev) in TARGETS else core, dev)
    target = TARGETS.get(tkey)
    if not seeds:
        row.update({"fmax_mhz": None, "throughput_mbps": None,
                    "status": pnr_status(failed[0] / "nextpnr.log") if failed else "not run",
                    "target": target and {"unit": target[0], "value": target[1]},
                    "meets_target": None})
    else:
        med = statistics.median(s["fmax_mhz"] for s in seeds)
        rep_seed = min(seeds, key=lambda s: abs(s["fmax_mhz"] - med))
        util = {kk: v for kk, v in rep_seed["report"]["utilization"].items() if v["used"]}
        thr = 512 * med * k / cpb
        row.update({
            "fmax_mhz": round(med, 2),
            "fmax_seeds_mhz": [s["fmax_mhz"] for s in seeds],
            "seeds": [s["seed"] for s in seeds],
            "throughput_mbps": round(thr, 1),
            "status": "ok",
            "pnr_utilization_whole_design": util,
            "pnr_seconds_per_seed": secs,
            "critical_path": summarise_path(rep_seed["report"]),
        })
        if core == "md5p_core":
            # K lanes give K blocks per 65 clocks, but the 32-bit port takes
            # one block per 16 clocks at most (K >= 8 is port-limited)
            row["port_limited_mbps"] = round(min(thr, 32 * med), 1)
        if core == "md5_pipe":
            # one chained stream: one block per 65 clocks (RFC 1810's point)
            row["single_stream_mbps"] = round(512 * med / 65, 1)
        if target:
            unit, val = target
            got = med if unit == "mhz" else thr
            row["target"] = {"unit": unit, "value": val}
            row["meets_target"] = got >= val
            row["target_gap"] = round(got - val, 2)
        else:
            row["target"] = None
            row["meets_target"] = None
    row["rtl_sha"] = sha
    row["date"] = time.strftime("%Y-%m-%d", time.gmtime())
    return row


def sort_key(r):
    def idx(lst, x):
        return lst.index(x) if x in lst else 99
    return (idx(CORE_ORDER, r["core"]), idx(VARIANT_ORDER, r["variant"]),
            idx(DEVICE_ORDER, r["device"]))


def compare_cells(build, results_json, combos):
    """Prints each combo's LUT/FF counts from this build's netlists beside
    the counts recorded in results.json; exit status 1 if any differs."""
    recorded = {(r.get("core", "md5_iter"), r["variant"], r["device"]): r
                for r in json.loads(results_json.read_text())}
    differs = 0
    for c in combos:
        core, variant, dev = c.split(":")
        stat = build / "synth" / core / variant / dev.split("-")[0] / "stat.json"
        rec = recorded.get((core, variant, dev))
        if rec is None:
            print(f"{core} {variant} {dev}: no recorded row")
            continue
        if not stat.exists():
            print(f"{core} {variant} {dev}: no netlist (see its yosys.log)")
            differs += 1
            continue
        luts, ffs, _, _ = core_cells(stat, core)
        same = (luts, ffs) == (rec["luts"], rec["ffs"])
        differs += not same
        print(f"{core} {variant} {dev}: LUTs {luts}, FFs {ffs}; recorded {rec['luts']}, "
              f"{rec['ffs']}: {'same' if same else 'DIFFERENT'}")
    return 1 if differs else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--seeds", default="")
    ap.add_argument("--combos", nargs="*", default=None,
                    help="core:variant:device triples of this run (default: all in --build)")
    ap.add_argument("--yosys-version", default="")
    ap.add_argument("--nextpnr-version", default="")
    ap.add_argument("--lab-copy", default=str(LAB_COPY),
                    help="where to write the identical copy of results.json ('' = none)")
    ap.add_argument("--cells", action="store_true",
                    help="only compare the netlists' LUT/FF counts with results.json")
    a = ap.parse_args()
    build, out = Path(a.build), Path(a.out)
    if a.cells:
        return compare_cells(build, out / "results.json", a.combos or [])

    combos = a.combos
    if combos is None:
        combos = [f"{p.parent.parent.name}:{p.parent.name}:{p.name}"
                  for p in (build / "pnr").glob("*/*/*")]
    shas = {c: rtl_sha(c) for c in CYCLES_PER_BLOCK}
    new = {}
    for c in combos:
        core, variant, dev = c.split(":")
        row = build_row(build, core, variant, dev, shas[core])
        if row:
            new[(core, variant, dev)] = row

    out.mkdir(parents=True, exist_ok=True)
    jpath = out / "results.json"
    old = json.loads(jpath.read_text()) if jpath.exists() else []
    rows = {(r.get("core", "md5_iter"), r["variant"], r["device"]): r for r in old}
    rows.update(new)
    rows = sorted(rows.values(), key=sort_key)
    text = json.dumps(rows, indent=1) + "\n"
    jpath.write_text(text)
    if a.lab_copy:
        lab = Path(a.lab_copy)
        lab.parent.mkdir(parents=True, exist_ok=True)
        lab.write_text(text)

    meta_path = out / "runs.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else []
    if new:
        meta.append({"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "seconds": a.seconds or None, "seeds": a.seeds, "combos": sorted(new),
                     "yosys": a.yosys_version.split(" (")[0], "nextpnr": a.nextpnr_version.strip()})
    meta_path.write_text(json.dumps(meta[-20:], indent=1) + "\n")
    (out / "results.md").write_text(markdown(rows, meta, shas))


def fmt(x, nd=1):
    return "—" if x is None else f"{x:.{nd}f}"


def target_cell(r):
    t = r.get("target")
    if not t:
        return "—"
    unit = "MHz" if t["unit"] == "mhz" else "Mb/s"
    if r.get("fmax_mhz") is None:
        return f"≥ {t['value']:g} {unit}: **not measured** ({r['status']})"
    if r["meets_target"]:
        return f"≥ {t['value']:g} {unit}: **met** (+{r['target_gap']:g})"
    return f"≥ {t['value']:g} {unit}: **missed by {-r['target_gap']:g} {unit}**"


def markdown(rows, meta, shas):
    L = []
    L.append("# Synthesis and timing results (generated by `bash hw/syn/run.sh`)\n")
    last = meta[-1] if meta else {}
    L.append(f"Tools: {last.get('yosys', '')}; {last.get('nextpnr', '')}. "
             "fMax is the median over the seeds listed of nextpnr's achieved reg-to-reg fMax "
             "for `clk`. Throughput = 512 × fMax / cycles per block: × K for `md5p_core` "
             "(K lanes of 65 clocks per block); for `md5_pipe` one block per clock for "
             "**independent** messages, while one chained stream still gets one block per "
             "65 clocks (column *1 stream*).\n")
    L.append("`luts`/`ffs` are the core's own cells (Yosys `stat` with the hierarchy kept, "
             "every submodule counted, before flattening for place-and-route); the "
             "synthesis wrappers in `hw/syn/top_*.v`, which connect every core port to a "
             "flop through serialising shift registers, are left out. On ECP5 "
             "`luts` = LUT4 + 2 × CCU2C (each carry cell holds two LUT4s); on iCE40 the "
             "carry (SB_CARRY) shares the logic cell of its sum LUT, so `luts` = SB_LUT4. "
             "`BRAMs`: block RAMs (ECP5 DP16KD, 18 Kbit; iCE40 SB_RAM40_4K). "
             "The last column is the whole design (core + wrapper) after placement.\n")
    stale = [r for r in rows if r.get("rtl_sha") != shas.get(r.get("core", ""))]
    if stale:
        L.append(f"**{len(stale)} row(s) marked † were built from older RTL** (their `rtl_sha` "
                 "differs from the current sources); rerun them with "
                 "`CORES=... VARIANTS=... DEVICES=... bash hw/syn/run.sh`.\n")
    L.append("| core | variant | device | LUTs | FFs | BRAMs | fMax MHz (median) | seeds MHz | cycles/block | Mb/s | 1 stream / port Mb/s | target | whole design (PnR) |")
    L.append("|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|")
    for r in rows:
        u = r.get("pnr_utilization_whole_design", {})
        keys = [k for k in ("ICESTORM_LC", "TRELLIS_COMB", "TRELLIS_FF") if k in u]
        whole = ", ".join(f"{k} {u[k]['used']}/{u[k]['available']}" for k in keys) or r.get("status", "")
        extra = "—"
        if r.get("single_stream_mbps") is not None:
            extra = f"{r['single_stream_mbps']:.0f} (1 stream)"
        elif r.get("port_limited_mbps") is not None:
            extra = f"{r['port_limited_mbps']:.0f} (with the port limit)"
        mark = " †" if r in stale else ""
        seeds = ", ".join(f"{x:.1f}" for x in r.get("fmax_seeds_mhz", []))
        L.append(f"| {r.get('core', 'md5_iter')}{mark} | {r['variant']} | {r['device']} | {r['luts']} | "
                 f"{r['ffs']} | {r.get('block_rams', 0)} | {fmt(r.get('fmax_mhz'), 2)} | {seeds} | {r['cycles_per_block']} | "
                 f"{fmt(r.get('throughput_mbps'), 0)} | {extra} | {target_cell(r)} | {whole} |")
    L.append("")
    L.append("Critical path of each row (seed nearest the median; Yosys/nextpnr net names "
             "inside the core, source flop ⇒ destination flop):\n")
    for r in rows:
        if r.get("critical_path"):
            L.append(f"* {r.get('core', 'md5_iter')} {r['variant']} {r['device']}: {r['critical_path']}")
    L.append("")
    L.append(gray_gating_table(rows))
    L.append("Runs merged into this file (newest last):\n")
    for m in meta[-8:]:
        secs = f"{m['seconds']} s" if m.get("seconds") else "collected by hand, no run time"
        L.append(f"* {m['date']}: {len(m['combos'])} (core, variant, device) rows, seeds "
                 f"{m['seeds'] or '—'}, {secs}")
    L.append("")
    L.append(QUOTES)
    return "\n".join(L) + "\n"


def gray_gating_table(rows):
    """The paper's experiment (its Tables 3 and 4) on the open devices."""
    it = {(r["variant"], r["device"]): r for r in rows if r.get("core", "md5_iter") == "md5_iter"}
    devs = [d for d in DEVICE_ORDER if any((v, d) in it for v in VARIANT_ORDER[:4])]
    if not devs:
        return ""
    L = ["## Binary vs Gray counter, gated vs ungated (the paper's experiment)\n",
         "fMax MHz (median of the seeds) / LUTs / FFs of `md5_iter` per device; the "
         "paper's own numbers (Arria II GX) are quoted further down.\n",
         "| variant | " + " | ".join(devs) + " |",
         "|---|" + "---|" * len(devs)]
    for v in VARIANT_ORDER[:4]:
        cells = []
        for d in devs:
            r = it.get((v, d))
            cells.append("—" if not r else f"{fmt(r.get('fmax_mhz'))} / {r['luts']} / {r['ffs']}")
        L.append(f"| {v} | " + " | ".join(cells) + " |")
    L.append("")
    return "\n".join(L) + "\n"


QUOTES = """## Quoted for comparison (not measured here)

The following are **quotations** from two publications, copied as printed.

From S. Suhaili and T. Watanabe (2015), *Performance Evaluation of
Cryptographic Algorithms on Reconfigurable Hardware: MD5 based on Timing and
Area Implementation*, Altera Quartus II / TimeQuest, Arria II GX. The header
of Table 3 is garbled in the text these tables were copied from; the first
slack/fMax pair is the "900 mV 100C" model and the second the "900 mV -40C"
model, according to the paper's own prose.

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

From RFC 1810 (J. Touch, *Report on MD5 Performance*, 1995):

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
    raise SystemExit(main())
