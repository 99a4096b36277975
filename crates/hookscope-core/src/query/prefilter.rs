//! Raw-byte prefilter: decide, with as little JSON parsing as possible, which
//! sessions can hold a matching call and how new their newest match can be.
//!
//! [`Prefilter::verdict`] reads a session's files (main transcript and
//! subagent files) once and returns a [`Verdict`]:
//! - [`Verdict::Skip`]: no call of the session can pass the filters;
//! - [`Verdict::Newest`]`(t)`: every call that can pass has its own timestamp
//!   and none is newer than `t` (lets `find` load sessions newest first and
//!   stop once `limit` records are known to beat every session left);
//! - [`Verdict::Load`]: no usable bound; the session must be loaded.
//!
//! # Needles
//! The needles are the tool name (exact or pattern), `input_contains` and
//! `output_contains`, already folded (Unicode lowercase). A needle is only
//! used when it is "plain": printable ASCII without `"`, `\`, `<`, `>`, `&`
//! (characters some JSON writers escape; Claude Code's writer escapes only
//! `"`, `\` and control characters). Others (non-ASCII, quotes, newlines…)
//! may be stored escaped, so they are not used. `output_excludes` and
//! `is_error` never skip anything.
//!
//! `input_contains` is matched on the input's *compact* re-serialization,
//! while a file may hold `{"a": 1, "b": [1, 2]}` (JSON writers other than
//! Claude Code's put spaces after `:` and `,`). So the input and output
//! needles are cut at the JSON structural characters `{ } [ ] : ,` into
//! pieces, and each non-empty piece is looked for on its own. A piece has no
//! `"` and no structural character, so in the compact text it lies inside one
//! string or one number/literal, which the raw file spells the same way.
//!
//! # Line level
//! A call's `tool_use` block (its name and its input) is on one line, and
//! its `tool_result` is in the same file (main transcript, inline sidechain,
//! or the subagent's own file). Files are read in chunks of about 256 KiB
//! cut after a newline (into one reused buffer), and:
//! - a *candidate* line holds the JSON strings `"tool_use"` (a block's
//!   `type`) and `"assistant"` (the line's `type`), byte for byte as the
//!   loader compares them, and then, ASCII case-insensitively (the line is
//!   lowercased into a scratch buffer and searched with `memchr::memmem`),
//!   the name needle and every input piece; a needle split across two lines
//!   never matches;
//! - every output piece must occur somewhere in the file (the chunk is
//!   lowercased likewise).
//!
//! Only candidate lines are parsed, and only the keys the loader reads
//! (`type`, `timestamp`, `message.content[].type/name/input`; the rest is
//! skipped without being built). A candidate line counts when it is an
//! `assistant` line holding a `tool_use` block whose name passes the name
//! filter and whose input passes `input_contains` exactly as `find` tests
//! them; the line's own `timestamp` (the one the loader gives the call) is
//! checked against `since`/`until` and bounds the session's newest match.
//! A counted line without a usable timestamp (the call would then be dated
//! by its result) makes the session [`Verdict::Load`]; so does a candidate
//! line that does not parse that way (e.g. a truncated last line, a `type`
//! that is not a string, a duplicate key), a file that cannot be read, or a
//! Unicode marker (below) in a file with output pieces. Without a plain name
//! or input needle every `tool_use` + `assistant` line is a candidate (its
//! narrow parse still filters and bounds), so even a needle-less query (the
//! TUI's every-tool line) can stop loading early. Sessions of agents other
//! than Claude Code are always `Load`: the line rules are Claude Code's
//! format.
//!
//! # Soundness caveats
//! Two cases where the parsed text holds an ASCII letter the raw bytes do
//! not: a char whose Unicode lowercase is ASCII (`K` KELVIN SIGN → `k`,
//! `İ` → `i̇`), and the placeholders `[image: …]` / `[tool_reference: …]` the
//! loader writes into output text. A line holding such a char (raw or
//! `\u`-escaped), or a `\u` escape of printable ASCII (`\u0067` for `g`),
//! with the two type strings is a candidate whatever the needles (its parse
//! decides); in a file with output pieces such a char makes the session
//! `Load`. A JSON `"image"` / `"tool_reference"` string satisfies the output
//! pieces of its file.
//!
//! Not covered (a match could be missed): a writer that escapes `/` as `\/`, and a number
//! written in a form serde_json re-serializes differently (`1e2` → `100.0`).
//! Claude Code writes neither: it escapes only `"`, `\` and control
//! characters and writes numbers in their shortest form, which serde_json
//! keeps.

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::Path;

use chrono::{DateTime, Utc};
use memchr::memmem;
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::params::{NameFilter, Query, fold};
use crate::transcript::{Agent, SessionRef};

/// What the prefilter concluded about one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No call of the session can pass the filters.
    Skip,
    /// Every call that can pass is dated by its own line and none is newer
    /// than this.
    Newest(DateTime<Utc>),
    /// No usable bound (unreadable file, unparsable candidate line, marker,
    /// undated candidate, another agent's format): load the session.
    Load,
}

/// The needles of a query, cut into lowercase pieces (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needles {
    /// Pieces that must all occur on one line: the tool name (whole) and the
    /// pieces of `input_contains`.
    pub line: Vec<String>,
    /// Pieces of `output_contains`, each somewhere in the same file.
    pub file: Vec<String>,
}

/// The plain needles of a query, cut into pieces; both lists empty = no
/// prefilter.
pub fn needles(query: &Query) -> Needles {
    let name = match &query.name {
        NameFilter::Exact(n) | NameFilter::Pattern(n) => n,
    };
    let mut out = Needles::default();
    if is_plain(name) {
        out.line.push(name.to_ascii_lowercase());
    }
    if let Some(input) = &query.input_contains {
        out.line.extend(pieces(input));
    }
    if let Some(output) = &query.output_contains {
        out.file.extend(pieces(output));
    }
    out
}

/// Whether a needle can be searched for in raw JSON bytes as is.
pub fn is_plain(needle: &str) -> bool {
    !needle.is_empty()
        && needle
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'<' | b'>' | b'&'))
}

/// A plain needle cut at the JSON structural characters `{ } [ ] : ,` into
/// its non-empty lowercase pieces; no pieces when the needle is not
/// [plain](is_plain).
pub fn pieces(needle: &str) -> Vec<String> {
    if !is_plain(needle) {
        return Vec::new();
    }
    needle
        .split(['{', '}', '[', ']', ':', ','])
        .filter(|p| !p.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Whether raw bytes hold a char whose Unicode lowercase is ASCII: U+212A
/// KELVIN SIGN (→ `k`) or U+0130 (→ `i` + U+0307), raw UTF-8 or `\u`-escaped
/// (either case of hex digit), or a `\u` escape of printable ASCII (`\u007a`
/// for `z`): either way the raw bytes may hide text a needle holds. A `\\u212a` (escaped backslash) also counts:
/// a false alarm only costs a parse. Also used by the index's text filters
/// ([`crate::index::query`]).
pub fn has_unicode_marker(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(0xe2, 0xc4, bytes).any(|i| {
        let rest = &bytes[i..];
        rest.starts_with("\u{212a}".as_bytes()) || rest.starts_with("\u{130}".as_bytes())
    }) || memmem::find_iter(bytes, b"\\u").any(|i| {
        bytes.get(i + 2..i + 6).is_some_and(|hex| {
            hex.eq_ignore_ascii_case(b"212a")
                || hex.eq_ignore_ascii_case(b"0130")
                || escaped_printable_ascii(hex)
        })
    })
}

/// Whether raw JSON bytes hold a `\u` escape of a character a plain needle
/// may hold (`\u0067` for `g`: printable ASCII but `"`, `\`, `<`, `>`,
/// `&`, as [`is_plain`] allows): text that
/// reads `git` once parsed but whose bytes do not show it. The backtest's
/// byte filters read such a session whole (`hooks::replay::backtest`'s
/// `SessionFilter` and `LineFilter`). A `\\u0067` (an escaped backslash)
/// also counts: a false alarm only costs a load.
pub fn has_escaped_ascii(bytes: &[u8]) -> bool {
    memmem::find_iter(bytes, b"\\u")
        .any(|i| bytes.get(i + 2..i + 6).is_some_and(escaped_printable_ascii))
}

/// Whether the four hex digits of a `\u` escape name a character a plain
/// needle may hold ([`is_plain`]: printable ASCII but `"`, `\`, `<`, `>`,
/// `&`, which some writers escape and no plain needle holds), written so
/// that its raw bytes do not show it (no agent writes these; a hostile or
/// unusual writer may). Such a line or file is then read as JSON.
fn escaped_printable_ascii(hex: &[u8]) -> bool {
    std::str::from_utf8(hex)
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .and_then(|c| u8::try_from(c).ok())
        .is_some_and(|c| is_plain(std::str::from_utf8(&[c]).unwrap_or("\"")))
}

/// The part of a raw JSON line that holds every `"input"` member: from the
/// first `"input"` string token on (a quote not preceded by a backslash,
/// so not inside another string), or the whole line when there is none or
/// when an `input` key may be written with `\u` escapes before it (a
/// `\u00XX` of one of its letters). A necessary-condition narrowing for
/// `input_contains`: a line's other members (Claude Code's `cwd`,
/// `gitBranch`, …) come first in every real transcript and often hold the
/// needle (`git`), while an `input` object can only be after its key.
pub fn input_region(line: &[u8]) -> &[u8] {
    let start = memmem::find_iter(line, b"\"input\"").find(|&i| i == 0 || line[i - 1] != b'\\');
    let Some(start) = start else {
        return line;
    };
    let before = &line[..start];
    let escaped_letter = memmem::find_iter(before, b"\\u00").any(|i| {
        before.get(i + 4..i + 6).is_some_and(|hex| {
            [b"69", b"6e", b"70", b"75", b"74"]
                .iter()
                .any(|h| hex.eq_ignore_ascii_case(*h))
        })
    });
    if escaped_letter { line } else { &line[start..] }
}

/// Whether raw line bytes may hold every piece (ASCII case-insensitively):
/// also when they hold a Unicode marker ([`has_unicode_marker`]) or, with
/// `placeholders`, an `"image"`/`"tool_reference"` string (output text the
/// loader writes for them). No pieces: they may. Used on lines read at the
/// index's offsets ([`crate::index::query`], [`super::rows`]).
pub fn may_hold(line: &[u8], pieces: &[String], placeholders: bool) -> bool {
    if pieces.is_empty() || has_unicode_marker(line) {
        return true;
    }
    let lower = line.to_ascii_lowercase();
    if placeholders
        && PLACEHOLDER_MARKERS
            .iter()
            .any(|p| memmem::find(&lower, p).is_some())
    {
        return true;
    }
    pieces
        .iter()
        .all(|p| memmem::find(&lower, p.as_bytes()).is_some())
}

/// Whether a call's `tool_use` line cannot hold `query`'s
/// `input_contains` (folded into `pieces`): no piece in the part of the
/// line that holds the inputs ([`input_region`], [`may_hold`]), or no
/// block input of the line holds the needle ([`line_verdict`]'s narrow
/// parse). `false` means it may: the call stays a candidate.
pub fn input_cannot_match(line: &[u8], pieces: &[String], query: &Query) -> bool {
    !may_hold(input_region(line), pieces, false) || line_verdict(line, query) == Verdict::Skip
}

/// JSON strings every line holding a `tool_use` block has, exactly (the
/// loader compares them case-sensitively): the block's `type` and the line's
/// `type`. Candidate lines are found by searching the first.
const TOOL_USE_TOKEN: &[u8] = b"\"tool_use\"";
const ASSISTANT_TOKEN: &[u8] = b"\"assistant\"";

/// Byte sequences (lowercase) that stand for loader-made output text
/// (`[image: …]`, `[tool_reference: …]`): they satisfy the output pieces.
const PLACEHOLDER_MARKERS: &[&[u8]] = &[b"\"image\"", b"\"tool_reference\""];

/// Files are lowercased and searched in chunks of about this many bytes
/// (extended to the end of a line).
const CHUNK: usize = 256 * 1024;

fn finders(needles: &[impl AsRef<[u8]>]) -> Vec<memmem::Finder<'static>> {
    needles
        .iter()
        .map(|n| memmem::Finder::new(n.as_ref()).into_owned())
        .collect()
}

/// What the scan of one file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileScan {
    /// No call in this file can match.
    NoMatch,
    /// The file has output pieces and a Unicode marker: its raw bytes cannot
    /// decide, load.
    Unknown,
    /// Byte ranges of the candidate lines (without their newline), in file
    /// order (see the module doc); the file holds every file piece (or a
    /// placeholder marker).
    Lines(Vec<Range<usize>>),
    /// There are no line pieces, and the file holds every file piece (or a
    /// placeholder marker): it may hold a match.
    Candidate,
}

/// Compiled needles (one `memmem::Finder` each, built once per query).
pub struct Prefilter {
    /// Line pieces (lowercase), the longest first.
    line: Vec<memmem::Finder<'static>>,
    /// File pieces (lowercase).
    file: Vec<memmem::Finder<'static>>,
    tool_use: memmem::Finder<'static>,
    assistant: memmem::Finder<'static>,
    placeholders: Vec<memmem::Finder<'static>>,
}

impl Prefilter {
    /// Compiles `needles` (lowercase pieces; see [`needles`]).
    pub fn new(needles: &Needles) -> Prefilter {
        let mut line: Vec<&[u8]> = needles.line.iter().map(|p| p.as_bytes()).collect();
        line.sort_by_key(|p| std::cmp::Reverse(p.len()));
        Prefilter {
            line: finders(&line),
            file: finders(&needles.file),
            tool_use: memmem::Finder::new(TOOL_USE_TOKEN).into_owned(),
            assistant: memmem::Finder::new(ASSISTANT_TOKEN).into_owned(),
            placeholders: finders(PLACEHOLDER_MARKERS),
        }
    }

    /// Whether there is nothing to prefilter on (every session is loaded).
    pub fn is_empty(&self) -> bool {
        self.line.is_empty() && self.file.is_empty()
    }

    /// Scans a run of whole lines (`chunk` starts at a line start and ends
    /// after a newline or at the end of the file).
    ///
    /// With file pieces, the chunk is lowercased into `scratch.chunk` and the
    /// pieces and placeholder markers found are recorded in `state` (a
    /// Unicode marker sets `state.unknown` and stops the scan). With line
    /// pieces, each line holding `"tool_use"` and `"assistant"` (raw bytes)
    /// is lowercased into `scratch.line`; when it holds every line piece, or
    /// a Unicode marker, `on_line(range)` is called (range in `chunk`,
    /// without the newline). Returns `false` when the scan can stop
    /// (`state.unknown`, or `on_line` returned `false`).
    fn scan_lines(
        &self,
        chunk: &[u8],
        scratch: &mut Scratch,
        state: &mut ScanState,
        mut on_line: impl FnMut(Range<usize>) -> bool,
    ) -> bool {
        if !self.file.is_empty() {
            let lower = &mut scratch.chunk;
            lower.clear();
            lower.extend(chunk.iter().map(u8::to_ascii_lowercase));
            if has_unicode_marker(lower) {
                state.unknown = true;
                return false;
            }
            for (found, f) in state.file_found.iter_mut().zip(&self.file) {
                *found = *found || f.find(lower).is_some();
            }
            if !state.placeholder {
                state.placeholder = self.placeholders.iter().any(|m| m.find(lower).is_some());
            }
        }
        // Without line pieces every call line is a candidate: its narrow
        // parse still bounds the session (no needle is needed for that).
        let mut at = 0;
        while at < chunk.len() {
            let Some(hit) = self.tool_use.find(&chunk[at..]) else {
                break;
            };
            let hit = at + hit;
            let start = memchr::memrchr(b'\n', &chunk[at..hit]).map_or(at, |i| at + i + 1);
            let stop = memchr::memchr(b'\n', &chunk[hit..]).map_or(chunk.len(), |i| hit + i);
            let line = &chunk[start..stop];
            if self.assistant.find(line).is_some() {
                let lower = &mut scratch.line;
                lower.clear();
                lower.extend(line.iter().map(u8::to_ascii_lowercase));
                let candidate =
                    self.line.iter().all(|f| f.find(lower).is_some()) || has_unicode_marker(line);
                if candidate && !on_line(start..stop) {
                    return false;
                }
            }
            at = stop + 1;
        }
        true
    }

    /// Scans one file's raw bytes (see [`FileScan`]), in chunks of about
    /// 256 KiB (`CHUNK`) cut after a newline, as [`Prefilter::verdict`]
    /// reads files.
    pub fn scan(&self, bytes: &[u8]) -> FileScan {
        let mut scratch = Scratch::default();
        let mut state = ScanState::new(self);
        let mut lines = Vec::new();
        let mut pos = 0;
        while pos < bytes.len() {
            let mut end = (pos + CHUNK).min(bytes.len());
            if end < bytes.len() {
                end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i + 1);
            }
            let more = self.scan_lines(&bytes[pos..end], &mut scratch, &mut state, |r| {
                lines.push(pos + r.start..pos + r.end);
                true
            });
            if !more {
                break;
            }
            pos = end;
        }
        if state.unknown {
            FileScan::Unknown
        } else if !state.has_file_pieces() {
            FileScan::NoMatch
        } else if self.line.is_empty() {
            FileScan::Candidate
        } else if lines.is_empty() {
            FileScan::NoMatch
        } else {
            FileScan::Lines(lines)
        }
    }

    /// The verdict on one session: reads its main file and subagent files
    /// once each (see the module doc). An unreadable file gives
    /// [`Verdict::Load`] (the loader then reports it).
    pub fn verdict(&self, session: &SessionRef, query: &Query) -> Verdict {
        // The line rules are Claude Code's transcript format.
        if session.agent != Agent::ClaudeCode {
            return Verdict::Load;
        }
        let mut newest: Option<DateTime<Utc>> = None;
        for path in std::iter::once(&session.path).chain(session.subagent_files.iter()) {
            match self.file_verdict(path, query) {
                Verdict::Skip => {}
                Verdict::Load => return Verdict::Load,
                Verdict::Newest(t) => newest = Some(newest.map_or(t, |n| n.max(t))),
            }
        }
        newest.map_or(Verdict::Skip, Verdict::Newest)
    }

    /// The verdict on one file, read in chunks of about [`CHUNK`] bytes (a
    /// longer line is read whole) into one reused buffer; each candidate line
    /// is checked ([`line_verdict`]) as soon as it is found.
    fn file_verdict(&self, path: &Path, query: &Query) -> Verdict {
        let Ok(mut file) = crate::transcript::fsread::open_decoded(path) else {
            return Verdict::Load;
        };
        let mut buf: Vec<u8> = Vec::new();
        let mut scratch = Scratch::default();
        let mut state = ScanState::new(self);
        let mut newest: Option<DateTime<Utc>> = None;
        let mut load = false;
        loop {
            let kept = buf.len();
            buf.reserve(CHUNK);
            // Appends up to CHUNK bytes (without zeroing the buffer first);
            // fewer means the end of the file.
            let Ok(n) = (&mut file).take(CHUNK as u64).read_to_end(&mut buf) else {
                return Verdict::Load;
            };
            let eof = n < CHUNK;
            let upto = if eof {
                buf.len()
            } else {
                match memchr::memrchr(b'\n', &buf[kept..]) {
                    Some(i) => kept + i + 1,
                    None => continue, // a line longer than the buffer: read on
                }
            };
            let more = self.scan_lines(&buf[..upto], &mut scratch, &mut state, |r| {
                match buf
                    .get(r)
                    .map_or(Verdict::Load, |line| line_verdict(line, query))
                {
                    Verdict::Skip => true,
                    Verdict::Newest(t) => {
                        newest = Some(newest.map_or(t, |n| n.max(t)));
                        true
                    }
                    Verdict::Load => {
                        load = true;
                        false
                    }
                }
            });
            if state.unknown || load {
                return Verdict::Load;
            }
            if eof || !more {
                break;
            }
            buf.drain(..upto);
        }
        if !state.has_file_pieces() {
            Verdict::Skip
        } else {
            newest.map_or(Verdict::Skip, Verdict::Newest)
        }
    }
}

/// Reused lowercase buffers of a file scan.
#[derive(Default)]
struct Scratch {
    /// The current chunk, lowercased (only with file pieces).
    chunk: Vec<u8>,
    /// The current line, lowercased.
    line: Vec<u8>,
}

/// What the scan of one file has seen so far.
struct ScanState {
    /// Per file piece: seen.
    file_found: Vec<bool>,
    /// A placeholder marker was seen.
    placeholder: bool,
    /// A Unicode marker was seen.
    unknown: bool,
}

impl ScanState {
    fn new(prefilter: &Prefilter) -> ScanState {
        ScanState {
            file_found: vec![false; prefilter.file.len()],
            placeholder: false,
            unknown: false,
        }
    }

    /// Whether the file holds every file piece (or a placeholder marker).
    fn has_file_pieces(&self) -> bool {
        self.placeholder || self.file_found.iter().all(|f| *f)
    }
}

/// The parts of a transcript line a candidate check reads; every other key
/// is skipped without being built. Keys as the loader reads them: the
/// line's `type` and `timestamp`, `message.content`, and per block `type`,
/// `name` and `input`. A value of another JSON type than expected (or a
/// duplicate key) fails the parse, which makes the line
/// [`Verdict::Load`]: never a wrong skip.
#[derive(Deserialize)]
struct CallLine<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<CallMessage<'a>>,
}

#[derive(Deserialize)]
struct CallMessage<'a> {
    #[serde(borrow, default)]
    content: Blocks<'a>,
}

/// `message.content`: the blocks when it is an array, none for any other
/// JSON value (as `Value::as_array` would see it).
#[derive(Default)]
struct Blocks<'a>(Vec<CallBlock<'a>>);

#[derive(Deserialize)]
struct CallBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// `Some(Value::Null)` for `"input": null` (compact text `null`), `None`
    /// when absent (empty text), as the loader's `raw()` is.
    #[serde(default, deserialize_with = "present")]
    input: Option<Value>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl<'de: 'a, 'a> Deserialize<'de> for Blocks<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct BlocksVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for BlocksVisitor<'a> {
            type Value = Blocks<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Blocks::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Blocks::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Blocks::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Blocks::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Blocks::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Blocks::default())
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Blocks::default())
            }
        }
        d.deserialize_any(BlocksVisitor(std::marker::PhantomData))
    }
}

/// A line's `timestamp` as the Claude Code loader reads it: RFC 3339, in
/// UTC; `None` when unparsable.
fn line_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The verdict on one candidate line's raw bytes: `Skip` when it holds no
/// `tool_use` block passing the name, `input_contains` and time filters,
/// `Newest(line timestamp)` when it does, `Load` when it does not parse (as
/// the line's `type`, `timestamp` and `message.content` blocks with their
/// `type`, `name` and `input`) or a passing block's line has no usable
/// timestamp.
pub fn line_verdict(line: &[u8], query: &Query) -> Verdict {
    // The loader's line rules (BOM, invalid UTF-8, lone surrogates): see
    // `transcript::jsonl::parse_line`.
    let bytes = crate::transcript::jsonl::line_bytes(line);
    let repaired;
    let line = match serde_json::from_slice::<CallLine>(bytes) {
        Ok(line) => line,
        Err(_) => {
            let Some((fixed, _)) = crate::transcript::jsonl::repair_line(bytes) else {
                return Verdict::Load;
            };
            repaired = fixed;
            let Ok(line) = serde_json::from_slice::<CallLine>(&repaired) else {
                return Verdict::Load;
            };
            line
        }
    };
    if line.kind.as_deref() != Some("assistant") {
        return Verdict::Skip;
    }
    let Some(message) = line.message else {
        return Verdict::Skip;
    };
    let timestamp = line.timestamp.as_deref().and_then(line_time);
    let mut newest = None;
    for block in &message.content.0 {
        if block.kind.as_deref() != Some("tool_use") {
            continue;
        }
        let Some(name) = block.name.as_deref() else {
            continue;
        };
        if !query.name.matches(name) {
            continue;
        }
        if let Some(needle) = &query.input_contains {
            let text = block
                .input
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default();
            if !fold(&text).contains(needle.as_str()) {
                continue;
            }
        }
        let Some(t) = timestamp else {
            return Verdict::Load;
        };
        if query.since.is_some_and(|s| t < s) || query.until.is_some_and(|u| t >= u) {
            continue;
        }
        newest = Some(t);
    }
    newest.map_or(Verdict::Skip, Verdict::Newest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::FindParams;

    fn query(args: serde_json::Value) -> Query {
        FindParams::from_json(&args)
            .and_then(|p| p.validate(Utc::now()))
            .expect("valid query")
    }

    fn prefilter(q: &Query) -> Prefilter {
        Prefilter::new(&needles(q))
    }

    #[test]
    fn plain_needles() {
        assert!(is_plain("rm -rf"));
        assert!(is_plain("/etc/passwd"));
        assert!(!is_plain("say \"hi\""));
        assert!(!is_plain("a\\b"));
        assert!(!is_plain("line\nbreak"));
        assert!(!is_plain("café"));
        assert!(!is_plain("<tag>"));
        assert!(!is_plain(""));
    }

    #[test]
    fn needles_are_cut_at_structural_characters() {
        assert_eq!(pieces("timeout:1"), vec!["timeout", "1"]);
        assert_eq!(pieces("[1,2]"), vec!["1", "2"]);
        assert_eq!(pieces("https://x.y"), vec!["https", "//x.y"]);
        assert_eq!(pieces("Git Status"), vec!["git status"]);
        assert!(pieces(":,").is_empty());
        assert!(pieces("say \"hi\"").is_empty());
        let q = query(
            serde_json::json!({"tool_name": "Bash", "input_contains": "a:b", "output_contains": "x,y"}),
        );
        assert_eq!(
            needles(&q),
            Needles {
                line: vec!["bash".into(), "a".into(), "b".into()],
                file: vec!["x".into(), "y".into()],
            }
        );
    }

    const BASH_GIT: &str = r#"{"type":"assistant","timestamp":"2026-11-29T18:00:00Z","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"git status"}}]}}"#;

    #[test]
    fn candidate_lines_hold_every_line_piece() {
        let q = query(serde_json::json!({"tool_name": "bash", "input_contains": "GIT STATUS"}));
        let p = prefilter(&q);
        let file = format!("{{\"type\":\"user\"}}\n{BASH_GIT}\n{{\"x\":\"git status\"}}\n");
        let FileScan::Lines(lines) = p.scan(file.as_bytes()) else {
            panic!("expected candidate lines")
        };
        assert_eq!(lines.len(), 1);
        assert_eq!(&file.as_bytes()[lines[0].clone()], BASH_GIT.as_bytes());
        assert_eq!(
            line_verdict(BASH_GIT.as_bytes(), &q),
            Verdict::Newest("2026-11-29T18:00:00Z".parse().expect("time"))
        );
    }

    #[test]
    fn needles_split_across_lines_do_not_match() {
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "git"}));
        let p = prefilter(&q);
        // A Bash call on one line, the input needle on the next.
        let ls = BASH_GIT.replace("git status", "ls");
        let file = format!("{ls}\n{{\"type\":\"user\",\"gitBranch\":\"main\"}}\n");
        assert_eq!(p.scan(file.as_bytes()), FileScan::NoMatch);
        assert!(matches!(p.scan(BASH_GIT.as_bytes()), FileScan::Lines(_)));
        // One needle cut by a newline.
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "git status"}));
        let file = format!(
            "{}\n status\"}}]}}}}\n",
            BASH_GIT.replace("git status\"}}]}}", "git")
        );
        assert_eq!(prefilter(&q).scan(file.as_bytes()), FileScan::NoMatch);
        // The needle without the tool_use tokens (a tool result) is no candidate.
        let result = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"bash: git status"}]}}"#;
        assert_eq!(prefilter(&q).scan(result.as_bytes()), FileScan::NoMatch);
        // Across a chunk boundary the line is still whole.
        let padding = format!("{{\"pad\":\"{}\"}}\n", "x".repeat(CHUNK - 10));
        let file = format!("{padding}{BASH_GIT}\n{padding}");
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "git"}));
        assert!(matches!(prefilter(&q).scan(file.as_bytes()), FileScan::Lines(l) if l.len() == 1));
    }

    #[test]
    fn escaped_json_and_spacing() {
        // The input needle is matched on the parsed value: an escaped quote
        // in the raw line is no obstacle, and spaces after ':' are allowed.
        let raw = r#"{"type":"assistant","timestamp":"2026-11-29T18:00:00Z","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input": {"command": "echo \"git\"", "n": [15, 2]}}]}}"#;
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "\"n\":[15"}));
        // Not plain (quotes): only the name is a line piece.
        assert_eq!(needles(&q).line, vec!["bash"]);
        assert!(matches!(
            prefilter(&q).scan(raw.as_bytes()),
            FileScan::Lines(_)
        ));
        assert!(matches!(
            line_verdict(raw.as_bytes(), &q),
            Verdict::Newest(_)
        ));
        // The compact text has "15,2"; the raw line has "15, 2".
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "15,2"}));
        assert_eq!(needles(&q).line, vec!["bash", "15", "2"]);
        assert!(matches!(
            prefilter(&q).scan(raw.as_bytes()),
            FileScan::Lines(_)
        ));
        assert!(matches!(
            line_verdict(raw.as_bytes(), &q),
            Verdict::Newest(_)
        ));
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "15,3"}));
        assert!(matches!(
            prefilter(&q).scan(raw.as_bytes()),
            FileScan::NoMatch
        ));
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "echo git"}));
        assert_eq!(prefilter(&q).scan(raw.as_bytes()), FileScan::NoMatch);
    }

    #[test]
    fn case_folding_and_markers() {
        let q = query(serde_json::json!({"tool_name": "BASH", "input_contains": "Key"}));
        let p = prefilter(&q);
        let upper = BASH_GIT.replace("git status", "KEY");
        assert!(matches!(p.scan(upper.as_bytes()), FileScan::Lines(_)));
        assert!(matches!(
            line_verdict(upper.as_bytes(), &q),
            Verdict::Newest(_)
        ));
        // KELVIN SIGN folds to 'k': the raw bytes cannot decide, the line is
        // parsed, and the parsed input matches.
        let kelvin = BASH_GIT.replace("git status", "\u{212a}ey");
        assert!(matches!(p.scan(kelvin.as_bytes()), FileScan::Lines(_)));
        assert!(matches!(
            line_verdict(kelvin.as_bytes(), &q),
            Verdict::Newest(_)
        ));
        let escaped = BASH_GIT.replace("git status", "\\u212Aey");
        assert!(matches!(p.scan(escaped.as_bytes()), FileScan::Lines(_)));
        assert!(matches!(
            line_verdict(escaped.as_bytes(), &q),
            Verdict::Newest(_)
        ));
        let dotted = BASH_GIT.replace("git status", "\u{130}");
        assert!(matches!(p.scan(dotted.as_bytes()), FileScan::Lines(_)));
        assert_eq!(line_verdict(dotted.as_bytes(), &q), Verdict::Skip);
        // In an output needle's file: load.
        let q = query(serde_json::json!({"tool_name": "Bash", "output_contains": "key"}));
        let file = format!("{BASH_GIT}\n{{\"content\":\"\u{212a}ey\"}}\n");
        assert_eq!(prefilter(&q).scan(file.as_bytes()), FileScan::Unknown);
        // An image placeholder may produce the output needle.
        let q = query(serde_json::json!({"tool_name": "Bash", "output_contains": "[image:"}));
        let image = format!("{BASH_GIT}\n{{\"type\":\"image\",\"source\":{{}}}}\n");
        assert!(matches!(
            prefilter(&q).scan(image.as_bytes()),
            FileScan::Lines(_)
        ));
        assert_eq!(prefilter(&q).scan(BASH_GIT.as_bytes()), FileScan::NoMatch);
        // The tokens are exact: the loader compares them case-sensitively.
        let q = query(serde_json::json!({"tool_name": "Bash"}));
        let upper_type = BASH_GIT.replace("\"tool_use\"", "\"TOOL_USE\"");
        assert_eq!(prefilter(&q).scan(upper_type.as_bytes()), FileScan::NoMatch);
    }

    #[test]
    fn line_verdicts() {
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "git"}));
        // The needle in a text block, not in a Bash input.
        let text = r#"{"type":"assistant","timestamp":"2026-11-29T18:00:00Z","message":{"content":[{"type":"text","text":"git"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}"#;
        assert_eq!(line_verdict(text.as_bytes(), &q), Verdict::Skip);
        // A user line never holds a call.
        let user = BASH_GIT.replace("assistant", "user");
        assert_eq!(line_verdict(user.as_bytes(), &q), Verdict::Skip);
        // No timestamp: the call would be dated by its result.
        let undated = BASH_GIT.replace("\"timestamp\":\"2026-11-29T18:00:00Z\",", "");
        assert_eq!(line_verdict(undated.as_bytes(), &q), Verdict::Load);
        // Not JSON (e.g. a truncated last line).
        assert_eq!(line_verdict(&BASH_GIT.as_bytes()[..40], &q), Verdict::Load);
        // Time filters use the line's timestamp.
        let q = query(
            serde_json::json!({"tool_name": "Bash", "input_contains": "git", "until": "2026-11-29T18:00:00Z"}),
        );
        assert_eq!(line_verdict(BASH_GIT.as_bytes(), &q), Verdict::Skip);
        let q = query(
            serde_json::json!({"tool_name": "Bash", "input_contains": "git", "since": "2026-11-29T18:00:00Z"}),
        );
        assert!(matches!(
            line_verdict(BASH_GIT.as_bytes(), &q),
            Verdict::Newest(_)
        ));
    }

    /// `verdict` reads files in chunks: lines across chunk boundaries, a line
    /// longer than a chunk and a last line without a newline all count.
    #[test]
    fn streamed_files() {
        let q = query(serde_json::json!({"tool_name": "Bash", "input_contains": "git"}));
        let p = prefilter(&q);
        let at = |t: &str| BASH_GIT.replace("2026-11-29T18:00:00Z", t);
        let dir = tempfile::TempDir::new().expect("temp dir");
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).expect("write");
            SessionRef::claude_code(path, Vec::new())
        };
        let time = |t: &str| Verdict::Newest(t.parse().expect("time"));
        // A candidate line across the first chunk boundary.
        let pad = format!("{{\"pad\":\"{}\"}}\n", "x".repeat(CHUNK - 200));
        let s = write("a.jsonl", &format!("{pad}{}\n", at("2026-01-01T00:00:00Z")));
        assert_eq!(p.verdict(&s, &q), time("2026-01-01T00:00:00Z"));
        // A candidate longer than two chunks, then a last line without a
        // newline: the newest of both.
        let long = at("2026-01-02T00:00:00Z")
            .replace("git status", &format!("git {}", "y".repeat(2 * CHUNK)));
        let s = write(
            "b.jsonl",
            &format!("{long}\n{pad}{}", at("2026-01-03T00:00:00Z")),
        );
        assert_eq!(p.verdict(&s, &q), time("2026-01-03T00:00:00Z"));
        let s = write(
            "c.jsonl",
            &format!("{}\n{long}\n", at("2026-01-01T00:00:00Z")),
        );
        assert_eq!(p.verdict(&s, &q), time("2026-01-02T00:00:00Z"));
        // The newest over the main file and its subagent files.
        let sub = dir.path().join("agent-x.jsonl");
        std::fs::write(&sub, at("2026-02-01T00:00:00Z")).expect("write");
        let mut s = write("d.jsonl", &format!("{pad}{pad}"));
        assert_eq!(p.verdict(&s, &q), Verdict::Skip);
        s.subagent_files.push(sub);
        assert_eq!(p.verdict(&s, &q), time("2026-02-01T00:00:00Z"));
        // A truncated last line, and a missing file: load.
        let s = write("e.jsonl", &BASH_GIT[..BASH_GIT.len() - 3]);
        assert_eq!(p.verdict(&s, &q), Verdict::Load);
        let s = SessionRef::claude_code(dir.path().join("missing.jsonl"), Vec::new());
        assert_eq!(p.verdict(&s, &q), Verdict::Load);
    }

    #[test]
    fn no_line_pieces_falls_back_to_files() {
        let q = query(serde_json::json!({"tool_name_pattern": "é", "output_contains": "done"}));
        let p = prefilter(&q);
        assert!(!p.is_empty());
        assert_eq!(p.scan(b"{\"x\":\"DONE\"}\n"), FileScan::Candidate);
        assert_eq!(p.scan(b"{\"x\":\"nope\"}\n"), FileScan::NoMatch);
        let q = query(serde_json::json!({"tool_name_pattern": "é"}));
        assert!(prefilter(&q).is_empty());
    }
}
