// TEMPORARY placeholder until wt-tools lands (not committed).
use serde_json::Value;
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolKind {
    Edit,
    Write,
    Read,
    Bash,
    Task,
    Skill,
    Mcp,
    Web,
    Other,
}
impl ToolKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Edit => "edit",
            ToolKind::Write => "write",
            ToolKind::Read => "read",
            ToolKind::Bash => "bash",
            ToolKind::Task => "task",
            ToolKind::Skill => "skill",
            ToolKind::Mcp => "mcp",
            ToolKind::Web => "web",
            ToolKind::Other => "other",
        }
    }
}
pub enum OnError {
    Raise,
    Other,
}
#[derive(Debug)]
pub struct ToolInputError(pub String);
impl std::fmt::Display for ToolInputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    name: String,
    raw: Option<Value>,
}
impl ToolCall {
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn raw(&self) -> Option<&Value> {
        self.raw.as_ref()
    }
}
pub fn parse_tool_call(
    name: &str,
    input: Option<&Value>,
    _o: OnError,
) -> Result<ToolCall, ToolInputError> {
    Ok(ToolCall {
        name: name.into(),
        raw: input.cloned(),
    })
}
pub fn tool_kind(name: &str, _i: Option<&Value>) -> ToolKind {
    match name.to_lowercase().as_str() {
        "task" | "agent" => ToolKind::Task,
        "bash" => ToolKind::Bash,
        "edit" | "multiedit" => ToolKind::Edit,
        "write" => ToolKind::Write,
        "read" => ToolKind::Read,
        _ => ToolKind::Other,
    }
}
pub fn tool_resolved(_n: &str, _i: Option<&Value>) -> Option<String> {
    None
}
pub fn tool_digest(_n: &str, _i: Option<&Value>) -> Result<String, ToolInputError> {
    Ok(String::new())
}
pub fn file_path_of(c: &ToolCall) -> Option<&str> {
    c.raw()
        .and_then(|r| r.get("file_path"))
        .and_then(Value::as_str)
}
