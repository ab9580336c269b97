//! What the figures were measured on.

use std::process::Command;

pub struct Machine {
    pub cpu_model: String,
    pub cores: usize,
    pub memory: String,
    pub os: String,
    pub rustc: String,
    pub profile: &'static str,
    /// /proc/loadavg when the report was made: other work on the machine skews timings.
    pub load: String,
}

impl Machine {
    pub fn describe() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        Machine {
            cpu_model: field(&cpuinfo, "model name").unwrap_or_else(|| "unknown".into()),
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(0),
            memory: field(&meminfo, "MemTotal")
                .and_then(|kb| kb.trim_end_matches(" kB").trim().parse::<u64>().ok())
                .map(|kb| format!("{:.1} GiB", kb as f64 / 1024.0 / 1024.0))
                .unwrap_or_else(|| "unknown".into()),
            os: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .map(|r| format!("{} {}", std::env::consts::OS, r.trim()))
                .unwrap_or_else(|_| std::env::consts::OS.into()),
            rustc: command_line("rustc", &["--version"]).unwrap_or_else(|| "unknown".into()),
            load: std::fs::read_to_string("/proc/loadavg")
                .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                .unwrap_or_else(|_| "unknown".into()),
            profile: if cfg!(debug_assertions) {
                "debug (figures not representative)"
            } else {
                "release"
            },
        }
    }
}

/// The value of the first `key : value` line.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// The 1-minute load average.
pub fn load_1min() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

fn command_line(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_proc_files() {
        let text = "processor\t: 0\nmodel name\t: AMD EPYC\nMemTotal:  24683520 kB\n";
        assert_eq!(field(text, "model name").as_deref(), Some("AMD EPYC"));
        assert_eq!(field(text, "MemTotal").as_deref(), Some("24683520 kB"));
        assert_eq!(field(text, "flags"), None);
    }
}
