//! Tree walk: tree-sitter-bash syntax tree → flat list of [`SimpleCall`]s.
//!
//! See the module docs of [`crate::shell`] for the ordering rules. Every
//! recursive function carries a `depth` (tree levels below the root) and stops
//! at [`MAX_NESTING`], so the walk is stack-safe on any input.

use std::collections::HashSet;

use tree_sitter::{Node, Parser};

use super::{
    CommandLine, EnvAssignment, MAX_CALLS, MAX_NESTING, MAX_PARSED_BYTES, Redirect, SimpleCall,
};

/// The part of `command` given to the parser, and how many bytes were left
/// out (see [`MAX_PARSED_BYTES`]).
pub(super) fn parsed_prefix(command: &str) -> (&str, Option<usize>) {
    if command.len() <= MAX_PARSED_BYTES {
        return (command, None);
    }
    let bytes = command.as_bytes();
    let is_op = |b: u8| matches!(b, b';' | b'&' | b'|');
    let window = bytes.get(..=MAX_PARSED_BYTES).unwrap_or(bytes);
    let boundary = window
        .iter()
        .rposition(|&b| b == b'\n' || is_op(b))
        .map(|mut i| {
            // Leave the whole operator out (`&&`, `||`, `;;`, `|&`).
            while i > 0 && bytes.get(i - 1).is_some_and(|&b| is_op(b)) {
                i -= 1;
            }
            i
        })
        .filter(|&i| i > 0);
    let cut = boundary.unwrap_or_else(|| {
        let mut i = MAX_PARSED_BYTES;
        while i > 0 && !command.is_char_boundary(i) {
            i -= 1;
        }
        i
    });
    let kept = command.get(..cut).unwrap_or("").trim_end();
    (kept, Some(command.len() - kept.len()))
}

/// Parse `command` and flatten it (the body of [`super::parse_command_line`]).
pub(super) fn parse(command: &str) -> CommandLine {
    let raw = command.to_string();
    let (command, truncated) = parsed_prefix(command);
    let mut parser = Parser::new();
    if let Err(err) = parser.set_language(&tree_sitter_bash::LANGUAGE.into()) {
        return CommandLine {
            raw,
            calls: Vec::new(),
            error: Some(format!(
                "tree-sitter-bash language could not be loaded: {err}"
            )),
            truncated,
            calls_capped: false,
            pipelines: Vec::new(),
        };
    }
    let Some(tree) = parser.parse(command, None) else {
        return CommandLine {
            raw,
            calls: Vec::new(),
            error: Some("tree-sitter produced no syntax tree at byte 0".to_string()),
            truncated,
            calls_capped: false,
            pipelines: Vec::new(),
        };
    };
    let root = tree.root_node();
    let mut walker = Walker {
        src: command.as_bytes(),
        items: Vec::new(),
        too_deep_at: None,
        capped: false,
        pipelines: Vec::new(),
        flattened: HashSet::new(),
    };
    walker.walk(root, 0, 0);

    // The last top-level call has no successor (unless calls were dropped
    // after it).
    if !walker.capped
        && let Some(last) = walker.items.iter_mut().rev().find(|item| item.level == 0)
    {
        last.call.operator = None;
    }

    let mut errors = Vec::new();
    if root.has_error()
        && let Some(message) = first_syntax_error(root, command.as_bytes())
    {
        errors.push(message);
    }
    if let Some(at) = walker.too_deep_at {
        errors.push(format!(
            "nesting deeper than {MAX_NESTING} syntax levels at byte {at}; commands below it were not extracted"
        ));
    }
    CommandLine {
        raw,
        calls: walker.items.into_iter().map(|item| item.call).collect(),
        error: if errors.is_empty() {
            None
        } else {
            Some(errors.join("; "))
        },
        truncated,
        calls_capped: walker.capped,
        pipelines: walker.pipelines,
    }
}

/// Describe the first ERROR or MISSING node in document order, iteratively.
fn first_syntax_error(root: Node, src: &[u8]) -> Option<String> {
    // Only descend into subtrees that contain an error.
    first_in_order(
        root,
        |n| n.has_error(),
        |node| {
            if node.is_missing() {
                return Some(format!(
                    "syntax error at byte {}: missing `{}`",
                    node.start_byte(),
                    node.kind()
                ));
            }
            if !node.is_error() {
                return None;
            }
            let text = snippet(text_of(src, node));
            Some(if text.is_empty() {
                format!("syntax error at byte {}", node.start_byte())
            } else {
                format!(
                    "syntax error at byte {}: cannot parse `{text}`",
                    node.start_byte()
                )
            })
        },
    )
}

/// The first `hit` of a node at or below `root` in document order,
/// descending only into nodes `descend` accepts. Iterative: a subtree can
/// be as deep as the line.
fn first_in_order<T>(
    root: Node,
    descend: impl Fn(&Node) -> bool,
    hit: impl Fn(Node) -> Option<T>,
) -> Option<T> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if let Some(found) = hit(node) {
            return Some(found);
        }
        if descend(&node) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// First line of `text`, at most 30 characters, for error messages.
fn snippet(text: String) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(30).collect();
    if out.len() < line.len() || line.len() < text.trim_end().len() {
        out.push('…');
    }
    out
}

/// Source text of `node` (lossy for the rare node that splits a character).
fn text_of(src: &[u8], node: Node) -> String {
    src.get(node.start_byte()..node.end_byte())
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        .unwrap_or_default()
}

/// Children of `node`; for a `list`, the left-nested chain
/// `list(list(a && b) || c)` is flattened to `a && b || c` without recursion,
/// so long `&&` chains do not count against [`MAX_NESTING`].
fn flat_children(node: Node) -> Vec<Node> {
    let mut segments = Vec::new();
    let mut current = node;
    loop {
        let kids = children(current);
        match kids.split_first() {
            Some((first, rest)) if current.kind() == "list" && first.kind() == "list" => {
                segments.push(rest.to_vec());
                current = *first;
            }
            _ => {
                segments.push(kids);
                break;
            }
        }
    }
    segments.into_iter().rev().flatten().collect()
}

/// The named children of `node`, last first (for a stack).
fn named_reversed(node: Node) -> Vec<Node> {
    let mut kids: Vec<Node> = children(node)
        .into_iter()
        .filter(|c| c.is_named())
        .collect();
    kids.reverse();
    kids
}

fn children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// A call plus the substitution level it was found at (0 = top level).
struct Item {
    call: SimpleCall,
    level: usize,
}

struct Walker<'s> {
    src: &'s [u8],
    items: Vec<Item>,
    /// Byte offset of the first node skipped for being nested too deeply.
    too_deep_at: Option<usize>,
    /// Set once [`MAX_CALLS`] calls are collected; later nodes are skipped.
    capped: bool,
    /// [`CommandLine::pipelines`], in the order they were met.
    pipelines: Vec<Vec<(usize, usize)>>,
    /// Ids of pipeline nodes already flattened into an enclosing one.
    flattened: HashSet<usize>,
}

/// Node kinds whose value the shell computes when it runs the line
/// ([`SimpleCall::expanded`]).
const EXPANSIONS: &[&str] = &[
    "simple_expansion",
    "expansion",
    "command_substitution",
    "process_substitution",
    "arithmetic_expansion",
];

/// Whether `node` or a node below it is one of [`EXPANSIONS`] (a
/// single-quoted string holds none).
fn has_expansion(node: Node) -> bool {
    first_in_order(
        node,
        |n| n.kind() != "raw_string",
        |n| EXPANSIONS.contains(&n.kind()).then_some(()),
    )
    .is_some()
}

/// Map an anonymous token to the list/pipeline operator it stands for.
fn operator_of(kind: &str) -> Option<&'static str> {
    match kind {
        ";" | ";;" | ";&" | ";;&" => Some(";"),
        "&" => Some("&"),
        "&&" => Some("&&"),
        "||" => Some("||"),
        "|" | "|&" => Some("|"),
        _ => None,
    }
}

impl Walker<'_> {
    fn text(&self, node: Node) -> String {
        text_of(self.src, node)
    }

    /// Returns false (and records the position) when `depth` is too deep.
    fn guard(&mut self, node: Node, depth: usize) -> bool {
        if self.capped {
            return false;
        }
        if depth > MAX_NESTING {
            if self.too_deep_at.is_none() {
                self.too_deep_at = Some(node.start_byte());
            }
            return false;
        }
        true
    }

    /// Walk any node; returns the index of the last call at `level` it emitted.
    fn walk(&mut self, node: Node, level: usize, depth: usize) -> Option<usize> {
        if !self.guard(node, depth) {
            return None;
        }
        match node.kind() {
            "command" => Some(self.command(node, level, depth)),
            "variable_assignment" | "variable_assignments" => {
                Some(self.assignments(node, level, depth))
            }
            "declaration_command" | "unset_command" => Some(self.declaration(node, level, depth)),
            "test_command" => Some(self.test_command(node, level, depth)),
            "redirected_statement" => self.redirected(node, level, depth),
            "pipeline" => {
                self.record_pipeline(node, None);
                self.sequence(node, level, depth, None)
            }
            "command_substitution" | "process_substitution" => {
                self.substitution(node, level, depth);
                None
            }
            "comment"
            | "heredoc_start"
            | "heredoc_end"
            | "heredoc_content"
            | "string_content"
            | "word"
            | "raw_string"
            | "ansi_c_string"
            | "number"
            | "variable_name"
            | "special_variable_name"
            | "file_descriptor"
            | "test_operator"
            | "regex"
            | "extglob_pattern" => None,
            _ => self.sequence(node, level, depth, None),
        }
    }

    /// Walk the children of a container in order, assigning operators: an
    /// operator token applies to the last call of the statement before it;
    /// two call-producing statements with no token between them (newline,
    /// `then`, `do`, …) are joined by `";"`. `prev` seeds the "statement
    /// before" (used for heredoc continuations such as `cat <<EOF | grep x`).
    fn sequence(
        &mut self,
        node: Node,
        level: usize,
        depth: usize,
        mut prev: Option<usize>,
    ) -> Option<usize> {
        let mut last = None;
        let mut op_since_prev = false;
        for child in flat_children(node) {
            if !child.is_named() {
                if let Some(op) = operator_of(child.kind()) {
                    if let Some(i) = prev {
                        self.set_operator(i, Some(op));
                    }
                    op_since_prev = true;
                }
                continue;
            }
            // A pipeline/list that starts with an operator token continues the
            // statement before it (tree-sitter-bash does this after heredocs).
            let continues = children(child)
                .first()
                .is_some_and(|first| !first.is_named() && operator_of(first.kind()).is_some());
            let emitted = if continues && self.guard(child, depth + 1) {
                self.record_pipeline(child, prev);
                self.sequence(child, level, depth + 1, prev)
            } else {
                self.walk(child, level, depth + 1)
            };
            match emitted {
                Some(i) => {
                    if let Some(p) = prev
                        && !op_since_prev
                        && !continues
                        && p != i
                    {
                        self.set_operator(p, Some(";"));
                    }
                    prev = Some(i);
                    last = Some(i);
                    op_since_prev = false;
                }
                None => {
                    if op_since_prev {
                        // The operator was consumed by a statement that runs no
                        // simple command (e.g. `(( i++ ))`).
                        prev = None;
                        op_since_prev = false;
                    }
                }
            }
        }
        last
    }

    /// Records `node`'s stages in [`Self::pipelines`] when it is a pipeline
    /// not already flattened into an enclosing one (see
    /// [`CommandLine::pipelines`]). A pipeline that starts with its `|`
    /// continues the statement whose last call is `prev`. Iterative.
    fn record_pipeline(&mut self, node: Node, prev: Option<usize>) {
        if node.kind() != "pipeline" || self.flattened.contains(&node.id()) {
            return;
        }
        let mut stages = Vec::new();
        let starts_with_pipe = children(node)
            .first()
            .is_some_and(|first| !first.is_named() && first.kind().starts_with('|'));
        if starts_with_pipe && let Some(item) = prev.and_then(|i| self.items.get(i)) {
            stages.push(item.call.span);
        }
        let mut stack = named_reversed(node);
        while let Some(stage) = stack.pop() {
            let body = (stage.kind() == "redirected_statement")
                .then(|| stage.child_by_field_name("body"))
                .flatten()
                .filter(|b| b.kind() == "pipeline");
            match (stage.kind(), body) {
                ("comment", _) => {}
                ("pipeline", _) => {
                    self.flattened.insert(stage.id());
                    stack.extend(named_reversed(stage));
                }
                (_, Some(inner)) => {
                    self.flattened.insert(inner.id());
                    stack.extend(named_reversed(inner));
                }
                _ => stages.push((stage.start_byte(), stage.end_byte())),
            }
        }
        if stages.len() >= 2 {
            self.pipelines.push(stages);
        }
    }

    fn set_operator(&mut self, index: usize, op: Option<&str>) {
        if let Some(item) = self.items.get_mut(index) {
            item.call.operator = op.map(str::to_string);
        }
    }

    /// `$( … )`, backticks, `<( … )`, `>( … )`: inner calls one level deeper,
    /// the last of them without operator.
    fn substitution(&mut self, node: Node, level: usize, depth: usize) {
        if let Some(last) = self.sequence(node, level + 1, depth + 1, None) {
            self.set_operator(last, None);
        }
    }

    /// Emit the calls of substitutions nested anywhere below `node` (and only
    /// those: assignments or words below it produce no calls of their own).
    fn substitutions_in(&mut self, node: Node, level: usize, depth: usize) {
        if !self.guard(node, depth) {
            return;
        }
        for child in children(node) {
            match child.kind() {
                "command_substitution" | "process_substitution" => {
                    self.substitution(child, level, depth + 1);
                }
                _ if child.is_named() && child.child_count() > 0 => {
                    self.substitutions_in(child, level, depth + 1);
                }
                _ => {}
            }
        }
    }

    /// Collect `call`; past [`MAX_CALLS`] it is dropped, the walker stops
    /// and the returned index (`usize::MAX`) names no item, so operator and
    /// redirect updates on it are no-ops.
    fn push(&mut self, call: SimpleCall, level: usize) -> usize {
        if self.items.len() >= MAX_CALLS {
            self.capped = true;
            return usize::MAX;
        }
        self.items.push(Item { call, level });
        self.items.len() - 1
    }

    fn new_call(node: Node) -> SimpleCall {
        SimpleCall {
            program: String::new(),
            args: Vec::new(),
            env: Vec::new(),
            redirects: Vec::new(),
            operator: None,
            span: (node.start_byte(), node.end_byte()),
            expanded: Vec::new(),
        }
    }

    fn command(&mut self, node: Node, level: usize, depth: usize) -> usize {
        self.substitutions_in(node, level, depth);
        let mut call = Self::new_call(node);
        let mut has_program = false;
        let kids = children(node);
        for (i, child) in kids.iter().enumerate() {
            let child = *child;
            match child.kind() {
                "variable_assignment" if !has_program => {
                    call.env.push(self.assignment(child, depth));
                }
                "file_redirect" | "herestring_redirect" => {
                    let (redirect, extra) = self.redirect(child, depth);
                    call.redirects.push(redirect);
                    add_words(&mut call, extra, has_expansion(child));
                }
                "command_name" => {
                    call.program = self.word(child, depth);
                    has_program = true;
                    if has_expansion(child) {
                        call.expanded.push(0);
                    }
                }
                "comment" => {}
                "$" if !child.is_named() => {
                    // `$"…"` (locale translation) is parsed as `$` + string:
                    // drop the `$` and let the string be the word.
                    let translated = kids.get(i + 1).is_some_and(|n| {
                        n.kind() == "string" && n.start_byte() == child.end_byte()
                    });
                    if !translated {
                        call.args.push(self.text(child));
                    }
                }
                _ => {
                    let word = self.word(child, depth);
                    let expanded = has_expansion(child);
                    if has_program {
                        add_words(&mut call, vec![word], expanded);
                    } else {
                        call.program = word;
                        has_program = true;
                        if expanded {
                            call.expanded.push(0);
                        }
                    }
                }
            }
        }
        self.push(call, level)
    }

    fn assignment(&self, node: Node, depth: usize) -> EnvAssignment {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n))
            .unwrap_or_default();
        let value = node
            .child_by_field_name("value")
            .map(|v| self.word(v, depth + 1))
            .unwrap_or_default();
        EnvAssignment { name, value }
    }

    fn assignments(&mut self, node: Node, level: usize, depth: usize) -> usize {
        self.substitutions_in(node, level, depth);
        let mut call = Self::new_call(node);
        if node.kind() == "variable_assignment" {
            call.env.push(self.assignment(node, depth));
        } else {
            for child in children(node) {
                if child.kind() == "variable_assignment" {
                    call.env.push(self.assignment(child, depth));
                }
            }
        }
        self.push(call, level)
    }

    /// `export`/`declare`/`local`/`readonly`/`typeset`/`unset`: the keyword is
    /// the program, every other word an argument.
    fn declaration(&mut self, node: Node, level: usize, depth: usize) -> usize {
        self.substitutions_in(node, level, depth);
        let mut call = Self::new_call(node);
        for child in children(node) {
            if child.kind() == "comment" {
                continue;
            }
            if call.program.is_empty() && !child.is_named() {
                call.program = self.text(child);
            } else {
                call.args.push(self.word(child, depth));
            }
        }
        self.push(call, level)
    }

    /// `[ … ]` / `[[ … ]]`: program is the opening bracket, args the flattened
    /// expression words and operators, then the closing bracket.
    fn test_command(&mut self, node: Node, level: usize, depth: usize) -> usize {
        self.substitutions_in(node, level, depth);
        let mut call = Self::new_call(node);
        for child in children(node) {
            if !child.is_named() && call.program.is_empty() {
                call.program = self.text(child);
            } else if child.is_named() {
                self.flatten_expression(child, depth + 1, &mut call.args);
            } else {
                call.args.push(self.text(child));
            }
        }
        self.push(call, level)
    }

    fn flatten_expression(&mut self, node: Node, depth: usize, out: &mut Vec<String>) {
        if !self.guard(node, depth) {
            return;
        }
        match node.kind() {
            "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "ternary_expression"
            | "postfix_expression"
            | "negated_command" => {
                for child in children(node) {
                    if child.is_named() {
                        self.flatten_expression(child, depth + 1, out);
                    } else {
                        out.push(self.text(child));
                    }
                }
            }
            _ => out.push(self.word(node, depth)),
        }
    }

    /// A redirected statement: substitutions in redirect targets and heredoc
    /// bodies first, then the body (whose top-level calls get the redirects),
    /// then any pipeline/list continuing after a heredoc operator.
    fn redirected(&mut self, node: Node, level: usize, depth: usize) -> Option<usize> {
        let body = node.child_by_field_name("body");
        let kids = children(node);
        let is_body = |n: &Node| body.is_some_and(|b| b.id() == n.id());

        // 1. substitutions inside redirects (not the heredoc continuation).
        for child in kids.iter().filter(|c| c.is_named() && !is_body(c)) {
            if child.kind() == "heredoc_redirect" {
                for part in children(*child) {
                    if matches!(
                        part.kind(),
                        "heredoc_body" | "file_redirect" | "herestring_redirect"
                    ) {
                        self.walk(part, level, depth + 2);
                    }
                }
            } else {
                self.walk(*child, level, depth + 1);
            }
        }

        // 2. the body.
        let start = self.items.len();
        let mut last = body.and_then(|b| self.walk(b, level, depth + 1));

        // 3. redirects onto the body's calls at this level.
        let mut redirects = Vec::new();
        let mut extra_args = Vec::new();
        for child in kids.iter().filter(|c| c.is_named() && !is_body(c)) {
            match child.kind() {
                "file_redirect" | "herestring_redirect" => {
                    let (redirect, extra) = self.redirect(*child, depth + 1);
                    redirects.push(redirect);
                    let expanded = has_expansion(*child);
                    extra_args.extend(extra.into_iter().map(|w| (w, expanded)));
                }
                "heredoc_redirect" => redirects.extend(self.heredoc(*child, depth + 1)),
                _ => {}
            }
        }
        // Bash binds a redirect to the last simple/compound command only, but
        // tree-sitter-bash sometimes wraps a whole pipeline or list
        // (`a | b > out`): narrow the target to its last element.
        let mut target = body;
        while let Some(node) = target.filter(|n| matches!(n.kind(), "pipeline" | "list")) {
            let Some(last_child) = children(node).into_iter().rev().find(|c| c.is_named()) else {
                break;
            };
            target = Some(last_child);
        }
        let (lo, hi) = target.map_or((0, usize::MAX), |t| (t.start_byte(), t.end_byte()));
        for item in self.items.iter_mut().skip(start) {
            if item.level == level && item.call.span.0 >= lo && item.call.span.1 <= hi {
                item.call.redirects.extend(redirects.iter().cloned());
            }
        }
        if let Some(i) = last
            && let Some(item) = self.items.get_mut(i)
        {
            for (word, expanded) in extra_args {
                add_words(&mut item.call, vec![word], expanded);
            }
        }

        // 4. `cat <<EOF | grep x && ls`: the continuation lives inside the
        //    heredoc_redirect node.
        for child in kids.iter().filter(|c| c.kind() == "heredoc_redirect") {
            if let Some(i) = self.heredoc_continuation(*child, level, depth + 1, last) {
                last = Some(i);
            }
        }
        last
    }

    fn heredoc_continuation(
        &mut self,
        node: Node,
        level: usize,
        depth: usize,
        mut prev: Option<usize>,
    ) -> Option<usize> {
        if !self.guard(node, depth) {
            return None;
        }
        let mut last = None;
        for child in children(node) {
            match child.kind() {
                "heredoc_start"
                | "heredoc_body"
                | "heredoc_end"
                | "file_redirect"
                | "herestring_redirect"
                | "file_descriptor"
                | "comment" => {}
                kind if !child.is_named() => {
                    if let (Some(op), Some(i)) = (operator_of(kind), prev) {
                        self.set_operator(i, Some(op));
                    }
                }
                _ => {
                    let emitted = self.sequence_or_walk(child, level, depth + 1, prev);
                    if emitted.is_some() {
                        prev = emitted;
                        last = emitted;
                    }
                }
            }
        }
        last
    }

    /// Walk `node`, but as a continuation of `prev` when it starts with an
    /// operator token.
    fn sequence_or_walk(
        &mut self,
        node: Node,
        level: usize,
        depth: usize,
        prev: Option<usize>,
    ) -> Option<usize> {
        let continues = children(node)
            .first()
            .is_some_and(|first| !first.is_named() && operator_of(first.kind()).is_some());
        if continues && self.guard(node, depth) {
            self.record_pipeline(node, prev);
            self.sequence(node, level, depth, prev)
        } else {
            self.walk(node, level, depth)
        }
    }

    /// `file_redirect` / `herestring_redirect` → the redirect plus any words
    /// tree-sitter folded into it after the target (`echo a >out b` → `b`).
    fn redirect(&self, node: Node, depth: usize) -> (Redirect, Vec<String>) {
        let mut redirect = Redirect {
            op: String::new(),
            target: String::new(),
            fd: None,
            body: None,
            delimiter: None,
        };
        if node.kind() == "herestring_redirect" {
            redirect.op = "<<<".to_string();
        }
        let mut have_target = false;
        let mut extra = Vec::new();
        for child in children(node) {
            match child.kind() {
                "file_descriptor" => redirect.fd = self.text(child).trim().parse().ok(),
                "ERROR" if !have_target => {
                    // `3<> f` is parsed as `<` + ERROR(`>`).
                    redirect.op.push_str(self.text(child).trim());
                }
                "ERROR" | "comment" => {}
                "<<<" => {}
                kind if !child.is_named() => {
                    if !have_target {
                        redirect.op.push_str(kind);
                    }
                }
                _ => {
                    let word = self.word(child, depth + 1);
                    if have_target {
                        extra.push(word);
                    } else {
                        redirect.target = word;
                        have_target = true;
                    }
                }
            }
        }
        (redirect, extra)
    }

    /// A `heredoc_redirect` → the heredoc itself plus redirects written after
    /// its delimiter (`cat <<EOF > out`).
    fn heredoc(&self, node: Node, depth: usize) -> Vec<Redirect> {
        let mut heredoc = Redirect {
            op: String::new(),
            target: String::new(),
            fd: None,
            body: None,
            delimiter: None,
        };
        let mut more = Vec::new();
        for child in children(node) {
            match child.kind() {
                "<<" | "<<-" if !child.is_named() && heredoc.op.is_empty() => {
                    heredoc.op = child.kind().to_string();
                }
                "file_descriptor" => heredoc.fd = self.text(child).trim().parse().ok(),
                "heredoc_start" => {
                    let written = self.text(child);
                    heredoc.target = delimiter(&written);
                    heredoc.delimiter = Some(written.trim().to_string());
                }
                "heredoc_body" => heredoc.body = Some(self.text(child)),
                "file_redirect" | "herestring_redirect" => {
                    more.push(self.redirect(child, depth + 1).0);
                }
                _ => {}
            }
        }
        if heredoc.op.is_empty() {
            heredoc.op = "<<".to_string();
        }
        let mut out = vec![heredoc];
        out.extend(more);
        out
    }

    /// A word-like node's value with quoting removed (see [`SimpleCall`]).
    fn word(&self, node: Node, depth: usize) -> String {
        if depth > MAX_NESTING {
            return self.text(node);
        }
        match node.kind() {
            "word" | "command_name" if node.named_child_count() == 0 => {
                unescape_unquoted(&self.text(node))
            }
            "command_name" => node
                .named_child(0)
                .map(|c| self.word(c, depth + 1))
                .unwrap_or_default(),
            "raw_string" => strip_delims(&self.text(node), 1, 1),
            "ansi_c_string" => decode_ansi_c(&strip_delims(&self.text(node), 2, 1)),
            "string" => self.double_quoted(node),
            "translated_string" => node
                .named_child(0)
                .map(|c| self.word(c, depth + 1))
                .unwrap_or_default(),
            "concatenation" | "variable_assignment" => self.joined(node, depth),
            _ => self.text(node),
        }
    }

    /// Concatenate children's word values, keeping any bytes between them.
    fn joined(&self, node: Node, depth: usize) -> String {
        let mut out = String::new();
        let mut cursor = node.start_byte();
        for child in children(node) {
            if child.start_byte() > cursor {
                out.push_str(&slice(self.src, cursor, child.start_byte()));
            }
            if child.is_named() {
                out.push_str(&self.word(child, depth + 1));
            } else {
                out.push_str(&self.text(child));
            }
            cursor = cursor.max(child.end_byte());
        }
        if node.end_byte() > cursor {
            out.push_str(&slice(self.src, cursor, node.end_byte()));
        }
        out
    }

    /// `"…"`: strip the quotes, resolve `\"` `\\` `\$` `` \` `` and
    /// backslash-newline, keep expansions/substitutions as written.
    fn double_quoted(&self, node: Node) -> String {
        let (start, end) = (node.start_byte(), node.end_byte());
        let raw = self.text(node);
        if !raw.starts_with('"') {
            return raw;
        }
        let inner_start = start + 1;
        let inner_end = if raw.len() >= 2 && raw.ends_with('"') {
            end - 1
        } else {
            end
        };
        let mut out = String::new();
        let mut cursor = inner_start;
        for child in children(node) {
            if !child.is_named() || child.kind() == "string_content" {
                continue;
            }
            let (cs, ce) = (
                child.start_byte().max(cursor),
                child.end_byte().min(inner_end),
            );
            if cs < cursor || ce <= cs {
                continue;
            }
            out.push_str(&unescape_double(&slice(self.src, cursor, cs)));
            out.push_str(&slice(self.src, cs, ce));
            cursor = ce;
        }
        if inner_end > cursor {
            out.push_str(&unescape_double(&slice(self.src, cursor, inner_end)));
        }
        out
    }
}

/// Appends `words` to `call`'s arguments, each marked in
/// [`SimpleCall::expanded`] when `expanded`.
fn add_words(call: &mut SimpleCall, words: Vec<String>, expanded: bool) {
    for word in words {
        call.args.push(word);
        if expanded {
            call.expanded.push(call.args.len());
        }
    }
}

fn slice(src: &[u8], start: usize, end: usize) -> String {
    src.get(start..end)
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        .unwrap_or_default()
}

/// Remove `open` leading and `close` trailing bytes when both exist.
fn strip_delims(text: &str, open: usize, close: usize) -> String {
    if text.len() >= open + close {
        text.get(open..text.len() - close)
            .map(str::to_string)
            .unwrap_or_else(|| text.to_string())
    } else {
        text.to_string()
    }
}

/// Unquoted word: `\x` → `x`, backslash-newline removed.
fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(next) => out.push(next),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes only `\$ \` \" \\` and backslash-newline are escapes.
fn unescape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Decode the escapes of a `$'…'` body (bash's ANSI-C quoting).
fn decode_ansi_c(body: &str) -> String {
    let bytes = body.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' || i + 1 >= bytes.len() {
            out.push(b);
            i += 1;
            continue;
        }
        let e = bytes[i + 1];
        i += 2;
        let simple = match e {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'e' | b'E' => Some(0x1b),
            b'f' => Some(0x0c),
            b'v' => Some(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => Some(e),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            continue;
        }
        let (radix, max_len) = match e {
            b'x' => (16, 2),
            b'0'..=b'7' => (8, 3),
            _ => (0, 0),
        };
        if radix == 0 {
            out.push(b'\\');
            out.push(e);
            continue;
        }
        // Octal digits start at `e` itself; hex digits after the `x`.
        let digits_start = if e == b'x' { i } else { i - 1 };
        let mut j = digits_start;
        let mut value: u32 = 0;
        while j < bytes.len() && j - digits_start < max_len {
            let Some(d) = (bytes[j] as char).to_digit(radix) else {
                break;
            };
            value = value * radix + d;
            j += 1;
        }
        if j == digits_start {
            out.push(b'\\');
            out.push(e);
        } else {
            out.push((value & 0xff) as u8);
            i = j;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Heredoc delimiter word with its quoting removed (`'EOF'`, `"EOF"`, `\EOF`).
fn delimiter(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect()
}
