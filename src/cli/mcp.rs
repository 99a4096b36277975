//! `hookscope mcp [PATH...]`: an MCP server on stdio exposing one tool,
//! `find_tool_calls` (see [`hookscope::mcp`] for its schema and semantics).
//!
//! The protocol (JSON-RPC framing, `initialize` negotiation, `tools/list`,
//! `tools/call`) is rmcp's; this file implements rmcp's [`ServerHandler`] by
//! hand with the library's hand-written JSON schema, and runs it on a
//! single-threaded tokio runtime. The query itself runs on tokio's blocking
//! pool (it is CPU-bound and parallel through rayon).
//!
//! stdout carries only protocol messages; diagnostics go to stderr.

use std::path::PathBuf;
use std::sync::Arc;

use hookscope::mcp::{
    self, SessionSource, TOOL_DESCRIPTION, TOOL_NAME, TOOL_TITLE, ToolOutput, input_schema,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use super::fail;

/// Runs the server until the client closes stdin. Exits 2 on a bad PATH or
/// when the runtime cannot start, 1 when the session ends with an error.
pub fn run(paths: &[PathBuf]) {
    let source = SessionSource::new(paths).unwrap_or_else(|e| fail(e));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(format!("cannot start the async runtime: {e}")));
    let result = runtime.block_on(async {
        let service = FindToolCallsServer::new(source)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP initialization failed: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| format!("MCP server stopped: {e}"))
    });
    if let Err(message) = result {
        eprintln!("hookscope: {message}");
        std::process::exit(1);
    }
}

/// The MCP server: one tool, sessions discovered again on each call.
#[derive(Debug, Clone)]
struct FindToolCallsServer {
    source: Arc<SessionSource>,
    tool: Tool,
}

impl FindToolCallsServer {
    fn new(source: SessionSource) -> Self {
        let mut tool = Tool::new(TOOL_NAME, TOOL_DESCRIPTION, input_schema());
        tool.title = Some(TOOL_TITLE.to_string());
        tool.annotations = Some(
            ToolAnnotations::with_title(TOOL_TITLE)
                .read_only(true)
                .open_world(false),
        );
        FindToolCallsServer {
            source: Arc::new(source),
            tool,
        }
    }

    /// Discovers sessions and runs the query (blocking; call off the runtime).
    fn call(source: &SessionSource, arguments: &Value) -> CallToolResult {
        match mcp::call(source, arguments, chrono::Utc::now()) {
            ToolOutput::Found { value, warnings } => {
                for warning in &warnings {
                    eprintln!("hookscope: {warning}");
                }
                CallToolResult::structured(value)
            }
            // Seed 004: the invalid_argument object is the tool's answer, not
            // a failure of the call, so it goes out as a normal result.
            ToolOutput::InvalidArgument(value) => CallToolResult::structured(value),
            failed @ ToolOutput::Failed(_) => {
                let value = failed.value();
                eprintln!("hookscope: {}", value["message"]);
                CallToolResult::structured_error(value)
            }
        }
    }
}

impl ServerHandler for FindToolCallsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hookscope", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Query the tool-call history of AI coding-agent sessions with find_tool_calls.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == TOOL_NAME).then(|| self.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool: {} (this server has {TOOL_NAME})",
                    request.name
                ),
                None,
            ));
        }
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let source = Arc::clone(&self.source);
        let result = tokio::task::spawn_blocking(move || Self::call(&source, &arguments))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the query failed: {e}"), None))?;
        Ok(result.into())
    }
}
