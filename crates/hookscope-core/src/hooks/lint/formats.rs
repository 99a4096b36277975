//! Lints for CI (docs/your-hooks.md#lints-in-ci): SARIF 2.1.0 for code
//! scanning ([`sarif`]) and GitHub Actions workflow commands
//! ([`github_annotations`]). Both carry what the text shows: the id, the
//! level, the message with its fix, the file and line.

use serde::Serialize;

use super::{LINTS, Lint, Severity};

/// The SARIF version written.
pub const SARIF_VERSION: &str = "2.1.0";

/// The `$schema` a SARIF 2.1.0 log names.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// A SARIF log: one run of hookscope.
#[derive(Debug, Clone, Serialize)]
pub struct SarifLog {
    /// [`SARIF_SCHEMA`].
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    /// [`SARIF_VERSION`].
    pub version: &'static str,
    /// One run.
    pub runs: Vec<SarifRun>,
}

/// The run: the tool and its results.
#[derive(Debug, Clone, Serialize)]
pub struct SarifRun {
    /// hookscope and the rules (lint ids) its results use.
    pub tool: SarifTool,
    /// One per lint.
    pub results: Vec<SarifResult>,
}

/// `tool`.
#[derive(Debug, Clone, Serialize)]
pub struct SarifTool {
    /// `driver`.
    pub driver: SarifDriver,
}

/// `tool.driver`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifDriver {
    /// `hookscope`.
    pub name: &'static str,
    /// hookscope's version.
    pub version: &'static str,
    /// The lint ids the results use, with their descriptions.
    pub rules: Vec<SarifRule>,
}

/// A lint id as a SARIF rule.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifRule {
    /// The lint id.
    pub id: &'static str,
    /// Its one-line description ([`LINTS`]).
    pub short_description: SarifText,
}

/// A `message`-like object.
#[derive(Debug, Clone, Serialize)]
pub struct SarifText {
    /// The text.
    pub text: String,
}

/// One lint as a SARIF result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    /// The lint id.
    pub rule_id: &'static str,
    /// Its index in `tool.driver.rules`.
    pub rule_index: usize,
    /// `error` or `warning`.
    pub level: &'static str,
    /// The message, then ` — fix: …`.
    pub message: SarifText,
    /// The file (and line), when the lint is about one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<SarifLocation>,
}

/// `locations[]`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifLocation {
    /// `physicalLocation`.
    pub physical_location: SarifPhysical,
}

/// `physicalLocation`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifPhysical {
    /// `artifactLocation.uri`.
    pub artifact_location: SarifArtifact,
    /// `region.startLine`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<SarifRegion>,
}

/// `artifactLocation`.
#[derive(Debug, Clone, Serialize)]
pub struct SarifArtifact {
    /// The path as given, `/`-separated; an absolute path as a `file://`
    /// URI.
    pub uri: String,
}

/// `region`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifRegion {
    /// 1-based.
    pub start_line: usize,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A path as a SARIF `uri`: relative paths as they are (with `/`), an
/// absolute one as `file://` with spaces, `%` and `#` escaped.
fn uri(path: &std::path::Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    if path.is_absolute() {
        let escaped = text
            .replace('%', "%25")
            .replace(' ', "%20")
            .replace('#', "%23");
        format!("file://{escaped}")
    } else {
        text
    }
}

/// `lints` as a SARIF 2.1.0 log; `rules` lists each id used once, in
/// order of first use.
pub fn sarif(lints: &[Lint]) -> SarifLog {
    let mut rules: Vec<SarifRule> = Vec::new();
    let mut results = Vec::new();
    for l in lints {
        let rule_index = match rules.iter().position(|r| r.id == l.id) {
            Some(i) => i,
            None => {
                let text = LINTS
                    .iter()
                    .find(|(id, _)| *id == l.id)
                    .map_or(l.id, |(_, d)| d)
                    .to_string();
                rules.push(SarifRule {
                    id: l.id,
                    short_description: SarifText { text },
                });
                rules.len() - 1
            }
        };
        let locations = l
            .path
            .as_ref()
            .map(|p| SarifLocation {
                physical_location: SarifPhysical {
                    artifact_location: SarifArtifact { uri: uri(p) },
                    region: l
                        .line
                        .filter(|n| *n >= 1)
                        .map(|start_line| SarifRegion { start_line }),
                },
            })
            .into_iter()
            .collect();
        results.push(SarifResult {
            rule_id: l.id,
            rule_index,
            level: level(l.severity),
            message: SarifText {
                text: format!("{} — fix: {}", l.message, l.fix),
            },
            locations,
        });
    }
    SarifLog {
        schema: SARIF_SCHEMA,
        version: SARIF_VERSION,
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "hookscope",
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            results,
        }],
    }
}

/// Escapes a workflow command's message: `%`, CR and LF (so the text
/// cannot end the command and start another).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value: as [`escape_data`], and
/// `:` and `,`.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// `lints` as GitHub Actions workflow commands, one line each:
/// `::error file=PATH,line=N,title=ID::MESSAGE — fix: FIX` (`::warning` for a
/// warning), escaped so no text from a settings file can start another
/// command.
pub fn github_annotations(lints: &[Lint]) -> Vec<String> {
    lints
        .iter()
        .map(|l| {
            let mut props = Vec::new();
            if let Some(p) = &l.path {
                props.push(format!("file={}", escape_property(&p.to_string_lossy())));
            }
            if let Some(n) = l.line {
                props.push(format!("line={n}"));
            }
            props.push(format!("title={}", escape_property(l.id)));
            format!(
                "::{} {}::{}",
                level(l.severity),
                props.join(","),
                escape_data(&format!("{} — fix: {}", l.message, l.fix))
            )
        })
        .collect()
}
