//! Upload limits, in one place: the largest file of each kind, the bounds of a contact
//! spreadsheet (rows, columns, cells, text, decompressed bytes) and the staging of uploads before
//! their import. Pure constants and small checks; the server's `CHATFLOW_MAX_BODY_BYTES` stays the
//! outer cap of a request body, and each upload route checks its kind's limit below it.

use crate::error::{Error, ErrorCode, Result};

/// One mebibyte.
pub const MIB: u64 = 1024 * 1024;

/// The kinds of uploaded file, each with its largest size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadKind {
    /// A contact spreadsheet (`POST /contacts/upload`: xls, xlsx, csv, txt).
    Spreadsheet,
    /// An image attached to a message, quick message or schedule.
    Image,
    /// An audio attached to a message, quick message or schedule.
    Audio,
    /// A video attached to a message, quick message or schedule.
    Video,
    /// Any other attachment (documents).
    Document,
    /// A user's avatar.
    Avatar,
    /// An image of a flow's media node.
    FlowImage,
    /// An audio of a flow's media node.
    FlowAudio,
    /// A video of a flow's media node.
    FlowVideo,
}

impl UploadKind {
    /// The largest file of this kind, in bytes.
    pub const fn max_bytes(self) -> u64 {
        match self {
            UploadKind::Spreadsheet => SPREADSHEET_MAX_BYTES,
            UploadKind::Image | UploadKind::Audio => 16 * MIB,
            UploadKind::Video => 64 * MIB,
            UploadKind::Document => 100 * MIB,
            UploadKind::Avatar => 2 * MIB,
            UploadKind::FlowImage => 2 * MIB,
            UploadKind::FlowAudio => 5 * MIB,
            UploadKind::FlowVideo => 20 * MIB,
        }
    }

    /// Whether `len` bytes fit this kind.
    pub const fn fits(self, len: u64) -> bool {
        len <= self.max_bytes()
    }
}

/// `ERR_PAYLOAD_TOO_LARGE` (with the limit in the detail) when `len` bytes exceed `kind`'s limit.
pub fn check_size(kind: UploadKind, len: u64) -> Result<()> {
    if kind.fits(len) {
        Ok(())
    } else {
        Err(too_large(format!(
            "at most {} bytes for this kind of file",
            kind.max_bytes()
        )))
    }
}

/// `ERR_PAYLOAD_TOO_LARGE` with a detail naming the bound passed.
pub fn too_large(detail: impl Into<String>) -> Error {
    Error::with_detail(ErrorCode::ERR_PAYLOAD_TOO_LARGE, detail)
}

/// The largest contact spreadsheet file (16 MiB: 50 000 contacts of a few columns take a few MiB).
pub const SPREADSHEET_MAX_BYTES: u64 = 16 * MIB;
/// The most data rows of a spreadsheet (the header row is not counted).
pub const SPREADSHEET_MAX_ROWS: usize = 50_000;
/// The most columns of a spreadsheet row; a cell further right refuses the file.
pub const SPREADSHEET_MAX_COLUMNS: usize = 64;
/// The most cells (empty ones in the middle of a row included) a spreadsheet keeps.
pub const SPREADSHEET_MAX_CELLS: usize = 1_000_000;
/// The longest cell, in bytes of text.
pub const SPREADSHEET_MAX_CELL_BYTES: usize = 4096;
/// The most text a spreadsheet keeps, all cells together, in bytes (a shared string repeated in
/// many cells counts each time).
pub const SPREADSHEET_MAX_TEXT_BYTES: usize = 32 * MIB as usize;
/// The most bytes an xlsx file (a zip) may declare once decompressed, all entries together; each
/// entry is also read with this bound, whatever its header says.
pub const SPREADSHEET_MAX_DECOMPRESSED_BYTES: u64 = 64 * MIB;
/// The most entries of an xlsx file's zip.
pub const SPREADSHEET_MAX_ZIP_ENTRIES: usize = 1000;

/// The most uploads a company keeps staged for import; a new one drops that company's oldest.
pub const STAGED_UPLOADS_PER_COMPANY: u32 = 5;
/// How long a staged upload waits for its import, in seconds (30 minutes).
pub const STAGED_UPLOAD_TTL_SECONDS: i64 = 30 * 60;

/// Bounds a spreadsheet reader checks as it goes: counts what it has accepted and refuses the
/// file (`ERR_PAYLOAD_TOO_LARGE`) as soon as a bound is passed, so nothing past the bounds is
/// ever kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SheetBudget {
    rows: usize,
    cells: usize,
    text: usize,
}

impl SheetBudget {
    /// A fresh budget.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks a cell position (0-based row and column) before anything is kept for it: the
    /// header row plus [`SPREADSHEET_MAX_ROWS`] rows, [`SPREADSHEET_MAX_COLUMNS`] columns.
    pub fn check_position(row: u64, column: u64) -> Result<()> {
        if row > SPREADSHEET_MAX_ROWS as u64 {
            return Err(too_large(format!(
                "at most {SPREADSHEET_MAX_ROWS} rows per spreadsheet"
            )));
        }
        if column >= SPREADSHEET_MAX_COLUMNS as u64 {
            return Err(too_large(format!(
                "at most {SPREADSHEET_MAX_COLUMNS} columns per spreadsheet"
            )));
        }
        Ok(())
    }

    /// Accounts for one more row.
    pub fn row(&mut self) -> Result<()> {
        self.rows += 1;
        // The header row is the one more.
        if self.rows > SPREADSHEET_MAX_ROWS + 1 {
            return Err(too_large(format!(
                "at most {SPREADSHEET_MAX_ROWS} rows per spreadsheet"
            )));
        }
        Ok(())
    }

    /// Accounts for one more cell of `len` bytes of text.
    pub fn cell(&mut self, len: usize) -> Result<()> {
        self.cells += 1;
        self.text += len;
        if len > SPREADSHEET_MAX_CELL_BYTES {
            return Err(too_large(format!(
                "at most {SPREADSHEET_MAX_CELL_BYTES} bytes per cell"
            )));
        }
        if self.cells > SPREADSHEET_MAX_CELLS {
            return Err(too_large(format!(
                "at most {SPREADSHEET_MAX_CELLS} cells per spreadsheet"
            )));
        }
        if self.text > SPREADSHEET_MAX_TEXT_BYTES {
            return Err(too_large(format!(
                "at most {SPREADSHEET_MAX_TEXT_BYTES} bytes of text per spreadsheet"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked_per_kind() {
        assert!(check_size(UploadKind::Image, 16 * MIB).is_ok());
        let err = check_size(UploadKind::Image, 16 * MIB + 1).expect_err("too large");
        assert_eq!(err.code, ErrorCode::ERR_PAYLOAD_TOO_LARGE);
        assert!(check_size(UploadKind::Video, 64 * MIB).is_ok());
        assert!(check_size(UploadKind::Spreadsheet, SPREADSHEET_MAX_BYTES + 1).is_err());
        assert!(UploadKind::Avatar.max_bytes() < UploadKind::Image.max_bytes());
    }

    #[test]
    fn positions_past_the_bounds_are_refused() {
        assert!(SheetBudget::check_position(0, 0).is_ok());
        assert!(SheetBudget::check_position(SPREADSHEET_MAX_ROWS as u64, 63).is_ok());
        assert!(SheetBudget::check_position(SPREADSHEET_MAX_ROWS as u64 + 1, 0).is_err());
        assert!(SheetBudget::check_position(0, SPREADSHEET_MAX_COLUMNS as u64).is_err());
        // The last cell of the largest xlsx grid.
        assert!(SheetBudget::check_position(1_048_575, 16_383).is_err());
    }

    #[test]
    fn the_budget_stops_at_the_first_bound_passed() {
        let mut budget = SheetBudget::new();
        for _ in 0..=SPREADSHEET_MAX_ROWS {
            budget.row().expect("within");
        }
        assert!(budget.row().is_err());
        let mut budget = SheetBudget::new();
        assert!(budget.cell(SPREADSHEET_MAX_CELL_BYTES).is_ok());
        assert!(budget.cell(SPREADSHEET_MAX_CELL_BYTES + 1).is_err());
        let mut budget = SheetBudget::new();
        for _ in 0..SPREADSHEET_MAX_CELLS {
            budget.cell(0).expect("within");
        }
        assert!(budget.cell(0).is_err());
    }
}
