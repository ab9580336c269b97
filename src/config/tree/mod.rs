//! A YAML document as a tree of located nodes. Deserializing straight into typed structs stops
//! at the first error; reading this tree instead lets the loader report every wrong value,
//! each at its own `line:col`. The tree is built from the parser's events in one pass
//! (`build`), typing scalars by the rules in `scalar`.

mod build;
mod scalar;
#[cfg(test)]
mod tests;

/// Where a node starts: 1-based line and column, byte offset and byte length in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
    pub offset: usize,
    pub len: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// How the value is named in "expected X, found Y" messages.
    pub fn kind(&self) -> String {
        match self {
            Value::Null => "nothing (null)".into(),
            Value::Bool(b) => format!("the boolean `{b}`"),
            Value::Int(i) => format!("the integer `{i}`"),
            Value::Float(f) => format!("the number `{f}`"),
            Value::Str(s) => format!("the string `{s}`"),
            Value::Seq(_) => "a list".into(),
            Value::Map(_) => "a mapping".into(),
        }
    }
}

/// A YAML syntax error: message and where, if known.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub pos: Option<Pos>,
}

/// Every non-empty document of a file.
pub fn parse_documents(source: &str) -> Result<Vec<Node>, SyntaxError> {
    build::documents(source)
}

/// Byte offset of a 1-based line and (character) column.
pub fn byte_offset(source: &str, line: usize, col: usize) -> usize {
    let line_start: usize = source
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = source.get(line_start..).unwrap_or_default();
    let in_line: usize = rest
        .chars()
        .take(col.saturating_sub(1))
        .take_while(|c| *c != '\n')
        .map(char::len_utf8)
        .sum();
    line_start + in_line
}
