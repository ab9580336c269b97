//! The benchmark harness at smoke size: the figures that don't depend on timing (request counts
//! against their minimum, convergence under faults) must all meet their targets.
//!
//! The suite is the `dnscron-bench` bench target, which `cargo test` doesn't build; including its
//! modules here keeps them compiled, smoke-run and unit-tested by `cargo test` without putting
//! them in the library's API (a bench target can't be a dependency of this test binary).

// The bench's command line (benches/dnscron-bench/main.rs) uses the parts this test doesn't.
#[allow(dead_code)]
#[path = "../../benches/dnscron-bench/suite/mod.rs"]
mod suite;

use suite::report::Verdict;
use suite::{Options, Part};

#[test]
fn smoke_sizes_send_the_minimum_requests_and_converge_under_faults() {
    let opts = Options {
        smoke: true,
        only: vec![Part::Efficiency, Part::Faults],
        ..Options::default()
    };
    let report = suite::run(&opts).unwrap();
    assert_eq!(report.sections.len(), 2);
    for section in &report.sections {
        assert!(!section.figures.is_empty(), "{}", section.title);
        for f in &section.figures {
            assert_ne!(
                f.verdict,
                Verdict::Missed,
                "{}: {} = {} (target {}, bound {})",
                section.title,
                f.name,
                f.value,
                f.target,
                f.bound
            );
        }
    }
    let text = report.text();
    assert!(
        text.contains("plan: all requests, ratio to the minimum"),
        "{text}"
    );
    assert!(text.contains("0 target(s) missed"), "{text}");
}
