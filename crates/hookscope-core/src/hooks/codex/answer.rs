//! What a Codex hook prints for a rule set's combined result: the live
//! hook's answer under `--agent codex` (docs/live-hook.md#agents), written
//! for Codex's reader ([`super::reduce::read_answer`], openai/codex
//! `codex-rs/hooks/src/engine/output_parser.rs` and `events/*.rs`), never
//! Claude Code's tables ([`crate::hooks::result::hook_output`]).
//!
//! Per event (exit 0 and one JSON object, or nothing):
//!
//! | event | block | rewrite | warn, context | allow |
//! |---|---|---|---|---|
//! | PreToolUse | `permissionDecision: "deny"` + reason | `"allow"` + `updatedInput` | `additionalContext` | nothing |
//! | PermissionRequest | `decision.behavior: "deny"` + `message` | `behavior: "allow"` (input kept) | nothing | `behavior: "allow"` |
//! | PostToolUse | `decision: "block"` + `reason` | nothing | `additionalContext` | nothing |
//! | UserPromptSubmit | `decision: "block"` + `reason` | nothing | `additionalContext` | nothing |
//! | Stop | `decision: "block"` + `reason` | nothing | nothing | nothing |
//! | SessionStart | nothing | nothing | `additionalContext` | nothing |
//!
//! What Codex cannot take is left out and said in [`HookOutput::notes`]:
//! Codex has no PreToolUse allow without `updatedInput` (an `allow` or a
//! `warn` does not pre-approve the call there), refuses `updatedInput` on a
//! PermissionRequest, and reads nothing from other events' JSON. A block
//! always carries a non-empty reason (Codex refuses a block without one):
//! the rule's reason, else `blocked by a hookscope rule`. `systemMessage`
//! is printed on every event (shown to the user as a warning).

use serde_json::{Map, Value, json};

use crate::hooks::result::{Action, HookOutput, HookResult};

/// The reason a block carries when its rule gave none.
const NO_REASON: &str = "blocked by a hookscope rule";

/// Rewrites `evaluation`'s output and outcome for Codex: the answer
/// [`hook_output`] writes for its combined result (nothing when no rule
/// matched), read back as Codex reads it
/// ([`super::reduce::read_answer`]). The live hook's `--agent codex` and
/// the replay of a Codex session both answer through it.
pub fn answer_in_codex(evaluation: &mut crate::hooks::rules::Evaluation) {
    let event = evaluation.event.as_str().to_string();
    evaluation.output = evaluation
        .combined
        .result
        .as_ref()
        .map_or_else(HookOutput::empty, |r| hook_output(&event, r));
    let out = &evaluation.output;
    let stdout = out
        .stdout
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default();
    evaluation.outcome = super::reduce::read_answer(
        &event,
        Some(out.exit_code),
        &stdout,
        out.stderr.as_deref().unwrap_or_default(),
    )
    .0;
}

/// The Codex answer to `event` for `result` (module docs).
pub fn hook_output(event: &str, result: &HookResult) -> HookOutput {
    let mut out = HookOutput::empty();
    let mut top = Map::new();
    let mut specific = Map::new();
    let reason = result
        .message
        .clone()
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| NO_REASON.to_string());
    // What the model is told beside the verdict.
    let context = match result.action {
        Action::Warn => result.message.clone(),
        Action::Rewrite | Action::Allow | Action::Block => result.note.clone(),
    };
    let takes_context = matches!(
        event,
        "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "SessionStart"
    );
    match (event, result.action) {
        ("PreToolUse", Action::Block) => {
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert("permissionDecisionReason".into(), json!(reason));
        }
        ("PreToolUse", Action::Rewrite) => match &result.updated_input {
            Some(u) => {
                specific.insert("permissionDecision".into(), json!("allow"));
                specific.insert("updatedInput".into(), u.clone());
            }
            None => out
                .notes
                .push("rewrite without updated_input: nothing to send".into()),
        },
        ("PreToolUse", Action::Allow) => out.notes.push(
            "Codex takes no PreToolUse allow without updatedInput: the call is asked about as usual"
                .into(),
        ),
        ("PreToolUse", Action::Warn) if result.approve => out.notes.push(
            "Codex cannot pre-approve a call from a hook: the warning is context only".into(),
        ),
        ("PermissionRequest", Action::Block) => {
            specific.insert(
                "decision".into(),
                json!({"behavior": "deny", "message": reason}),
            );
        }
        ("PermissionRequest", Action::Allow | Action::Rewrite) => {
            specific.insert("decision".into(), json!({"behavior": "allow"}));
            if result.action == Action::Rewrite {
                out.notes.push(
                    "Codex refuses updatedInput on PermissionRequest: approved with the input unchanged"
                        .into(),
                );
            }
        }
        ("PostToolUse" | "UserPromptSubmit" | "Stop", Action::Block) => {
            top.insert("decision".into(), json!("block"));
            top.insert("reason".into(), json!(reason));
        }
        (_, Action::Block) => out.notes.push(format!(
            "{event} cannot be blocked by a Codex hook: the block has no effect"
        )),
        (_, Action::Rewrite) => out.notes.push(format!(
            "{event} takes no updatedInput in Codex: the rewrite has no effect"
        )),
        _ => {}
    }
    if let Some(ctx) = context.filter(|c| !c.trim().is_empty()) {
        if takes_context {
            specific.insert("additionalContext".into(), json!(ctx));
        } else if result.action == Action::Warn {
            out.notes.push(format!(
                "{event} takes no additionalContext in Codex: the warning reaches no one"
            ));
        }
    }
    if let Some(sm) = &result.system_message {
        top.insert("systemMessage".into(), json!(sm));
    }
    if !specific.is_empty() {
        specific.insert("hookEventName".into(), json!(event));
        top.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    if !top.is_empty() {
        out.stdout = Some(Value::Object(top));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::codex::reduce::read_answer;
    use crate::hooks::result::Effect;

    fn result(action: Action, message: Option<&str>) -> HookResult {
        HookResult::of(action, message)
    }

    /// Reads `out` back as Codex does: the effect, what the model sees,
    /// and whether Codex counts the run as failed.
    fn codex_reads(event: &str, out: &HookOutput) -> (Effect, Option<String>, bool) {
        let stdout = out
            .stdout
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default();
        let stderr = out.stderr.clone().unwrap_or_default();
        let (o, failed) = read_answer(event, Some(out.exit_code), &stdout, &stderr);
        (o.effect, o.model_sees, failed)
    }

    #[test]
    fn a_block_is_read_by_codex_as_a_block_on_every_blockable_event() {
        for event in [
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "UserPromptSubmit",
            "Stop",
        ] {
            let out = hook_output(event, &result(Action::Block, Some("no rm -rf")));
            assert_eq!(
                codex_reads(event, &out),
                (Effect::Blocked, Some("no rm -rf".to_string()), false),
                "{event}: {:?}",
                out.stdout
            );
        }
        // Without a reason, Codex would refuse the block: one is supplied.
        let out = hook_output("Stop", &result(Action::Block, None));
        assert_eq!(
            codex_reads("Stop", &out),
            (Effect::Blocked, Some(NO_REASON.to_string()), false)
        );
    }

    #[test]
    fn a_rewrite_is_an_allow_with_updated_input() {
        let mut r = result(Action::Rewrite, None);
        r.updated_input = Some(json!({"command": "git push --force-with-lease"}));
        let out = hook_output("PreToolUse", &r);
        assert_eq!(
            out.stdout,
            Some(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {"command": "git push --force-with-lease"}}}))
        );
        let stdout = out
            .stdout
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default();
        let (o, failed) = read_answer("PreToolUse", Some(0), &stdout, "");
        assert_eq!((o.effect, failed), (Effect::InputRewritten, false));
        assert_eq!(o.updated_input, r.updated_input);
    }

    #[test]
    fn context_and_warnings_are_additional_context_where_codex_takes_it() {
        for event in [
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "SessionStart",
        ] {
            let out = hook_output(event, &result(Action::Warn, Some("run make deploy")));
            assert_eq!(
                codex_reads(event, &out),
                (
                    Effect::ContextAdded,
                    Some("run make deploy".to_string()),
                    false
                ),
                "{event}"
            );
        }
        // Stop has no additionalContext: nothing is printed, and it is said.
        let out = hook_output("Stop", &result(Action::Warn, Some("x")));
        assert_eq!(out.stdout, None);
        assert_eq!(
            out.notes,
            vec!["Stop takes no additionalContext in Codex: the warning reaches no one"]
        );
    }

    #[test]
    fn what_codex_cannot_take_is_left_out_and_said() {
        // A PreToolUse allow alone is invalid in Codex: nothing is printed.
        let out = hook_output("PreToolUse", &result(Action::Allow, None));
        assert_eq!((out.stdout.clone(), out.exit_code), (None, 0));
        assert_eq!(
            codex_reads("PreToolUse", &out),
            (Effect::Nothing, None, false)
        );
        assert!(out.notes[0].starts_with("Codex takes no PreToolUse allow"));
        // A PermissionRequest rewrite approves with the input unchanged.
        let mut r = result(Action::Rewrite, None);
        r.updated_input = Some(json!({"command": "ls"}));
        let out = hook_output("PermissionRequest", &r);
        assert_eq!(
            codex_reads("PermissionRequest", &out),
            (Effect::Allowed, None, false)
        );
        assert!(out.notes[0].starts_with("Codex refuses updatedInput"));
        // SessionStart cannot be blocked.
        let out = hook_output("SessionStart", &result(Action::Block, Some("x")));
        assert_eq!(out.stdout, None);
        assert_eq!(
            out.notes,
            vec!["SessionStart cannot be blocked by a Codex hook: the block has no effect"]
        );
    }
}
