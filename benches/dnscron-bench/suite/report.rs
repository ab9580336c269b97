//! Figures, the terminal table and BENCHMARKS.md.

use std::fmt::Write as _;

use super::machine::Machine;

/// Whether a figure meets its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Met,
    Missed,
    /// No target: shown for context (a breakdown, a count).
    Info,
    /// Not measured in this run (the reason is in the section's notes).
    NotMeasured,
}

impl Verdict {
    pub fn of(met: bool) -> Verdict {
        if met { Verdict::Met } else { Verdict::Missed }
    }

    fn mark(self) -> &'static str {
        match self {
            Verdict::Met => "yes",
            Verdict::Missed => "**NO**",
            Verdict::Info => "",
            Verdict::NotMeasured => "not measured",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Figure {
    pub name: String,
    pub value: String,
    pub target: String,
    /// The theoretical bound or minimum, when there is one.
    pub bound: String,
    pub verdict: Verdict,
}

impl Figure {
    pub fn info(name: impl Into<String>, value: impl Into<String>) -> Figure {
        Figure {
            name: name.into(),
            value: value.into(),
            target: String::new(),
            bound: String::new(),
            verdict: Verdict::Info,
        }
    }

    pub fn new(
        name: impl Into<String>,
        value: impl Into<String>,
        target: impl Into<String>,
        bound: impl Into<String>,
        verdict: Verdict,
    ) -> Figure {
        Figure {
            name: name.into(),
            value: value.into(),
            target: target.into(),
            bound: bound.into(),
            verdict,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Section {
    pub title: String,
    /// How the figures were obtained (one paragraph).
    pub method: String,
    pub figures: Vec<Figure>,
    pub notes: Vec<String>,
    /// A summary table of the section's own shape (Markdown lines), after the figures.
    pub summary: Vec<String>,
    /// 1-minute load average when the section started and ended: other work skews timings.
    pub load: String,
}

impl Section {
    pub fn new(title: &str, method: &str) -> Section {
        Section {
            title: title.into(),
            method: method.into(),
            ..Section::default()
        }
    }

    pub fn push(&mut self, figure: Figure) {
        self.figures.push(figure);
    }

    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    pub fn missed(&self) -> usize {
        self.figures
            .iter()
            .filter(|f| f.verdict == Verdict::Missed)
            .count()
    }
}

pub struct Report {
    pub machine: Machine,
    pub command: String,
    pub date: String,
    pub smoke: bool,
    pub sections: Vec<Section>,
}

/// Markers around the generated part of BENCHMARKS.md; text outside them is kept on rewrite.
pub const BEGIN: &str = "<!-- dnscron-bench: generated from here -->";
pub const END: &str = "<!-- dnscron-bench: generated up to here -->";

impl Report {
    pub fn missed(&self) -> usize {
        self.sections.iter().map(Section::missed).sum()
    }

    /// The table printed on stdout.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for s in &self.sections {
            let _ = writeln!(out, "\n== {}", s.title);
            let w = s.figures.iter().map(|f| f.name.len()).max().unwrap_or(0);
            let v = s.figures.iter().map(|f| f.value.len()).max().unwrap_or(0);
            for f in &s.figures {
                let mut line = format!("  {:<w$}  {:>v$}", f.name, f.value);
                if !f.target.is_empty() {
                    let _ = write!(line, "  target {}", f.target);
                }
                if !f.bound.is_empty() {
                    let _ = write!(line, "  bound {}", f.bound);
                }
                match f.verdict {
                    Verdict::Missed => line.push_str("  MISSED"),
                    Verdict::NotMeasured => line.push_str("  (not measured)"),
                    Verdict::Met | Verdict::Info => {}
                }
                let _ = writeln!(out, "{}", line.trim_end());
            }
            if !s.summary.is_empty() {
                let _ = writeln!(out);
                for line in &s.summary {
                    let _ = writeln!(out, "  {line}");
                }
            }
            for n in &s.notes {
                let _ = writeln!(out, "  note: {n}");
            }
        }
        let _ = writeln!(out, "\n{} target(s) missed", self.missed());
        out
    }

    /// The generated part of BENCHMARKS.md, markers included.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{BEGIN}");
        let m = &self.machine;
        let _ = writeln!(
            out,
            "Run {} with `{}`{}.\n",
            self.date,
            self.command,
            if self.smoke {
                " (**smoke sizes**: not the figures the targets are about)"
            } else {
                ""
            }
        );
        let _ = writeln!(out, "| machine | |\n|---|---|");
        let _ = writeln!(out, "| CPU | {} |", m.cpu_model);
        let _ = writeln!(out, "| cores (`nproc`) | {} |", m.cores);
        let _ = writeln!(out, "| memory | {} |", m.memory);
        let _ = writeln!(out, "| OS | {} |", m.os);
        let _ = writeln!(out, "| rustc | {} |", m.rustc);
        let _ = writeln!(out, "| build | {} |", m.profile);
        let _ = writeln!(
            out,
            "| load average at the end (1, 5, 15 min) | {} |",
            m.load
        );
        let _ = writeln!(out, "\n{} target(s) missed in this run.", self.missed());
        for s in &self.sections {
            let _ = writeln!(out, "\n### {}\n\n{}\n", s.title, s.method);
            if !s.load.is_empty() {
                let _ = writeln!(out, "1-minute load average, start → end: {}.\n", s.load);
            }
            let _ = writeln!(out, "| measure | value | target | bound / minimum | met |");
            let _ = writeln!(out, "|---|---:|---|---|---|");
            for f in &s.figures {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    cell(&f.name),
                    cell(&f.value),
                    cell(&f.target),
                    cell(&f.bound),
                    f.verdict.mark()
                );
            }
            if !s.summary.is_empty() {
                out.push('\n');
                for line in &s.summary {
                    let _ = writeln!(out, "{line}");
                }
            }
            if !s.notes.is_empty() {
                out.push('\n');
                for n in &s.notes {
                    let _ = writeln!(out, "- {n}");
                }
            }
        }
        let _ = writeln!(out, "{END}");
        out
    }
}

/// A table cell: a `|` in it would end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// Replaces the generated part of `existing` (or appends it), keeping the rest.
pub fn splice(existing: &str, generated: &str) -> String {
    match (existing.find(BEGIN), existing.find(END)) {
        (Some(b), Some(e)) if e > b => {
            let after = &existing[e + END.len()..];
            let after = after.strip_prefix('\n').unwrap_or(after);
            format!("{}{generated}{after}", &existing[..b])
        }
        _ if existing.trim().is_empty() => format!("# Benchmarks\n\n{generated}"),
        _ => format!("{}\n\n{generated}", existing.trim_end()),
    }
}

/// What a section kept from an earlier run says under its title.
const KEPT: &str = "Kept from the run of";

/// `generated` plus the sections of the generated part of `existing` that this run didn't
/// measure (`--only`), each marked with the date it was measured: a partial run doesn't erase
/// them. Sections are ordered by title (they are numbered).
pub fn keep_unrun(existing: &str, generated: &str) -> String {
    let Some(old) = existing
        .find(BEGIN)
        .and_then(|b| existing[b..].find(END).map(|e| &existing[b..b + e]))
    else {
        return generated.to_string();
    };
    let date = old
        .lines()
        .find_map(|l| l.strip_prefix("Run "))
        .and_then(|l| l.split(" with ").next())
        .unwrap_or("an earlier date");
    let (head, mut sections) = split_sections(generated.trim_end().trim_end_matches(END));
    for (title, text) in split_sections(old).1 {
        if sections.iter().any(|(t, _)| *t == title) {
            continue;
        }
        let text = if text.contains(KEPT) {
            text.to_string()
        } else {
            let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
            format!("{first}\n\n*{KEPT} {date}: not re-run by the run above.*\n{rest}")
        };
        sections.push((title, text));
    }
    sections.sort_by_key(|s| section_order(s.0));
    let mut out = head.to_string();
    for (_, text) in sections {
        let _ = write!(out, "\n{}\n", text.trim_end());
    }
    let _ = writeln!(out, "{END}");
    out
}

/// A section's place: its number, as a number (section 10 comes after 9, not after 1), then
/// its title for the unnumbered.
fn section_order(title: &str) -> (u32, &str) {
    let number = title.split_once(". ").and_then(|(n, _)| n.parse().ok());
    (number.unwrap_or(u32::MAX), title)
}

/// A generated part (from the begin marker, without the end marker) split into the text before
/// the first section and each section as (title, text from `### ` on).
fn split_sections(block: &str) -> (&str, Vec<(&str, String)>) {
    let starts: Vec<usize> = block.match_indices("\n### ").map(|(i, _)| i + 1).collect();
    let head = starts.first().map_or(block, |&i| &block[..i - 1]);
    let sections = starts
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let text = starts.get(k + 1).map_or(&block[i..], |&j| &block[i..j]);
            let title = text["### ".len()..].lines().next().unwrap_or("");
            (title, text.to_string())
        })
        .collect();
    (head, sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_keeps_text_around_the_markers() {
        let gen1 = format!("{BEGIN}\none\n{END}\n");
        let gen2 = format!("{BEGIN}\ntwo\n{END}\n");
        let first = splice("", &gen1);
        assert!(first.starts_with("# Benchmarks\n"));
        let edited = format!("# B\nintro\n{}\nanalysis\n", gen1.trim_end());
        let second = splice(&edited, &gen2);
        assert_eq!(second, format!("# B\nintro\n{gen2}analysis\n"));
    }

    #[test]
    fn a_bar_in_a_figure_stays_inside_its_cell() {
        let mut section = Section::new("6. Side", "How.");
        section.push(Figure::new("a | b", "1 | 2", "", "", Verdict::Met));
        let report = Report {
            machine: Machine::describe(),
            command: "bench".into(),
            date: "today".into(),
            smoke: false,
            sections: vec![section],
        };
        let md = report.markdown();
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| a")).collect();
        assert_eq!(rows, ["| a \\| b | 1 \\| 2 |  |  | yes |"]);
    }

    #[test]
    fn a_partial_run_keeps_the_sections_it_did_not_measure() {
        let old = format!(
            "# B\n{BEGIN}\nRun 2026-11-22 01:42 UTC with `x`.\n\n1 target(s) missed in this run.\n\n\
             ### 1. One\n\nold one\n\n### 2. Two\n\nold two\n| a | b |\n\n\
             ### 3. Three\n\n*{KEPT} 2026-11-20 00:00 UTC: not re-run by the run above.*\n\
             old three\n{END}\ntail\n"
        );
        let new = format!(
            "{BEGIN}\nRun 2026-11-23 03:50 UTC with `y`.\n\n0 target(s) missed in this run.\n\n\
             ### 2. Two\n\nnew two\n{END}\n"
        );
        let expected = format!(
            "{BEGIN}\nRun 2026-11-23 03:50 UTC with `y`.\n\n0 target(s) missed in this run.\n\n\
             ### 1. One\n\n*{KEPT} 2026-11-22 01:42 UTC: not re-run by the run above.*\n\n\
             old one\n\n### 2. Two\n\nnew two\n\n\
             ### 3. Three\n\n*{KEPT} 2026-11-20 00:00 UTC: not re-run by the run above.*\n\
             old three\n{END}\n"
        );
        assert_eq!(keep_unrun(&old, &new), expected);
        assert_eq!(keep_unrun("# B\nno block\n", &new), new);
        // A full run keeps nothing: every section is new.
        let full = format!("{BEGIN}\nRun now.\n\n### 1. One\n\nnew one\n{END}\n");
        let only_one = format!("{BEGIN}\nRun then.\n\n### 1. One\n\nold one\n{END}\n");
        assert_eq!(keep_unrun(&only_one, &full), full);
    }

    #[test]
    fn sections_are_ordered_by_their_number() {
        let old = format!(
            "{BEGIN}\nRun then with `x`.\n\n### 2. Two\n\nold two\n\n### 9. Nine\n\nold nine\n{END}\n"
        );
        let new = format!("{BEGIN}\nRun now with `y`.\n\n### 10. Ten\n\nnew ten\n{END}\n");
        let merged = keep_unrun(&old, &new);
        let titles: Vec<&str> = merged.lines().filter(|l| l.starts_with("### ")).collect();
        assert_eq!(titles, ["### 2. Two", "### 9. Nine", "### 10. Ten"]);
    }
}
