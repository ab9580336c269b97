//! What a cron delete removed. The API deletes by index, so a job someone else removes between
//! apply's listing and its DELETE can shift another job into the index (docs/apply.md, "Cron
//! deletes"). The answer is believed only when it names the meant job; anything else (another
//! job, a job never listed, no job, garbage) is checked against a listing right after the
//! delete, and the answer then only picks among the jobs that really vanished.

use std::collections::BTreeMap;

use serde_json::Value;

use super::outcome::ListedJob;
use crate::plan::in_effect;
use crate::plan::{Action, job_key};
use dnscron_api::payload;

/// What the delete took.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Took {
    Meant,
    /// Another job: put it back.
    Other(ListedJob),
    /// One of `vanished` (not the meant job alone), which one cannot be told.
    Unclear,
}

/// The job a delete's answer says it removed, if it names one (`schedule` and `command`
/// strings). Never shown: it only ever selects among jobs a listing showed.
pub(super) fn claim(answer: &Value) -> Option<(&str, &str)> {
    let schedule = answer.get("schedule")?.as_str()?;
    let command = answer.get("command")?.as_str()?;
    Some((schedule, command))
}

/// The answer alone settles it: it names the meant job.
pub(super) fn names_meant(answer: &Value, meant: (&str, &str)) -> bool {
    claim(answer).is_some_and(|(s, c)| job_key(s, c) == job_key(meant.0, meant.1))
}

/// The jobs listed in `before` with fewer copies in `after`, once per missing copy, with the
/// list position of the last copy of each (before the delete).
fn vanished(before: &[payload::CronJob], after: &[payload::CronJob]) -> Vec<(ListedJob, usize)> {
    let mut left: BTreeMap<_, usize> = BTreeMap::new();
    for j in after {
        *left.entry(job_key(&j.schedule, &j.command)).or_default() += 1;
    }
    let mut last: BTreeMap<_, (usize, usize)> = BTreeMap::new();
    for (pos, j) in before.iter().enumerate() {
        let entry = last
            .entry(job_key(&j.schedule, &j.command))
            .or_insert((0, pos));
        entry.0 += 1;
        entry.1 = pos;
    }
    let mut out = Vec::new();
    for (pos, j) in before.iter().enumerate() {
        let key = job_key(&j.schedule, &j.command);
        let (count, last_pos) = last.get(&key).copied().unwrap_or((0, pos));
        // Report each key once, at its last copy, as many times as copies went missing.
        if pos != last_pos {
            continue;
        }
        let missing = count.saturating_sub(left.get(&key).copied().unwrap_or(0));
        for _ in 0..missing {
            out.push((
                ListedJob {
                    schedule: j.schedule.clone(),
                    command: j.command.clone(),
                },
                pos,
            ));
        }
    }
    out
}

/// Decides what the delete sent to `index` (an index of `before`) took, from the listings
/// before and right after it and the answer. Returns it with every vanished job.
///
/// A job listed before the meant one can't have been the delete's: under either index
/// behaviour the spec allows (indexes stay, or they are positions that close up after a
/// delete) an index only ever points at the job it named or at one listed after it. So the
/// candidates are the vanished jobs at or after the meant job's position; the answer picks
/// one of them if it names one, else a single candidate is the delete's.
pub(super) fn judge(
    meant: (&str, &str),
    index: i64,
    before: &[payload::CronJob],
    after: &[payload::CronJob],
    answer: &Value,
) -> (Took, Vec<ListedJob>, Vec<ListedJob>) {
    let gone = vanished(before, after);
    let jobs: Vec<ListedJob> = gone.iter().map(|(j, _)| j.clone()).collect();
    let key_of = |j: &ListedJob| job_key(&j.schedule, &j.command);
    let position = before
        .iter()
        .position(|j| j.index == index)
        .unwrap_or(usize::MAX);
    let mut candidates: Vec<&ListedJob> = gone
        .iter()
        .filter(|(_, pos)| *pos >= position)
        .map(|(j, _)| j)
        .collect();
    candidates.dedup_by(|a, b| key_of(a) == key_of(b));
    let claimed = claim(answer).map(|(s, c)| job_key(s, c));
    let named = claimed.and_then(|k| candidates.iter().find(|j| key_of(j) == k));
    let took = match (named, candidates.as_slice()) {
        (Some(job), _) | (None, [job]) if key_of(job) == job_key(meant.0, meant.1) => Took::Meant,
        (Some(job), _) | (None, [job]) => Took::Other((*job).clone()),
        _ => Took::Unclear,
    };
    let candidates = candidates.into_iter().cloned().collect();
    (took, jobs, candidates)
}

/// The meant job still has more than `remaining` copies listed: the delete is still needed.
pub(super) fn still_there(
    jobs: &[payload::CronJob],
    meant: (&str, &str),
    remaining: usize,
) -> bool {
    let key = job_key(meant.0, meant.1);
    let held = jobs
        .iter()
        .filter(|j| job_key(&j.schedule, &j.command) == key)
        .count();
    !in_effect::effect_on_copies(Action::Delete, held, remaining).is_in_effect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn job(index: i64, name: &str) -> payload::CronJob {
        payload::CronJob {
            index,
            schedule: "0 * * * *".into(),
            command: format!("php {name}.php"),
        }
    }

    fn listed(name: &str) -> ListedJob {
        ListedJob {
            schedule: "0 * * * *".into(),
            command: format!("php {name}.php"),
        }
    }

    fn answer(name: &str) -> Value {
        json!({"index": 9, "schedule": "0 * * * *", "command": format!("php {name}.php")})
    }

    const MEANT: (&str, &str) = ("0  * * * *", "php  two.php");

    /// Listed zero, one, two (meant, at index 2), three.
    fn before() -> Vec<payload::CronJob> {
        ["zero", "one", "two", "three"]
            .iter()
            .enumerate()
            .map(|(i, n)| job(i as i64, n))
            .collect()
    }

    /// After: someone removed zero, the delete took three.
    fn raced() -> Vec<payload::CronJob> {
        vec![job(0, "one"), job(1, "two")]
    }

    #[test]
    fn an_answer_naming_the_meant_job_settles_it() {
        assert!(names_meant(&answer("two"), MEANT));
        assert!(!names_meant(&answer("three"), MEANT));
        for garbage in [
            json!(null),
            json!("removed"),
            json!({"result": "removed"}),
            json!({"schedule": 5, "command": "php two.php"}),
            json!([{"schedule": "0 * * * *", "command": "php two.php"}]),
        ] {
            assert!(!names_meant(&garbage, MEANT), "{garbage}");
        }
    }

    #[test]
    fn the_answer_picks_among_the_jobs_that_vanished() {
        let (took, gone, _) = judge(MEANT, 2, &before(), &raced(), &answer("three"));
        assert_eq!(took, Took::Other(listed("three")));
        assert_eq!(gone, vec![listed("zero"), listed("three")]);
        // Zero vanished too, but it was listed before the meant job: no index the delete
        // could hit pointed at it, so an answer naming it is not believed (re-creating it
        // would undo the person's delete).
        let (took, _, _) = judge(MEANT, 2, &before(), &raced(), &answer("zero"));
        assert_eq!(took, Took::Other(listed("three")));
        // Two candidates: the answer picks one.
        let after = vec![job(0, "zero"), job(1, "one")];
        let (took, _, _) = judge(MEANT, 2, &before(), &after, &answer("three"));
        assert_eq!(took, Took::Other(listed("three")));
        let (took, _, _) = judge(MEANT, 2, &before(), &after, &answer("two"));
        assert_eq!(took, Took::Meant);
    }

    #[test]
    fn without_a_usable_answer_the_listing_decides_by_position() {
        for answer in [
            json!(null),
            json!({"result": "removed"}),
            // A job that never existed, or one still listed: not believed.
            json!({"schedule": "* * * * *", "command": "php ghost.php"}),
            json!({"schedule": "0 * * * *", "command": "php one.php"}),
            json!("\u{1b}[2Jremoved"),
        ] {
            let (took, gone, _) = judge(MEANT, 2, &before(), &raced(), &answer);
            assert_eq!(took, Took::Other(listed("three")), "{answer}");
            assert_eq!(gone, vec![listed("zero"), listed("three")]);
        }
    }

    #[test]
    fn the_meant_job_alone_gone_is_the_delete_done() {
        let after = vec![job(0, "zero"), job(1, "one"), job(2, "three")];
        let (took, gone, _) = judge(MEANT, 2, &before(), &after, &json!({}));
        assert_eq!((took, gone), (Took::Meant, vec![listed("two")]));
        // Someone removed zero after the delete took two: two is the only candidate.
        let after = vec![job(0, "one"), job(1, "three")];
        let (took, _, _) = judge(MEANT, 2, &before(), &after, &json!({}));
        assert_eq!(took, Took::Meant);
    }

    #[test]
    fn two_candidates_or_none_cannot_be_told_apart() {
        // Two and three both gone, no answer: either could be the delete's.
        let after = vec![job(0, "zero"), job(1, "one")];
        let (took, gone, _) = judge(MEANT, 2, &before(), &after, &json!({}));
        assert_eq!(took, Took::Unclear);
        assert_eq!(gone, vec![listed("two"), listed("three")]);
        // Zero gone too (someone's), three and four after the meant job: zero is no candidate.
        let mut five = before();
        five.push(job(4, "four"));
        let after = vec![job(0, "one"), job(1, "two")];
        let (took, gone, candidates) = judge(MEANT, 2, &five, &after, &json!({}));
        assert_eq!(took, Took::Unclear);
        assert_eq!(gone, vec![listed("zero"), listed("three"), listed("four")]);
        assert_eq!(candidates, vec![listed("three"), listed("four")]);
        // Nothing gone although the server said removed. (`cron_delete::check` takes a listing
        // still exactly as before for a stale read and doesn't judge it; a listing that changed
        // otherwise can land here.)
        let (took, gone, candidates) = judge(MEANT, 2, &before(), &before(), &answer("three"));
        assert_eq!((took, gone, candidates), (Took::Unclear, vec![], vec![]));
    }

    #[test]
    fn identical_copies_count_as_one_job() {
        let before = vec![job(0, "two"), job(1, "two"), job(2, "three")];
        let after = vec![job(0, "two"), job(1, "three")];
        let (took, gone, _) = judge(MEANT, 1, &before, &after, &json!(null));
        assert_eq!((took, gone), (Took::Meant, vec![listed("two")]));
        assert!(still_there(&after, MEANT, 0));
        assert!(!still_there(&after, MEANT, 1));
    }
}
