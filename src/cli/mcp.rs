//! `hookscope mcp [PATH...]`: an MCP server on stdio exposing `find_tool_calls`
//! and hookscope's extensions `count_tool_calls`, `hook_payload` and `replay_hook`
//! (see [`hookscope_core::mcp`] for its schema and semantics).
//!
//! The protocol (JSON-RPC framing, `initialize` negotiation, `tools/list`,
//! `tools/call`) is rmcp's; this file implements rmcp's [`ServerHandler`] by
//! hand with the library's hand-written JSON schema, and runs it on a
//! single-threaded tokio runtime. The query itself runs on tokio's blocking
//! pool (it is CPU-bound and parallel through rayon), one query at a time.
//!
//! rmcp does not read stdin itself: [`relay`] does, answers the lines rmcp
//! would drop or answer without an id (JSON-RPC -32700 / -32600 / -32602,
//! see [`hookscope_core::mcp::lines`]), forwards the rest over an in-memory pipe,
//! and at stdin's end waits until every forwarded request is answered.
//!
//! stdout carries only protocol messages; diagnostics go to stderr.

use std::path::PathBuf;
use std::sync::Arc;

use hookscope_core::mcp::lines::Incoming;
use hookscope_core::mcp::{
    self, Library, TOOL_DESCRIPTION, TOOL_NAME, TOOL_NAMES, TOOL_TITLE, ToolOutput, input_schema,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientJsonRpcMessage, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use super::fail;

/// Runs the server until the client closes stdin and every request read
/// has been answered. Exits 2 on a bad PATH or when the runtime cannot
/// start, 1 when the session ends with an error.
///
/// `find_tool_calls` answers from the persisted index ([`super::index`])
/// unless `no_index` (`--no-index`, `HOOKSCOPE_NO_INDEX=1`).
pub fn run(paths: &[PathBuf], no_index: bool) {
    let source = Library::checked(paths)
        .unwrap_or_else(|e| fail(e))
        .with_cache();
    let source = source.with_default_index(no_index);
    super::index::notices(&source);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(format!("cannot start the async runtime: {e}")));
    let result = runtime.block_on(async {
        // rmcp speaks to one end of an in-memory pipe; `relay` sits between
        // it and stdin/stdout (see its doc).
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let service = FindToolCallsServer::new(source).serve(theirs);
        let relay = relay(ours);
        let (service, relayed) = tokio::join!(service, relay);
        relayed.map_err(|e| format!("stdio failed: {e}"))?;
        let service = service.map_err(|e| format!("MCP initialization failed: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| format!("MCP server stopped: {e}"))
    });
    // A stdin read still blocked in tokio's pool (after rmcp stopped early)
    // must not keep the process alive.
    runtime.shutdown_background();
    if let Err(message) = result {
        errln!("hookscope: {message}");
        std::process::exit(1);
    }
}

/// The largest stdin line passed on (16 MiB less its newline: rmcp's own
/// line limit, past which its transport stops); a longer one is answered
/// with an Invalid Request error (`-32600`, the limit said) and skipped, and
/// the server goes on with the next line.
const MAX_LINE: usize = (16 << 20) - 1;

/// What the stdin reader tells the writer.
enum Event {
    /// Write this line to stdout (an error reply made without rmcp).
    Reply(Value),
    /// A request with this id went to rmcp: wait for its answer.
    Forwarded(String),
    /// A `notifications/cancelled` went to rmcp: this id is not answered.
    Cancelled(String),
    /// stdin ended.
    Eof,
}

/// Moves lines between stdin/stdout and rmcp (at `rmcp`): each stdin line is
/// classified by [`mcp::lines::classify`] (unparsable JSON, a malformed
/// request or bad `tools/call` params are answered here, since rmcp drops
/// or answers them without their id), the rest is forwarded; everything
/// rmcp writes goes to stdout. At stdin's end it keeps relaying until
/// every forwarded request has its response (rmcp alone gives in-flight
/// handlers 5 s, then drops them), then closes rmcp's input so it stops.
async fn relay(rmcp: tokio::io::DuplexStream) -> std::io::Result<()> {
    use std::collections::HashMap;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (from_rmcp, mut to_rmcp) = tokio::io::split(rmcp);
    let (events, mut inbox) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let reader = tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        loop {
            let line = match read_line(&mut stdin).await {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    errln!("hookscope: cannot read stdin: {e}");
                    break;
                }
            };
            let line = match line {
                Line::Whole(line) => line,
                Line::TooLong => {
                    let reply = mcp::lines::error_response(
                        Value::Null,
                        mcp::lines::INVALID_REQUEST,
                        &format!(
                            "Invalid Request: the line is longer than {MAX_LINE} bytes (16 MiB with its newline), the most this server reads; it was skipped"
                        ),
                    );
                    let _ = events.send(Event::Reply(reply));
                    continue;
                }
            };
            let (request_id, cancels) = match mcp::lines::classify(&line) {
                Incoming::Blank => continue,
                Incoming::Reply(reply) => {
                    let _ = events.send(Event::Reply(reply));
                    continue;
                }
                Incoming::Forward {
                    request_id,
                    cancels,
                } => (request_id, cancels),
            };
            // A request rmcp's own types refuse would get an Invalid
            // Request with no id: answer it here, with its id.
            if let Some(id) = &request_id
                && let Err(e) = serde_json::from_slice::<ClientJsonRpcMessage>(&line)
            {
                let reply = mcp::lines::error_response(
                    id.clone(),
                    mcp::lines::INVALID_PARAMS,
                    &format!("Invalid params: {e}"),
                );
                let _ = events.send(Event::Reply(reply));
                continue;
            }
            if let Some(id) = request_id {
                let _ = events.send(Event::Forwarded(id.to_string()));
            }
            if let Some(id) = cancels {
                let _ = events.send(Event::Cancelled(id.to_string()));
            }
            let mut framed = line;
            framed.push(b'\n');
            if to_rmcp.write_all(&framed).await.is_err() {
                break;
            }
        }
        let _ = events.send(Event::Eof);
        to_rmcp
    });

    let mut stdout = tokio::io::stdout();
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut pending: HashMap<String, usize> = HashMap::new();
    let mut stdin_done = false;
    let mut rmcp_line = Vec::new();
    let mut rmcp_open = true;
    loop {
        if stdin_done && pending.is_empty() {
            break;
        }
        tokio::select! {
            // Events first: a request's Forwarded is sent before its line
            // reaches rmcp, so it is counted before its answer is read.
            biased;
            event = inbox.recv(), if !stdin_done => match event {
                Some(Event::Reply(reply)) => {
                    write_line(&mut stdout, reply.to_string().as_bytes()).await?;
                }
                Some(Event::Forwarded(id)) => *pending.entry(id).or_default() += 1,
                Some(Event::Cancelled(id)) => settle(&mut pending, &id),
                Some(Event::Eof) | None => stdin_done = true,
            },
            read = from_rmcp.read_until(b'\n', &mut rmcp_line) => {
                if read? == 0 {
                    // rmcp stopped (e.g. a failed handshake): nothing more
                    // will be answered.
                    rmcp_open = false;
                    break;
                }
                if let Ok(message) = serde_json::from_slice::<Value>(&rmcp_line)
                    && (message.get("result").is_some() || message.get("error").is_some())
                    && let Some(id) = message.get("id")
                {
                    settle(&mut pending, &id.to_string());
                }
                let text = rmcp_line.strip_suffix(b"\n").unwrap_or(&rmcp_line);
                write_line(&mut stdout, text).await?;
                rmcp_line.clear();
            }
        }
    }
    if !rmcp_open {
        // The reader may wait on stdin forever; `run` does not wait for it.
        reader.abort();
        return Ok(());
    }
    // Every request is answered: end rmcp's input so that it stops, and pass
    // on whatever it still writes.
    if let Ok(mut to_rmcp) = reader.await {
        let _ = to_rmcp.shutdown().await;
    }
    loop {
        rmcp_line.clear();
        if from_rmcp.read_until(b'\n', &mut rmcp_line).await? == 0 {
            break;
        }
        let text = rmcp_line.strip_suffix(b"\n").unwrap_or(&rmcp_line);
        write_line(&mut stdout, text).await?;
    }
    Ok(())
}

/// One answered (or cancelled) request off the count.
fn settle(pending: &mut std::collections::HashMap<String, usize>, id: &str) {
    if let Some(count) = pending.get_mut(id) {
        *count -= 1;
        if *count == 0 {
            pending.remove(id);
        }
    }
}

/// A stdin line, or one longer than [`MAX_LINE`] (skipped to its end).
enum Line {
    Whole(Vec<u8>),
    TooLong,
}

/// Reads one `\n`-terminated line (the last one may lack it), without the
/// `\n` and a `\r` before it; `None` at the end of input.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    input: &mut R,
) -> std::io::Result<Option<Line>> {
    use tokio::io::AsyncBufReadExt;
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            if line.is_empty() && !too_long {
                return Ok(None);
            }
            break;
        }
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    if too_long {
        return Ok(Some(Line::TooLong));
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(Line::Whole(line)))
}

/// Writes `text` and `\n` to stdout and flushes.
async fn write_line(out: &mut tokio::io::Stdout, text: &[u8]) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    out.write_all(text).await?;
    out.write_all(b"\n").await?;
    out.flush().await
}

/// The MCP server: `find_tool_calls` and hookscope's extensions
/// ([`TOOL_NAMES`]), sessions discovered again on each call.
#[derive(Debug, Clone)]
struct FindToolCallsServer {
    source: Arc<Library>,
    /// `find_tool_calls`, then hookscope's `count_tool_calls`, `hook_payload`
    /// and `replay_hook`.
    tools: Vec<Tool>,
    /// One query at a time: each is parallel through rayon already, and
    /// hundreds of concurrent ones nest rayon jobs on its workers' stacks
    /// until one overflows (300 pipelined calls crashed the server).
    queries: Arc<tokio::sync::Semaphore>,
}

impl FindToolCallsServer {
    fn new(source: Library) -> Self {
        let mut tool = Tool::new(TOOL_NAME, TOOL_DESCRIPTION, input_schema());
        tool.title = Some(TOOL_TITLE.to_string());
        tool.annotations = Some(
            ToolAnnotations::with_title(TOOL_TITLE)
                .read_only(true)
                .open_world(false),
        );
        let extension = |name: &str, title: &str, description: &str, schema| {
            let mut t = Tool::new(name.to_string(), description.to_string(), schema);
            t.title = Some(title.to_string());
            t.annotations = Some(
                ToolAnnotations::with_title(title)
                    .read_only(true)
                    .open_world(false),
            );
            t
        };
        let tools = vec![
            tool,
            extension(
                mcp::COUNT_TOOL,
                mcp::COUNT_TITLE,
                mcp::COUNT_DESCRIPTION,
                mcp::count_schema(),
            ),
            extension(
                mcp::hooks::HOOK_PAYLOAD,
                "Rebuild a hook payload",
                mcp::hooks::HOOK_PAYLOAD_DESCRIPTION,
                mcp::hooks::hook_payload_schema(),
            ),
            extension(
                mcp::hooks::REPLAY_HOOK,
                "Replay a hook event through a rule set",
                mcp::hooks::REPLAY_HOOK_DESCRIPTION,
                mcp::hooks::replay_hook_schema(),
            ),
        ];
        FindToolCallsServer {
            source: Arc::new(source),
            tools,
            queries: Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }

    /// Discovers sessions and runs the query (blocking; call off the runtime).
    fn call(source: &Library, name: &str, arguments: &Value) -> CallToolResult {
        let out = mcp::call_tool(source, name, arguments, chrono::Utc::now())
            .unwrap_or_else(|| ToolOutput::Failed(format!("unknown tool: {name}")));
        match out {
            ToolOutput::Found { value, warnings } => {
                for warning in &warnings {
                    errln!("hookscope: {warning}");
                }
                CallToolResult::structured(value)
            }
            // docs/tool-calls.md#the-find-query: the invalid_argument object is the tool's answer, not
            // a failure of the call, so it goes out as a normal result.
            ToolOutput::InvalidArgument(value) => CallToolResult::structured(value),
            failed @ ToolOutput::Failed(_) => {
                let value = failed.value();
                errln!("hookscope: {}", value["message"]);
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
                "Query the tool-call history of AI coding-agent sessions with find_tool_calls, or count it (count_tool_calls, per tool, session, day, agent or error); rebuild a hook payload (hook_payload) or replay a hook event through a rule set (replay_hook).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !TOOL_NAMES.contains(&request.name.as_ref()) {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool: {} (this server has {})",
                    request.name,
                    TOOL_NAMES.join(", ")
                ),
                None,
            ));
        }
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let source = Arc::clone(&self.source);
        let _turn = self
            .queries
            .acquire()
            .await
            .map_err(|e| ErrorData::internal_error(format!("the query failed: {e}"), None))?;
        let name = request.name.to_string();
        let result = tokio::task::spawn_blocking(move || Self::call(&source, &name, &arguments))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the query failed: {e}"), None))?;
        Ok(result.into())
    }
}
