//! The one line that sums up a command's retries.

use std::time::Duration;

use dnscron_api::RetryCause;

/// A command's retries, as the binary tallied them from the clients' retry events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RetrySummary {
    /// Distinct requests that were sent more than once.
    pub requests: u64,
    /// Attempts beyond the first, over all of them.
    pub retries: u64,
    /// Why, in the order first seen.
    pub causes: Vec<RetryCause>,
    /// From the first retry to the last one's attempt.
    pub over: Duration,
}

/// `retried 7 requests 23 times (503 Service Unavailable, connection refused) over 41 s`.
pub(crate) fn summary_line(s: &RetrySummary) -> String {
    let causes: Vec<String> = s.causes.iter().map(|c| cause_words(*c)).collect();
    format!(
        "retried {} {} {} {} ({}) over {}",
        s.requests,
        plural(s.requests, "request", "requests"),
        s.retries,
        plural(s.retries, "time", "times"),
        causes.join(", "),
        seconds(s.over)
    )
}

fn cause_words(cause: RetryCause) -> String {
    match cause {
        RetryCause::Status(status) => match status_reason(status) {
            Some(reason) => format!("{status} {reason}"),
            None => format!("HTTP {status}"),
        },
        RetryCause::ConnectionRefused => "connection refused".into(),
        RetryCause::Connect => "no connection".into(),
        RetryCause::Timeout => "no answer in time".into(),
        RetryCause::Dropped => "connection closed early".into(),
    }
}

/// The reason phrases of the statuses a request is retried on (429 and 5xx); another status is
/// shown by its number alone.
const STATUS_REASONS: &[(u16, &str)] = &[
    (429, "Too Many Requests"),
    (500, "Internal Server Error"),
    (501, "Not Implemented"),
    (502, "Bad Gateway"),
    (503, "Service Unavailable"),
    (504, "Gateway Timeout"),
    (505, "HTTP Version Not Supported"),
    (507, "Insufficient Storage"),
    (508, "Loop Detected"),
    (511, "Network Authentication Required"),
];

fn status_reason(status: u16) -> Option<&'static str> {
    STATUS_REASONS
        .iter()
        .find(|(code, _)| *code == status)
        .map(|(_, reason)| *reason)
}

/// Whole seconds from 10 s on, one decimal below (a 1.9 s outage is not "2 s").
fn seconds(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs >= 10.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs:.1} s")
    }
}

fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_with_counts_causes_and_span() {
        let s = RetrySummary {
            requests: 7,
            retries: 23,
            causes: vec![RetryCause::Status(503), RetryCause::ConnectionRefused],
            over: Duration::from_millis(41_300),
        };
        assert_eq!(
            summary_line(&s),
            "retried 7 requests 23 times (503 Service Unavailable, connection refused) over 41 s"
        );
        let one = RetrySummary {
            requests: 1,
            retries: 1,
            causes: vec![
                RetryCause::Status(599),
                RetryCause::Connect,
                RetryCause::Timeout,
                RetryCause::Dropped,
                RetryCause::Status(429),
            ],
            over: Duration::from_millis(260),
        };
        assert_eq!(
            summary_line(&one),
            "retried 1 request 1 time (HTTP 599, no connection, no answer in time, connection \
             closed early, 429 Too Many Requests) over 0.3 s"
        );
    }
}
