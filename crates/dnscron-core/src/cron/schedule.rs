//! Why a schedule is refused, as data: which field, its range, the value. croner is the judge
//! of what is valid; its own errors ("Number out of bounds.") name no field, so a refused
//! schedule is parsed again one field at a time (the others `*`) to find the field, and that
//! field's items are read here to say what in it is wrong.

use std::fmt;

/// One of the five fields, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Minute,
    Hour,
    DayOfMonth,
    Month,
    DayOfWeek,
}

impl Field {
    pub(crate) const ALL: [Field; 5] = [
        Field::Minute,
        Field::Hour,
        Field::DayOfMonth,
        Field::Month,
        Field::DayOfWeek,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Field::Minute => "minute",
            Field::Hour => "hour",
            Field::DayOfMonth => "day of month",
            Field::Month => "month",
            Field::DayOfWeek => "day of week",
        }
    }

    /// The numbers the field takes (day of week: 0 and 7 are both Sunday).
    pub(crate) fn range(self) -> (u32, u32) {
        match self {
            Field::Minute => (0, 59),
            Field::Hour => (0, 23),
            Field::DayOfMonth => (1, 31),
            Field::Month => (1, 12),
            Field::DayOfWeek => (0, 7),
        }
    }

    /// The names a field takes for its numbers, the first for the lowest.
    fn names(self) -> &'static [&'static str] {
        match self {
            Field::Month => &[
                "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
            ],
            Field::DayOfWeek => &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
            Field::Minute | Field::Hour | Field::DayOfMonth => &[],
        }
    }

    fn number(self, text: &str) -> Option<u32> {
        if let Ok(n) = text.parse::<u32>() {
            return Some(n);
        }
        let (low, _) = self.range();
        self.names()
            .iter()
            .position(|name| name.eq_ignore_ascii_case(text))
            .and_then(|i| u32::try_from(i).ok())
            .map(|i| low + i)
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What is wrong inside one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FieldProblem {
    /// A number outside the field's range (`61` as a minute).
    OutOfRange { number: u32 },
    /// A range whose start is after its end (`5-2`).
    Backwards { range: String },
    /// A step of zero (`*/0`).
    ZeroStep { item: String },
    /// A step after a single number (`5/15`), which croner refuses; `*/15` or `5-59/15` is meant.
    StepAfterNumber { item: String },
    /// Anything else: not a number, name, range, list or step.
    Malformed { item: String },
}

/// A schedule the API would not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ScheduleError {
    /// `@daily` and friends; `equivalent` is the 5 fields meaning the same, when there are any
    /// (`@reboot` has none).
    #[error(
        "schedule `{nickname}` is a nickname; the API takes only the 5 fields \
         `minute hour day-of-month month day-of-week`"
    )]
    Nickname {
        nickname: String,
        equivalent: Option<&'static str>,
    },
    /// Not 5 fields (6 or 7: seconds or years).
    #[error(
        "schedule `{schedule}` has {found} field{}; the API takes exactly 5",
        if *found == 1 { "" } else { "s" }
    )]
    FieldCount { schedule: String, found: usize },
    /// Every field valid alone, refused together.
    #[error("schedule `{schedule}` is not a valid cron expression")]
    Invalid { schedule: String },
    #[error("schedule `{schedule}`: {}", field_problem(*field, problem))]
    Field {
        schedule: String,
        field: Field,
        problem: FieldProblem,
    },
}

fn field_problem(field: Field, problem: &FieldProblem) -> String {
    let (low, high) = field.range();
    match problem {
        FieldProblem::OutOfRange { number } => {
            format!("the {field} is {number}; it must be from {low} to {high}")
        }
        FieldProblem::Backwards { range } => {
            format!("the {field} range `{range}` runs backwards")
        }
        FieldProblem::ZeroStep { item } => format!("the {field} step in `{item}` is zero"),
        FieldProblem::StepAfterNumber { item } => {
            format!("the {field} `{item}` steps from a single number")
        }
        FieldProblem::Malformed { item } => format!("the {field} `{item}` is not valid"),
    }
}

const FIELDS_HINT: &str = "fields are minute (0-59), hour (0-23), day of month (1-31), month \
                           (1-12 or JAN-DEC) and day of week (0-7 or SUN-SAT; 0 and 7 are \
                           Sunday); each `*`, a number, a range `a-b`, a list `a,b` or a step \
                           `*/n`";

impl ScheduleError {
    /// What to write instead.
    pub(crate) fn hint(&self) -> String {
        match self {
            ScheduleError::Nickname {
                nickname,
                equivalent: Some(fields),
            } => format!("write `{fields}`, the same as {nickname}"),
            ScheduleError::Nickname {
                equivalent: None, ..
            } => "write when the job runs, e.g. `0 * * * *` for every hour".into(),
            ScheduleError::FieldCount { found: 6 | 7, .. } => {
                "seconds and years are not supported: drop the first (seconds) field".into()
            }
            ScheduleError::FieldCount { .. } => {
                "write `minute hour day-of-month month day-of-week`, e.g. `*/15 * * * *`".into()
            }
            ScheduleError::Field { field, problem, .. } => field_hint(*field, problem),
            ScheduleError::Invalid { .. } => FIELDS_HINT.into(),
        }
    }
}

fn field_hint(field: Field, problem: &FieldProblem) -> String {
    let (low, high) = field.range();
    match problem {
        FieldProblem::OutOfRange { .. } => {
            format!("the {field} field takes {low} to {high}; {FIELDS_HINT}")
        }
        FieldProblem::Backwards { range } => {
            let swapped: Vec<&str> = range.rsplit('-').collect();
            format!(
                "write the smaller number first (`{}`), or a list for a range across the \
                 end, e.g. `22-23,0-2` for hours",
                swapped.join("-")
            )
        }
        FieldProblem::ZeroStep { .. } => "a step is at least 1: `*/1` is every value".into(),
        FieldProblem::StepAfterNumber { item } => {
            let (start, step) = item.split_once('/').unwrap_or((item, "n"));
            format!(
                "write `*/{step}` to step from {low}, or `{start}-{high}/{step}` to step from \
                 {start}"
            )
        }
        FieldProblem::Malformed { .. } => FIELDS_HINT.into(),
    }
}

/// The 5 fields `@nickname` stands for; `None` inside for `@reboot`, which has none; `None`
/// for a word cron does not know.
pub(crate) fn nickname(word: &str) -> Option<Option<&'static str>> {
    let fields = match word.to_ascii_lowercase().as_str() {
        "@yearly" | "@annually" => "0 0 1 1 *",
        "@monthly" => "0 0 1 * *",
        "@weekly" => "0 0 * * 0",
        "@daily" | "@midnight" => "0 0 * * *",
        "@hourly" => "0 * * * *",
        "@reboot" => return Some(None),
        _ => return None,
    };
    Some(Some(fields))
}

/// The first field `refuses` refuses when it stands alone (the others `*`), and what in it is
/// wrong; `None` when every field passes alone.
pub(crate) fn find_problem(
    fields: &[&str],
    refuses: impl Fn(&str) -> bool,
) -> Option<(Field, FieldProblem)> {
    Field::ALL.iter().zip(fields).find_map(|(field, text)| {
        let mut alone = ["*"; 5];
        alone[Field::ALL.iter().position(|f| f == field)?] = text;
        refuses(&alone.join(" ")).then(|| (*field, problem_in(*field, text)))
    })
}

/// The first item of a refused field that says why; `Malformed` of the whole field otherwise.
fn problem_in(field: Field, text: &str) -> FieldProblem {
    text.split(',')
        .filter(|item| !item.is_empty())
        .find_map(|item| item_problem(field, item))
        .unwrap_or_else(|| FieldProblem::Malformed { item: text.into() })
}

fn item_problem(field: Field, item: &str) -> Option<FieldProblem> {
    let malformed = || FieldProblem::Malformed { item: item.into() };
    let (base, step) = match item.split_once('/') {
        Some((base, step)) => (base, Some(step)),
        None => (item, None),
    };
    if let Some(step) = step {
        match step.parse::<u32>() {
            Ok(0) => return Some(FieldProblem::ZeroStep { item: item.into() }),
            Ok(_) => {}
            Err(_) => return Some(malformed()),
        }
    }
    if base == "*" || base == "?" {
        return None;
    }
    let (high, number) = (field.range().1, |text: &str| field.number(text));
    if let Some((from, to)) = base.split_once('-') {
        let (Some(a), Some(b)) = (number(from), number(to)) else {
            return Some(malformed());
        };
        if let Some(&out) = [a, b].iter().find(|n| !in_range(field, **n)) {
            return Some(FieldProblem::OutOfRange { number: out });
        }
        // `SAT-SUN`: Sunday ends a range as 7.
        let b = if field == Field::DayOfWeek && b == 0 {
            high
        } else {
            b
        };
        return (a > b).then(|| FieldProblem::Backwards { range: base.into() });
    }
    let n = number(base)?;
    if !in_range(field, n) {
        return Some(FieldProblem::OutOfRange { number: n });
    }
    step.map(|_| FieldProblem::StepAfterNumber { item: item.into() })
}

fn in_range(field: Field, n: u32) -> bool {
    let (low, high) = field.range();
    (low..=high).contains(&n)
}
