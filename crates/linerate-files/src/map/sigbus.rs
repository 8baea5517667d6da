//! Surviving a mapped file that shrinks: reading a page of a mapping that
//! lies past the file's new end raises SIGBUS, which kills the process by
//! default. Every mapping the engine reads is registered here while it is
//! in use; our handler, on a fault inside a registered range, maps
//! anonymous zero pages over the rest of that range (`MAP_FIXED`), marks it
//! faulted and returns, so the interrupted load reads zeros and the hash
//! goes on. The reader then sees the mark and reports the file as changed:
//! the zeros never reach a digest that is shown. A fault anywhere else goes
//! to whatever handler was there before ours (Rust's stack-overflow
//! handler, Python's faulthandler, the default action).
//!
//! The handler may run on any thread at any time, so it only reads atomics
//! and makes two async-signal-safe system calls (`mmap`, and `sigaction`
//! with `raise` when it hands the signal on). Registrations live in a fixed
//! table of slots, each guarded by a sequence number (odd while being
//! written), so the handler never reads a half-written range.

use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::SeqCst};

/// Ranges registered at once, at most: every lane of every worker, with
/// room to spare. A mapping that finds no free slot is not made (the file
/// is read instead).
const SLOTS: usize = 4096;

struct Slot {
    /// Claimed by a [`Registration`].
    used: AtomicBool,
    /// Even when `start..end` is consistent; odd while it changes.
    seq: AtomicUsize,
    start: AtomicUsize,
    end: AtomicUsize,
    /// A page of the range was gone: it now reads as zeros.
    faulted: AtomicBool,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            used: AtomicBool::new(false),
            seq: AtomicUsize::new(0),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            faulted: AtomicBool::new(false),
        }
    }

    /// Sets the range (`0..0` for none), between two sequence steps.
    fn set(&self, start: usize, end: usize) {
        self.seq.fetch_add(1, SeqCst);
        self.start.store(start, SeqCst);
        self.end.store(end, SeqCst);
        self.seq.fetch_add(1, SeqCst);
    }

    /// The range, if it was consistent while read.
    fn range(&self) -> Option<(usize, usize)> {
        let before = self.seq.load(SeqCst);
        if before % 2 == 1 {
            return None;
        }
        let range = (self.start.load(SeqCst), self.end.load(SeqCst));
        (self.seq.load(SeqCst) == before).then_some(range)
    }
}

static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

/// Where the search for a free slot starts: just after the last one taken.
static HINT: AtomicUsize = AtomicUsize::new(0);

/// A range of mapped memory that faults are caught in while this lives.
/// Drop it before the mapping is unmapped.
pub(crate) struct Registration {
    slot: &'static Slot,
}

impl Registration {
    /// Registers `len` bytes from `start` (a mapping's address), installing
    /// the handler if ours is not the one in place; `None` if every slot is
    /// taken or the handler cannot be installed.
    pub(crate) fn new(start: *const u8, len: usize) -> Option<Registration> {
        if !install() {
            return None;
        }
        let first = HINT.load(SeqCst);
        let index = (0..SLOTS).map(|i| (first + i) % SLOTS).find(|&i| {
            TABLE[i]
                .used
                .compare_exchange(false, true, SeqCst, SeqCst)
                .is_ok()
        })?;
        HINT.store(index + 1, SeqCst);
        let slot = &TABLE[index];
        slot.faulted.store(false, SeqCst);
        slot.set(start.addr(), start.addr() + len);
        Some(Registration { slot })
    }

    /// Whether a page of the range was gone when read (the file shrank, or
    /// its storage failed): the bytes read there were zeros, not the file's.
    pub(crate) fn faulted(&self) -> bool {
        self.slot.faulted.load(SeqCst)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.slot.set(0, 0);
        self.slot.used.store(false, SeqCst);
    }
}

/// The action that was in place before ours, for faults that are not ours.
/// Leaked on purpose: the handler may read it at any moment.
static PREVIOUS: AtomicPtr<libc::sigaction> = AtomicPtr::new(ptr::null_mut());

/// Serializes installs (the check and the swap).
static INSTALLING: Mutex<()> = Mutex::new(());

/// Makes our handler the process's SIGBUS action, keeping the one in place
/// to hand other faults to. Checked before every mapping, so a handler
/// installed after ours (Python's `faulthandler.enable()`, say) is put
/// behind ours again rather than left to kill the process for a fault we
/// would have survived.
fn install() -> bool {
    let _guard = INSTALLING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // SAFETY: sigaction with a null new action only reads the current one
    // into a zeroed struct of the right type.
    let mut current: libc::sigaction = unsafe { std::mem::zeroed() };
    if unsafe { libc::sigaction(libc::SIGBUS, ptr::null(), &mut current) } != 0 {
        return false;
    }
    if current.sa_sigaction == on_sigbus as *const () as usize {
        return true;
    }
    // SAFETY: a zeroed sigaction is a valid value; sa_mask is then emptied
    // by sigemptyset, as the API requires.
    let mut ours: libc::sigaction = unsafe { std::mem::zeroed() };
    ours.sa_sigaction = on_sigbus as *const () as usize;
    // SA_ONSTACK: run on the thread's alternate stack where it has one (a
    // fault near a stack's end must not fault again in the handler).
    ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
    // SAFETY: sa_mask is a valid sigset_t inside `ours`.
    unsafe { libc::sigemptyset(&mut ours.sa_mask) };
    PREVIOUS.store(Box::into_raw(Box::new(current)), SeqCst);
    // SAFETY: installs a valid action for SIGBUS; the handler only does
    // async-signal-safe work (see the module's comment).
    unsafe { libc::sigaction(libc::SIGBUS, &ours, ptr::null_mut()) == 0 }
}

/// The SIGBUS handler.
extern "C" fn on_sigbus(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let (addr, from_fault) = unsafe { ((*info).si_addr().addr(), (*info).si_code > 0) };
    if from_fault && let Some(slot) = ours(addr) {
        let Some((_, end)) = slot.range() else {
            // SAFETY: as below.
            return unsafe { hand_on(signal, info, context) };
        };
        let page = page_size();
        let from = addr & !(page - 1);
        let to = end.next_multiple_of(page);
        // SAFETY: `from..to` lies within a live registered mapping (a
        // registration is dropped before its mapping is unmapped, and the
        // faulting thread is inside it now), so replacing those pages with
        // anonymous zeros touches nothing else; the mapping's owner unmaps
        // the whole range later as usual.
        let zeros = unsafe {
            libc::mmap(
                from as *mut c_void,
                to - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            slot.faulted.store(true, SeqCst);
            return;
        }
    }
    // SAFETY: forwards the signal as the previous action would have taken
    // it; see `hand_on`.
    unsafe { hand_on(signal, info, context) };
}

/// The slot whose registered range holds `addr`, if any.
fn ours(addr: usize) -> Option<&'static Slot> {
    TABLE.iter().find(|slot| {
        slot.range()
            .is_some_and(|(start, end)| start != 0 && (start..end).contains(&addr))
    })
}

pub(super) fn page_size() -> usize {
    static PAGE: AtomicUsize = AtomicUsize::new(0);
    match PAGE.load(SeqCst) {
        0 => {
            // SAFETY: sysconf is async-signal-safe and has no preconditions.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
                .ok()
                .filter(|p| p.is_power_of_two())
                .unwrap_or(4096);
            PAGE.store(page, SeqCst);
            page
        }
        page => page,
    }
}

/// Hands a SIGBUS that is not ours to the previous action: its handler, or
/// the default (restored, then the signal raised again, so the process
/// dies of it as it would have without us).
///
/// # Safety
/// Only from the signal handler, with the arguments it was given.
unsafe fn hand_on(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    let previous = PREVIOUS.load(SeqCst);
    // SAFETY: PREVIOUS is null or a leaked, never-freed sigaction.
    let action = unsafe { previous.as_ref() }.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
    let flags = unsafe { previous.as_ref() }.map_or(0, |p| p.sa_flags);
    match action {
        libc::SIG_IGN => {}
        libc::SIG_DFL => {
            // SAFETY: sigaction and raise are async-signal-safe; the default
            // action then ends the process (SIGBUS is blocked while this
            // handler runs, so the raised one arrives when it returns).
            unsafe {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, ptr::null_mut());
                libc::raise(signal);
            }
        }
        handler if flags & libc::SA_SIGINFO != 0 => {
            // SAFETY: an SA_SIGINFO action's address is such a function.
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) =
                unsafe { std::mem::transmute(handler) };
            handler(signal, info, context);
        }
        handler => {
            // SAFETY: a plain action's address is such a function.
            let handler: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            handler(signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_taken_and_given_back() {
        let data = [0u8; 64];
        let at = |i: usize| data.as_ptr().addr() + i;
        let a = Registration::new(data.as_ptr(), 32).expect("a slot");
        let b = Registration::new(data[32..].as_ptr(), 32).expect("another");
        assert!(!a.faulted() && !b.faulted());
        assert!(ours(at(40)).is_some_and(|slot| ptr::eq(slot, b.slot)));
        assert!(ours(at(3)).is_some_and(|slot| ptr::eq(slot, a.slot)));
        assert!(ours(at(64)).is_none());
        drop(b);
        assert!(ours(at(40)).is_none());
        drop(a);
        assert!(ours(at(3)).is_none());
    }
}
