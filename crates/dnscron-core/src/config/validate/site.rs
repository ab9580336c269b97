//! Site documents: slug, at most 5 cron jobs, valid schedules and commands, no duplicates.

use std::collections::HashMap;

use super::Checker;
use super::accept::{Owner, check_accept};
use crate::config::model::{CronJobSpec, Location, SiteSpec};
use crate::config::raw;
use crate::cron::{MAX_JOBS_PER_SITE, normalize_command, normalize_schedule};

pub(super) fn check_site(c: &mut Checker<'_>, s: &raw::SiteDoc) -> Option<SiteSpec> {
    let slug = s.site.value.trim();
    if let Err(reason) = check_slug(slug) {
        let d = c.error(
            s.site.pos,
            format!("`{}` is not a site slug: {reason}", s.site.value),
        );
        d.hint = Some(
            "write the slug as `GET /sites` lists it: lower-case letters, digits, `-` and `_`"
                .into(),
        );
        return None;
    }
    let cron = s.cron.as_ref().map(|jobs| cron_jobs(c, jobs));
    let accept = check_accept(c, s.accept.as_deref().unwrap_or_default(), Owner::Site);
    let cron = match cron {
        Some(None) => return None,
        Some(Some(jobs)) => Some(jobs),
        None => None,
    };
    Some(SiteSpec {
        slug: slug.to_string(),
        location: c.location(s.site.pos),
        cron,
        accept,
    })
}

/// Slugs: 1–63 characters, lower-case ASCII letters, digits, `-` and `_`, starting with a
/// letter or digit. Import uses the same rule for the slugs a server lists, as each becomes the
/// file name `sites/<slug>.yaml`: no `.`, `/`, `\` or anything else a path could act on.
pub(crate) fn check_slug(slug: &str) -> Result<(), String> {
    if slug.is_empty() {
        return Err("it is empty".into());
    }
    if slug.len() > 63 {
        return Err(format!("it is {} characters long (at most 63)", slug.len()));
    }
    if let Some(ch) = slug
        .chars()
        .find(|ch| !(ch.is_ascii_lowercase() || ch.is_ascii_digit() || *ch == '-' || *ch == '_'))
    {
        return Err(if ch.is_ascii_uppercase() {
            format!("it contains the upper-case letter `{ch}`")
        } else {
            format!("it contains `{ch}`")
        });
    }
    if !slug.starts_with(|ch: char| ch.is_ascii_alphanumeric()) {
        return Err("it must start with a letter or digit".into());
    }
    Ok(())
}

fn cron_jobs(c: &mut Checker<'_>, jobs: &[raw::CronJob]) -> Option<Vec<CronJobSpec>> {
    let mut ok = true;
    if let Some(extra) = jobs.get(MAX_JOBS_PER_SITE) {
        c.error(
            extra.pos,
            format!(
                "the site has {} cron jobs; the API allows at most {MAX_JOBS_PER_SITE}",
                jobs.len()
            ),
        )
        .hint = Some("combine jobs (one command can run several tasks) or drop some".into());
        ok = false;
    }
    let mut out = Vec::new();
    let mut seen: HashMap<(String, String), Location> = HashMap::new();
    for job in jobs {
        let schedule = normalize_schedule(&job.schedule.value).map_err(|err| {
            c.error(job.schedule.pos, err.to_string()).hint = Some(err.hint());
        });
        let command = normalize_command(&job.command.value).map_err(|err| {
            c.error(job.command.pos, err.message).hint = err.hint;
        });
        let (Ok(schedule), Ok(command)) = (schedule, command) else {
            ok = false;
            continue;
        };
        let key = (schedule.clone(), command.clone());
        if let Some(first) = seen.get(&key) {
            c.error(
                job.pos,
                format!("duplicate cron job `{schedule} {command}`: already at {first}"),
            )
            .hint = Some("remove one of the two".into());
            ok = false;
            continue;
        }
        let location = c.location(job.pos);
        seen.insert(key, location.clone());
        out.push(CronJobSpec {
            schedule,
            command,
            location,
        });
    }
    ok.then_some(out)
}
