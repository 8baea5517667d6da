//! How an upload splits a file into parts: the AWS CLI's rule by default,
//! or the part size and threshold given on the command line.
//!
//! The AWS CLI (s3transfer) uploads a file smaller than its multipart
//! threshold (8 MiB) with one PUT, whose ETag is the plain MD5. A larger
//! file goes in parts of its chunk size (8 MiB), doubled while that would
//! make more than 10,000 parts, then kept within S3's 5 MiB..5 GiB. Input
//! of unknown length (a pipe) goes in 8 MiB parts: the CLI cannot double a
//! size it does not know.
//!
//! S3 takes parts of 5 MiB to 5 GiB (the last may be shorter), at most
//! 10,000 of them. A part size given outside that range, or one too small
//! for a file, makes ETags and checksums S3 never shows; some S3-compatible
//! stores make them (smaller parts), and `linerate etag` computes them with
//! a warning. A caller that must never return such a value sets
//! [`Policy::limits`]: a layout outside them ([`OutsideS3`]) is then the
//! file's error, before any of it is read.

use super::size::human;

/// The AWS CLI's `multipart_threshold`.
pub const AWS_THRESHOLD: u64 = 8 << 20;
/// The AWS CLI's `multipart_chunksize`.
pub const AWS_PART_SIZE: u64 = 8 << 20;
/// The most parts S3 accepts in one upload.
pub const MAX_PARTS: u64 = 10_000;
/// S3's smallest part (except the last).
pub const S3_MIN_PART: u64 = 5 << 20;
/// S3's largest part.
pub const S3_MAX_PART: u64 = 5 << 30;

/// What the command line says about parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// `--single`: every ETag is the plain MD5.
    pub single: bool,
    /// `--part-size`: multipart with exactly this part size.
    pub part_size: Option<u64>,
    /// `--threshold`: files smaller than this are uploaded with one PUT.
    pub threshold: Option<u64>,
    /// Which of S3's limits on parts a layout must keep to.
    pub limits: Limits,
    /// Only files of known size: a FIFO or device (anything but a regular
    /// file, a directory or standard input) is refused as not a regular
    /// file rather than read as a stream of unknown length, whose parts
    /// are a guess at what the uploader chose. A regular file whose size
    /// the kernel makes up (`/proc`, [`crate::read::size_is_made_up`]) is
    /// still read to its end, as a stream.
    pub regular_only: bool,
}

/// Which of S3's limits on an upload's parts a layout must keep to; one
/// that breaks them is refused with the rule it breaks ([`OutsideS3`]),
/// before anything is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Limits {
    /// None: every layout is computed, and the caller tells what S3 would
    /// make of it (`linerate etag` warns).
    #[default]
    Unchecked,
    /// At most [`MAX_PARTS`] parts, of any size: S3-compatible stores that
    /// take parts smaller than S3's stop at 10,000 as well (and so the
    /// memory an upload's parts take stays bounded).
    PartCount,
    /// All of S3's: parts of 5 MiB to 5 GiB (the last may be shorter), at
    /// most 10,000 of them.
    S3,
}

/// Which of S3's rules on an upload's parts a layout breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutsideS3 {
    /// More than [`MAX_PARTS`] parts.
    #[error("{count} parts of {}: S3 takes at most 10,000 parts", human(*.size))]
    TooManyParts { count: u64, size: u64 },
    /// Parts below [`S3_MIN_PART`] that are not the last.
    #[error(
        "parts of {}: S3's parts are 5 MiB to 5 GiB (only the last may be smaller)",
        human(*.size)
    )]
    PartTooSmall { size: u64 },
    /// A part above [`S3_MAX_PART`].
    #[error("parts of {}: S3's parts are 5 MiB to 5 GiB", human(*.size))]
    PartTooLarge { size: u64 },
}

impl OutsideS3 {
    /// The rule `e` broke, if a layout outside the policy's limits is why
    /// the file has no value.
    pub fn of(e: &crate::FileError) -> Option<OutsideS3> {
        e.io_error()
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<OutsideS3>())
            .copied()
    }

    /// The file's error for this: no value was computed.
    pub fn into_error(self) -> crate::FileError {
        crate::FileError::Open(std::io::Error::new(std::io::ErrorKind::InvalidInput, self))
    }
}

/// How one input is uploaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One PUT: the ETag is the plain MD5.
    Plain,
    /// `count` parts of `size` bytes (the last may be shorter or empty).
    Parts { size: u64, count: u64 },
}

impl Layout {
    /// The first of S3's rules on parts that this layout of `len` bytes
    /// breaks, if any (a single PUT breaks none of them).
    pub fn outside_s3(&self, len: u64) -> Option<OutsideS3> {
        let Layout::Parts { size, count } = *self else {
            return None;
        };
        if count > 1 && size < S3_MIN_PART {
            Some(OutsideS3::PartTooSmall { size })
        } else if size.min(len) > S3_MAX_PART {
            // The largest part is the first, `len` bytes at most.
            Some(OutsideS3::PartTooLarge { size })
        } else if count > MAX_PARTS {
            Some(OutsideS3::TooManyParts { count, size })
        } else {
            None
        }
    }

    /// The uploads it takes: the parts (one for a single PUT).
    pub fn segments(&self) -> usize {
        match *self {
            Layout::Plain => 1,
            Layout::Parts { count, .. } => usize::try_from(count).unwrap_or(usize::MAX),
        }
    }
}

impl Policy {
    /// Inputs shorter than this are uploaded with one PUT; `--part-size`
    /// alone means every input is multipart.
    pub fn threshold(&self) -> u64 {
        match (self.threshold, self.part_size) {
            (Some(threshold), _) => threshold,
            (None, Some(_)) => 0,
            (None, None) => AWS_THRESHOLD,
        }
    }

    /// The layout of an input of `len` bytes.
    pub fn layout(&self, len: u64) -> Layout {
        if self.single || len < self.threshold() {
            return Layout::Plain;
        }
        let size = self.part_size.unwrap_or_else(|| aws_part_size(len));
        Layout::Parts {
            size,
            count: part_count(len, size),
        }
    }

    /// The rule of [`limits`](Self::limits) that `layout`, of `len` bytes,
    /// breaks, if any.
    pub fn refuses(&self, layout: Layout, len: u64) -> Option<OutsideS3> {
        match (self.limits, layout) {
            (Limits::Unchecked, _) => None,
            (Limits::S3, _) => layout.outside_s3(len),
            (Limits::PartCount, Layout::Parts { size, count }) if count > MAX_PARTS => {
                Some(OutsideS3::TooManyParts { count, size })
            }
            (Limits::PartCount, _) => None,
        }
    }

    /// The part size for input of unknown length (`None`: `--single`).
    pub fn stream_part_size(&self) -> Option<u64> {
        (!self.single).then(|| self.part_size.unwrap_or(AWS_PART_SIZE))
    }
}

/// The AWS CLI's part size for a file of `len` bytes (s3transfer's
/// `ChunksizeAdjuster`): 8 MiB doubled until at most 10,000 parts, then
/// kept within 5 MiB..5 GiB.
pub fn aws_part_size(len: u64) -> u64 {
    let mut size = AWS_PART_SIZE;
    while len.div_ceil(size) > MAX_PARTS {
        size *= 2;
    }
    size.clamp(S3_MIN_PART, S3_MAX_PART)
}

/// The parts of `size` bytes that make `len` bytes: an empty input is one
/// empty part.
pub fn part_count(len: u64, size: u64) -> u64 {
    len.div_ceil(size).max(1)
}

/// The part sizes that split `len` bytes into exactly `count` parts, as an
/// inclusive range; `None` if there are none.
pub fn sizes_giving(len: u64, count: u64) -> Option<(u64, u64)> {
    match count {
        0 => None,
        // One part: any size that holds the whole input.
        1 => Some((len.max(1), u64::MAX)),
        // ceil(len / p) = count  <=>  (count - 1) p < len <= count p.
        _ => {
            let low = len.div_ceil(count);
            let high = (len.checked_sub(1)?) / (count - 1);
            (low >= 1 && low <= high).then_some((low, high))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn the_aws_rule_around_the_threshold() {
        let aws = Policy::default();
        assert_eq!(aws.layout(0), Layout::Plain);
        assert_eq!(aws.layout(8 * MIB - 1), Layout::Plain);
        assert_eq!(
            aws.layout(8 * MIB),
            Layout::Parts {
                size: 8 * MIB,
                count: 1
            }
        );
        assert_eq!(
            aws.layout(8 * MIB + 1),
            Layout::Parts {
                size: 8 * MIB,
                count: 2
            }
        );
    }

    #[test]
    fn the_aws_rule_doubles_past_ten_thousand_parts() {
        // 10,000 parts of 8 MiB is the most before doubling.
        assert_eq!(aws_part_size(10_000 * 8 * MIB), 8 * MIB);
        assert_eq!(aws_part_size(10_000 * 8 * MIB + 1), 16 * MIB);
        assert_eq!(aws_part_size(10_000 * 16 * MIB + 1), 32 * MIB);
        // 100 GiB: 12,800 parts of 8 MiB, 6,400 of 16 MiB.
        assert_eq!(aws_part_size(100 << 30), 16 * MIB);
        // 1 TiB: 1 TiB / 10,000 = 104.9 MiB, so 128 MiB.
        assert_eq!(aws_part_size(1 << 40), 128 * MIB);
        // 5 TiB, S3's largest object: 1 GiB parts.
        assert_eq!(aws_part_size(5 << 40), 1024 * MIB);
        // Past 48.8 TiB the doubling would exceed 5 GiB; kept at S3's limit.
        assert_eq!(aws_part_size(u64::MAX / 2), S3_MAX_PART);
        for len in [10_000 * 8 * MIB + 1, 100 << 30, 1 << 40, 5 << 40] {
            let size = aws_part_size(len);
            assert!(len.div_ceil(size) <= MAX_PARTS, "{len}");
            assert!(len.div_ceil(size / 2) > MAX_PARTS, "{len}");
        }
    }

    #[test]
    fn part_size_and_threshold_options() {
        let fixed = Policy {
            part_size: Some(MIB),
            ..Policy::default()
        };
        assert_eq!(
            fixed.layout(0),
            Layout::Parts {
                size: MIB,
                count: 1
            }
        );
        assert_eq!(
            fixed.layout(MIB),
            Layout::Parts {
                size: MIB,
                count: 1
            }
        );
        assert_eq!(
            fixed.layout(MIB + 1),
            Layout::Parts {
                size: MIB,
                count: 2
            }
        );
        let both = Policy {
            threshold: Some(3 * MIB),
            ..fixed
        };
        assert_eq!(both.layout(3 * MIB - 1), Layout::Plain);
        assert_eq!(
            both.layout(3 * MIB),
            Layout::Parts {
                size: MIB,
                count: 3
            }
        );
        let threshold = Policy {
            threshold: Some(1),
            ..Policy::default()
        };
        assert_eq!(
            threshold.layout(1),
            Layout::Parts {
                size: 8 * MIB,
                count: 1
            }
        );
        let single = Policy {
            single: true,
            ..both
        };
        assert_eq!(single.layout(1 << 40), Layout::Plain);
        assert_eq!(single.stream_part_size(), None);
        assert_eq!(Policy::default().stream_part_size(), Some(8 * MIB));
        assert_eq!(fixed.stream_part_size(), Some(MIB));
    }

    #[test]
    fn s3s_limits_at_their_edges() {
        let parts = |size, len| {
            Policy {
                part_size: Some(size),
                ..Policy::default()
            }
            .layout(len)
        };
        let outside = |size, len| parts(size, len).outside_s3(len);
        // Parts of 5 MiB exactly, the last one shorter, and one short part.
        assert_eq!(outside(5 * MIB, 5 * MIB + 1), None);
        assert_eq!(outside(MIB, MIB), None);
        assert_eq!(outside(1, 0), None);
        assert_eq!(
            outside(5 * MIB - 1, 5 * MIB),
            Some(OutsideS3::PartTooSmall { size: 5 * MIB - 1 })
        );
        // 5 GiB parts, and a part size above it that cuts no such part.
        assert_eq!(outside(S3_MAX_PART, S3_MAX_PART + 1), None);
        assert_eq!(outside(S3_MAX_PART + 1, S3_MAX_PART), None);
        assert_eq!(
            outside(S3_MAX_PART + 1, S3_MAX_PART + 1),
            Some(OutsideS3::PartTooLarge {
                size: S3_MAX_PART + 1
            })
        );
        // 10,000 parts, and one more.
        assert_eq!(outside(5 * MIB, 10_000 * 5 * MIB), None);
        assert_eq!(
            outside(5 * MIB, 10_000 * 5 * MIB + 1),
            Some(OutsideS3::TooManyParts {
                count: 10_001,
                size: 5 * MIB
            })
        );
        // One PUT breaks none of them; the AWS CLI's rule none up to
        // 48.8 TiB.
        assert_eq!(Layout::Plain.outside_s3(1 << 40), None);
        for len in [0, 8 * MIB, 100 << 30, 5 << 40, 48 << 40] {
            let aws = Policy::default();
            assert_eq!(aws.layout(len).outside_s3(len), None, "{len}");
        }
        // Which rules each limit enforces.
        let small = parts(1, 10_001);
        for (limits, want) in [
            (Limits::Unchecked, None),
            (
                Limits::PartCount,
                Some(OutsideS3::TooManyParts {
                    count: 10_001,
                    size: 1,
                }),
            ),
            (Limits::S3, Some(OutsideS3::PartTooSmall { size: 1 })),
        ] {
            let policy = Policy {
                limits,
                ..Policy::default()
            };
            assert_eq!(policy.refuses(small, 10_001), want, "{limits:?}");
            assert_eq!(
                policy.refuses(parts(1, 10_000), 10_000).is_some(),
                limits == Limits::S3
            );
        }
    }

    #[test]
    fn sizes_giving_a_part_count() {
        assert_eq!(sizes_giving(100, 1), Some((100, u64::MAX)));
        assert_eq!(sizes_giving(0, 1), Some((1, u64::MAX)));
        assert_eq!(sizes_giving(0, 2), None);
        assert_eq!(sizes_giving(100, 0), None);
        assert_eq!(sizes_giving(100, 2), Some((50, 99)));
        assert_eq!(sizes_giving(100, 3), Some((34, 49)));
        assert_eq!(sizes_giving(100, 100), Some((1, 1)));
        assert_eq!(sizes_giving(100, 101), None);
        // Every size in the range gives the count, and its neighbours do not.
        for len in 1..200u64 {
            for count in 2..12u64 {
                if let Some((low, high)) = sizes_giving(len, count) {
                    assert_eq!(len.div_ceil(low), count);
                    assert_eq!(len.div_ceil(high), count);
                    if low > 1 {
                        assert_ne!(len.div_ceil(low - 1), count);
                    }
                    assert_ne!(len.div_ceil(high + 1), count);
                } else {
                    assert!((1..=len).all(|p| len.div_ceil(p) != count));
                }
            }
        }
    }
}
