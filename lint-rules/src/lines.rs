//! Positions in a text: [`LineIndex`] turns byte offsets into 1-based lines and columns (in
//! characters, like rustc), and a [`Span`] is a place with both. Pure, and the ground floor of
//! the crate: it imports nothing of it.

/// A place in a file: byte offsets and 1-based line and column (in characters, like rustc).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// Byte offset of the start.
    pub start: usize,
    /// Byte offset of the end (exclusive).
    pub end: usize,
    /// 1-based line of the start.
    pub line: usize,
    /// 1-based column (characters) of the start.
    pub col: usize,
    /// 1-based line of the end.
    pub end_line: usize,
    /// 1-based column (characters) of the end.
    pub end_col: usize,
}

/// Line starts of a text, to turn byte offsets into lines and columns.
#[derive(Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// 1-based line and character column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let col = self.text.get(start..offset).map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// The span of a byte range.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let (line, col) = self.line_col(start);
        let (end_line, end_col) = self.line_col(end);
        Span { start, end, line, col, end_line, end_col }
    }

    /// Byte offset of the start of a 1-based line (the end of the text past the last line).
    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line.saturating_sub(1)).copied().unwrap_or(self.text.len())
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &'a str {
        let start = self.line_start(line);
        let rest = &self.text[start.min(self.text.len())..];
        rest.split('\n').next().unwrap_or("")
    }

    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}
