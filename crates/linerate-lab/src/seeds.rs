//! The seed documents' tables, quoted verbatim with their source, and
//! their figures as data for the "then and now" comparisons. Nothing here is
//! measured: every figure is labelled as a quotation wherever it is shown.
//!
//! The passages quoted are kept, verbatim, in the crate's `data/seeds/`
//! (RFC 1810 whole; of the others only the passages quoted), and a test
//! checks every quoted line against them.

/// A quotation from a seed document.
#[derive(Debug, PartialEq, Eq)]
pub struct Seed {
    /// A stable name for JSON.
    pub id: &'static str,
    /// The document it is quoted from.
    pub source: &'static str,
    /// The file of `data/seeds/` that holds the passage.
    pub file: &'static str,
    /// What it is.
    pub title: &'static str,
    /// The text, verbatim (whitespace of table rows as in the document).
    pub quotation: &'static str,
}

const RFC1810_DOC: (&str, &str) = (
    "RFC 1810, J. Touch, \"Report on MD5 Performance\", June 1995",
    "rfc1810.txt",
);
const EAY1998_DOC: (&str, &str) = (
    "Eric Young, \"Re: RC5 Patent Awarded\", mailing-list post, 11 March 1998",
    "eay1998.txt",
);
const OPENSSH2007_DOC: (&str, &str) = (
    "Damien Miller, \"Recent MAC improvements\", openssh-unix-dev, June 2007",
    "openssh2007.txt",
);
const FPGA2015_DOC: (&str, &str) = (
    "S. Suhaili and T. Watanabe, \"Performance Evaluation of Cryptographic Algorithms on \
     Reconfigurable Hardware: MD5 based on Timing and Area Implementation\", 2015",
    "fpga2015.md",
);

pub static RFC1810_MEASURED: Seed = Seed {
    id: "rfc1810_measured",
    source: RFC1810_DOC.0,
    file: RFC1810_DOC.1,
    title: "RFC 1810 (1995), Measurements: \"md5 -t\", on-chip caching prohibited",
    quotation: "\
        87 Mbps    DEC Alpha (190 Mhz)
        33 Mbps    HP 9000/720
        48 Mbps    IBM RS/6000 7006 (PPC 601 @80 Mhz)
        31 Mbps    Intel i486/66 NetBSD
        44 Mbps    Intel Pentium/90 NeXTStep
        52 Mbps    SGI/IP-20 IRIX 5.2
        37 Mbps    Sun SPARC-10/51, SPARC-20/50 SunOS 4.1.3
        57 Mbps    Sun SPARC-20/71 SunOS 4.1.3

   These rates do not keep up with currently available IP bandwidth,
   e.g., 100 Mbps TCP and 130 Mbps UDP over a Fore SBA-200 ATM host
   interface in a Sun SPARC-20/71.",
};

pub static RFC1810_MODEL: Seed = Seed {
    id: "rfc1810_model",
    source: RFC1810_DOC.0,
    file: RFC1810_DOC.1,
    title: "RFC 1810 (1995), Analysis: predicted upper bounds from SpecInt92 against measured MD5",
    quotation: "\
        Parallel software rate in Mbps = 1.6 * MIPS rate
        Serial software rate in Mbps = MIPS rate

     Spec-    Predicted      MD5
     Int92   Upper-Bound   Measured      Machine
   ------------------------------------------------------------
     122       122-195     87 Mbps    DEC Alpha (190 Mhz)
      48        48- 77     33 Mbps    HP 9000/720
      88        88-141     48 Mbps    IBM RS/6000 7006 (PPC 601 @80 Mhz)
      32        32- 51     31 Mbps    Intel i486/33 NetBSD
      90        90-144     44 Mbps    Intel Pentium/90 NeXTStep
      90        90-144     52 Mbps    SGI/IP-20 IRIX 5.2
      65        65-104     37 Mbps    Sun SPARC-10/51 SunOS 4.1.3
     126       126-202     57 Mbps    Sun SPARC-20/71 SunOS 4.1.3",
};

pub static RFC1810_HARDWARE: Seed = Seed {
    id: "rfc1810_hardware",
    source: RFC1810_DOC.0,
    file: RFC1810_DOC.1,
    title: "RFC 1810 (1995), the hardware rate and K-way chaining",
    quotation: "\
   The hardware rate takes 3 time units per step, i.e.  3 * 4 = 12 time
   units per word of input.  Hardware capable of doing an operation
   (e.g., 32-bit addition) in N nanoseconds can support a data bandwidth
   of 32/12/N bps, i.e., 2/3N bps.

        Hardware rate in Mbps = 8/3N * 1,000

   For CMOS, an operation (32-bit addition, including register retrieval
   and storage) costs about 5.2 ns (2.6 ns per add, 2 ns for latching)
   [6].  There are 6 clocks through the most highly-parallelized
   implementation, resulting in 31.2 ns per 32-bit word, or 256 Mbps
   [6].
   [...]
   This would support network bandwidth of 1 Gbps with 4-
   way chaining, in CMOS hardware.",
};

pub static EAY1998_KEY_SETUP: Seed = Seed {
    id: "eay1998_key_setup",
    source: EAY1998_DOC.0,
    file: EAY1998_DOC.1,
    title: "Eric Young (1998), key setup on a Pentium Pro 200: set_key, CBC of 8 bytes in C and asm, cost",
    quotation: "\
                set_key C asm cost
DES 4.830uS 2.658uS 1.709uS 14.5 bytes
3-DES 14.490uS 7.141uS 4.827uS 16.2 bytes
IDEA 1.507uS enc 2.930uS 4.1 bytes
                 72.787uS dec 198.7 bytes
RC2 16.532uS 4.451uS 29.7 bytes
RC4 18.467uS 0.521uS 0.355uS 283.5 bytes
RC5-32-12 10.610uS 1.580uS 0.585uS 53.7 bytes
Blowfish 997.606uS 2.116uS 1.042uS 3771.6 bytes
CAST5 5.575uS 2.476uS 1.124uS 18.0 bytes

'cost' is the number of bytes that could have been crypted during a key setup.",
};

pub static EAY1998_DIGESTS: Seed = Seed {
    id: "eay1998_digests",
    source: EAY1998_DOC.0,
    file: EAY1998_DOC.1,
    title: "Eric Young (1998), digests by block size on a Pentium Pro 200 (x86 assembler)",
    quotation: "\
The 'numbers' are in 1000s of bytes per second processed. The 'bytes' is
the size of the block being repeatedly digested.
type 8 bytes 64 bytes 256 bytes 1024 bytes 8192 bytes
md5 1926.01k 11470.49k 22459.73k 29396.99k 32549.55k
hmac(md5) 743.07k 5237.76k 14173.78k 24719.70k 31716.69k
sha1 1343.88k 6485.17k 11660.33k 14642.18k 15794.18k
rmd160 1044.77k 5140.44k 8980.74k 10987.86k 11840.17k
rc4 14856.79k 21498.45k 22432.68k 22529.02k 22629.03k",
};

pub static OPENSSH2007: Seed = Seed {
    id: "openssh2007",
    source: OPENSSH2007_DOC.0,
    file: OPENSSH2007_DOC.1,
    title: "OpenSSH (2007), reusing the MAC context per packet; UMAC-64 against the HMACs",
    quotation: "\
> The first improvement is a change from Markus Friedl to reuse the MAC
> context, rather than reinitialising it for every packet. This saves two
> calls to the underlying hash function (e.g. SHA1) for each packet. My
> tests found that this yielded at 12-16% speedup for bulk transfers to
> localhost using HMAC-MD5 and arcfour256. HMAC-SHA1 should see an even
> bigger improvement, because SHA1 is a more expensive hash function.
[...]
> cipher (AES) remains cryptologically intact. Testing (bulk transfers to
> localhost using arcfour256) found UMAC-64 to perform 20% better than
> HMAC-MD5, and 28% faster than HMAC-SHA1.",
};

pub static FPGA2015: Seed = Seed {
    id: "fpga2015",
    source: FPGA2015_DOC.0,
    file: FPGA2015_DOC.1,
    title: "Suhaili and Watanabe (2015), iterative MD5 on FPGAs: fMax (Table 3) and comparison (Table 5)",
    quotation: "\
Table 3: Synthesis and Implementation of MD5 Design
MD5 Design	Device	constraint	slack(ns)	fMax (MHz)	slack (ns)	fMax (MHz)
MD5	Arria II GX	7	0.148	145.94	0.435	152.32
MD5_Gray	Arria II GX	7.5	0.344	139.74	0.657	146.13
MD5_Gating	Arria II GX	7	0.113	145.2	0.37	150.83
MD5_Gray_Gating	Arria II GX	7	0.093	144.78	0.429	152.18

Table 5: Synthesis and Implementation Comparison of MD5 design
Design	Device	fMax (MHz)	Combinational ALUT (Altera)	Total Register (Altera)	Slices (Xilinx)
MD5	Arria II	152.32	1989	1713	-
MD5	Stratix II GX	103.32	1847	1633	-
MD5[3]	Stratix II GX	102.7	1352	462	-
MD5[4]	Virtex II	78.30	-	-	1325
MD5[5]	Virtex II	60.20	-	-	1369
MD5[6]	Virtex V	21	-	-	880",
};

/// Every quotation, in the order the report shows them.
pub static ALL: [&Seed; 7] = [
    &RFC1810_MEASURED,
    &RFC1810_MODEL,
    &RFC1810_HARDWARE,
    &EAY1998_DIGESTS,
    &EAY1998_KEY_SETUP,
    &OPENSSH2007,
    &FPGA2015,
];

/// RFC 1810's machines: SpecInt92 and measured MD5 in Mbps.
pub const RFC1810_MACHINES: [(&str, f64, f64); 8] = [
    ("DEC Alpha (190 Mhz)", 122.0, 87.0),
    ("HP 9000/720", 48.0, 33.0),
    ("IBM RS/6000 7006 (PPC 601 @80 Mhz)", 88.0, 48.0),
    ("Intel i486/33 NetBSD", 32.0, 31.0),
    ("Intel Pentium/90 NeXTStep", 90.0, 44.0),
    ("SGI/IP-20 IRIX 5.2", 90.0, 52.0),
    ("Sun SPARC-10/51 SunOS 4.1.3", 65.0, 37.0),
    ("Sun SPARC-20/71 SunOS 4.1.3", 126.0, 57.0),
];

/// The block sizes of the 1998 digest table.
pub const EAY_SIZES: [u64; 5] = [8, 64, 256, 1024, 8192];

/// The 1998 digest table: (1998 name, today's algorithm, 1000s of bytes/s
/// at each of [`EAY_SIZES`]).
#[rustfmt::skip]
pub const EAY_DIGESTS: [(&str, &str, [f64; 5]); 5] = [
    ("md5", "md5", [1926.01, 11470.49, 22459.73, 29396.99, 32549.55]),
    ("hmac(md5)", "hmac-md5", [743.07, 5237.76, 14173.78, 24719.70, 31716.69]),
    ("sha1", "sha1", [1343.88, 6485.17, 11660.33, 14642.18, 15794.18]),
    ("rmd160", "ripemd160", [1044.77, 5140.44, 8980.74, 10987.86, 11840.17]),
    ("rc4", "rc4", [14856.79, 21498.45, 22432.68, 22529.02, 22629.03]),
];

/// The 1998 key-setup table: (name, set_key µs, C CBC-8 µs, cost bytes).
pub const EAY_KEY_SETUP: [(&str, f64, f64, f64); 9] = [
    ("DES", 4.830, 2.658, 14.5),
    ("3-DES", 14.490, 7.141, 16.2),
    ("IDEA enc", 1.507, 2.930, 4.1),
    ("IDEA dec", 72.787, 2.930, 198.7),
    ("RC2", 16.532, 4.451, 29.7),
    ("RC4", 18.467, 0.521, 283.5),
    ("RC5-32-12", 10.610, 1.580, 53.7),
    ("Blowfish", 997.606, 2.116, 3771.6),
    ("CAST5", 5.575, 2.476, 18.0),
];

/// OpenSSH 2007, in percent: context reuse speed-up for HMAC-MD5 bulk
/// transfers (12 to 16), UMAC-64 over HMAC-MD5 (20), over HMAC-SHA1 (28).
pub const OPENSSH_REUSE_PERCENT: (f64, f64) = (12.0, 16.0);
pub const OPENSSH_UMAC_OVER_HMAC_MD5_PERCENT: f64 = 20.0;
pub const OPENSSH_UMAC_OVER_HMAC_SHA1_PERCENT: f64 = 28.0;

/// The 2015 paper's fMax for the MD5 design on Arria II GX (-40C model).
pub const FPGA_ARRIA_FMAX_MHZ: f64 = 152.32;

#[cfg(test)]
mod tests {
    use super::*;

    /// The data tables agree with the quotations they come from.
    #[test]
    fn figures_are_in_their_quotations() {
        for (name, _, figures) in EAY_DIGESTS {
            let line = EAY1998_DIGESTS
                .quotation
                .lines()
                .find(|l| l.starts_with(&format!("{name} ")))
                .unwrap();
            for f in figures {
                assert!(line.contains(&format!("{f:.2}k")), "{name} {f}");
            }
        }
        for (name, set_key, cbc, cost) in EAY_KEY_SETUP {
            let q = EAY1998_KEY_SETUP.quotation;
            assert!(q.contains(&format!("{set_key:.3}uS")), "{name}");
            assert!(q.contains(&format!("{cbc:.3}uS")), "{name}");
            assert!(q.contains(&format!("{cost:.1} bytes")), "{name}");
        }
        for (machine, spec, mbps) in RFC1810_MACHINES {
            let line = RFC1810_MODEL
                .quotation
                .lines()
                .find(|l| l.ends_with(machine))
                .unwrap();
            assert!(line.contains(&format!(" {spec:.0} ")), "{machine}");
            assert!(line.contains(&format!("{mbps:.0} Mbps")), "{machine}");
        }
    }

    /// The quotations are the seed documents' text: every quoted line is a
    /// line of its passage in `data/seeds/`.
    #[test]
    fn quotations_are_verbatim() {
        let passage = |file: &str| match file {
            "rfc1810.txt" => include_str!("../data/seeds/rfc1810.txt"),
            "eay1998.txt" => include_str!("../data/seeds/eay1998.txt"),
            "openssh2007.txt" => include_str!("../data/seeds/openssh2007.txt"),
            "fpga2015.md" => include_str!("../data/seeds/fpga2015.md"),
            other => panic!("no passage {other}"),
        };
        for seed in ALL {
            let source = passage(seed.file);
            let lines: Vec<&str> = source.lines().map(str::trim).collect();
            for line in seed.quotation.lines().map(str::trim) {
                if line.is_empty() || line == "[...]" || line.starts_with("Table ") {
                    continue;
                }
                assert!(
                    lines
                        .iter()
                        .any(|l| l == &line || l.ends_with(line) || l.starts_with(line)),
                    "{}: {line:?}",
                    seed.id
                );
            }
        }
    }
}
