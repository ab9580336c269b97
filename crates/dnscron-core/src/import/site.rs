//! A site's live cron jobs → a site file.

use crate::cron::{MAX_JOBS_PER_SITE, normalize_command, normalize_schedule};
use dnscron_api::payload;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteFile {
    pub slug: String,
    /// From `GET /sites`; noted in a comment when the site is not active.
    pub state: Option<String>,
    /// `Ok`: the whole list, in the listing's order. `Err`: why the file leaves cron unmanaged
    /// (no `cron` key), because a file can't declare the live list.
    pub cron: Result<Vec<(String, String)>, String>,
}

pub(crate) fn build_site(slug: &str, state: Option<String>, live: &[payload::CronJob]) -> SiteFile {
    SiteFile {
        slug: slug.to_string(),
        state,
        cron: cron_list(live),
    }
}

fn cron_list(live: &[payload::CronJob]) -> Result<Vec<(String, String)>, String> {
    let mut jobs: Vec<&payload::CronJob> = live.iter().collect();
    jobs.sort_by_key(|j| j.index);
    if jobs.len() > MAX_JOBS_PER_SITE {
        return Err(format!(
            "the site has {} cron jobs and a file declares at most {MAX_JOBS_PER_SITE}",
            jobs.len()
        ));
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for job in jobs {
        let schedule = normalize_schedule(&job.schedule)
            .map_err(|e| format!("the live job at index {} can't be declared: {e}", job.index))?;
        let command = normalize_command(&job.command)
            .map_err(|e| format!("the live job at index {} can't be declared: {e}", job.index))?;
        let job = (schedule, command);
        if out.contains(&job) {
            return Err(format!(
                "the job `{} {}` is listed twice and a file can't declare a duplicate",
                job.0, job.1
            ));
        }
        out.push(job);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn job(index: i64, schedule: &str, command: &str) -> payload::CronJob {
        payload::CronJob {
            index,
            schedule: schedule.into(),
            command: command.into(),
        }
    }

    #[test]
    fn jobs_in_index_order_normalized() {
        let site = build_site(
            "shop",
            Some("active".into()),
            &[
                job(2, "30 3 * * 0", "php b.php"),
                job(1, "*/5  * * * *", "php  a.php"),
            ],
        );
        assert_eq!(
            site.cron.unwrap(),
            [
                ("*/5 * * * *".to_string(), "php a.php".to_string()),
                ("30 3 * * 0".to_string(), "php b.php".to_string())
            ]
        );
    }

    #[test]
    fn lists_a_file_cannot_declare_leave_cron_unmanaged() {
        let dup = [job(0, "0 * * * *", "wp x"), job(1, "0  * * * *", "wp x")];
        assert!(
            build_site("s", None, &dup)
                .cron
                .unwrap_err()
                .contains("twice")
        );
        let bad = [job(0, "0 0 * * * *", "wp x")];
        assert!(build_site("s", None, &bad).cron.is_err());
        let many: Vec<_> = (0..6)
            .map(|i| job(i, "0 * * * *", &format!("wp {i}")))
            .collect();
        assert!(
            build_site("s", None, &many)
                .cron
                .unwrap_err()
                .contains("at most 5")
        );
        assert_eq!(build_site("s", None, &[]).cron.unwrap(), vec![]);
    }
}
