//! The Linux kernel's own cost of TCP-MD5 (RFC 2385), measured where
//! `linerate packets bench` runs, so that its TCP-MD5 figure stands beside
//! the kernel's: a loopback bulk transfer with and without `TCP_MD5SIG`
//! on both ends, the same program and sizes, the process's CPU time taken
//! for each (both ends and the loopback's softirq work run in it). The
//! difference over the bytes, halved (each byte is signed on send and
//! checked on receive), is the kernel's cost per byte of one TCP-MD5 pass.
//! It includes what signing forces on the stack besides MD5 (no
//! segmentation offload: every segment goes through on its own).
//! `scripts/tcp_md5_kernel_cost.py` measures the same from Python.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::time::Duration;

/// What one measurement found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelCost {
    /// CPU seconds per byte of one TCP-MD5 pass (the median round).
    pub seconds_per_byte: f64,
    /// Rounds measured, each a transfer with and one without TCP-MD5.
    pub rounds: usize,
}

impl KernelCost {
    /// The rate one core would sign at, at that cost alone, in bits/s.
    pub fn bits_per_second(&self) -> f64 {
        8.0 / self.seconds_per_byte
    }
}

/// Payload bytes per segment (a 1500-byte IPv4 packet with timestamps).
const MSS: i32 = 1448;

/// Measures `rounds` pairs of transfers of `bytes` each, alternating; an
/// error (one line) where the kernel will not sign (no `TCP_MD5SIG`) or
/// this is not Linux.
pub fn measure(bytes: usize, rounds: usize) -> Result<KernelCost, String> {
    let mut costs = Vec::with_capacity(rounds);
    for _ in 0..rounds.max(1) {
        let plain = transfer(bytes, false)?;
        let signed = transfer(bytes, true)?;
        costs.push(((signed - plain) / bytes as f64 / 2.0).max(f64::MIN_POSITIVE));
    }
    costs.sort_by(f64::total_cmp);
    Ok(KernelCost {
        seconds_per_byte: costs[costs.len() / 2],
        rounds: costs.len(),
    })
}

/// CPU seconds (user and system) a loopback transfer of `bytes` took.
fn transfer(bytes: usize, signed: bool) -> Result<f64, String> {
    let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| format!("loopback bind: {e}"))?;
    transfer_through(listener, bytes, signed)
}

/// Connections from other processes the receiver drops before it finds
/// ours: any local user can connect to a loopback port.
const STRANGERS_DROPPED: usize = 64;

/// No read or write waits longer than this: a transfer that stalls is an
/// error, never a hang.
const STALL: Duration = Duration::from_secs(30);

/// The transfer through `listener`. The client connects first (the
/// kernel completes the handshake into the backlog) and the receiver then
/// accepts until it finds that connection: whoever else connected to the
/// port (another local user can) is dropped unread, and cannot take our
/// place or keep the lab waiting.
fn transfer_through(listener: TcpListener, bytes: usize, signed: bool) -> Result<f64, String> {
    let io = |what: &str, e: std::io::Error| format!("loopback {what}: {e}");
    let port = listener.local_addr().map_err(|e| io("bind", e))?.port();
    if signed {
        sys::md5sig(&listener, Ipv4Addr::LOCALHOST)?;
    }
    sys::maxseg(&listener)?;
    let mut client = sys::connect(port, signed)?;
    client
        .set_write_timeout(Some(STALL))
        .map_err(|e| io("connect", e))?;
    let ours = client.local_addr().map_err(|e| io("connect", e))?;
    let sink = std::thread::spawn(move || -> std::io::Result<usize> {
        let mut conn = None;
        for _ in 0..=STRANGERS_DROPPED {
            let (c, peer) = listener.accept()?;
            if peer == ours {
                conn = Some(c);
                break;
            }
        }
        let mut conn = conn.ok_or_else(|| {
            std::io::Error::other("too many other connections to the loopback port")
        })?;
        conn.set_read_timeout(Some(STALL))?;
        let mut buf = vec![0u8; 1 << 20];
        let mut got = 0;
        loop {
            match conn.read(&mut buf)? {
                0 => return Ok(got),
                n => got += n,
            }
        }
    });
    let block = vec![0u8; 1 << 20];
    let start = sys::cpu_seconds()?;
    let mut sent = 0;
    while sent < bytes {
        client.write_all(&block).map_err(|e| io("write", e))?;
        sent += block.len();
    }
    client
        .shutdown(std::net::Shutdown::Write)
        .map_err(|e| io("shutdown", e))?;
    let got = sink
        .join()
        .map_err(|_| "loopback receiver panicked".to_string())?
        .map_err(|e| io("read", e))?;
    let spent = sys::cpu_seconds()? - start;
    if got != sent {
        return Err(format!(
            "loopback transfer lost data ({got} of {sent} bytes)"
        ));
    }
    Ok(spent)
}

#[cfg(target_os = "linux")]
mod sys {
    //! The two calls std has no wrapper for: `setsockopt` with Linux's
    //! `struct tcp_md5sig` and `TCP_MAXSEG`, and `getrusage`.
    #![allow(unsafe_code)]

    use super::MSS;
    use std::net::{Ipv4Addr, TcpStream};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    /// `struct tcp_md5sig` (include/uapi/linux/tcp.h).
    #[repr(C)]
    struct TcpMd5Sig {
        addr: libc::sockaddr_storage,
        flags: u8,
        prefixlen: u8,
        keylen: u16,
        ifindex: i32,
        key: [u8; 80],
    }

    const KEY: &[u8] = b"linerate bench key";

    fn setsockopt<T>(fd: i32, level: i32, name: i32, value: &T, what: &str) -> Result<(), String> {
        // SAFETY: `value` points to a live `T` of `size_of::<T>()` bytes
        // for the call; `fd` is an open socket the caller owns.
        let r = unsafe {
            libc::setsockopt(
                fd,
                level,
                name,
                std::ptr::from_ref(value).cast(),
                std::mem::size_of::<T>() as libc::socklen_t,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(format!(
                "setsockopt {what}: {}",
                std::io::Error::last_os_error()
            ))
        }
    }

    /// Has the kernel sign and check the socket's segments to and from
    /// `peer` with the bench's key.
    pub fn md5sig(socket: &impl AsRawFd, peer: Ipv4Addr) -> Result<(), String> {
        // SAFETY: all-zero bytes are a valid `sockaddr_storage`.
        let mut sig = TcpMd5Sig {
            addr: unsafe { std::mem::zeroed() },
            flags: 0,
            prefixlen: 0,
            keylen: KEY.len() as u16,
            ifindex: 0,
            key: [0; 80],
        };
        sig.key[..KEY.len()].copy_from_slice(KEY);
        let sin = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: 0,
            sin_addr: libc::in_addr {
                s_addr: u32::from(peer).to_be(),
            },
            sin_zero: [0; 8],
        };
        // SAFETY: a `sockaddr_in` fits in a `sockaddr_storage`, which is
        // at least as aligned; both are plain data.
        unsafe {
            std::ptr::write(
                std::ptr::from_mut(&mut sig.addr).cast::<libc::sockaddr_in>(),
                sin,
            );
        }
        setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_MD5SIG,
            &sig,
            "TCP_MD5SIG",
        )
    }

    /// Segments of `MSS` payload bytes (1500-byte packets), as on a link.
    pub fn maxseg(socket: &impl AsRawFd) -> Result<(), String> {
        setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            &MSS,
            "TCP_MAXSEG",
        )
    }

    /// A client socket to the loopback `port`, signed if `signed`, with
    /// the segment size set before it connects.
    pub fn connect(port: u16, signed: bool) -> Result<TcpStream, String> {
        // SAFETY: a plain socket(2) call; the descriptor is owned below.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(format!("socket: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: `fd` was just opened and nothing else owns it.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        if signed {
            md5sig(&owned, Ipv4Addr::LOCALHOST)?;
        }
        maxseg(&owned)?;
        let addr = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(Ipv4Addr::LOCALHOST).to_be(),
            },
            sin_zero: [0; 8],
        };
        // SAFETY: `addr` is a valid `sockaddr_in` of the length given.
        let r = unsafe {
            libc::connect(
                owned.as_raw_fd(),
                std::ptr::from_ref(&addr).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        };
        if r != 0 {
            return Err(format!("connect: {}", std::io::Error::last_os_error()));
        }
        Ok(TcpStream::from(owned))
    }

    /// The process's CPU time so far, user and system, in seconds.
    pub fn cpu_seconds() -> Result<f64, String> {
        // SAFETY: all-zero bytes are a valid `rusage`, which getrusage
        // fills.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is a live, writable `rusage`.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
            return Err(format!("getrusage: {}", std::io::Error::last_os_error()));
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Ok(secs(usage.ru_utime) + secs(usage.ru_stime))
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use std::net::{Ipv4Addr, TcpStream};
    const NOT: &str = "TCP_MD5SIG is Linux's";
    pub fn md5sig(_: &impl std::os::fd::AsRawFd, _: Ipv4Addr) -> Result<(), String> {
        Err(NOT.into())
    }
    pub fn maxseg(_: &impl std::os::fd::AsRawFd) -> Result<(), String> {
        Err(NOT.into())
    }
    pub fn connect(_: u16, _: bool) -> Result<TcpStream, String> {
        Err(NOT.into())
    }
    pub fn cpu_seconds() -> Result<f64, String> {
        Err(NOT.into())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::net::TcpStream;
    use std::sync::mpsc;

    /// A local process that connects to the port first and then neither
    /// sends nor closes: the old receiver accepted it and waited on it
    /// for ever. The transfer must still be ours, whole, and finish.
    #[test]
    fn a_stranger_on_the_port_neither_takes_our_place_nor_stalls_the_transfer() {
        let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stranger = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (done, result) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(transfer_through(listener, 4 << 20, false));
        });
        let outcome = result
            .recv_timeout(Duration::from_secs(20))
            .expect("the transfer waited on the stranger's connection");
        assert!(outcome.is_ok(), "{outcome:?}");
        drop(stranger);
    }
}
