//! Which handlers one event reaches, as typed results: per handler a
//! [`Reach`] (its place, matcher, `if` rule, what it runs, whether the
//! event reaches it and why), and for `hookscope hooks --match` the whole
//! [`MatchReport`]. `--json` is their `serde` form; the text is rendered
//! from the same values ([`Reach::lines`], [`MatchReport::lines`]), and the
//! TUI's replay pane styles the same fields (docs/your-hooks.md).

use hookscope_hook::event::EventKey;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::hooks::contract::Version;
use crate::hooks::dialect::{Dialect, Hooks};
use crate::hooks::settings::codex::Trust;
use crate::hooks::settings::{HandlerType, HandlerVerdict, Layer, SettingsFile};

/// Where a handler is written: its file, the 1-based line of its object
/// and the file's layer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Location {
    /// The settings file.
    pub path: PathBuf,
    /// 1-based line of the handler object.
    pub line: usize,
    /// The file's layer (user, project, local, managed, plugin, given…).
    pub layer: Layer,
}

/// One handler of an event and whether the event reaches it
/// ([`Hooks::explain`]'s verdict with the handler it names).
#[derive(Debug, Clone, Serialize)]
pub struct Reach {
    /// 1-based number in the configuration (`#N`).
    pub handler: usize,
    /// Whether the agent would run it for this event.
    pub fires: bool,
    /// The step that decided, in one line.
    pub reason: String,
    /// A fix, when one is obvious.
    pub hint: Option<String>,
    /// Where it is written.
    pub location: Location,
    /// Its group's matcher (`None`: no matcher, every value).
    pub matcher: Option<String>,
    /// Its `if` rule (Claude Code's permission-rule filter).
    #[serde(rename = "if")]
    pub if_rule: Option<String>,
    /// `command`, `http`, `prompt`, `agent` or `mcp_tool`.
    #[serde(rename = "type")]
    pub kind: HandlerType,
    /// What it runs ([`crate::hooks::settings::Handler::summary`]).
    pub summary: String,
    /// Its timeout in seconds, the default filled in.
    pub effective_timeout: f64,
    /// Codex's trust record of the handler (`None` for the other dialects,
    /// and for a Codex handler without one).
    pub trust: Option<Trust>,
}

impl Reach {
    /// The verdicts' handlers, in the verdicts' order; a verdict naming no
    /// handler of `hooks` is left out.
    pub fn of(hooks: &Hooks, verdicts: &[HandlerVerdict]) -> Vec<Reach> {
        let handlers = &hooks.config().handlers;
        verdicts
            .iter()
            .filter_map(|v| {
                let h = handlers.get(v.index)?;
                Some(Reach {
                    handler: v.index + 1,
                    fires: v.fires,
                    reason: v.reason.clone(),
                    hint: v.hint.clone(),
                    location: Location {
                        path: h.origin.path.clone(),
                        line: h.origin.line,
                        layer: h.origin.layer.clone(),
                    },
                    matcher: h.matcher.clone(),
                    if_rule: h.if_rule.clone(),
                    kind: h.kind.clone(),
                    summary: h.summary(),
                    effective_timeout: h.effective_timeout,
                    trust: hooks.trust().get(v.index).cloned().flatten(),
                })
            })
            .collect()
    }

    /// `✓` when the event reaches it, else `✗`.
    pub fn mark(&self) -> &'static str {
        if self.fires { "✓" } else { "✗" }
    }

    /// `#N file:line (layer)`.
    pub fn label(&self) -> String {
        format!(
            "#{} {}:{} ({})",
            self.handler,
            self.location.path.display(),
            self.location.line,
            self.location.layer
        )
    }

    /// The reason, then `; hint` unless the reason already says it.
    pub fn why(&self) -> String {
        crate::hooks::settings::fire::reason_with_hint(&self.reason, self.hint.as_deref())
    }

    /// Its two lines under `--match`: `  ✓ #1 FILE:LINE (layer)  matcher
    /// "Bash"  if "Bash(rm *)"  command  SUMMARY` and `      REASON[; HINT]`.
    pub fn lines(&self) -> [String; 2] {
        let matcher = match &self.matcher {
            Some(m) => format!("matcher {m:?}"),
            None => "no matcher".to_string(),
        };
        let if_part = self
            .if_rule
            .as_ref()
            .map(|r| format!("  if {r:?}"))
            .unwrap_or_default();
        [
            format!(
                "  {} {}  {matcher}{if_part}  {}  {}",
                self.mark(),
                self.label(),
                self.kind.as_str(),
                self.summary
            ),
            format!("      {}", self.why()),
        ]
    }
}

/// `hookscope hooks --match EVENT=VALUE`: the payload built for it and
/// which handlers it reaches (docs/your-hooks.md). `--json` is this value.
#[derive(Debug, Clone, Serialize)]
pub struct MatchReport {
    /// The dialect whose rules applied.
    pub agent: Dialect,
    /// The version whose rules applied (`latest` when none was given).
    pub version: String,
    /// The event matched.
    pub event: EventKey,
    /// The value its matcher reads (tool name, source, …).
    pub value: String,
    /// The payload built for the match.
    pub payload: Value,
    /// Every file read or looked for.
    pub files: Vec<SettingsFile>,
    /// Why no hook runs at all, when the configuration says so.
    pub hooks_off: Option<String>,
    /// Each handler of the event, in order.
    pub verdicts: Vec<Reach>,
    /// The heading line, rendered by the caller's dialect (`--match`'s
    /// first line).
    #[serde(skip)]
    pub heading: String,
}

impl MatchReport {
    /// `event` with its matcher reading `value` (the payload built by
    /// [`Dialect::synthetic_payload`]) against `hooks`, under `version`'s
    /// rules (`version_label` is how the heading names them: the version
    /// given, or `latest`).
    pub fn new(
        hooks: &Hooks,
        event: &str,
        value: &str,
        payload: Value,
        version: &Version,
        version_label: &str,
    ) -> MatchReport {
        let dialect = hooks.dialect;
        let verdicts = hooks.explain(event, &payload, version);
        let what = match dialect.matcher_field(event, version) {
            Some(f) => format!("{event} with {f} = {value:?}"),
            None => format!(
                "{event} ({} ignores matchers here: every handler of it is reached)",
                dialect.label()
            ),
        };
        MatchReport {
            agent: dialect,
            version: version_label.to_string(),
            event: event.into(),
            value: value.to_string(),
            payload,
            files: hooks.config().files.clone(),
            hooks_off: hooks.hooks_off().map(str::to_string),
            verdicts: Reach::of(hooks, &verdicts),
            heading: format!("{what} ({}):", dialect.rules_label(version_label)),
        }
    }

    /// The text: the heading, the files the agent skips, each handler's
    /// two lines and how many would run; when the event has no handler,
    /// which files were read (or where it looked).
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![self.heading.clone()];
        for f in self.files.iter().filter(|f| f.dropped.is_some()) {
            out.push(format!(
                "  ! {} ({}) is skipped by {}: {}",
                f.path.display(),
                f.layer,
                self.agent.skipper(),
                f.dropped.as_deref().unwrap_or("")
            ));
        }
        if self.verdicts.is_empty() {
            let found: Vec<String> = self
                .files
                .iter()
                .filter(|f| f.found)
                .map(|f| f.path.display().to_string())
                .collect();
            if found.is_empty() {
                let looked = crate::hooks::settings::looked_for(&self.files);
                out.push(format!(
                    "  no handler is configured for {}: no settings file found (looked for {})",
                    self.event,
                    looked.join(", ")
                ));
            } else {
                out.push(format!(
                    "  no handler is configured for {} (in {})",
                    self.event,
                    found.join(", ")
                ));
            }
            return out;
        }
        for r in &self.verdicts {
            out.extend(r.lines());
        }
        let n = self.verdicts.iter().filter(|r| r.fires).count();
        out.push(format!(
            "{n} of {} handler{} would run.",
            self.verdicts.len(),
            if self.verdicts.len() == 1 { "" } else { "s" }
        ));
        out
    }
}
