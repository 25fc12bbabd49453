//! Contact import rules (spec 1 §5, §9) as pure functions: a spreadsheet's header row and the
//! user's column mapping turn its rows into contact inputs, counting what is imported, ignored
//! (no name or no number) and failed (invalid).
//!
//! The host reads the file (xls, xlsx, csv, txt) into rows of text cells; this module decides.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::inbox::model::ContactInput;
use crate::ports::ChannelKind;

/// How many rows the upload preview shows.
pub const PREVIEW_ROWS: usize = 50;
/// The most rows one import takes.
pub const MAX_ROWS: usize = crate::limits::SPREADSHEET_MAX_ROWS;

/// A spreadsheet read as text: a header row and data rows, kept compactly (every cell's text in
/// one string, with the end offset of each cell and the end of each row), so a sheet costs about
/// its text plus eight bytes a cell. Readers bound it with [`crate::limits::SheetBudget`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sheet {
    /// Column titles.
    pub header: Vec<String>,
    text: String,
    cell_ends: Vec<u32>,
    row_ends: Vec<u32>,
}

impl Sheet {
    /// An empty sheet with this header.
    pub fn new(header: Vec<String>) -> Self {
        Sheet {
            header,
            ..Sheet::default()
        }
    }

    /// A sheet of these rows (for tests and small files).
    pub fn from_rows<S: AsRef<str>>(header: Vec<String>, rows: &[Vec<S>]) -> Self {
        let mut sheet = Sheet::new(header);
        for row in rows {
            sheet.push_row(row.iter().map(AsRef::as_ref));
        }
        sheet
    }

    /// Appends a data row. Offsets are 32-bit: readers keep far less text than 4 GiB.
    pub fn push_row<'a>(&mut self, cells: impl IntoIterator<Item = &'a str>) {
        for cell in cells {
            self.text.push_str(cell);
            self.cell_ends.push(self.text.len() as u32);
        }
        self.row_ends.push(self.cell_ends.len() as u32);
    }

    /// How many data rows.
    pub fn len(&self) -> usize {
        self.row_ends.len()
    }

    /// Whether there is no data row.
    pub fn is_empty(&self) -> bool {
        self.row_ends.is_empty()
    }

    /// The data row at `index` (0-based), as long as it was in the file.
    pub fn row(&self, index: usize) -> Option<Vec<&str>> {
        let end = *self.row_ends.get(index)? as usize;
        let start = match index {
            0 => 0,
            i => self.row_ends[i - 1] as usize,
        };
        let cells = self.cell_ends.get(start..end).unwrap_or_default();
        let mut from = match start {
            0 => 0,
            s => self.cell_ends.get(s - 1).copied().unwrap_or(0) as usize,
        };
        Some(
            cells
                .iter()
                .map(|&to| {
                    let cell = self.text.get(from..to as usize).unwrap_or_default();
                    from = to as usize;
                    cell
                })
                .collect(),
        )
    }

    /// The data rows in order.
    pub fn rows(&self) -> impl Iterator<Item = Vec<&str>> + '_ {
        (0..self.len()).filter_map(|i| self.row(i))
    }
}

/// Which column (by its header text) feeds which contact field. `name` and `number` are
/// required; one column feeds at most one field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImportMapping {
    pub name: String,
    pub number: String,
    #[serde(default)]
    pub email: Option<String>,
    /// A column of tag names separated by commas or semicolons.
    #[serde(default)]
    pub tags: Option<String>,
}

/// The mapping resolved to column positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub name: usize,
    pub number: usize,
    pub email: Option<usize>,
    pub tags: Option<usize>,
}

/// Resolves `mapping` against the header row. Header texts are compared trimmed and
/// case-insensitively. `ERR_VALIDATION` with field `name`/`number` `Required` when a required
/// field is not mapped, `NotFound`-like `InvalidFormat` when a mapped column does not exist, and
/// `AlreadyExists`-like `InvalidFormat` on the second field when one column is mapped twice.
pub fn resolve(header: &[String], mapping: &ImportMapping) -> Result<Columns> {
    let mut errors = Vec::new();
    let find = |wanted: &str| {
        let wanted = wanted.trim().to_lowercase();
        header
            .iter()
            .position(|h| h.trim().to_lowercase() == wanted)
    };
    let required = |field: &str, column: &str, errors: &mut Vec<FieldError>| {
        if column.trim().is_empty() {
            errors.push(FieldError::new(field, FieldCode::Required));
            None
        } else {
            let found = find(column);
            if found.is_none() {
                errors.push(FieldError::new(field, FieldCode::InvalidFormat));
            }
            found
        }
    };
    let name = required("name", &mapping.name, &mut errors);
    let number = required("number", &mapping.number, &mut errors);
    let optional = |field: &str, column: &Option<String>, errors: &mut Vec<FieldError>| match column
        .as_deref()
        .map(str::trim)
    {
        None | Some("") => None,
        Some(column) => {
            let found = find(column);
            if found.is_none() {
                errors.push(FieldError::new(field, FieldCode::InvalidFormat));
            }
            found
        }
    };
    let email = optional("email", &mapping.email, &mut errors);
    let tags = optional("tags", &mapping.tags, &mut errors);
    // No column may feed two fields.
    let mut seen: Vec<usize> = Vec::new();
    for (field, column) in [
        ("name", name),
        ("number", number),
        ("email", email),
        ("tags", tags),
    ] {
        if let Some(column) = column {
            if seen.contains(&column) {
                errors.push(FieldError::new(field, FieldCode::InvalidFormat));
            }
            seen.push(column);
        }
    }
    match (name, number, errors.is_empty()) {
        (Some(name), Some(number), true) => Ok(Columns {
            name,
            number,
            email,
            tags,
        }),
        _ => Err(Error::validation(errors)),
    }
}

/// One row turned into a contact to save, with the tag names it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowContact {
    /// 1-based row number in the file, header excluded.
    pub row: usize,
    pub input: ContactInput,
    pub tags: Vec<String>,
}

/// A row that failed, and why (an error code, e.g. `ERR_VALIDATION` or `ERR_DUPLICATED_CONTACT`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RowError {
    pub row: usize,
    pub error: String,
}

/// What an import did: `{imported, ignored, failed, errors}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    pub imported: u64,
    pub ignored: u64,
    pub failed: u64,
    pub errors: Vec<RowError>,
}

impl ImportReport {
    /// Records a failed row.
    pub fn fail(&mut self, row: usize, error: &Error) {
        self.failed += 1;
        self.errors.push(RowError {
            row,
            error: error.code.as_str().to_owned(),
        });
    }
}

/// What the rules decided for a file: the contacts to save and the counts so far (ignored and
/// invalid rows). The caller saves each contact and adds `imported` (or a failure) per row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportPlan {
    pub contacts: Vec<RowContact>,
    pub report: ImportReport,
}

/// Turns `rows` (header excluded) into contacts of `channel`: rows with no name or no number are
/// ignored; rows whose fields break the contact rules fail; the rest are normalised inputs.
pub fn plan<R, S>(
    columns: Columns,
    rows: impl IntoIterator<Item = R>,
    channel: ChannelKind,
) -> ImportPlan
where
    R: AsRef<[S]>,
    S: AsRef<str>,
{
    let mut out = ImportPlan::default();
    let cell = |row: &[S], i: usize| {
        row.get(i)
            .map(|s| s.as_ref().trim().to_owned())
            .unwrap_or_default()
    };
    for (index, row) in rows.into_iter().enumerate() {
        let row = row.as_ref();
        let row_no = index + 1;
        if row.iter().all(|c| c.as_ref().trim().is_empty()) {
            continue;
        }
        let name = cell(row, columns.name);
        let number = cell(row, columns.number);
        if name.is_empty() || number.is_empty() {
            out.report.ignored += 1;
            continue;
        }
        let email = columns.email.map(|i| cell(row, i)).unwrap_or_default();
        let tags = columns
            .tags
            .map(|i| split_tags(&cell(row, i)))
            .unwrap_or_default();
        let input = ContactInput {
            name,
            number,
            email,
            channel: Some(channel),
            is_group: false,
            whatsapp_id: None,
            disable_bot: None,
            accept_audio_message: None,
            extra_info: Vec::new(),
        };
        match crate::inbox::contact_rules::prepare(input) {
            Ok(input) => out.contacts.push(RowContact {
                row: row_no,
                input,
                tags,
            }),
            Err(error) => out.report.fail(row_no, &error),
        }
    }
    out
}

/// Tag names of a cell: split on commas and semicolons, trimmed, empty ones dropped.
pub fn split_tags(cell: &str) -> Vec<String> {
    cell.split([',', ';'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Guesses the mapping from header names (`nome`/`name`, `número`/`numero`/`number`/`telefone`/
/// `phone`, `email`/`e-mail`, `tags`/`etiquetas`), for the CLI and as the page's default.
pub fn guess_mapping(header: &[String]) -> ImportMapping {
    let pick = |names: &[&str]| {
        header
            .iter()
            .find(|h| {
                let h = crate::inbox::search::normalize(h);
                names.contains(&h.as_str())
            })
            .cloned()
    };
    ImportMapping {
        name: pick(&["nome", "name", "contato", "contact"]).unwrap_or_default(),
        number: pick(&[
            "numero", "number", "telefone", "phone", "celular", "whatsapp",
        ])
        .unwrap_or_default(),
        email: pick(&["email", "e-mail", "mail"]),
        tags: pick(&["tags", "tag", "etiquetas"]),
    }
}

/// The error of a file the host cannot read as a spreadsheet ("Arquivo inválido!").
pub fn invalid_file() -> Error {
    Error::new(ErrorCode::ERR_INVALID_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| (*c).to_owned()).collect()
    }

    fn mapping(name: &str, number: &str) -> ImportMapping {
        ImportMapping {
            name: name.into(),
            number: number.into(),
            email: None,
            tags: None,
        }
    }

    #[test]
    fn resolves_columns_by_header_case_insensitively() {
        let header = strings(&["Nome", " Número ", "Email", "Tags"]);
        let mut m = mapping("nome", "número");
        m.email = Some("EMAIL".into());
        m.tags = Some("tags".into());
        let cols = resolve(&header, &m).expect("resolves");
        assert_eq!(
            cols,
            Columns {
                name: 0,
                number: 1,
                email: Some(2),
                tags: Some(3)
            }
        );
    }

    #[test]
    fn name_and_number_must_be_mapped_once_each() {
        let header = strings(&["a", "b"]);
        let err = resolve(&header, &mapping("", "b")).expect_err("name missing");
        assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
        assert_eq!(err.fields[0].field, "name");
        assert_eq!(err.fields[0].code, FieldCode::Required);
        let err = resolve(&header, &mapping("a", "a")).expect_err("one column twice");
        assert_eq!(err.fields[0].field, "number");
        let err = resolve(&header, &mapping("a", "zzz")).expect_err("no such column");
        assert_eq!(err.fields[0].field, "number");
        let mut m = mapping("a", "b");
        m.email = Some("a".into());
        assert!(
            resolve(&header, &m).is_err(),
            "e-mail cannot reuse the name column"
        );
    }

    #[test]
    fn counts_ignored_failed_and_normalises_the_rest() {
        let cols = Columns {
            name: 0,
            number: 1,
            email: Some(2),
            tags: Some(3),
        };
        let rows = vec![
            strings(&[
                "João",
                "+55 (11) 99999-0001",
                "joao@example.com",
                "vip, lead",
            ]),
            strings(&["", "5511999990002", "", ""]),
            strings(&["Maria", "", "", ""]),
            strings(&["X", "5511999990003", "", ""]),
            strings(&["Ana", "123", "", ""]),
            strings(&["Bia", "5511999990004", "not-an-email", ""]),
            strings(&["", "", "", ""]),
            strings(&["Caio", "5511999990005"]),
        ];
        let plan = plan(cols, &rows, ChannelKind::Whatsapp);
        let sheet = Sheet::from_rows(Vec::new(), &rows);
        assert_eq!(plan, super::plan(cols, sheet.rows(), ChannelKind::Whatsapp));
        assert_eq!(plan.report.ignored, 2);
        assert_eq!(plan.report.failed, 3);
        assert_eq!(
            plan.report.errors.iter().map(|e| e.row).collect::<Vec<_>>(),
            vec![4, 5, 6]
        );
        assert_eq!(plan.contacts.len(), 2);
        let first = &plan.contacts[0];
        assert_eq!(first.row, 1);
        assert_eq!(first.input.number, "5511999990001");
        assert_eq!(first.input.email, "joao@example.com");
        assert_eq!(first.tags, vec!["vip".to_owned(), "lead".to_owned()]);
        assert_eq!(
            plan.contacts[1].row, 8,
            "short rows read missing cells as empty"
        );
    }

    #[test]
    fn guesses_common_headers() {
        let m = guess_mapping(&strings(&["Nome", "Número", "E-mail", "Outro"]));
        assert_eq!(m.name, "Nome");
        assert_eq!(m.number, "Número");
        assert_eq!(m.email.as_deref(), Some("E-mail"));
        assert_eq!(m.tags, None);
    }

    #[test]
    fn splits_tag_cells() {
        assert_eq!(split_tags(" a ; b,, c "), vec!["a", "b", "c"]);
        assert!(split_tags("  ").is_empty());
    }

    #[test]
    fn a_sheet_keeps_its_rows_compactly() {
        let rows = vec![
            strings(&["Ana", "", "ç"]),
            strings(&[]),
            strings(&["", "5511"]),
        ];
        let sheet = Sheet::from_rows(strings(&["a", "b"]), &rows);
        assert_eq!(sheet.len(), 3);
        assert_eq!(sheet.row(0), Some(vec!["Ana", "", "ç"]));
        assert_eq!(sheet.row(1), Some(Vec::new()));
        assert_eq!(sheet.row(2), Some(vec!["", "5511"]));
        assert_eq!(sheet.row(3), None);
        assert_eq!(sheet.rows().count(), 3);
    }
}
