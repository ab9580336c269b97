//! The classic Prometheus text format (version 0.0.4), for clients that ask for it: `promtool
//! check metrics`, a Prometheus told to scrape without OpenMetrics, a script with `curl -H
//! 'Accept: text/plain'`.
//!
//! prometheus-client writes OpenMetrics only, so the classic text is derived from its
//! exposition of our own families: the samples and label escaping are the same in both
//! formats; what differs is that a counter's family is named with its `_total` (OpenMetrics
//! names the family without it), `# UNIT` and `# EOF` don't exist, and HELP escapes only `\`
//! and newlines. Deriving it keeps one registry and one encoder for both answers.

/// The content type of the classic text format, as Prometheus names it.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// `openmetrics` (prometheus-client's exposition of the controller's registry) in the classic
/// text format.
pub fn from_openmetrics(openmetrics: &str) -> String {
    let counters: Vec<&str> = openmetrics
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.strip_suffix(" counter"))
        .collect();
    let mut classic = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        let converted = if line == "# EOF" || line.starts_with("# UNIT ") {
            None
        } else if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            Some(format!(
                "# HELP {} {}",
                classic_name(name, &counters),
                help.replace("\\\"", "\"")
            ))
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            Some(format!("# TYPE {} {kind}", classic_name(name, &counters)))
        } else {
            Some(line.to_owned())
        };
        if let Some(line) = converted {
            classic.push_str(&line);
            classic.push('\n');
        }
    }
    classic
}

fn classic_name(family: &str, counters: &[&str]) -> String {
    if counters.contains(&family) {
        format!("{family}_total")
    } else {
        family.to_owned()
    }
}

/// Whether a request's `Accept` header prefers the classic text format to OpenMetrics: only
/// when it names `text/plain` with a higher quality than any OpenMetrics type it names (or
/// names no OpenMetrics type at all). No header, `*/*` or a tie: OpenMetrics.
pub fn prefers_classic(accept: Option<&str>) -> bool {
    let Some(accept) = accept else { return false };
    let mut openmetrics: Option<f32> = None;
    let mut text: Option<f32> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or_default().to_ascii_lowercase();
        let quality = parts
            .filter_map(|p| p.strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let slot = match media.as_str() {
            "application/openmetrics-text" => &mut openmetrics,
            "text/plain" => &mut text,
            _ => continue,
        };
        *slot = Some(slot.map_or(quality, |q: f32| q.max(quality)));
    }
    match (text, openmetrics) {
        (Some(text), Some(openmetrics)) => text > openmetrics,
        (Some(text), None) => text > 0.0,
        (None, _) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_family_takes_its_total_and_unit_and_eof_go() {
        let openmetrics = "# HELP a_rounds Rounds \\\"done\\\".\n# TYPE a_rounds counter\n\
                           a_rounds_total{outcome=\"x\"} 1\n# HELP a_wait Wait.\n# TYPE a_wait gauge\n\
                           # UNIT a_wait seconds\na_wait 0.5\n# EOF\n";
        assert_eq!(
            from_openmetrics(openmetrics),
            "# HELP a_rounds_total Rounds \"done\".\n# TYPE a_rounds_total counter\n\
             a_rounds_total{outcome=\"x\"} 1\n# HELP a_wait Wait.\n# TYPE a_wait gauge\n\
             a_wait 0.5\n"
        );
    }

    #[test]
    fn prometheus_and_curl_get_openmetrics_a_text_client_gets_text() {
        // What Prometheus 2.x sends.
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert!(!prefers_classic(Some(prometheus)));
        assert!(!prefers_classic(None));
        assert!(!prefers_classic(Some("*/*")));
        assert!(!prefers_classic(Some(
            "text/plain;q=0.5, application/openmetrics-text;q=0.5"
        )));
        assert!(!prefers_classic(Some("text/plain;q=0")));
        // A Prometheus told to scrape with the classic format only, promtool's users, curl -H.
        assert!(prefers_classic(Some(
            "text/plain;version=0.0.4;q=1,*/*;q=0.1"
        )));
        assert!(prefers_classic(Some("text/plain")));
        assert!(prefers_classic(Some(
            "application/openmetrics-text;q=0.2, TEXT/PLAIN;q=0.9"
        )));
    }
}
