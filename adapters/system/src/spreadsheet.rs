//! Reading and writing contact spreadsheets: xls/xlsx (calamine) and csv/txt (csv) become a
//! compact [`Sheet`] of text cells for the core's import rules; contacts become an xlsx file
//! (rust_xlsxwriter).
//!
//! Reading is bounded by `chatflow_core::limits`: the file's size, then rows, columns, cells,
//! cell length and text as cells are read (a [`SheetBudget`]), so what is kept is proportional
//! to what is accepted and nothing a file *declares* sizes an allocation:
//! - xlsx: the zip's entries are checked before anything is decompressed (count and declared
//!   sizes; the zip reader refuses an entry that inflates past its declared size), then the first
//!   sheet's cells are streamed one by one (`worksheet_cells_reader`), never as a grid: the
//!   `<dimension>` and sparse cell positions size nothing.
//! - xls (BIFF): calamine builds each sheet as a dense grid when it opens the file, so the
//!   workbook stream is scanned first: every cell position and `DIMENSIONS` record must lie within
//!   the bounds, and the grids of all sheets together must stay within
//!   [`SPREADSHEET_MAX_CELLS`] and in proportion to the cells the file really has.
//! - csv/txt: records are streamed.

use std::io::{Cursor, Read};

use calamine::{Data, DataRef, Reader, Xls, XlsOptions, Xlsx};
use chatflow_core::inbox::import::invalid_file;
use chatflow_core::inbox::model::Contact;
use chatflow_core::limits::{
    self, SPREADSHEET_MAX_CELL_BYTES, SPREADSHEET_MAX_CELLS, SPREADSHEET_MAX_DECOMPRESSED_BYTES,
    SPREADSHEET_MAX_ZIP_ENTRIES, SheetBudget, UploadKind,
};
use chatflow_core::ports::ChannelKind;
use chatflow_core::{Error, Result};

/// A spreadsheet read as text: the first non-empty row is the header (the core's compact sheet).
pub use chatflow_core::inbox::import::Sheet;

/// The kinds of file accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Excel 97-2003 or 2007+ (`.xls`, `.xlsx`; told apart by their content).
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

/// The first bytes of a zip (xlsx) and of a compound file (xls).
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const CFB_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// Reads a file named `file_name` (the extension picks the reader). `ERR_INVALID_FILE` for an
/// unaccepted extension, an unreadable file or one without a header row; `ERR_PAYLOAD_TOO_LARGE`
/// for a file past the spreadsheet limits (`chatflow_core::limits`).
pub fn read(file_name: &str, bytes: &[u8]) -> Result<Sheet> {
    let format = format_of(file_name).ok_or_else(invalid_file)?;
    limits::check_size(UploadKind::Spreadsheet, bytes.len() as u64)?;
    let mut builder = Builder::default();
    match format {
        Format::Excel if bytes.starts_with(ZIP_MAGIC) => read_xlsx(bytes, &mut builder)?,
        Format::Excel if bytes.starts_with(CFB_MAGIC) => read_xls(bytes, &mut builder)?,
        Format::Excel => return Err(invalid_file()),
        Format::Delimited => read_delimited(bytes, &mut builder)?,
    }
    builder.finish()
}

/// Builds a [`Sheet`] from cells given in row order, within a [`SheetBudget`]: leading empty
/// rows are skipped, the first non-empty row becomes the header, rows between two given rows are
/// empty rows. Only the row being filled is held apart (at most the column limit of cells, each
/// within the cell limit).
#[derive(Default)]
struct Builder {
    budget: SheetBudget,
    sheet: Option<Sheet>,
    row: Option<u64>,
    last_row: Option<u64>,
    cells: Vec<String>,
}

impl Builder {
    /// Puts `text` at (`row`, `column`), 0-based. Rows must come in order.
    fn cell(&mut self, row: u64, column: u64, text: &str) -> Result<()> {
        SheetBudget::check_position(row, column)?;
        if text.len() > SPREADSHEET_MAX_CELL_BYTES {
            return Err(limits::too_large(format!(
                "at most {SPREADSHEET_MAX_CELL_BYTES} bytes per cell"
            )));
        }
        match self.row {
            Some(current) if current == row => {}
            Some(current) if row < current => return Err(invalid_file()),
            _ => {
                self.flush()?;
                if self.last_row.is_some_and(|last| row <= last) {
                    return Err(invalid_file());
                }
                self.fill_gap(row)?;
                self.row = Some(row);
            }
        }
        let column = column as usize;
        if self.cells.len() <= column {
            self.cells.resize(column + 1, String::new());
        }
        text.clone_into(&mut self.cells[column]);
        Ok(())
    }

    /// Empty rows between the last row kept and `row`, once the header is known.
    fn fill_gap(&mut self, row: u64) -> Result<()> {
        if let (Some(sheet), Some(last)) = (self.sheet.as_mut(), self.last_row) {
            for _ in last + 1..row {
                self.budget.row()?;
                sheet.push_row([]);
            }
        }
        Ok(())
    }

    /// Ends the row being filled.
    fn flush(&mut self) -> Result<()> {
        let Some(row) = self.row.take() else {
            return Ok(());
        };
        let cells = std::mem::take(&mut self.cells);
        match self.sheet.as_mut() {
            None if cells.iter().all(|c| c.trim().is_empty()) => return Ok(()),
            None => {
                self.budget.row()?;
                let mut header = Vec::with_capacity(cells.len());
                for (i, title) in cells.into_iter().enumerate() {
                    self.budget.cell(title.len())?;
                    let title = title.trim();
                    header.push(if title.is_empty() {
                        format!("Column {}", i + 1)
                    } else {
                        title.to_owned()
                    });
                }
                self.sheet = Some(Sheet::new(header));
            }
            Some(sheet) => {
                self.budget.row()?;
                for cell in &cells {
                    self.budget.cell(cell.len())?;
                }
                sheet.push_row(cells.iter().map(String::as_str));
            }
        }
        self.last_row = Some(row);
        Ok(())
    }

    fn finish(mut self) -> Result<Sheet> {
        self.flush()?;
        self.sheet.ok_or_else(invalid_file)
    }
}

/// Logs why a file could not be read and answers `ERR_INVALID_FILE`.
fn unreadable(error: impl std::fmt::Display) -> Error {
    tracing::debug!(%error, "unreadable spreadsheet");
    invalid_file()
}

/// Phone numbers typed in Excel are floats: whole numbers print without ".0".
fn float_text(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        f.to_string()
    }
}

fn data_text(cell: &Data) -> Option<std::borrow::Cow<'_, str>> {
    match cell {
        Data::Empty => None,
        Data::String(s) => Some(s.as_str().into()),
        Data::Float(f) => Some(float_text(*f).into()),
        other => Some(other.to_string().into()),
    }
}

fn data_ref_text<'a>(cell: &'a DataRef<'_>) -> Option<std::borrow::Cow<'a, str>> {
    match cell {
        DataRef::Empty => None,
        DataRef::SharedString(s) => Some((*s).into()),
        DataRef::String(s) => Some(s.as_str().into()),
        DataRef::Float(f) => Some(float_text(*f).into()),
        other => Some(Data::from(other.clone()).to_string().into()),
    }
}

/// Checks an xlsx file's zip before anything is decompressed: at most
/// [`SPREADSHEET_MAX_ZIP_ENTRIES`] entries declaring at most
/// [`SPREADSHEET_MAX_DECOMPRESSED_BYTES`] together. The zip reader then refuses an entry that
/// inflates past its declared size, so the declared sizes bound what is decompressed.
fn check_zip(bytes: &[u8]) -> Result<()> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(unreadable)?;
    if archive.len() > SPREADSHEET_MAX_ZIP_ENTRIES {
        return Err(limits::too_large(format!(
            "at most {SPREADSHEET_MAX_ZIP_ENTRIES} parts per xlsx file"
        )));
    }
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(unreadable)?;
        total = total.saturating_add(entry.size());
    }
    if total > SPREADSHEET_MAX_DECOMPRESSED_BYTES {
        return Err(limits::too_large(format!(
            "at most {SPREADSHEET_MAX_DECOMPRESSED_BYTES} bytes once decompressed"
        )));
    }
    Ok(())
}

fn read_xlsx(bytes: &[u8], builder: &mut Builder) -> Result<()> {
    check_zip(bytes)?;
    let mut book: Xlsx<_> = Xlsx::new(Cursor::new(bytes)).map_err(unreadable)?;
    let first = book
        .sheet_names()
        .first()
        .cloned()
        .ok_or_else(invalid_file)?;
    let mut cells = book.worksheet_cells_reader(&first).map_err(unreadable)?;
    while let Some(cell) = cells.next_cell().map_err(unreadable)? {
        let (row, column) = cell.get_position();
        if let Some(text) = data_ref_text(cell.get_value()) {
            builder.cell(u64::from(row), u64::from(column), &text)?;
        }
    }
    Ok(())
}

fn read_xls(bytes: &[u8], builder: &mut Builder) -> Result<()> {
    check_biff(bytes)?;
    let mut book =
        Xls::new_with_options(Cursor::new(bytes), XlsOptions::default()).map_err(unreadable)?;
    let range = book
        .worksheet_range_at(0)
        .ok_or_else(invalid_file)?
        .map_err(unreadable)?;
    let (top, left) = range.start().unwrap_or((0, 0));
    for (r, row) in range.rows().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if let Some(text) = data_text(cell) {
                builder.cell(u64::from(top) + r as u64, u64::from(left) + c as u64, &text)?;
            }
        }
    }
    Ok(())
}

/// The most sheets an xls file may have.
const XLS_MAX_SHEETS: usize = 256;

/// Scans an xls file's workbook stream before calamine opens it (it builds every sheet as a
/// dense grid, sized by the sheet's `DIMENSIONS` record and its outermost cells): every cell
/// and dimension must lie within the row and column bounds, and the grids of all sheets together
/// must hold at most [`SPREADSHEET_MAX_CELLS`] cells and at most 16 per cell the file really has
/// (plus 64 Ki), so a few bytes cannot make a large grid.
fn check_biff(bytes: &[u8]) -> Result<()> {
    let mut file = cfb::CompoundFile::open(Cursor::new(bytes)).map_err(unreadable)?;
    let path = ["/Workbook", "/Book"]
        .into_iter()
        .find(|p| file.is_stream(p))
        .ok_or_else(invalid_file)?;
    let stream = file.open_stream(path).map_err(unreadable)?;
    if stream.len() > SPREADSHEET_MAX_DECOMPRESSED_BYTES {
        return Err(limits::too_large("the workbook stream is too large"));
    }
    let mut data = Vec::new();
    stream
        .take(SPREADSHEET_MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(unreadable)?;
    scan_biff(&data)
}

/// One BIFF record: type and data.
fn biff_records(stream: &[u8]) -> impl Iterator<Item = Result<(u16, &[u8])>> {
    let mut rest = stream;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.len() < 4 {
            rest = &[];
            return Some(Err(invalid_file()));
        }
        let typ = u16::from_le_bytes([rest[0], rest[1]]);
        let len = usize::from(u16::from_le_bytes([rest[2], rest[3]]));
        if rest.len() < 4 + len {
            rest = &[];
            return Some(Err(invalid_file()));
        }
        let data = &rest[4..4 + len];
        rest = &rest[4 + len..];
        Some(Ok((typ, data)))
    })
}

fn u16_at(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u16::from_le_bytes(
        data.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn u32_at(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u32::from_le_bytes(
        data.get(at..at + 4)?.try_into().ok()?,
    )))
}

fn scan_biff(stream: &[u8]) -> Result<()> {
    let mut sheets = Vec::new();
    for record in biff_records(stream) {
        let (typ, data) = record?;
        match typ {
            // BoundSheet8: where a sheet's records start (calamine reads 8 bytes unchecked).
            0x0085 if data.len() < 8 => return Err(invalid_file()),
            0x0085 => sheets.push(u32_at(data, 0).ok_or_else(invalid_file)? as usize),
            // EOF of the globals.
            0x000A => break,
            _ => {}
        }
    }
    if sheets.len() > XLS_MAX_SHEETS {
        return Err(limits::too_large(format!(
            "at most {XLS_MAX_SHEETS} sheets per xls file"
        )));
    }
    let mut grid: u64 = 0;
    let mut cells: u64 = 0;
    for start in sheets {
        let sheet = stream.get(start..).ok_or_else(invalid_file)?;
        let (sheet_grid, sheet_cells) = scan_biff_sheet(sheet)?;
        grid = grid.saturating_add(sheet_grid);
        cells = cells.saturating_add(sheet_cells);
    }
    if grid > SPREADSHEET_MAX_CELLS as u64 || grid > cells.saturating_mul(16) + 65_536 {
        return Err(limits::too_large(
            "the sheet's cells are too far apart for the cells it has",
        ));
    }
    Ok(())
}

/// The grid one sheet would take (the larger of its `DIMENSIONS` and its cells' bounding box)
/// and how many cells it has, reading records as calamine does (nested substreams skipped, up to
/// the sheet's EOF).
fn scan_biff_sheet(sheet: &[u8]) -> Result<(u64, u64)> {
    let mut dims_grid: u64 = 0;
    let mut bounds: Option<(u64, u64, u64, u64)> = None;
    let mut cells: u64 = 0;
    let mut seen_bof = false;
    let mut depth = 0usize;
    let mut cell_at = |row: u64, column: u64, n: u64| -> Result<()> {
        SheetBudget::check_position(row, column)?;
        cells += n;
        bounds = Some(match bounds {
            None => (row, row, column, column),
            Some((r0, r1, c0, c1)) => (r0.min(row), r1.max(row), c0.min(column), c1.max(column)),
        });
        Ok(())
    };
    for record in biff_records(sheet) {
        let (typ, data) = record?;
        if depth > 0 {
            match typ {
                0x0809 => depth += 1,
                0x000A => depth -= 1,
                _ => {}
            }
            continue;
        }
        match typ {
            0x0809 if seen_bof => depth += 1,
            0x0809 => seen_bof = true,
            0x000A => break,
            // DIMENSIONS: calamine reserves rows x columns cells from it.
            0x0200 => {
                let (first_row, last_row, first_col, last_col) = match data.len() {
                    10 => (
                        u16_at(data, 0),
                        u16_at(data, 2),
                        u16_at(data, 4),
                        u16_at(data, 6),
                    ),
                    14 | 16 => (
                        u32_at(data, 0),
                        u32_at(data, 4),
                        u16_at(data, 8),
                        u16_at(data, 10),
                    ),
                    _ => return Err(invalid_file()),
                };
                let (Some(r0), Some(r1), Some(c0), Some(c1)) =
                    (first_row, last_row, first_col, last_col)
                else {
                    return Err(invalid_file());
                };
                // Row and column "last" are one past the end; an empty sheet says 0.
                if r1 > 0 && c1 > 0 {
                    SheetBudget::check_position(r1 - 1, c1 - 1)?;
                    if r0 > r1 {
                        return Err(invalid_file());
                    }
                    let c0 = if c0 > 0xFF || c1 < c0 { 0 } else { c0 };
                    dims_grid = dims_grid.max((r1 - r0 + 1) * (c1 - c0 + 1));
                }
            }
            // Number, Label, RString, BoolErr, Rk, LabelSst, Formula: row, column first.
            0x0203 | 0x0204 | 0x00D6 | 0x0205 | 0x027E | 0x00FD | 0x0006 => {
                let (Some(row), Some(column)) = (u16_at(data, 0), u16_at(data, 2)) else {
                    return Err(invalid_file());
                };
                cell_at(row, column, 1)?;
            }
            // MulRk: row, first column, ..., last column.
            0x00BD => {
                let (Some(row), Some(first), Some(last)) = (
                    u16_at(data, 0),
                    u16_at(data, 2),
                    data.len().checked_sub(2).and_then(|at| u16_at(data, at)),
                ) else {
                    return Err(invalid_file());
                };
                cell_at(row, first, 1)?;
                cell_at(row, last.max(first), last.saturating_sub(first) + 1)?;
            }
            _ => {}
        }
    }
    let box_grid = bounds.map_or(0, |(r0, r1, c0, c1)| (r1 - r0 + 1) * (c1 - c0 + 1));
    Ok((dims_grid.max(box_grid), cells))
}

fn read_delimited(bytes: &[u8], builder: &mut Builder) -> Result<()> {
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
    let mut record = csv::StringRecord::new();
    let mut row: u64 = 0;
    while reader
        .read_record(&mut record)
        .map_err(|_| invalid_file())?
    {
        for (column, cell) in record.iter().enumerate() {
            builder.cell(row, column as u64, cell)?;
        }
        row += 1;
    }
    Ok(())
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
        assert_eq!(sheet.row(0), Some(vec!["João", "5511999990001"]));
        assert_eq!(sheet.row(1).expect("row")[0], "Ana");
    }

    #[test]
    fn excel_numbers_keep_their_digits() {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        sheet.write_string(0, 0, "number").expect("header");
        sheet.write_number(1, 0, 5511999990001.0).expect("cell");
        let bytes = book.save_to_buffer().expect("saved");
        let sheet = read("a.xlsx", &bytes).expect("read");
        assert_eq!(
            sheet.rows().collect::<Vec<_>>(),
            vec![vec!["5511999990001"]]
        );
    }

    #[test]
    fn csv_and_txt_guess_the_delimiter() {
        let sheet = read(
            "a.csv",
            "\u{feff}name;number\nAna;551199\n\nBia;5522\n".as_bytes(),
        )
        .expect("csv");
        assert_eq!(sheet.header, strings(&["name", "number"]));
        assert_eq!(sheet.row(0), Some(vec!["Ana", "551199"]));
        let sheet = read("a.txt", b"name,number,\n\"Silva, Ana\",1\n").expect("txt");
        assert_eq!(sheet.header, strings(&["name", "number", "Column 3"]));
        assert_eq!(sheet.row(0), Some(vec!["Silva, Ana", "1"]));
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

    /// One BIFF record.
    fn record(out: &mut Vec<u8>, typ: u16, data: &[u8]) {
        out.extend(typ.to_le_bytes());
        out.extend((data.len() as u16).to_le_bytes());
        out.extend(data);
    }

    /// A BIFF8 xls file of one sheet with the given DIMENSIONS (first row, last row + 1, first
    /// column, last column + 1) and text cells (row, column, ASCII text).
    fn xls(dims: (u32, u32, u16, u16), cells: &[(u16, u16, &str)]) -> Vec<u8> {
        use std::io::Write;
        let bof = |kind: u16| {
            let mut data = vec![0x00, 0x06];
            data.extend(kind.to_le_bytes());
            data.extend([0u8; 12]);
            data
        };
        let mut globals = Vec::new();
        record(&mut globals, 0x0809, &bof(0x0005));
        // BoundSheet8 (13 bytes of data) and EOF follow.
        let sheet_at = (globals.len() + 4 + 13 + 4) as u32;
        let mut bound = sheet_at.to_le_bytes().to_vec();
        bound.extend([0, 0, 5, 0]);
        bound.extend(b"Sheet");
        record(&mut globals, 0x0085, &bound);
        record(&mut globals, 0x000A, &[]);
        assert_eq!(globals.len() as u32, sheet_at);
        let mut sheet = Vec::new();
        record(&mut sheet, 0x0809, &bof(0x0010));
        let mut d = Vec::new();
        d.extend(dims.0.to_le_bytes());
        d.extend(dims.1.to_le_bytes());
        d.extend(dims.2.to_le_bytes());
        d.extend(dims.3.to_le_bytes());
        d.extend([0, 0]);
        record(&mut sheet, 0x0200, &d);
        for (row, col, text) in cells {
            // Label: row, column, XF, then a string of 8-bit characters.
            let mut data = Vec::new();
            data.extend(row.to_le_bytes());
            data.extend(col.to_le_bytes());
            data.extend(0u16.to_le_bytes());
            data.extend((text.len() as u16).to_le_bytes());
            data.push(0);
            data.extend(text.as_bytes());
            record(&mut sheet, 0x0204, &data);
        }
        record(&mut sheet, 0x000A, &[]);
        globals.extend(sheet);
        let mut file = cfb::CompoundFile::create_with_version(
            cfb::Version::V3,
            std::io::Cursor::new(Vec::new()),
        )
        .expect("a compound file");
        let mut stream = file.create_stream("/Workbook").expect("a stream");
        stream.write_all(&globals).expect("written");
        drop(stream);
        file.flush().expect("flushed");
        file.into_inner().into_inner()
    }

    #[test]
    fn xls_files_are_read() {
        let bytes = xls(
            (0, 3, 0, 2),
            &[
                (0, 0, "name"),
                (0, 1, "number"),
                (2, 0, "Ana"),
                (2, 1, "5511"),
            ],
        );
        let sheet = read("a.xls", &bytes).expect("read");
        assert_eq!(sheet.header, strings(&["name", "number"]));
        assert_eq!(sheet.len(), 2);
        assert_eq!(sheet.row(1), Some(vec!["Ana", "5511"]));
    }

    #[test]
    fn xls_grids_past_the_bounds_are_refused_before_they_are_built() {
        // Cells at the corners of the largest xls grid (65 536 x 256), and a dimension to match.
        let corners = xls(
            (0, 65_536, 0, 256),
            &[(0, 0, "name"), (65_535, 255, "boom")],
        );
        let err = read("bomb.xls", &corners).expect_err("refused");
        assert_eq!(err.code, ErrorCode::ERR_PAYLOAD_TOO_LARGE);
        // Within the row and column bounds, but a grid of 50 001 x 64 from three cells.
        let sparse = xls((0, 50_001, 0, 64), &[(0, 0, "name"), (50_000, 63, "x")]);
        let err = read("sparse.xls", &sparse).expect_err("refused");
        assert_eq!(err.code, ErrorCode::ERR_PAYLOAD_TOO_LARGE);
        // Only the dimension is large.
        let declared = xls((0, 65_000, 0, 200), &[(0, 0, "name")]);
        let err = read("declared.xls", &declared).expect_err("refused");
        assert_eq!(err.code, ErrorCode::ERR_PAYLOAD_TOO_LARGE);
    }

    #[test]
    fn csv_past_the_bounds_is_refused() {
        let wide = (0..=limits::SPREADSHEET_MAX_COLUMNS)
            .map(|i| format!("c{i}"))
            .collect::<Vec<_>>()
            .join(",");
        let err = read("wide.csv", wide.as_bytes()).expect_err("refused");
        assert_eq!(err.code, ErrorCode::ERR_PAYLOAD_TOO_LARGE);
        let long = format!("name\n{}\n", "x".repeat(SPREADSHEET_MAX_CELL_BYTES + 1));
        let err = read("long.csv", long.as_bytes()).expect_err("refused");
        assert_eq!(err.code, ErrorCode::ERR_PAYLOAD_TOO_LARGE);
        let mut tall = String::from("name\n");
        for _ in 0..=limits::SPREADSHEET_MAX_ROWS {
            tall.push_str("x\n");
        }
        let err = read("tall.csv", tall.as_bytes()).expect_err("refused");
        assert_eq!(err.code, ErrorCode::ERR_PAYLOAD_TOO_LARGE);
        // At the row bound: accepted.
        let fits = &tall[..tall.len() - 2];
        let sheet = read("fits.csv", fits.as_bytes()).expect("read");
        assert_eq!(sheet.len(), limits::SPREADSHEET_MAX_ROWS);
    }
}
