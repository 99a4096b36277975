//! A JSON value pretty-printed (two-space indent) as styled lines.

use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::tui::theme::Theme;

/// The value pretty-printed, keys and literals styled.
pub fn lines(value: &Value, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    emit(value, 0, None, false, theme, &mut out);
    out
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn emit(
    value: &Value,
    indent: usize,
    key: Option<&str>,
    comma: bool,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    let pad = "  ".repeat(indent);
    let mut head = vec![Span::raw(pad.clone())];
    if let Some(k) = key {
        head.push(Span::styled(quoted(k), theme.json_key()));
        head.push(Span::raw(": "));
    }
    let tail = if comma { "," } else { "" };
    match value {
        Value::Object(map) if !map.is_empty() => {
            head.push(Span::raw("{"));
            out.push(Line::from(head));
            let n = map.len();
            for (i, (k, v)) in map.iter().enumerate() {
                emit(v, indent + 1, Some(k), i + 1 < n, theme, out);
            }
            out.push(Line::from(format!("{pad}}}{tail}")));
        }
        Value::Array(items) if !items.is_empty() => {
            head.push(Span::raw("["));
            out.push(Line::from(head));
            let n = items.len();
            for (i, v) in items.iter().enumerate() {
                emit(v, indent + 1, None, i + 1 < n, theme, out);
            }
            out.push(Line::from(format!("{pad}]{tail}")));
        }
        scalar => {
            let (text, style) = match scalar {
                Value::String(s) => (quoted(s), theme.json_string()),
                Value::Object(_) => ("{}".to_string(), theme.json_literal()),
                Value::Array(_) => ("[]".to_string(), theme.json_literal()),
                other => (other.to_string(), theme.json_literal()),
            };
            head.push(Span::styled(text, style));
            head.push(Span::raw(tail));
            out.push(Line::from(head));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_prints() {
        let v = serde_json::json!({"a": [1, "x"], "b": {}, "c": null});
        let text: Vec<String> = lines(&v, &Theme { color: false })
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(
            text,
            vec![
                "{",
                "  \"a\": [",
                "    1,",
                "    \"x\"",
                "  ],",
                "  \"b\": {},",
                "  \"c\": null",
                "}"
            ]
        );
    }
}
