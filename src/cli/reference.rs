//! The exit-code and environment tables, written once. `dnscron man` draws them as its EXIT
//! STATUS and ENVIRONMENT sections, and a test (tests/it/reference.rs) holds README's "Exit
//! codes" and "Environment" tables to the same rows, so the page shipped in the release archive
//! and the README can't drift apart. The text is README's Markdown: `code` spans and
//! [links](…), which the man page draws bold and as plain text.

/// One row: the code or variable, and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub key: &'static str,
    pub meaning: &'static str,
}

const fn row(key: &'static str, meaning: &'static str) -> Row {
    Row { key, meaning }
}

/// Every code `cli::error::exit_code` gives.
pub const EXIT_CODES: &[Row] = &[
    row(
        "0",
        "success (also `--help`, `--version`); `controller` stopped by SIGTERM or SIGINT (a \
         graceful stop, as Kubernetes expects: the write in flight finished), or `controller \
         --once` converged",
    ),
    row(
        "1",
        "error: a usage error (unknown flag or value), invalid files, a file not in canonical \
         form (`fmt --check`), an API error, a failed \
         change, a change nobody reviewed or a reviewed one changed since review (`apply \
         --reviewed`/`--plan`; nothing sent), a change of the plan changed again by someone \
         during the apply, not converged, a switch to custom nameservers not done because they \
         don't serve the zone yet, records `import --from` could not import (listed; the rest \
         written), a `controller --once` round that failed",
    ),
    row(
        "2",
        "changes present, a zone, domain or site of the account no file of the planned folder \
         declares, or an error-level finding the files do not accept (`accept:`) such as \
         a DS mismatch, a domain about to expire or an SPF record over 10 DNS lookups (`plan \
         --detailed-exitcode`; [docs/health.md](docs/health.md)); a nameserver serving other \
         data than the files, or such a mail finding (`check`); drift, a revision not applied \
         or such a finding left after `controller --once` \
         ([docs/controller.md](docs/controller.md)); drift `adopt` left in the account and out \
         of the files (a record of a record set, an undeclared one without `--undeclared`, a \
         live value the files can't hold, a cron job; listed, the rest written; \
         [docs/ci.md](docs/ci.md#ending-drift-revert-it-or-adopt-it)); nothing else ever exits 2",
    ),
    row(
        "3",
        "apply stopped at a step a human must take in the portal (the `continue_url` is printed)",
    ),
    row(
        "4",
        "apply refused a plan that holds a change: an error finding judged from the files (a \
         DMARC record receivers discard, a cron job that never runs) or, in a plan made with \
         `--resolver`, from DNS, not accepted with `accept:`, is about what it writes; nothing sent (`apply`, `--reviewed`, `--plan`; \
         [docs/apply.md](docs/apply.md#what-apply-refuses))",
    ),
    row(
        "130, 143",
        "stopped by SIGINT or SIGTERM: apply after the change in flight, with its report (before \
         its first write, at once, saying nothing was sent); `plan` at once, saying no plan was \
         shown or saved (`controller` exits 0 on them: its stop is the expected one)",
    ),
];

/// Every variable the binary reads (a test compares it with the flags' `env`).
pub const ENVIRONMENT: &[Row] = &[
    row(
        "DNSCRON_API_URL",
        "the API base URL including `/api/v1`, when `--api-url` is not given",
    ),
    row(
        dnscron_api::TOKEN_ENV,
        "the API token, unless `--token-file` is given; never printed or logged",
    ),
    row(
        "DNSCRON_TIMEOUT",
        "the deadline of each HTTP attempt, as `--timeout` (default `30s`; a request gives up \
         within 4 × this)",
    ),
    row(
        "DNSCRON_DNS_WAIT",
        "`apply`: how long to ask the zones' nameservers until they serve the writes, as \
         `--dns-wait` (default `10s`, `0` off)",
    ),
    row(
        "DNSCRON_ALLOW_UNREADY_NAMESERVERS",
        "`apply`: when true (`1`, `yes`), switch a domain to custom nameservers without first \
         asking them whether they serve the zone, as `--allow-unready-nameservers`",
    ),
    row(
        "DNSCRON_NO_SYSTEM_RESOLVER",
        "when true (`1`, `yes`), DNS checks never ask the system's resolver, as \
         `--no-system-resolver`",
    ),
    row(
        "NO_COLOR",
        "when set, no colour on stdout or stderr (colour is only ever used on a terminal)",
    ),
    row(
        "TERM",
        "`dumb`: no colour, and `apply`'s progress as plain lines instead of a redrawn bar",
    ),
    row(
        "RUST_LOG",
        "a log filter (e.g. `dnscron=debug`) that replaces the level chosen by `-v` and `-q`",
    ),
    row(
        crate::cli::stamp::PLAN_ID_ENV,
        "tests only: the id a new plan gets instead of a random one",
    ),
    row(
        crate::cli::stamp::TIMESTAMP_ENV,
        "tests only: the `created_at` (RFC 3339) a new plan gets instead of the clock",
    ),
    row(
        crate::cli::dns_args::SYSTEM_RESOLVER_ENV,
        "tests only: the resolver (IP[:PORT]) `--resolver system` asks instead of \
         /etc/resolv.conf's first",
    ),
];

/// A piece of a row's text: plain, or a `code` span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span<'a> {
    Plain(&'a str),
    Code(&'a str),
}

/// `text` split into plain and code spans, a link `[text](target)` kept as its text.
pub fn spans(text: &str) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let next = rest.find(['`', '[']).unwrap_or(rest.len());
        if next > 0 {
            out.push(Span::Plain(&rest[..next]));
            rest = &rest[next..];
            continue;
        }
        let (span, after) = match rest.as_bytes().first() {
            Some(b'`') => code_span(rest),
            _ => link(rest),
        };
        out.push(span);
        rest = after;
    }
    out
}

/// `` `code` `` at the start of `text`; a lone backtick is plain text.
fn code_span(text: &str) -> (Span<'_>, &str) {
    match text[1..].find('`') {
        Some(end) => (Span::Code(&text[1..=end]), &text[end + 2..]),
        None => (Span::Plain(&text[..1]), &text[1..]),
    }
}

/// `[text](target)` at the start of `text`, as its text; anything else a plain `[`.
fn link(text: &str) -> (Span<'_>, &str) {
    let parsed = text.find("](").and_then(|close| {
        let end = text[close..].find(')')? + close;
        Some((Span::Plain(&text[1..close]), &text[end + 1..]))
    });
    parsed.unwrap_or((Span::Plain(&text[..1]), &text[1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_links_are_read() {
        assert_eq!(
            spans("as `--timeout` ([docs/health.md](docs/health.md)); a [ b"),
            [
                Span::Plain("as "),
                Span::Code("--timeout"),
                Span::Plain(" ("),
                Span::Plain("docs/health.md"),
                Span::Plain("); a "),
                Span::Plain("["),
                Span::Plain(" b"),
            ]
        );
        assert_eq!(
            spans("a lone ` stays"),
            [
                Span::Plain("a lone "),
                Span::Plain("`"),
                Span::Plain(" stays")
            ]
        );
    }
}
