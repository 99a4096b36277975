//! The replay pane's "Your hooks": the handlers of the picked event
//! from the settings that apply, `x`'s confirmation dialog, the run on a
//! worker and its report beside what the transcript recorded
//! ([`hookscope_core::service::HookRun`]).

use super::*;

impl ReplayPane {
    /// The hook configuration for `session`: loaded on the first replay of
    /// a session and kept ([`ReplayPane::hooks`]). On the UI thread: a few
    /// small files, each read only when it is a regular file and capped
    /// ([`settings::load`]), so a FIFO or a huge file costs nothing.
    pub(super) fn hook_config(
        &mut self,
        session: &hookscope_core::transcript::model::Session,
        version: &Version,
        ctx: &Ctx,
    ) -> Arc<Hooks> {
        if let Some((key, hooks)) = &self.hooks
            && *key == session.path
        {
            return hooks.clone();
        }
        // The session's agent decides whose files and dialect.
        let hooks = Arc::new(Dialect::for_agent(session.agent).load(&Sources {
            config_dir: ctx.settings_config_dir.clone(),
            managed: ctx.settings_managed.clone(),
            codex_home: ctx.codex_home.clone(),
            ..Sources::for_session(session, &ctx.cwd_map, ctx.settings.clone(), version.clone())
        }));
        self.hooks = Some((session.path.clone(), hooks.clone()));
        hooks
    }

    /// The "Your hooks" lines: file-level drops first, then each handler
    /// of the picked event with ✓/✗, its `file:line (layer)`, what it runs
    /// and the reason (and hint) from [`settings::explain`]; when no
    /// settings file was found, where it looked and how to pass one.
    pub(super) fn hooks_lines(&self, ctx: &Ctx) -> Vec<Line<'static>> {
        let theme = &ctx.theme;
        let mut out = Vec::new();
        let Some((_, hooks)) = &self.hooks else {
            return out;
        };
        let config = hooks.config();
        let found: Vec<&settings::SettingsFile> = config.files.iter().filter(|f| f.found).collect();
        if found.is_empty() {
            out.push(Line::from(Span::styled("Your hooks", theme.heading())));
            let looked = settings::looked_for(&config.files);
            out.push(Line::from(Span::styled(
                format!(
                    "  no settings file found (looked for {}); {}",
                    if looked.is_empty() {
                        "none".to_string()
                    } else {
                        looked.join(", ")
                    },
                    hooks.dialect.where_hooks_are()
                ),
                theme.dim(),
            )));
            return out;
        }
        let names: Vec<String> = found.iter().map(|f| f.path.display().to_string()).collect();
        out.push(Line::from(Span::styled(
            format!("Your hooks ({})", names.join(", ")),
            theme.heading(),
        )));
        for f in &found {
            if let Some(why) = &f.dropped {
                out.push(Line::from(Span::styled(
                    format!(
                        "  ⚠ {}: {} skips this file: {why}",
                        f.path.display(),
                        hooks.dialect.skipper()
                    ),
                    theme.error(),
                )));
            }
        }
        if self.verdicts.is_empty() {
            let event = self.picked().map_or("this event", EventName::as_str);
            out.push(Line::from(Span::styled(
                format!("  no handler for {event} in these files"),
                theme.dim(),
            )));
        }
        for r in Reach::of(hooks, &self.verdicts) {
            out.push(Line::from(vec![
                Span::styled(format!("  {} {} ", r.mark(), r.label()), theme.tool()),
                Span::raw(r.summary.clone()),
            ]));
            out.push(Line::from(Span::styled(
                format!("      {}", r.reason),
                theme.dim(),
            )));
            if let Some(hint) = &r.hint {
                out.push(Line::from(Span::styled(
                    format!("      hint: {hint}"),
                    theme.dim(),
                )));
            }
        }
        out
    }

    /// `x`: builds what would run for the picked event (every command
    /// handler it reaches, [`hookscope_core::hooks::exec::plan`]) and opens the
    /// confirmation dialog; says why when there is nothing to run.
    pub(super) fn ask_to_run(&mut self, ctx: &mut Ctx) {
        let (Some(Ok(r)), Some((_, hooks)), Some(session)) =
            (&self.result, &self.hooks, ctx.session())
        else {
            ctx.say(self.nothing_to("run"));
            return;
        };
        let context = RunContext::for_replay(session, &r.payload, &ctx.cwd_map, &[]);
        let plan =
            HookRun::new(session, &r.payload, hooks, context).plan(&|n| match &ctx.hook_env {
                Some(env) => env.get(n).cloned(),
                None => std::env::var_os(n),
            });
        match plan {
            Err(e) => ctx.say(format!(
                "cannot create a temporary folder for the hooks: {e}"
            )),
            Ok(p) if p.specs.is_empty() => ctx.say(format!(
                "nothing to run: no command handler of your {} hooks reaches {}{}",
                hooks.dialect.label(),
                r.payload.event,
                if p.not_run.is_empty() {
                    String::new()
                } else {
                    format!(" ({} listed but not run)", p.not_run.len())
                }
            )),
            Ok(p) => self.confirm = Some(Arc::new(p)),
        }
    }

    /// A report from the worker: kept when it answers the current run.
    pub fn hooks_ran(&mut self, generation: u64, report: ExecReport, ctx: &mut Ctx) {
        if let Some((g, _, slot)) = self.run.as_mut()
            && *g == generation
        {
            let n = report.handlers.len();
            ctx.say(format!(
                "ran {n} hook handler{} for {} (results in the pane)",
                if n == 1 { "" } else { "s" },
                report.event
            ));
            self.agreement = match (&self.result, ctx.session(), &self.hooks) {
                (Some(Ok(r)), Some(session), Some((_, hooks))) => {
                    let context = RunContext::for_replay(session, &r.payload, &ctx.cwd_map, &[]);
                    HookRun::new(session, &r.payload, hooks, context).compare(&report)
                }
                _ => None,
            };
            *slot = Some(report);
            self.scroll_to("Ran your hooks (x)", ctx);
        }
    }

    /// The dialog's key handling: Enter runs, Esc or `n` cancels.
    pub(super) fn confirm_event(&mut self, action: Action, ctx: &mut Ctx) -> EventState {
        match action {
            Action::SearchConfirm => {
                if let Some(plan) = self.confirm.take() {
                    self.generation += 1;
                    self.run = Some((self.generation, plan.clone(), None));
                    self.agreement = None;
                    ctx.requests.push(crate::tui::context::Request::RunHooks {
                        generation: self.generation,
                        plan: crate::tui::context::PlanHandle(plan),
                    });
                    ctx.say("running hooks…");
                    self.scroll_to("Ran your hooks", ctx);
                }
            }
            Action::SearchCancel | Action::SearchInput('n') => {
                self.confirm = None;
                ctx.say("cancelled: nothing ran");
            }
            Action::ForceQuit => return EventState::NotConsumed,
            _ => {}
        }
        EventState::Consumed
    }

    /// The dialog's text: per command handler its command, argv, cwd (and
    /// why), environment variable names and timeout; the handlers listed
    /// but not run; and that nothing runs before Enter.
    pub fn confirm_lines(plan: &ExecPlan, ctx: &Ctx) -> Vec<Line<'static>> {
        let theme = &ctx.theme;
        let mut out = vec![Line::from(Span::styled(
            "Nothing runs until you press Enter (Esc or n cancels).",
            theme.error(),
        ))];
        out.push(Line::from(Span::styled(
            format!(
                "{} command handler{} of your hooks would run on this {} payload:",
                plan.specs.len(),
                if plan.specs.len() == 1 { "" } else { "s" },
                plan.event
            ),
            theme.heading(),
        )));
        let quote = |argv: Vec<String>| -> String {
            argv.iter()
                .map(|a| hookscope_core::shell::shell_quote(a))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for s in &plan.specs {
            out.push(Line::from(Span::styled(s.label.clone(), theme.tool())));
            if let Some(line) = s.http_plan_line() {
                out.push(Line::from(format!("  {line}")));
                out.push(Line::from(format!("  timeout: {}s", s.timeout_secs)));
                continue;
            }
            out.push(Line::from(format!("  runs: {}", quote(s.argv()))));
            out.push(Line::from(format!("  cwd: {}", s.cwd.display())));
            if let Some(n) = &s.cwd_note {
                out.push(Line::from(Span::styled(format!("    ({n})"), theme.dim())));
            }
            let names: Vec<&str> = s.env.iter().map(|v| v.name.as_str()).collect();
            out.push(Line::from(format!(
                "  env: {} (values not shown)",
                names.join(" ")
            )));
            out.push(Line::from(format!("  timeout: {}s", s.timeout_secs)));
        }
        for n in &plan.not_run {
            out.push(Line::from(Span::styled(
                format!("not run: {} ({}): {}", n.label, n.handler_type, n.reason),
                theme.dim(),
            )));
        }
        if let Some(n) = &plan.project_note {
            out.push(Line::from(Span::styled(format!("note: {n}"), theme.dim())));
        }
        // What was left out of the environment (a transcript value not of
        // its known form; docs/security.md "Running hooks") and env files
        // that could not be made: said before anything runs, as the CLI
        // says them on stderr.
        for w in &plan.env_warnings {
            out.push(Line::from(Span::styled(
                format!("left out of the environment: {w}"),
                theme.error(),
            )));
        }
        for e in &plan.env_file_errors {
            out.push(Line::from(Span::styled(
                format!("env file: {e}"),
                theme.error(),
            )));
        }
        out
    }

    /// The "Ran your hooks" lines: each handler's status, exit code,
    /// duration, stdout/stderr (masked), its reading; the merged and final
    /// outcome; and whether that agrees with what the transcript recorded.
    pub(super) fn run_lines(&self, ctx: &Ctx) -> Vec<Line<'static>> {
        let theme = &ctx.theme;
        let mut out = Vec::new();
        let Some((_, _, report)) = &self.run else {
            return out;
        };
        let Some(report) = report else {
            out.push(Line::from(Span::styled("Ran your hooks", theme.heading())));
            out.push(Line::from(Span::styled("  running hooks…", theme.dim())));
            return out;
        };
        out.push(Line::from(Span::styled(
            "Ran your hooks (x)",
            theme.heading(),
        )));
        let mask = |t: &str| {
            let mut counts = Redactions::default();
            let t = redactor().redact(t.trim_end(), &mut counts).into_owned();
            let t = t.replace('\n', "⏎");
            fit(&t, 400)
        };
        for h in &report.handlers {
            out.push(Line::from(Span::styled(
                format!("  {}", h.label),
                theme.tool(),
            )));
            out.push(Line::from(format!(
                "    {} in {} ms",
                h.status.describe(),
                h.duration_ms
            )));
            for (name, body) in [("stdout", &h.stdout), ("stderr", &h.stderr)] {
                let shown = if body.is_empty() {
                    "(empty)".to_string()
                } else {
                    mask(body)
                };
                out.push(Line::from(format!("    {name}: {shown}")));
            }
            out.push(Line::from(format!(
                "    reading: {}",
                mask(&h.reading.outcome.summary())
            )));
        }
        for n in &report.not_run {
            out.push(Line::from(Span::styled(
                format!("  not run: {} ({}): {}", n.label, n.handler_type, n.reason),
                theme.dim(),
            )));
        }
        let mut merged = effect_name(report.combined.effect).replace('_', " ");
        if let Some(o) = &report.combined.updated_output {
            merged.push_str(&format!(
                " — the model sees this output instead: {}",
                mask(&hookscope_core::transcript::hook_activity::output_text(o))
            ));
        }
        out.push(Line::from(vec![
            Span::styled("  merged: ", theme.heading()),
            Span::raw(merged),
        ]));
        let verdict = report
            .final_outcome
            .verdict
            .as_ref()
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(str::to_string));
        let now = verdict
            .unwrap_or_else(|| effect_name(report.final_outcome.effect).to_string())
            .replace('_', " ");
        out.push(Line::from(vec![
            Span::styled("  final: ", theme.heading()),
            Span::raw(format!(
                "{now} (decided by {})",
                report.final_outcome.decided_by
            )),
        ]));
        if let Some(a) = &self.agreement {
            let loud = matches!(
                a.verdict,
                hookscope_core::hooks::exec::Verdict::FailedOpen
                    | hookscope_core::hooks::exec::Verdict::FailedBlocked
            );
            out.push(Line::from(vec![
                Span::styled("  vs the transcript: ", theme.heading()),
                if loud {
                    Span::styled(a.text.clone(), theme.error())
                } else {
                    Span::raw(a.text.clone())
                },
            ]));
            if let Some(f) = &a.final_outcome {
                out.push(Line::from(vec![
                    Span::styled("  final vs the transcript: ", theme.heading()),
                    Span::raw(f.text.clone()),
                ]));
            }
        }
        out
    }
}
