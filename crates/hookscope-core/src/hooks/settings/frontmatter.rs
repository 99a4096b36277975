//! `hooks:` in the YAML frontmatter of a skill's `SKILL.md` or a
//! subagent's `agents/*.md` (docs/contract.md#where-hooks-are-configured), read into the same JSON shape
//! as a settings file's `hooks`, with the line of each value.
//!
//! The YAML is read with `saphyr-parser`'s event parser (iterative, no
//! recursion); the value is built here with an explicit stack. Aliases are
//! not expanded (they read as `null`), so a "billion laughs" document stays
//! small.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle};
use serde_json::{Map, Number, Value};

use super::{Problem, jsonpos::escape_token};

/// The `hooks` value of a frontmatter and where its values start.
pub struct Frontmatter {
    /// The `hooks` value.
    pub hooks: Value,
    /// File line of each value under `hooks`, by JSON pointer relative to
    /// `hooks` (`""` is `hooks` itself).
    lines: HashMap<String, usize>,
}

impl Frontmatter {
    /// The file line of the value at `pointer` (relative to `hooks`).
    pub fn line_of(&self, pointer: &str) -> Option<usize> {
        self.lines.get(pointer).copied()
    }
}

/// Reads the frontmatter of a Markdown file: `Ok(None)` when the file has
/// no frontmatter or no `hooks` key; `Err` (a problem that drops the file)
/// when the frontmatter is not UTF-8 or not valid YAML.
pub fn hooks(bytes: &[u8]) -> Result<Option<Frontmatter>, Problem> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(Problem {
            id: "frontmatter-invalid",
            line: None,
            column: None,
            message: "not UTF-8; Claude Code cannot read its frontmatter".to_string(),
            drops_file: true,
        });
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    match lines.next() {
        Some(first) if first.trim_end() == "---" => {}
        _ => return Ok(None),
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Ok(None);
    }
    // The YAML starts on file line 2.
    let (root, lines) = build(&yaml).map_err(|(line, column, message)| Problem {
        id: "frontmatter-invalid",
        line: Some(line + 1),
        column: Some(column),
        message: format!("frontmatter is not valid YAML: {message}; its hooks are not loaded"),
        drops_file: true,
    })?;
    let Some(hooks) = root.get("hooks").cloned() else {
        return Ok(None);
    };
    let lines = lines
        .into_iter()
        .filter_map(|(k, l)| {
            k.strip_prefix("/hooks")
                .filter(|rest| rest.is_empty() || rest.starts_with('/'))
                .map(|rest| (rest.to_string(), l + 1))
        })
        .collect();
    Ok(Some(Frontmatter { hooks, lines }))
}

enum Frame {
    Seq(Vec<Value>, String),
    Map(Map<String, Value>, Option<String>, String),
}

type Built = (Value, HashMap<String, usize>);

/// Builds the first document of `yaml` as JSON with the line of each value
/// (1-based within `yaml`) by pointer; `Err((line, column, message))`.
fn build(yaml: &str) -> Result<Built, (usize, usize, String)> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut lines = HashMap::new();
    let mut root: Option<Value> = None;
    for item in Parser::new_from_str(yaml) {
        let (event, span) = item.map_err(|e| {
            (
                e.marker().line(),
                e.marker().col() + 1,
                e.info().to_string(),
            )
        })?;
        let line = span.start.line();
        // The pointer of the value this event starts, if it starts one.
        let pointer = |stack: &[Frame]| -> Option<String> {
            match stack.last() {
                None => Some(String::new()),
                Some(Frame::Seq(items, p)) => Some(format!("{p}/{}", items.len())),
                Some(Frame::Map(_, Some(key), p)) => Some(format!("{p}/{}", escape_token(key))),
                Some(Frame::Map(_, None, _)) => None,
            }
        };
        let value = match event {
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => continue,
            Event::DocumentEnd | Event::StreamEnd => break,
            Event::SequenceStart(..) => {
                let p = pointer(&stack).unwrap_or_default();
                lines.insert(p.clone(), line);
                stack.push(Frame::Seq(Vec::new(), p));
                continue;
            }
            Event::MappingStart(..) => {
                let p = pointer(&stack).unwrap_or_default();
                lines.insert(p.clone(), line);
                stack.push(Frame::Map(Map::new(), None, p));
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(items, _)) => Value::Array(items),
                _ => return Err((line, 1, "unbalanced sequence".to_string())),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(map, _, _)) => Value::Object(map),
                _ => return Err((line, 1, "unbalanced mapping".to_string())),
            },
            Event::Scalar(text, style, _, _) => {
                if let Some(Frame::Map(_, key @ None, _)) = stack.last_mut() {
                    *key = Some(text.into_owned());
                    continue;
                }
                if let Some(p) = pointer(&stack) {
                    lines.insert(p, line);
                }
                scalar(&text, style)
            }
            Event::Alias(_) => {
                if let Some(Frame::Map(_, key @ None, _)) = stack.last_mut() {
                    *key = Some(String::new());
                    continue;
                }
                Value::Null
            }
        };
        match stack.last_mut() {
            None => {
                root = Some(value);
                break;
            }
            Some(Frame::Seq(items, _)) => items.push(value),
            Some(Frame::Map(map, key, _)) => {
                // A non-scalar key: its value is dropped.
                match key.take() {
                    Some(k) => {
                        map.insert(k, value);
                    }
                    None => *key = Some(String::new()),
                }
            }
        }
    }
    Ok((root.unwrap_or(Value::Null), lines))
}

/// A YAML 1.2 core-schema scalar as JSON: plain `true`/`false`, `null`/`~`/
/// empty, integers and floats are typed; everything else is a string.
fn scalar(text: &str, style: ScalarStyle) -> Value {
    if style != ScalarStyle::Plain {
        return Value::String(text.to_string());
    }
    match text {
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if let Ok(i) = text.parse::<i64>() {
        return Value::Number(i.into());
    }
    if text.chars().any(|c| c.is_ascii_digit())
        && let Ok(f) = text.parse::<f64>()
        && let Some(n) = Number::from_f64(f)
    {
        return Value::Number(n);
    }
    Value::String(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hooks_with_lines() {
        let md = "---\nname: fmt\nhooks:\n  PostToolUse:\n    - matcher: \"Edit|Write\"\n      hooks:\n        - type: command\n          command: ./fmt.sh\n          timeout: 30\n---\nbody\n";
        let fm = hooks(md.as_bytes()).expect("valid").expect("has hooks");
        assert_eq!(
            fm.hooks["PostToolUse"][0]["hooks"][0]["command"],
            Value::String("./fmt.sh".into())
        );
        assert_eq!(
            fm.hooks["PostToolUse"][0]["hooks"][0]["timeout"],
            Value::from(30)
        );
        assert_eq!(fm.line_of("/PostToolUse/0"), Some(5));
        assert_eq!(fm.line_of("/PostToolUse/0/hooks/0"), Some(7));
    }

    #[test]
    fn no_frontmatter_or_no_hooks() {
        assert!(hooks(b"# title\n").expect("ok").is_none());
        assert!(hooks(b"---\nname: x\n---\n").expect("ok").is_none());
        assert!(hooks(b"---\nhooks: {}\n").expect("ok").is_none());
    }

    #[test]
    fn invalid_yaml_and_bytes_are_problems() {
        let p = hooks(b"---\nhooks: [unclosed\n---\n")
            .err()
            .expect("invalid");
        assert!(p.drops_file);
        assert!(p.line.is_some());
        let p = hooks(b"---\nhooks: \xff\n---\n").err().expect("not utf-8");
        assert!(p.message.contains("UTF-8"));
    }

    #[test]
    fn aliases_are_not_expanded() {
        let md = "---\nhooks:\n  a: &x [1, 2]\n  b: *x\n---\n";
        let fm = hooks(md.as_bytes()).expect("ok").expect("hooks");
        assert_eq!(fm.hooks["b"], Value::Null);
    }
}
