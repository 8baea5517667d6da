//! The K chaining values, stored where the lanes engine works on them.
//!
//! Chains are cut into groups of `width` consecutive chains (the backend's
//! [`Lanes::width`](crate::lanes::Lanes::width), at most
//! [`MAX_LANES`]), each group in its own [`LaneState`], chain `g * width + i`
//! in lane `i` of group `g`. A group is what one lanes call advances. It must
//! own its `LaneState` and start at lane 0: a call runs lanes
//! `0..active` and leaves the lanes past `active` unspecified, so two groups
//! cannot share a state.

use crate::lanes::{LaneState, MAX_LANES};
use core::ops::Range;

/// Which chains each group holds: K and the group width.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    k: usize,
    width: usize,
}

impl Layout {
    /// The chains of group `g`, as a range of chain indices.
    pub(super) fn group_chains(self, g: usize) -> Range<usize> {
        g * self.width..((g + 1) * self.width).min(self.k)
    }
}

#[derive(Clone, Debug)]
pub(super) struct Chains {
    layout: Layout,
    groups: Vec<LaneState>,
}

impl Chains {
    /// `k` chains at MD5's initial value, grouped by `width` (clamped to
    /// `1..=MAX_LANES`).
    pub(super) fn new(k: usize, width: usize) -> Chains {
        let width = width.clamp(1, MAX_LANES);
        Chains {
            layout: Layout { k, width },
            groups: vec![LaneState::new(); k.div_ceil(width)],
        }
    }

    pub(super) fn k(&self) -> usize {
        self.layout.k
    }

    /// Chains per group (the last group may hold fewer).
    pub(super) fn width(&self) -> usize {
        self.layout.width
    }

    pub(super) fn layout(&self) -> Layout {
        self.layout
    }

    /// Every chain back at MD5's initial value.
    pub(super) fn reset(&mut self) {
        self.groups.fill(LaneState::new());
    }

    /// Chain `j`'s chaining value.
    pub(super) fn get(&self, j: usize) -> [u32; 4] {
        assert!(j < self.k(), "chain {j} of {}", self.k());
        self.groups[j / self.width()].get(j % self.width())
    }

    /// Every group's state; group `g` holds
    /// [`layout().group_chains(g)`](Layout::group_chains) in lanes `0..`.
    pub(super) fn groups_mut(&mut self) -> &mut [LaneState] {
        &mut self.groups
    }
}
