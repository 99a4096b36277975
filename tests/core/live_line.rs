//! `transcript::live_line`: what `hookscope tail` prints per item, one typed
//! value for `--json` and the text. On the real `tools` session (2.1.332),
//! whose Bash call echoes fake secrets (AWS's example key, a `ghp_…` token,
//! an `sk-ant-…` key): both forms are masked, because the value is.

use hookscope_core::transcript::claude_code;
use hookscope_core::transcript::follow::{LiveKind, items_of};
use hookscope_core::transcript::live_line::LiveLine;
use serde_json::json;

use crate::support::package_path;

const TOOLS: &str = "tests/corpus/real-cc-2.1.332/tools/projects/-home-dev-work-tools/e71e9aa1-2571-47ab-8bf7-9e6efaaedfff.jsonl";
const SECRETS: &str = "toolu_01P4Hgl5wzxwZ0mZhViiKAAe";

#[test]
fn a_call_and_its_result_are_masked_in_the_json_and_the_text() {
    let path = package_path(TOOLS);
    let session = claude_code::load_session(&path, &[]).expect("loads");
    let items = items_of(&session);
    let of = |want_result: bool| {
        items
            .iter()
            .find(|i| match &i.kind {
                LiveKind::Call(r) => !want_result && r.tool_use_id == SECRETS,
                LiveKind::Result(r) => want_result && r.tool_use_id == SECRETS,
                _ => false,
            })
            .map(|i| LiveLine::of_item(&session, i))
            .expect("the item")
    };

    let call = of(false);
    let v = serde_json::to_value(&call).expect("json");
    assert_eq!(v["type"], "call");
    assert_eq!(v["name"], "Bash");
    assert_eq!(v["tool_kind"], "bash");
    assert_eq!(v["agent"], "claude-code");
    assert_eq!(v["agent_id"], json!(null));
    assert_eq!(v["path"], path.to_string_lossy().as_ref());
    assert!(v.get("shown").is_none() && v.get("prefix").is_none());
    let summary = v["summary"].as_str().expect("summary");
    assert!(summary.contains("[REDACTED_AWS_KEY]"), "{summary}");
    assert!(!summary.contains("AKIAIOSFODNN7EXAMPLE"), "{summary}");
    let text = call.text();
    assert!(
        text.contains("  e71e9aa1  → Bash  echo 'aws_access_key_id=[REDACTED_AWS_KEY]'"),
        "{text}"
    );
    assert!(!text.contains("AKIA"), "{text}");

    let result = of(true);
    let v = serde_json::to_value(&result).expect("json");
    assert_eq!(v["type"], "result");
    assert_eq!(v["is_error"], false);
    assert_eq!(
        v["output"],
        "aws_access_key_id=[REDACTED_AWS_KEY] token: [REDACTED_GITHUB_TOKEN] ANTHROPIC_API_KEY=[REDACTED_ANTHROPIC_KEY]"
    );
    let text = result.text();
    assert!(
        text.contains("  ← Bash  ok  aws_access_key_id=[REDACTED_AWS_KEY]"),
        "{text}"
    );
}
