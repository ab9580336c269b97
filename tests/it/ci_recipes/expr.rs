//! The subset of GitHub's `${{ }}` expressions the recipes use, so the runner decides `if:` and
//! fills `env:`/`with:` the way Actions would: context paths (`github.event.pull_request.number`,
//! `steps.ID.outputs.NAME`, `secrets.X`, `vars.X`, `inputs.X`, and the object filter `*` as in
//! `github.event.pull_request.labels.*.name`), string/number/boolean literals, `==`, `!=`, `!`,
//! `&&`, `||`, parentheses, the status functions `success()`, `failure()`, `always()`,
//! `cancelled()` and `contains(search, item)` (case-insensitive, as in Actions). Anything else
//! panics, so a recipe can't silently use more.

use serde_json::Value;

/// The values an expression can see; `failed` is whether an earlier step of the job failed.
pub struct Contexts {
    pub root: Value,
    pub failed: bool,
}

impl Contexts {
    /// Replaces each `${{ … }}` in `text` with the expression's value as a string.
    pub fn interpolate(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..]
                .find("}}")
                .unwrap_or_else(|| panic!("unclosed ${{{{ in {text:?}"));
            out.push_str(&as_string(&self.eval(&rest[start + 3..start + end])));
            rest = &rest[start + end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// An `if:` condition, with or without `${{ }}` around it; no `if:` means `success()`.
    pub fn condition(&self, cond: Option<&str>) -> bool {
        let Some(cond) = cond else {
            return !self.failed;
        };
        let trimmed = cond.trim();
        let inner = trimmed
            .strip_prefix("${{")
            .and_then(|c| c.strip_suffix("}}"))
            .unwrap_or(trimmed);
        let uses_status = ["success()", "failure()", "always()", "cancelled()"]
            .iter()
            .any(|f| inner.contains(f));
        let value = truthy(&self.eval(inner));
        // Like Actions: without a status function, `success() && (…)` is implied.
        if uses_status {
            value
        } else {
            !self.failed && value
        }
    }

    pub fn eval(&self, expr: &str) -> Value {
        let tokens = tokenize(expr);
        let mut parser = Parser {
            tokens: &tokens,
            at: 0,
            ctx: self,
        };
        let value = parser.or();
        assert_eq!(parser.at, tokens.len(), "unsupported expression {expr:?}");
        value
    }
}

pub fn as_string(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other @ (Value::Array(_) | Value::Object(_)) => other.to_string(),
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Str(String),
    Word(String),
    Op(&'static str),
}

fn tokenize(expr: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = expr.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '\'' {
            chars.next();
            let mut s = String::new();
            while let Some(c) = chars.next() {
                // '' is an escaped quote inside a string.
                if c == '\'' && chars.next_if_eq(&'\'').is_none() {
                    break;
                }
                s.push(c);
            }
            out.push(Token::Str(s));
        } else if c.is_alphanumeric() || c == '_' || c == '-' || c == '.' {
            let mut w = String::new();
            while let Some(c) = chars.next_if(|c| c.is_alphanumeric() || "_-.*".contains(*c)) {
                w.push(c);
            }
            out.push(Token::Word(w));
        } else {
            let two: String = chars.clone().take(2).collect();
            let op = ["==", "!=", "&&", "||"]
                .into_iter()
                .find(|op| *op == two)
                .or_else(|| {
                    ["!", "(", ")", ","]
                        .into_iter()
                        .find(|op| op.starts_with(c))
                })
                .unwrap_or_else(|| panic!("unsupported character {c:?} in {expr:?}"));
            for _ in 0..op.len() {
                chars.next();
            }
            out.push(Token::Op(op));
        }
    }
    out
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    ctx: &'a Contexts,
}

impl Parser<'_> {
    fn eat(&mut self, op: &'static str) -> bool {
        let hit = self.tokens.get(self.at) == Some(&Token::Op(op));
        if hit {
            self.at += 1;
        }
        hit
    }

    /// `||` and `&&` return an operand, not a boolean, as in Actions.
    fn or(&mut self) -> Value {
        let mut left = self.and();
        while self.eat("||") {
            let right = self.and();
            left = if truthy(&left) { left } else { right };
        }
        left
    }

    fn and(&mut self) -> Value {
        let mut left = self.compare();
        while self.eat("&&") {
            let right = self.compare();
            left = if truthy(&left) { right } else { left };
        }
        left
    }

    fn compare(&mut self) -> Value {
        let left = self.unary();
        for (op, equal) in [("==", true), ("!=", false)] {
            if self.eat(op) {
                let right = self.unary();
                return Value::Bool((as_string(&left) == as_string(&right)) == equal);
            }
        }
        left
    }

    fn unary(&mut self) -> Value {
        if self.eat("!") {
            return Value::Bool(!truthy(&self.unary()));
        }
        if self.eat("(") {
            let inner = self.or();
            assert!(self.eat(")"), "missing ) in expression");
            return inner;
        }
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        match token {
            Some(Token::Str(s)) => Value::String(s),
            Some(Token::Word(w)) => self.word(&w),
            other => panic!("unexpected {other:?} in expression"),
        }
    }

    fn word(&mut self, w: &str) -> Value {
        if self.eat("(") {
            let mut args = Vec::new();
            if !self.eat(")") {
                args.push(self.or());
                while self.eat(",") {
                    args.push(self.or());
                }
                assert!(self.eat(")"), "missing ) after the arguments of {w}");
            }
            return Value::Bool(match (w, args.as_slice()) {
                ("success", []) => !self.ctx.failed,
                ("failure", []) => self.ctx.failed,
                ("always", []) => true,
                ("cancelled", []) => false,
                ("contains", [search, item]) => contains(search, item),
                (other, args) => panic!(
                    "unsupported function {other} with {} argument(s)",
                    args.len()
                ),
            });
        }
        match w {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ if w.starts_with(|c: char| c.is_ascii_digit()) => {
                serde_json::from_str(w).unwrap_or_else(|_| panic!("bad number {w}"))
            }
            _ => path(&self.ctx.root, &w.split('.').collect::<Vec<_>>()),
        }
    }
}

/// The value at `keys` under `value`; `*` takes every element (or object value) and applies the
/// rest of the path to each, giving an array.
fn path(value: &Value, keys: &[&str]) -> Value {
    match keys {
        [] => value.clone(),
        ["*", rest @ ..] => {
            let items: Vec<&Value> = match value {
                Value::Array(items) => items.iter().collect(),
                Value::Object(map) => map.values().collect(),
                Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => Vec::new(),
            };
            Value::Array(items.into_iter().map(|v| path(v, rest)).collect())
        }
        [key, rest @ ..] => path(&value[*key], rest),
    }
}

/// Actions' `contains`: an array holding an element equal to `item`, or a string holding it,
/// both compared case-insensitively.
fn contains(search: &Value, item: &Value) -> bool {
    let item = as_string(item).to_lowercase();
    match search {
        Value::Array(items) => items.iter().any(|v| as_string(v).to_lowercase() == item),
        other @ (Value::Null
        | Value::Bool(_)
        | Value::Number(_)
        | Value::String(_)
        | Value::Object(_)) => as_string(other).to_lowercase().contains(&item),
    }
}

#[test]
fn the_subset_evaluates_like_actions() {
    let ctx = Contexts {
        root: serde_json::json!({
            "steps": {"plan": {"outputs": {"code": "0", "blocked": "2"}}},
            "github": {"event": {"pull_request": {"number": 7}}},
        }),
        failed: false,
    };
    assert!(ctx.condition(Some("steps.plan.outputs.code == '0'")));
    assert!(!ctx.condition(Some("${{ steps.plan.outputs.blocked == '0' }}")));
    assert!(ctx.condition(Some(
        "steps.plan.outputs.code != '1' && !(steps.x.outputs.y)"
    )));
    assert_eq!(
        ctx.interpolate("n-${{ github.event.pull_request.number }}-${{ steps.none.outputs.x }}"),
        "n-7-"
    );
    let failed = Contexts {
        root: ctx.root.clone(),
        failed: true,
    };
    assert!(!failed.condition(None));
    assert!(!failed.condition(Some("steps.plan.outputs.code == '0'")));
    assert!(failed.condition(Some("always()")));
    assert!(failed.condition(Some("failure() || 'x' == 'y'")));
}

#[test]
fn contains_reads_a_label_list_as_actions_does() {
    let labelled = |labels: serde_json::Value| Contexts {
        root: serde_json::json!({"github": {"event": {"pull_request": {"labels": labels}}}}),
        failed: false,
    };
    let expr =
        "${{ contains(github.event.pull_request.labels.*.name, 'dnscron:allow-mass-changes') }}";
    let with =
        labelled(serde_json::json!([{"name": "docs"}, {"name": "DNSCRON:Allow-Mass-Changes"}]));
    assert_eq!(with.interpolate(expr), "true");
    for without in [
        serde_json::json!([{"name": "docs"}]),
        serde_json::json!([]),
        serde_json::json!([{"name": "dnscron:allow-mass-changes-later"}]),
    ] {
        assert_eq!(labelled(without).interpolate(expr), "false");
    }
    // Without labels in the payload at all (another event), the list is empty.
    let none = Contexts {
        root: serde_json::json!({"github": {"event": {}}}),
        failed: false,
    };
    assert_eq!(none.interpolate(expr), "false");
    assert!(with.condition(Some("contains('dnscron plan', 'PLAN')")));
}
