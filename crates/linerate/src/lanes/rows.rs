//! Where [`md5_rows`](super::many::md5_rows) finds its messages: a slice of
//! slices, or the columnar layouts data frames keep strings in, read in
//! place. Arrow's `binary`/`string` (32-bit offsets) and their `large_`
//! forms (64-bit offsets) are one values buffer and `n + 1` offsets;
//! `binary_view`/`string_view` (Polars' strings) are 16-byte views that hold
//! a row of up to 12 bytes inline or point into one of several buffers.
//!
//! The layouts are checked once when made, so reading a row is a slice of
//! memory already known to be in bounds. Reading a row never panics all the
//! same: a row out of bounds (an index past the end, or a layout that a
//! caller's unsafe code let change since it was checked) reads as empty.
//! The hashing loops read a row more than once, and take every read of it
//! to be the same bytes: a caller whose memory other threads may write
//! (Python buffers with the GIL released) checks a private copy of the
//! offsets or views, not the shared ones.

use std::fmt;

/// Rows of bytes, read by index.
pub trait Rows: Sync {
    /// How many rows.
    fn count(&self) -> usize;
    /// Row `i` (`i < count()`; past the end, empty).
    fn row(&self, i: usize) -> &[u8];
    /// The bytes of all rows, if they lie back to back in order in one
    /// buffer (row `i + 1` starts where row `i` ends, as in Arrow's offset
    /// layouts): a batch copy is then one copy. `None` if not known.
    fn contiguous(&self) -> Option<&[u8]> {
        None
    }
}

impl Rows for [&[u8]] {
    fn count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn row(&self, i: usize) -> &[u8] {
        self.get(i).copied().unwrap_or_default()
    }
}

/// Why a columnar layout cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowsError {
    /// No offsets at all: `n` rows need `n + 1`.
    NoOffsets,
    /// An offset below zero.
    Negative { index: usize },
    /// `offsets[index + 1] < offsets[index]`.
    Decreasing { index: usize },
    /// An offset (or a view's end) past the end of its buffer.
    PastEnd { index: usize, end: u64, len: usize },
    /// A view names a buffer that is not there.
    NoBuffer {
        index: usize,
        buffer: u32,
        buffers: usize,
    },
}

impl fmt::Display for RowsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RowsError::NoOffsets => write!(f, "offsets are empty: n rows need n + 1 offsets"),
            RowsError::Negative { index } => write!(f, "offset {index} is negative"),
            RowsError::Decreasing { index } => {
                write!(f, "offset {} is less than offset {index}", index + 1)
            }
            RowsError::PastEnd { index, end, len } => {
                write!(
                    f,
                    "row {index} ends at {end}, past the end of its {len}-byte buffer"
                )
            }
            RowsError::NoBuffer {
                index,
                buffer,
                buffers,
            } => {
                write!(f, "row {index} points into buffer {buffer} of {buffers}")
            }
        }
    }
}

impl std::error::Error for RowsError {}

/// An offset type of a columnar layout.
pub trait Offset: Copy + Sync {
    /// The offset as an index; `None` if negative (or too large).
    fn index(self) -> Option<usize>;
}

macro_rules! offset {
    ($($t:ty),*) => {$(
        impl Offset for $t {
            #[inline]
            fn index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
        }
    )*};
}
offset!(i32, i64, u32, u64);

/// Row `i` is `values[offsets[i]..offsets[i + 1]]` (Arrow's binary layout).
#[derive(Clone, Copy, Debug)]
pub struct OffsetRows<'a, O> {
    values: &'a [u8],
    offsets: &'a [O],
}

impl<'a, O: Offset> OffsetRows<'a, O> {
    /// Checks that the offsets are non-negative, never decrease and end
    /// within `values`.
    pub fn new(values: &'a [u8], offsets: &'a [O]) -> Result<Self, RowsError> {
        let Some(first) = offsets.first() else {
            return Err(RowsError::NoOffsets);
        };
        let mut prev = first.index().ok_or(RowsError::Negative { index: 0 })?;
        for (i, o) in offsets.iter().enumerate().skip(1) {
            let o = o.index().ok_or(RowsError::Negative { index: i })?;
            if o < prev {
                return Err(RowsError::Decreasing { index: i - 1 });
            }
            prev = o;
        }
        if prev > values.len() {
            return Err(RowsError::PastEnd {
                index: offsets.len().saturating_sub(2),
                end: prev as u64,
                len: values.len(),
            });
        }
        Ok(OffsetRows { values, offsets })
    }
}

impl<O: Offset> Rows for OffsetRows<'_, O> {
    fn count(&self) -> usize {
        self.offsets.len() - 1
    }
    #[inline]
    fn row(&self, i: usize) -> &[u8] {
        // Checked in `new`, so every lookup succeeds; each is a compare the
        // panicking index had too, and a failed one reads as empty.
        let (Some(start), Some(end)) = (self.offsets.get(i), self.offsets.get(i.wrapping_add(1)))
        else {
            return &[];
        };
        let (Some(start), Some(end)) = (start.index(), end.index()) else {
            return &[];
        };
        self.values.get(start..end).unwrap_or_default()
    }
    fn contiguous(&self) -> Option<&[u8]> {
        // Checked in `new`: in bounds and never decreasing.
        let start = self.offsets.first()?.index()?;
        let end = self.offsets.last()?.index()?;
        self.values.get(start..end)
    }
}

/// Arrow's view layout: view `i` is 16 bytes, its first 4 the row's length
/// (little-endian). A row of up to 12 bytes lies in the view's last 12;
/// a longer one is at `buffers[index][offset..offset + length]`, with the
/// index and offset in the view's last 8 bytes (after a 4-byte prefix).
#[derive(Clone, Copy, Debug)]
pub struct ViewRows<'a> {
    views: &'a [[u8; 16]],
    buffers: &'a [&'a [u8]],
    validity: Option<Validity<'a>>,
}

/// Which rows are null: Arrow's validity bitmap, bit `offset + i` (least
/// significant bit first) for row `i`, 0 for null. A null row's slot may
/// hold anything (Arrow's validation does not read it): it is not checked,
/// and it reads as empty.
#[derive(Clone, Copy, Debug)]
pub struct Validity<'a> {
    bits: &'a [u8],
    offset: usize,
}

impl<'a> Validity<'a> {
    /// The bitmap `bits`, row 0 at bit `offset`. Rows past its end are null.
    pub fn new(bits: &'a [u8], offset: usize) -> Self {
        Validity { bits, offset }
    }

    /// Whether row `i` is valid (not null).
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        let bit = self.offset.wrapping_add(i);
        self.bits
            .get(bit / 8)
            .is_some_and(|byte| byte >> (bit % 8) & 1 == 1)
    }
}

/// Rows of at most this many bytes are inline in their view.
const INLINE: usize = 12;

fn view_word(view: &[u8; 16], at: usize) -> u32 {
    u32::from_le_bytes([view[at], view[at + 1], view[at + 2], view[at + 3]])
}

impl<'a> ViewRows<'a> {
    /// Checks that every view's row lies within its buffer.
    pub fn new(views: &'a [[u8; 16]], buffers: &'a [&'a [u8]]) -> Result<Self, RowsError> {
        Self::with_validity(views, buffers, None)
    }

    /// As [`new`](Self::new), for an array with nulls: the views of null
    /// rows are not checked, and those rows read as empty (their digests
    /// are masked by the same validity).
    pub fn with_validity(
        views: &'a [[u8; 16]],
        buffers: &'a [&'a [u8]],
        validity: Option<Validity<'a>>,
    ) -> Result<Self, RowsError> {
        for (i, view) in views.iter().enumerate() {
            if validity.is_some_and(|v| !v.is_valid(i)) {
                continue;
            }
            let len = view_word(view, 0) as usize;
            if len <= INLINE {
                continue;
            }
            let buffer = view_word(view, 8);
            let Some(data) = buffers.get(buffer as usize) else {
                return Err(RowsError::NoBuffer {
                    index: i,
                    buffer,
                    buffers: buffers.len(),
                });
            };
            let end = u64::from(view_word(view, 12)) + len as u64;
            if end > data.len() as u64 {
                return Err(RowsError::PastEnd {
                    index: i,
                    end,
                    len: data.len(),
                });
            }
        }
        Ok(ViewRows {
            views,
            buffers,
            validity,
        })
    }
}

impl Rows for ViewRows<'_> {
    fn count(&self) -> usize {
        self.views.len()
    }
    #[inline]
    fn row(&self, i: usize) -> &[u8] {
        let Some(view) = self.views.get(i) else {
            return &[];
        };
        if self.validity.is_some_and(|v| !v.is_valid(i)) {
            return &[];
        }
        let len = view_word(view, 0) as usize;
        if len <= INLINE {
            return &view[4..4 + len];
        }
        // Checked in `new` for every valid row; a failed lookup reads as
        // empty instead of panicking.
        let start = view_word(view, 12) as usize;
        self.buffers
            .get(view_word(view, 8) as usize)
            .and_then(|data| data.get(start..start.checked_add(len)?))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_checked() {
        let v = b"abcdef";
        assert_eq!(
            OffsetRows::<i32>::new(v, &[]).unwrap_err(),
            RowsError::NoOffsets
        );
        assert_eq!(
            OffsetRows::new(v, &[0i64, -1]).unwrap_err(),
            RowsError::Negative { index: 1 }
        );
        assert_eq!(
            OffsetRows::new(v, &[0u32, 4, 2]).unwrap_err(),
            RowsError::Decreasing { index: 1 }
        );
        assert!(matches!(
            OffsetRows::new(v, &[0u64, 7]).unwrap_err(),
            RowsError::PastEnd { end: 7, len: 6, .. }
        ));
        let rows = OffsetRows::new(v, &[1i32, 1, 4, 6]).unwrap();
        assert_eq!(rows.count(), 3);
        assert_eq!(
            [rows.row(0), rows.row(1), rows.row(2)],
            [&b""[..], b"bcd", b"ef"]
        );
    }

    fn view(len: u32, data: &[u8], buffer: u32, offset: u32) -> [u8; 16] {
        let mut v = [0u8; 16];
        v[..4].copy_from_slice(&len.to_le_bytes());
        if len as usize <= INLINE {
            v[4..4 + data.len()].copy_from_slice(data);
        } else {
            v[4..8].copy_from_slice(&data[..4]);
            v[8..12].copy_from_slice(&buffer.to_le_bytes());
            v[12..].copy_from_slice(&offset.to_le_bytes());
        }
        v
    }

    #[test]
    fn views_inline_and_in_buffers() {
        let b0 = b"0123456789abcdefXYZ".as_slice();
        let b1 = b"--the quick brown fox".as_slice();
        let views = [
            view(0, b"", 0, 0),
            view(12, b"hello world!", 0, 0),
            view(13, b"3456789abcdef", 0, 3),
            view(19, b"the quick brown fox", 1, 2),
        ];
        let buffers = [b0, b1];
        let rows = ViewRows::new(&views, &buffers).unwrap();
        let got: Vec<&[u8]> = (0..rows.count()).map(|i| rows.row(i)).collect();
        assert_eq!(
            got,
            [
                &b""[..],
                b"hello world!",
                b"3456789abcdef",
                b"the quick brown fox"
            ]
        );
        let bad = [view(13, b"3456789abcdef", 2, 0)];
        assert!(matches!(
            ViewRows::new(&bad, &buffers),
            Err(RowsError::NoBuffer { buffer: 2, .. })
        ));
        let bad = [view(13, b"3456789abcdef", 0, 7)];
        assert!(matches!(
            ViewRows::new(&bad, &buffers),
            Err(RowsError::PastEnd { end: 20, .. })
        ));
    }

    #[test]
    fn null_views_are_not_checked_and_read_as_empty() {
        let b0 = b"0123456789abcdefXYZ".as_slice();
        let buffers = [b0];
        let views = [
            view(13, b"0123456789abc", 0, 0),
            view(100, b"garbage", 99, 0),     // null: a buffer not there
            view(u32::MAX, b"garbage", 0, 7), // null: far past the end
            view(5, b"inlin", 0, 0),          // null, inline
            view(13, b"3456789abcdef", 0, 3),
        ];
        // rows 0 and 4 valid; the bitmap starts at bit 3 (a sliced array)
        let bits = [0b1000_1000u8, 0b0000_0000];
        let validity = Validity::new(&bits, 3);
        assert!(matches!(
            ViewRows::new(&views, &buffers),
            Err(RowsError::NoBuffer { index: 1, .. })
        ));
        let rows = ViewRows::with_validity(&views, &buffers, Some(validity)).unwrap();
        let got: Vec<&[u8]> = (0..rows.count()).map(|i| rows.row(i)).collect();
        assert_eq!(
            got,
            [&b"0123456789abc"[..], b"", b"", b"", b"3456789abcdef"]
        );
        // a valid row is still checked
        let short = [0b0000_0011u8];
        assert!(matches!(
            ViewRows::with_validity(&views, &buffers, Some(Validity::new(&short, 0))),
            Err(RowsError::NoBuffer {
                index: 1,
                buffer: 99,
                ..
            })
        ));
        // bits past the bitmap's end are null
        assert!(!Validity::new(&short, 0).is_valid(8));
    }

    #[test]
    fn rows_read_past_their_checks_are_empty_not_a_panic() {
        // Layouts that were never checked (as if memory changed after
        // `new`): every row reads as some slice of what was given, or empty.
        let values = b"abcdef".as_slice();
        let offsets = [0i64, 4, 2, -1, 100, 6];
        let rows = OffsetRows {
            values,
            offsets: &offsets,
        };
        let got: Vec<&[u8]> = (0..rows.count() + 3).map(|i| rows.row(i)).collect();
        assert_eq!(got, [&b"abcd"[..], b"", b"", b"", b"", b"", b"", b""]);
        assert_eq!(rows.contiguous(), Some(&b"abcdef"[..]));
        let backwards = [5i32, 1];
        let rows = OffsetRows {
            values,
            offsets: &backwards,
        };
        assert_eq!((rows.row(0), rows.contiguous()), (&b""[..], None));

        let b0 = b"0123456789abcdefXYZ".as_slice();
        let buffers = [b0];
        let views = [
            view(13, b"0123456789abc", 0, 0),
            view(100, b"garbage", 99, 0),
            view(13, b"garbage", 0, 7),
            view(u32::MAX, b"garbage", 0, u32::MAX),
        ];
        let rows = ViewRows {
            views: &views,
            buffers: &buffers,
            validity: None,
        };
        let got: Vec<&[u8]> = (0..rows.count() + 1).map(|i| rows.row(i)).collect();
        assert_eq!(got, [&b"0123456789abc"[..], b"", b"", b"", b""]);
        let slices: &[&[u8]] = &[b"x", b"yz"];
        assert_eq!((slices.row(1), slices.row(2)), (&b"yz"[..], &b""[..]));
    }
}
