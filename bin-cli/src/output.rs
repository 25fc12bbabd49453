//! Printing results: aligned tables for people, JSON for scripts, and errors.

use chatflow_core::Error;
use serde::Serialize;

/// A table of text cells with a header row, printed with aligned columns.
pub struct Table {
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these column titles.
    pub fn new(header: &[&'static str]) -> Self {
        Self {
            header: header.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (one cell per column).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text: columns padded to their widest cell, separated by two spaces, with no
    /// trailing spaces.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let header: Vec<String> = self.header.iter().map(|h| (*h).to_owned()).collect();
        for row in std::iter::once(&header).chain(self.rows.iter()) {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate().take(columns) {
                if i > 0 {
                    line.push_str("  ");
                }
                line.push_str(cell);
                if i + 1 < columns {
                    let pad = widths[i].saturating_sub(cell.chars().count());
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Prints `value` as pretty JSON on standard output.
pub fn print_json<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        // Domain values always serialise; say so rather than print nothing.
        Err(e) => eprintln!("error: cannot print JSON: {e}"),
    }
}

/// Prints a refused command: the catalogue code, its detail and the failing fields.
pub fn print_domain_error(error: &Error, json: bool) {
    if json {
        let body = serde_json::json!({
            "error": error.code,
            "message": error.detail.clone().unwrap_or_else(|| describe(error)),
            "fields": error.fields,
        });
        eprintln!("{body}");
        return;
    }
    let mut line = format!(
        "error: {}: {}",
        error.code,
        error.detail.clone().unwrap_or_else(|| describe(error))
    );
    if !error.fields.is_empty() {
        let fields: Vec<String> = error
            .fields
            .iter()
            .map(|f| {
                let code = serde_json::to_value(f.code)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                format!("{} {}", f.field, code)
            })
            .collect();
        line.push_str(&format!(" ({})", fields.join(", ")));
    }
    eprintln!("{line}");
}

/// Prints a failure to reach or prepare the database.
pub fn print_database_error(message: &str, json: bool) {
    if json {
        eprintln!(
            "{}",
            serde_json::json!({ "error": "DATABASE", "message": message })
        );
    } else {
        eprintln!("error: {message}");
    }
}

/// A short human description of the codes the CLI meets, for errors without a detail.
fn describe(error: &Error) -> String {
    use chatflow_core::ErrorCode::*;
    match error.code {
        ERR_VALIDATION => "some values break the rules",
        ERR_NO_COMPANY_FOUND => "no such company",
        ERR_NO_PLAN_FOUND => "no such plan",
        ERR_NO_USER_FOUND => "no such user",
        ERR_NO_SETTING_FOUND => "no such setting",
        ERR_DUPLICATED_EMAIL => "another user already has this e-mail",
        ERR_USER_LIMIT_REACHED => "the company's plan allows no more users",
        ERR_INVALID_SETTING => "the value is not allowed for this setting",
        ERR_SETTING_MESSAGE_REQUIRED => "this setting needs its message to be set first",
        ERR_INTERNAL => "internal failure",
        _ => "the command was refused",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns_without_trailing_spaces() {
        let mut table = Table::new(&["ID", "NAME", "EMAIL"]);
        table.row(vec!["1".into(), "Ana".into(), "ana@x.test".into()]);
        table.row(vec!["10".into(), "Bárbara Lima".into(), "".into()]);
        assert_eq!(
            table.render(),
            "ID  NAME          EMAIL\n1   Ana           ana@x.test\n10  Bárbara Lima\n"
        );
    }
}
