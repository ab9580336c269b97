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
                    _ => {}
                }
                let _ = writeln!(out, "{}", line.trim_end());
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
                    f.name,
                    f.value,
                    f.target,
                    f.bound,
                    f.verdict.mark()
                );
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
}
