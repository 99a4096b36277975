//! Opening files from disk safely: only regular files, never blocking, with
//! size caps. Every reader of transcripts and sidecars goes through here
//! (`jsonl::read_objects`, the meta sidecar reader, sniffing, the query
//! prefilter), so a FIFO named `x.jsonl` or `agent-x.meta.json` does not block
//! a command in `open()`, and a symlink to `/dev/zero` is not read forever.
//!
//! How: `stat` the path (following symlinks) and refuse anything but a
//! regular file; then open it read-only, on unix with `O_NONBLOCK` (the
//! `libc` crate's value for the target, so a FIFO swapped in after the
//! `stat` does not block the `open`), and check the opened file's own
//! metadata again. `O_NONBLOCK` has no effect on reads of regular files.
//! Other targets open without the flag (the `stat` check still applies).

use std::fs::{File, FileType, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// The most bytes read from a `.meta.json` sidecar (1 MiB; real ones are
/// about 100 bytes).
pub const META_CAP: u64 = 1 << 20;

/// The error for a path that is not a regular file. Displays as
/// `not a regular file (<kind>)`, e.g. `not a regular file (FIFO)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a regular file ({kind})")]
pub struct NotRegular {
    /// What it is instead: `FIFO`, `character device`, `block device`,
    /// `socket`, `folder`, or `special file`.
    pub kind: &'static str,
}

/// What a non-regular file type is, in words ([`NotRegular::kind`]).
pub fn kind_of(file_type: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_char_device() {
            return "character device";
        }
        if file_type.is_block_device() {
            return "block device";
        }
        if file_type.is_socket() {
            return "socket";
        }
    }
    if file_type.is_dir() {
        "folder"
    } else if file_type.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// Whether an [`io::Error`] from this module says "not a regular file".
pub fn is_not_regular(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|e| e.is::<NotRegular>())
}

fn not_regular(file_type: &FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        NotRegular {
            kind: kind_of(file_type),
        },
    )
}

/// Opens `path` for reading when it is a regular file (a symlink is
/// followed).
///
/// # Errors
/// The `stat`/`open` error (`NotFound`, `PermissionDenied`, …), or an
/// `InvalidInput` error wrapping [`NotRegular`] for a FIFO, device, socket or
/// folder (checked before opening and again on the opened file).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta.file_type()));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta.file_type()));
    }
    Ok(file)
}

/// Whether `path` names a zstd-compressed transcript (`*.zst`, e.g. a
/// Codex `rollout-….jsonl.zst`, formats.md §2.1).
pub fn is_zst(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// Whether `path`'s name is a JSON Lines transcript's: `*.jsonl`, or
/// `*.jsonl.zst` (compressed Codex rollouts).
pub fn is_jsonl_name(path: &Path) -> bool {
    if path.extension().is_some_and(|e| e == "jsonl") {
        return true;
    }
    is_zst(path)
        && path
            .file_stem()
            .is_some_and(|stem| Path::new(stem).extension().is_some_and(|e| e == "jsonl"))
}

/// The name of `path` without `.jsonl` / `.jsonl.zst` (the session id
/// part of a rollout's name); the file stem for other names.
pub fn transcript_stem(path: &Path) -> Option<&std::ffi::OsStr> {
    let stem = path.file_stem()?;
    if is_zst(path) {
        let inner = Path::new(stem);
        if inner.extension().is_some_and(|e| e == "jsonl") {
            return inner.file_stem();
        }
    }
    Some(stem)
}

/// Opens a regular file for streaming its text: as is, or decompressed
/// on the fly when it is `*.zst` ([`is_zst`]); never read whole into
/// memory. A truncated or corrupt `.zst` gives a read error where the
/// damage starts (the lines before it are read).
///
/// # Errors
/// As [`open_regular`]; for `.zst`, the decoder's set-up error.
pub fn open_decoded(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let file = open_regular(path)?;
    if is_zst(path) {
        return Ok(Box::new(zstd::stream::read::Decoder::new(file)?));
    }
    Ok(Box::new(file))
}

/// Whether the first bytes of a `.zst` file decompress: `Ok` when its
/// first block decodes (or the file is empty), else the decoder's error.
///
/// # Errors
/// As [`open_decoded`], or the first read's error (`Unknown frame
/// descriptor`, an incomplete frame, …).
pub fn check_decodes(path: &Path) -> io::Result<()> {
    let mut reader = open_decoded(path)?;
    let mut byte = [0u8; 1];
    reader.read(&mut byte).map(|_| ())
}

/// Reads a regular file whole, refusing one longer than `cap` bytes.
///
/// # Errors
/// As [`open_regular`]; a read error; or `InvalidData` `larger than <cap>
/// bytes` when the file holds more than `cap` bytes (at most `cap + 1` are
/// read).
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {cap} bytes"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_dev_null_are_not_regular() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = open_regular(dir.path()).expect_err("a folder");
        assert!(is_not_regular(&err));
        assert_eq!(err.to_string(), "not a regular file (folder)");
        #[cfg(unix)]
        {
            let err = open_regular(Path::new("/dev/null")).expect_err("a device");
            assert_eq!(err.to_string(), "not a regular file (character device)");
        }
    }

    #[test]
    fn read_capped_refuses_a_longer_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x");
        std::fs::write(&path, b"12345").expect("write");
        assert_eq!(read_capped(&path, 5).expect("fits"), b"12345");
        let err = read_capped(&path, 4).expect_err("too long");
        assert_eq!(err.to_string(), "larger than 4 bytes");
    }
}
