//! Choosing an implementation: one mechanism for every family of backends
//! (single-stream MD5, the lanes engine, UMAC's NH, SHA-1's lanes).
//!
//! Each family is an enum implementing [`Backend`]: its names, what this CPU
//! runs, and the environment variable that forces one for the whole process
//! (`LINERATE_MD5_BACKEND`, `LINERATE_LANES_BACKEND`, `LINERATE_NH_BACKEND`,
//! `LINERATE_SHA1_LANES_BACKEND`).
//! The rules are the same for all of them: unset means the fastest one this
//! CPU runs; a name that is unknown, or that this CPU cannot run, is a
//! [`BackendError`] naming the valid ones. Front ends call [`check_env`]
//! once at start-up and refuse to run on an error; the library itself never
//! fails on it (the family's `active()` then falls back to the fastest).

use std::fmt;

/// A family of interchangeable implementations of one algorithm.
pub trait Backend: Copy + Eq + fmt::Debug + 'static {
    /// The environment variable that forces one for the whole process.
    const ENV: &'static str;
    /// What the family implements, for messages: `MD5`, `lanes`, `NH`.
    const FAMILY: &'static str;
    /// Every backend of the family, fastest first.
    const ALL: &'static [Self];

    /// The name used in the environment variable and in reports.
    fn name(self) -> &'static str;

    /// Whether this CPU (and this build) can run it.
    fn is_supported(self) -> bool;

    /// The backend called `name`, if it exists and this CPU runs it.
    fn from_name(name: &str) -> Result<Self, BackendError> {
        match Self::ALL.iter().copied().find(|b| b.name() == name) {
            Some(b) if b.is_supported() => Ok(b),
            Some(_) => Err(BackendError::new::<Self>(name, Problem::Unsupported)),
            None => Err(BackendError::new::<Self>(name, Problem::Unknown)),
        }
    }

    /// The backends this CPU runs, fastest first.
    fn supported() -> impl Iterator<Item = Self> {
        Self::ALL.iter().copied().filter(|b| b.is_supported())
    }

    /// The fastest backend this CPU runs, ignoring the environment.
    fn best() -> Self {
        Self::supported()
            .next()
            .expect("every family has a portable backend")
    }

    /// The backend the environment variable forces: `Ok(None)` when unset.
    fn from_env() -> Result<Option<Self>, BackendError> {
        match std::env::var_os(Self::ENV) {
            None => Ok(None),
            Some(value) => Self::from_name(&value.to_string_lossy()).map(Some),
        }
    }

    /// The forced backend if the environment names a usable one, else the
    /// fastest. Each family caches this once per process (its `active()`).
    fn resolve() -> Self {
        Self::from_env().ok().flatten().unwrap_or_else(Self::best)
    }
}

/// Why a backend name cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendError {
    /// The environment variable of the family.
    pub env: &'static str,
    /// The family, as in [`Backend::FAMILY`].
    pub family: &'static str,
    /// The name that was given.
    pub value: String,
    /// Every name of the family.
    pub valid: Vec<&'static str>,
    pub problem: Problem,
}

/// What is wrong with a backend name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// It names no backend of the family.
    Unknown,
    /// The backend exists but this CPU lacks its instructions.
    Unsupported,
}

impl BackendError {
    /// `backend` cannot run on this CPU.
    pub(crate) fn unsupported<B: Backend>(backend: B) -> BackendError {
        BackendError::new::<B>(backend.name(), Problem::Unsupported)
    }

    fn new<B: Backend>(value: &str, problem: Problem) -> BackendError {
        BackendError {
            env: B::ENV,
            family: B::FAMILY,
            value: value.to_string(),
            valid: B::ALL.iter().map(|b| b.name()).collect(),
            problem,
        }
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let BackendError {
            env, family, value, ..
        } = self;
        match self.problem {
            Problem::Unknown => write!(
                f,
                "{env}={value:?} names no {family} backend (one of: {})",
                self.valid.join(", ")
            ),
            Problem::Unsupported => {
                write!(
                    f,
                    "{env}={value:?}: this CPU cannot run that {family} backend"
                )
            }
        }
    }
}

impl std::error::Error for BackendError {}

/// Checks every family's environment variable: the first one set to a name
/// that is unknown or unsupported here. Front ends call this at start-up.
pub fn check_env() -> Result<(), BackendError> {
    crate::md5::Md5Backend::from_env()?;
    crate::lanes::LanesBackend::from_env()?;
    crate::mac::umac::NhBackend::from_env()?;
    crate::sha1_lanes::Sha1LanesBackend::from_env()?;
    Ok(())
}

/// Implements [`fmt::Display`] (the name) and an `active()` cached once per
/// process for a family.
macro_rules! backend_family {
    ($family:ty) => {
        impl ::std::fmt::Display for $family {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::backend::Backend::name(*self))
            }
        }

        // Inherent forwards, so that callers need not import the trait.
        impl $family {
            /// Every backend of the family, fastest first.
            pub const ALL: &'static [$family] = <$family as $crate::backend::Backend>::ALL;

            /// The name used in the environment variable and in reports.
            pub fn name(self) -> &'static str {
                <$family as $crate::backend::Backend>::name(self)
            }

            /// Whether this CPU (and this build) can run it.
            pub fn is_supported(self) -> bool {
                <$family as $crate::backend::Backend>::is_supported(self)
            }

            /// The backends this CPU runs, fastest first.
            pub fn supported() -> impl Iterator<Item = $family> {
                <$family as $crate::backend::Backend>::supported()
            }

            /// The fastest backend this CPU runs, ignoring the environment.
            pub fn best() -> $family {
                <$family as $crate::backend::Backend>::best()
            }

            /// The backend called `name`, if it exists and this CPU runs it.
            pub fn from_name(name: &str) -> Result<$family, $crate::backend::BackendError> {
                <$family as $crate::backend::Backend>::from_name(name)
            }

            /// The backend the environment variable forces: `Ok(None)` when
            /// unset.
            pub fn from_env() -> Result<Option<$family>, $crate::backend::BackendError> {
                <$family as $crate::backend::Backend>::from_env()
            }

            /// The backend used by default: the one the environment variable
            /// forces if usable here, else the fastest. Decided once per
            /// process.
            pub fn active() -> $family {
                static ACTIVE: ::std::sync::OnceLock<$family> = ::std::sync::OnceLock::new();
                *ACTIVE.get_or_init(<$family as $crate::backend::Backend>::resolve)
            }
        }
    };
}
pub(crate) use backend_family;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::LanesBackend;
    use crate::mac::umac::NhBackend;
    use crate::md5::Md5Backend;

    fn names<B: Backend>() {
        for &b in B::ALL {
            match B::from_name(b.name()) {
                Ok(found) => assert_eq!(found, b),
                Err(e) => {
                    assert!(!b.is_supported());
                    assert_eq!(e.problem, Problem::Unsupported);
                    assert!(e.to_string().contains("this CPU cannot run"), "{e}");
                }
            }
        }
        let e = B::from_name("sse9").unwrap_err();
        assert_eq!(e.problem, Problem::Unknown);
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("{}=\"sse9\" names no ", B::ENV)),
            "{text}"
        );
        for &b in B::ALL {
            assert!(text.contains(b.name()), "{text}");
        }
        assert!(B::best().is_supported());
        assert_eq!(B::supported().next(), Some(B::best()));
    }

    #[test]
    fn every_family_follows_the_same_rules() {
        names::<Md5Backend>();
        names::<LanesBackend>();
        names::<NhBackend>();
        assert_eq!(Md5Backend::ENV, "LINERATE_MD5_BACKEND");
        assert_eq!(LanesBackend::ENV, "LINERATE_LANES_BACKEND");
        assert_eq!(NhBackend::ENV, "LINERATE_NH_BACKEND");
        assert_eq!(Md5Backend::Portable.to_string(), "portable");
    }
}
