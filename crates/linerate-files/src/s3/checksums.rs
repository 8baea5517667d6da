//! What S3 computes for an upload: the ETag and any of its CRCs and SHAs
//! ([`S3Algorithm`]), from the parts' checksums, as S3 puts them together.
//!
//! - [`Request`]: which checksums, and the type of a multipart upload's
//!   (full-object or composite, each algorithm's default otherwise);
//! - [`PartSums`]: one part's checksums other than the MD5, fed the part's
//!   bytes as the engine reads them (beside the lanes' MD5: one pass);
//! - [`Upload`]: the parts' checksums, arriving in any order, put together
//!   in part order: a full-object CRC by combining the parts' CRCs (no
//!   second pass), a composite one as the checksum of the parts' binary
//!   values one after another, the ETag as MD5 of the parts' MD5s.
//!
//! An object uploaded with one PUT has every checksum of the whole object
//! (the SHAs too), whatever the request's type.

use std::collections::BTreeMap;

use linerate::Md5;
use linerate::crc::{Crc, CrcAlgorithm, combine, to_be_bytes};
use linerate_sumfile::etag::Etag;
use linerate_sumfile::s3::{ChecksumType, S3Algorithm, S3Value};
use sha1::Sha1;
use sha2::Digest as _;
use sha2::Sha256;

/// The ETag among `values` (all zeros if none was asked for).
pub fn etag_of(values: Vec<S3Value>) -> Etag {
    values.iter().find_map(S3Value::as_etag).unwrap_or(Etag {
        digest: [0; 16],
        parts: None,
    })
}

/// Which checksums to compute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    algorithms: Vec<S3Algorithm>,
    /// The type of a multipart upload's checksums; `None`: each
    /// algorithm's default ([`S3Algorithm::default_type`]).
    kind: Option<ChecksumType>,
}

impl Request {
    /// `algorithms` (repeats dropped, order kept), multipart checksums of
    /// type `kind` (the ETag is always composite, and left out of the
    /// check). The error, one line, names an algorithm S3 offers only in
    /// the other type.
    pub fn new(algorithms: &[S3Algorithm], kind: Option<ChecksumType>) -> Result<Request, String> {
        let mut unique = Vec::new();
        for &algorithm in algorithms {
            if !unique.contains(&algorithm) {
                unique.push(algorithm);
            }
        }
        if unique.is_empty() {
            return Err("no checksum algorithm given".into());
        }
        if let Some(kind) = kind {
            for &algorithm in &unique {
                if algorithm != S3Algorithm::Md5 && !algorithm.supports(kind) {
                    let other = match kind {
                        ChecksumType::FullObject => ChecksumType::Composite,
                        ChecksumType::Composite => ChecksumType::FullObject,
                    };
                    return Err(format!(
                        "S3 has no {} {algorithm} checksum of a multipart upload ({} only)",
                        kind.name(),
                        other.name()
                    ));
                }
            }
        }
        Ok(Request {
            algorithms: unique,
            kind,
        })
    }

    /// The ETag alone.
    pub fn etag() -> Request {
        Request {
            algorithms: vec![S3Algorithm::Md5],
            kind: None,
        }
    }

    /// The algorithms, in the order asked for.
    pub fn algorithms(&self) -> &[S3Algorithm] {
        &self.algorithms
    }

    /// The type of `algorithm`'s checksum of a multipart upload.
    pub fn multipart_type(&self, algorithm: S3Algorithm) -> ChecksumType {
        match (algorithm, self.kind) {
            (S3Algorithm::Md5, _) | (_, None) => algorithm.default_type(),
            (_, Some(kind)) => kind,
        }
    }

    /// Whether the ETag is wanted.
    pub fn wants_md5(&self) -> bool {
        self.algorithms.contains(&S3Algorithm::Md5)
    }

    /// Whether anything besides the ETag is wanted.
    pub fn wants_others(&self) -> bool {
        self.algorithms.iter().any(|&a| a != S3Algorithm::Md5)
    }

    fn crcs(&self) -> impl Iterator<Item = CrcAlgorithm> + '_ {
        self.algorithms.iter().filter_map(|a| a.crc())
    }

    fn wants(&self, algorithm: S3Algorithm) -> bool {
        self.algorithms.contains(&algorithm)
    }
}

/// One part's checksums (or a whole object's) other than the MD5, being
/// computed; and, for a part read in order on one thread, its MD5 too.
#[derive(Clone, Debug)]
pub struct PartSums {
    md5: Option<Md5>,
    crcs: Vec<Crc>,
    sha1: Option<Sha1>,
    sha256: Option<Sha256>,
    len: u64,
}

/// One part's finished checksums.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartValues {
    /// The part's bytes.
    pub len: u64,
    /// The part's MD5, when it was computed here (else the engine's).
    pub md5: Option<[u8; 16]>,
    pub crcs: Vec<u64>,
    pub sha1: Option<[u8; 20]>,
    pub sha256: Option<[u8; 32]>,
}

impl PartSums {
    /// The checksums `request` wants besides the MD5 (and the MD5 too if
    /// `with_md5` and the request wants it).
    pub fn new(request: &Request, with_md5: bool) -> PartSums {
        PartSums {
            md5: (with_md5 && request.wants_md5()).then(Md5::new),
            crcs: request.crcs().map(Crc::new).collect(),
            sha1: request.wants(S3Algorithm::Sha1).then(Sha1::new),
            sha256: request.wants(S3Algorithm::Sha256).then(Sha256::new),
            len: 0,
        }
    }

    /// The next bytes of the part.
    pub fn update(&mut self, data: &[u8]) {
        self.len += data.len() as u64;
        if let Some(md5) = &mut self.md5 {
            md5.update(data);
        }
        for crc in &mut self.crcs {
            crc.update(data);
        }
        // The SHAs are slower than memory: each page prefetched before
        // they take it (linerate::cpu::in_pages).
        if let Some(sha1) = &mut self.sha1 {
            linerate::cpu::in_pages(data, |page| sha1.update(page));
        }
        if let Some(sha256) = &mut self.sha256 {
            linerate::cpu::in_pages(data, |page| sha256.update(page));
        }
    }

    pub fn finish(self) -> PartValues {
        PartValues {
            len: self.len,
            md5: self.md5.map(Md5::finalize),
            crcs: self.crcs.iter().map(Crc::finalize).collect(),
            sha1: self.sha1.map(|h| h.finalize().into()),
            sha256: self.sha256.map(|h| h.finalize().into()),
        }
    }
}

/// An upload's checksums put together from its parts' values, which may
/// arrive in any order. Only values that arrive ahead of a missing one are
/// kept.
#[derive(Clone, Debug)]
pub struct Upload {
    request: Request,
    next: u64,
    waiting: BTreeMap<u64, PartValues>,
    /// One PUT's values (part 0 of a plain upload).
    first: Option<PartValues>,
    md5: Md5,
    /// Per CRC of the request: the full-object CRC so far.
    crc_full: Vec<u64>,
    /// Per CRC of the request: the CRC of the parts' big-endian CRCs.
    crc_composite: Vec<Crc>,
    sha1: Sha1,
    sha256: Sha256,
}

impl Upload {
    pub fn new(request: &Request) -> Upload {
        Upload {
            request: request.clone(),
            next: 0,
            waiting: BTreeMap::new(),
            first: None,
            md5: Md5::new(),
            crc_full: Vec::new(),
            crc_composite: request.crcs().map(Crc::new).collect(),
            sha1: Sha1::new(),
            sha256: Sha256::new(),
        }
    }

    /// Records part `index`'s (0-based) values.
    pub fn add(&mut self, index: u64, values: PartValues) {
        if index != self.next {
            self.waiting.insert(index, values);
            return;
        }
        self.fold(values);
        while let Some(values) = self.waiting.remove(&self.next) {
            self.fold(values);
        }
    }

    /// Parts recorded in order so far.
    pub fn parts_in(&self) -> u64 {
        self.next
    }

    fn fold(&mut self, values: PartValues) {
        if let Some(md5) = values.md5 {
            self.md5.update(md5);
        }
        let crcs = self.request.crcs().collect::<Vec<_>>();
        for (i, (&algorithm, &value)) in crcs.iter().zip(&values.crcs).enumerate() {
            match self.crc_full.get_mut(i) {
                Some(full) => *full = combine(algorithm, *full, value, values.len),
                None => self.crc_full.push(value),
            }
            self.crc_composite[i].update(&to_be_bytes(algorithm, value));
        }
        if let Some(sha1) = values.sha1 {
            self.sha1.update(sha1);
        }
        if let Some(sha256) = values.sha256 {
            self.sha256.update(sha256);
        }
        if self.next == 0 {
            self.first = Some(values);
        }
        self.next += 1;
    }

    /// The checksums, in the request's order: of one PUT (`parts` `None`,
    /// part 0 the whole object) or of a multipart upload of `parts` parts
    /// (all of them recorded).
    pub fn finish(self, parts: Option<u64>) -> Vec<S3Value> {
        debug_assert_eq!(self.next, parts.unwrap_or(1));
        let request = &self.request;
        let crcs: Vec<_> = request.crcs().collect();
        let crc_index = |a: CrcAlgorithm| crcs.iter().position(|&c| c == a).unwrap_or(0);
        request
            .algorithms
            .iter()
            .map(|&algorithm| {
                let value = match (parts, algorithm.crc()) {
                    (None, _) => {
                        let first = self.first.as_ref();
                        match algorithm {
                            S3Algorithm::Md5 => first.and_then(|f| f.md5).map(|d| d.to_vec()),
                            S3Algorithm::Sha1 => first.and_then(|f| f.sha1).map(|d| d.to_vec()),
                            S3Algorithm::Sha256 => first.and_then(|f| f.sha256).map(|d| d.to_vec()),
                            _ => {
                                let crc = algorithm.crc().unwrap_or(CrcAlgorithm::Crc32);
                                let i = crc_index(crc);
                                Some(to_be_bytes(crc, self.crc_full.get(i).copied().unwrap_or(0)))
                            }
                        }
                        .unwrap_or_default()
                    }
                    (Some(_), Some(crc)) => {
                        let i = crc_index(crc);
                        match request.multipart_type(algorithm) {
                            ChecksumType::FullObject => {
                                to_be_bytes(crc, self.crc_full.get(i).copied().unwrap_or(0))
                            }
                            ChecksumType::Composite => {
                                to_be_bytes(crc, self.crc_composite[i].finalize())
                            }
                        }
                    }
                    (Some(_), None) => match algorithm {
                        S3Algorithm::Md5 => self.md5.clone().finalize().to_vec(),
                        S3Algorithm::Sha1 => self.sha1.clone().finalize().to_vec(),
                        _ => self.sha256.clone().finalize().to_vec(),
                    },
                };
                let composite =
                    parts.is_some() && request.multipart_type(algorithm) == ChecksumType::Composite;
                S3Value {
                    algorithm,
                    value,
                    parts: if composite { parts } else { None },
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate::crc::crc;

    /// Every checksum of `data` in parts of `size` by its definition, from
    /// whole slices.
    fn reference(request: &Request, data: &[u8], size: Option<usize>) -> Vec<S3Value> {
        let parts: Vec<&[u8]> = match size {
            None => vec![data],
            Some(_) if data.is_empty() => vec![data],
            Some(size) => data.chunks(size).collect(),
        };
        request
            .algorithms()
            .iter()
            .map(|&algorithm| {
                let whole = |part: &[u8]| -> Vec<u8> {
                    match algorithm {
                        S3Algorithm::Md5 => linerate::md5(part).to_vec(),
                        S3Algorithm::Sha1 => Sha1::digest(part).to_vec(),
                        S3Algorithm::Sha256 => Sha256::digest(part).to_vec(),
                        _ => {
                            let c = algorithm.crc().expect("a crc");
                            to_be_bytes(c, crc(c, part))
                        }
                    }
                };
                let composite =
                    size.is_some() && request.multipart_type(algorithm) == ChecksumType::Composite;
                if !composite {
                    return S3Value {
                        algorithm,
                        value: whole(data),
                        parts: None,
                    };
                }
                let joined: Vec<u8> = parts.iter().flat_map(|p| whole(p)).collect();
                S3Value {
                    algorithm,
                    value: whole(&joined),
                    parts: Some(parts.len() as u64),
                }
            })
            .collect()
    }

    #[test]
    fn parts_in_any_order_give_the_defined_checksums() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let all = S3Algorithm::ALL;
        let requests = [
            Request::new(&all, None).expect("defaults"),
            Request::new(&all[2..4], Some(ChecksumType::FullObject)).expect("crc32s full"),
            Request::new(
                &[S3Algorithm::Crc32, S3Algorithm::Sha1],
                Some(ChecksumType::Composite),
            )
            .expect("composite"),
        ];
        for request in &requests {
            for (len, size) in [(0, None), (0, Some(100)), (1, Some(100)), (10_000, None)]
                .into_iter()
                .chain([(10_000, Some(999)), (10_000, Some(1000)), (5_000, Some(64))])
            {
                let data = &data[..len];
                let pieces: Vec<&[u8]> = match size {
                    None => vec![data],
                    Some(_) if data.is_empty() => vec![data],
                    Some(size) => data.chunks(size).collect(),
                };
                let mut upload = Upload::new(request);
                // Last part first, then the others.
                let order: Vec<usize> = (0..pieces.len()).rev().collect();
                for i in order {
                    let mut sums = PartSums::new(request, true);
                    for piece in pieces[i].chunks(37) {
                        sums.update(piece);
                    }
                    upload.add(i as u64, sums.finish());
                }
                let parts = size.map(|_| pieces.len() as u64);
                assert_eq!(
                    upload.finish(parts),
                    reference(request, data, size),
                    "{request:?} {len} {size:?}"
                );
            }
        }
    }

    #[test]
    fn types_s3_does_not_offer_are_refused() {
        let error = Request::new(&[S3Algorithm::Crc64Nvme], Some(ChecksumType::Composite))
            .expect_err("crc64nvme is full-object only");
        assert!(error.contains("crc64nvme"), "{error}");
        let error = Request::new(
            &[S3Algorithm::Md5, S3Algorithm::Sha256],
            Some(ChecksumType::FullObject),
        )
        .expect_err("sha256 is composite only");
        assert!(error.contains("sha256"), "{error}");
        // The ETag is left out of the check.
        assert!(Request::new(&[S3Algorithm::Md5], Some(ChecksumType::FullObject)).is_ok());
        assert!(Request::new(&[], None).is_err());
    }
}
