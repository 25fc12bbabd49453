//! Reading and writing contact spreadsheets: xls/xlsx (calamine) and csv/txt (csv) become rows of
//! text cells for the core's import rules; contacts become an xlsx file (rust_xlsxwriter).

use std::io::Cursor;

use calamine::{Data, Reader, open_workbook_auto_from_rs};
use chatflow_core::inbox::import::invalid_file;
use chatflow_core::inbox::model::Contact;
use chatflow_core::ports::ChannelKind;
use chatflow_core::{Error, Result};

/// A spreadsheet read as text: the first non-empty row is the header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sheet {
    /// Column titles (an empty title becomes `Column N`).
    pub header: Vec<String>,
    /// The data rows, each as long as it was in the file.
    pub rows: Vec<Vec<String>>,
}

/// The kinds of file accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Excel 97-2003 or 2007+ (`.xls`, `.xlsx`).
    Excel,
    /// Delimited text (`.csv`, `.txt`): comma, semicolon or tab, guessed from the header line.
    Delimited,
}

/// The format of a file by its name's extension; `None` for anything else.
pub fn format_of(file_name: &str) -> Option<Format> {
    let ext = file_name.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "xls" | "xlsx" => Some(Format::Excel),
        "csv" | "txt" => Some(Format::Delimited),
        _ => None,
    }
}

/// Reads a file named `file_name` (the extension picks the reader). `ERR_INVALID_FILE` for an
/// unaccepted extension, an unreadable file or one without a header row.
pub fn read(file_name: &str, bytes: &[u8]) -> Result<Sheet> {
    let rows = match format_of(file_name).ok_or_else(invalid_file)? {
        Format::Excel => read_excel(bytes)?,
        Format::Delimited => read_delimited(bytes)?,
    };
    let mut rows = rows
        .into_iter()
        .skip_while(|r| r.iter().all(|c| c.trim().is_empty()));
    let header = rows.next().ok_or_else(invalid_file)?;
    let header = header
        .into_iter()
        .enumerate()
        .map(|(i, h)| {
            let h = h.trim().to_owned();
            if h.is_empty() {
                format!("Column {}", i + 1)
            } else {
                h
            }
        })
        .collect();
    Ok(Sheet {
        header,
        rows: rows.collect(),
    })
}

fn cell_text(cell: &Data) -> String {
    match cell {
        // Phone numbers typed in Excel are floats: print whole numbers without ".0".
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        other => other.to_string(),
    }
}

fn read_excel(bytes: &[u8]) -> Result<Vec<Vec<String>>> {
    let mut book = open_workbook_auto_from_rs(Cursor::new(bytes.to_vec())).map_err(|e| {
        tracing::debug!(error = %e, "unreadable spreadsheet");
        invalid_file()
    })?;
    let range = book
        .worksheet_range_at(0)
        .ok_or_else(invalid_file)?
        .map_err(|e| {
            tracing::debug!(error = %e, "unreadable worksheet");
            invalid_file()
        })?;
    Ok(range
        .rows()
        .map(|row| row.iter().map(cell_text).collect())
        .collect())
}

fn read_delimited(bytes: &[u8]) -> Result<Vec<Vec<String>>> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
        .map_err(|_| invalid_file())?;
    if text.contains('\0') {
        return Err(invalid_file());
    }
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let delimiter = [b';', b'\t', b',']
        .into_iter()
        .max_by_key(|d| first.bytes().filter(|b| b == d).count())
        .unwrap_or(b',');
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|_| invalid_file())?;
        rows.push(record.iter().map(str::to_owned).collect());
    }
    Ok(rows)
}

fn channel_name(channel: ChannelKind) -> &'static str {
    match channel {
        ChannelKind::Whatsapp => "whatsapp",
        ChannelKind::Whatsappapi => "whatsappapi",
        ChannelKind::Facebook => "facebook",
        ChannelKind::Instagram => "instagram",
    }
}

/// The export's columns.
pub const EXPORT_HEADER: [&str; 6] = ["Nome", "Número", "Email", "Canal", "Conexão", "Tags"];

/// Writes contacts as an xlsx workbook (one sheet, [`EXPORT_HEADER`] then one row per contact;
/// numbers as text so long numbers keep every digit).
pub fn contacts_xlsx(contacts: &[Contact]) -> Result<Vec<u8>> {
    let rows: Vec<Vec<String>> = contacts
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                c.number.clone(),
                c.email.clone(),
                channel_name(c.channel).to_owned(),
                c.whatsapp_name.clone().unwrap_or_default(),
                c.tags
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            ]
        })
        .collect();
    let header: Vec<String> = EXPORT_HEADER.iter().map(|h| (*h).to_owned()).collect();
    xlsx(&header, &rows)
}

/// Writes a header and rows of text as an xlsx workbook.
pub fn xlsx(header: &[String], rows: &[Vec<String>]) -> Result<Vec<u8>> {
    let fail = |e: rust_xlsxwriter::XlsxError| Error::internal(format!("xlsx: {e}"));
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    for (col, title) in header.iter().enumerate() {
        sheet
            .write_string(0, col as u16, title.as_str())
            .map_err(fail)?;
    }
    for (r, row) in rows.iter().enumerate() {
        for (col, cell) in row.iter().enumerate() {
            sheet
                .write_string(r as u32 + 1, col as u16, cell.as_str())
                .map_err(fail)?;
        }
    }
    book.save_to_buffer().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatflow_core::ErrorCode;

    fn strings(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| (*c).to_owned()).collect()
    }

    #[test]
    fn xlsx_round_trips_through_the_reader() {
        let header = strings(&["Nome", "Número"]);
        let rows = vec![strings(&["João", "5511999990001"]), strings(&["Ana", ""])];
        let bytes = xlsx(&header, &rows).expect("written");
        let sheet = read("contatos.XLSX", &bytes).expect("read");
        assert_eq!(sheet.header, header);
        assert_eq!(sheet.rows[0], rows[0]);
        assert_eq!(sheet.rows[1][0], "Ana");
    }

    #[test]
    fn excel_numbers_keep_their_digits() {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        sheet.write_string(0, 0, "number").expect("header");
        sheet.write_number(1, 0, 5511999990001.0).expect("cell");
        let bytes = book.save_to_buffer().expect("saved");
        let sheet = read("a.xlsx", &bytes).expect("read");
        assert_eq!(sheet.rows, vec![strings(&["5511999990001"])]);
    }

    #[test]
    fn csv_and_txt_guess_the_delimiter() {
        let sheet = read(
            "a.csv",
            "\u{feff}name;number\nAna;551199\n\nBia;5522\n".as_bytes(),
        )
        .expect("csv");
        assert_eq!(sheet.header, strings(&["name", "number"]));
        assert_eq!(sheet.rows[0], strings(&["Ana", "551199"]));
        let sheet = read("a.txt", b"name,number,\n\"Silva, Ana\",1\n").expect("txt");
        assert_eq!(sheet.header, strings(&["name", "number", "Column 3"]));
        assert_eq!(sheet.rows[0], strings(&["Silva, Ana", "1"]));
    }

    #[test]
    fn other_or_broken_files_are_invalid() {
        for (name, bytes) in [
            ("a.pdf", b"%PDF-1.4".as_slice()),
            ("a.xlsx", b"not a zip".as_slice()),
            ("a.xls", b"\x00\x01garbage".as_slice()),
            ("a.csv", b"\xff\xfe\x00bad".as_slice()),
            ("a.csv", b"".as_slice()),
            ("noext", b"name,number".as_slice()),
        ] {
            let err = read(name, bytes).expect_err(name);
            assert_eq!(err.code, ErrorCode::ERR_INVALID_FILE, "{name}");
        }
    }
}
