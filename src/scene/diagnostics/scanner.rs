//! A small, error-tolerant RON tokenizer. It reads any text — half-written, unbalanced,
//! garbage — into a loose tree of atoms and bracketed groups with byte offsets, tracking
//! nesting, strings, raw strings, chars and (nested) comments. It never fails and never
//! panics; diagnostics use it to find where a field is written, and `--set` to find the value
//! it replaces. It does not check RON's grammar: ron itself does that.

/// Deeper nesting than this is not descended into (ron itself stops at 128).
const MAX_DEPTH: usize = 256;

/// A value in the loose tree: an atom (number, string, identifier…) or a bracketed group,
/// possibly named (`Follow( … )`, `Some( … )`). Offsets are bytes into the text.
#[derive(Debug)]
pub(crate) struct Node {
    pub start: usize,
    pub end: usize,
    pub name: Option<String>,
    /// The opening bracket and its offset, for groups.
    pub open: Option<(u8, usize)>,
    pub entries: Vec<Entry>,
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub key: Option<Key>,
    pub value: Node,
}

#[derive(Debug)]
pub(crate) struct Key {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

impl Entry {
    pub(super) fn key_name(&self) -> Option<&str> {
        self.key.as_ref().map(|k| k.name.as_str())
    }
}

impl Node {
    fn atom(start: usize, end: usize) -> Self {
        Self {
            start,
            end,
            name: None,
            open: None,
            entries: Vec::new(),
        }
    }

    /// Looks through `Name(( … ))`, `Some([ … ])` and the like: a named group whose only
    /// content is another group.
    pub(crate) fn unwrapped(&self) -> &Node {
        let mut node = self;
        while node.name.is_some()
            && node.open.is_some_and(|(b, _)| b == b'(')
            && node.entries.len() == 1
            && node.entries[0].key.is_none()
            && node.entries[0].value.open.is_some()
        {
            node = &node.entries[0].value;
        }
        node
    }

    pub(super) fn names_variant(&self, name: &str) -> bool {
        self.name.as_deref() == Some(name)
    }

    /// A `( … )` or `{ … }` block (possibly empty) whose entries are keyed.
    pub(crate) fn is_struct_like(&self) -> bool {
        matches!(self.open, Some((b'(' | b'{', _))) && self.entries.iter().all(|e| e.key.is_some())
    }

    pub(super) fn is_list_like(&self) -> bool {
        matches!(self.open, Some((b'[' | b'(', _))) && self.entries.iter().all(|e| e.key.is_none())
    }

    /// The keys of a block, in written order.
    pub(crate) fn keys(&self) -> Vec<&str> {
        self.entries.iter().filter_map(Entry::key_name).collect()
    }
}

pub(crate) struct LooseTree {
    pub root: Node,
    /// Offset of the innermost bracket still open at the end of the text.
    pub unclosed: Option<usize>,
}

/// Parses RON text into a loose tree without ever failing: garbage gives a partial tree.
pub(crate) fn parse_loose(text: &str) -> LooseTree {
    let mut scanner = Scanner::new(text);
    scanner.skip_attributes();
    let root = scanner.parse_value();
    LooseTree {
        root,
        unclosed: scanner.unclosed,
    }
}

pub(super) struct Scanner<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pub(super) pos: usize,
    depth: usize,
    unclosed: Option<usize>,
}

pub(super) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b',' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b':' | b'"' | b'\'' | b'/'
        )
}

impl<'t> Scanner<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            unclosed: None,
        }
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn peek(&self) -> Option<u8> {
        self.peek_at(0)
    }

    pub(super) fn skip_trivia(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(b), _) if b.is_ascii_whitespace() => self.pos += 1,
                (Some(b'/'), Some(b'/')) => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    self.pos += 2;
                    let mut level = 1;
                    while level > 0 {
                        match (self.peek(), self.peek_at(1)) {
                            (None, _) => break,
                            (Some(b'/'), Some(b'*')) => {
                                level += 1;
                                self.pos += 2;
                            }
                            (Some(b'*'), Some(b'/')) => {
                                level -= 1;
                                self.pos += 2;
                            }
                            _ => self.pos += 1,
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// Skips `#![enable( … )]` attributes at the top of a file.
    fn skip_attributes(&mut self) {
        loop {
            self.skip_trivia();
            if self.peek() == Some(b'#') && self.peek_at(1) == Some(b'!') {
                self.pos += 2;
                self.skip_trivia();
                if self.peek() == Some(b'[') {
                    let _attribute = self.parse_value();
                }
            } else {
                return;
            }
        }
    }

    fn ident_end(&self, from: usize) -> usize {
        let mut end = from;
        while self.bytes.get(end).copied().is_some_and(is_ident_char) {
            end += 1;
        }
        end
    }

    /// Whether a raw string (`r"…"`, `r#"…"#`) starts `ahead` bytes from here.
    fn raw_string_ahead(&self, ahead: usize) -> bool {
        if self.peek_at(ahead) != Some(b'r') {
            return false;
        }
        let mut i = ahead + 1;
        while self.peek_at(i) == Some(b'#') {
            i += 1;
        }
        self.peek_at(i) == Some(b'"')
    }

    fn skip_string(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => self.pos = (self.pos + 2).min(self.bytes.len()),
                b'"' => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }

    fn skip_raw_string(&mut self) {
        self.pos += 1; // r
        let mut hashes = 0;
        while self.peek() == Some(b'#') {
            hashes += 1;
            self.pos += 1;
        }
        self.pos += 1; // "
        while let Some(b) = self.peek() {
            self.pos += 1;
            if b == b'"' {
                let mut closing = 0;
                while closing < hashes && self.peek() == Some(b'#') {
                    closing += 1;
                    self.pos += 1;
                }
                if closing == hashes {
                    return;
                }
            }
        }
    }

    fn skip_char_literal(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => self.pos = (self.pos + 2).min(self.bytes.len()),
                b'\'' => {
                    self.pos += 1;
                    return;
                }
                b'\n' => return,
                _ => self.pos += 1,
            }
        }
    }

    pub(super) fn parse_value(&mut self) -> Node {
        self.skip_trivia();
        let start = self.pos;
        let Some(b) = self.peek() else {
            return Node::atom(start, start);
        };
        match b {
            b'(' | b'[' | b'{' => self.parse_group(start, None),
            b'"' => {
                self.skip_string();
                Node::atom(start, self.pos)
            }
            b'\'' => {
                self.skip_char_literal();
                Node::atom(start, self.pos)
            }
            b'r' if self.raw_string_ahead(0) => {
                self.skip_raw_string();
                Node::atom(start, self.pos)
            }
            b'b' if self.peek_at(1) == Some(b'"') => {
                self.pos += 1;
                self.skip_string();
                Node::atom(start, self.pos)
            }
            b'b' if self.peek_at(1) == Some(b'\'') => {
                self.pos += 1;
                self.skip_char_literal();
                Node::atom(start, self.pos)
            }
            b'b' if self.raw_string_ahead(1) => {
                self.pos += 1;
                self.skip_raw_string();
                Node::atom(start, self.pos)
            }
            _ if is_ident_start(b) => {
                let name_start = if b == b'r'
                    && self.peek_at(1) == Some(b'#')
                    && self.peek_at(2).is_some_and(is_ident_start)
                {
                    start + 2
                } else {
                    start
                };
                let end = self.ident_end(name_start);
                self.pos = end;
                self.skip_trivia();
                if self.peek() == Some(b'(') {
                    let name = self.text.get(name_start..end).map(str::to_string);
                    return self.parse_group(start, name);
                }
                self.pos = end;
                Node::atom(start, end)
            }
            _ => {
                while self.peek().is_some_and(|b| !is_delimiter(b)) {
                    self.pos += 1;
                }
                Node::atom(start, self.pos)
            }
        }
    }

    /// Parses `( … )`, `[ … ]` or `{ … }` at `self.pos`; `start` includes a leading name.
    fn parse_group(&mut self, start: usize, name: Option<String>) -> Node {
        let open_at = self.pos;
        let opener = self.peek().unwrap_or(b'(');
        let closer = match opener {
            b'[' => b']',
            b'{' => b'}',
            _ => b')',
        };
        self.pos += 1;
        if self.depth >= MAX_DEPTH {
            return Node::atom(start, self.pos);
        }
        self.depth += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_trivia();
            let Some(b) = self.peek() else {
                self.unclosed.get_or_insert(open_at);
                break;
            };
            if b == closer {
                self.pos += 1;
                break;
            }
            if matches!(b, b')' | b']' | b'}') {
                // A mismatched closer: leave it to the enclosing group.
                break;
            }
            if b == b',' {
                self.pos += 1;
                continue;
            }
            let before = self.pos;
            let first = self.parse_value();
            self.skip_trivia();
            let entry = if self.peek() == Some(b':') && self.peek_at(1) != Some(b':') {
                self.pos += 1;
                let raw = self.text.get(first.start..first.end).unwrap_or("");
                let name = raw
                    .strip_prefix("r#")
                    .unwrap_or(raw)
                    .trim_matches('"')
                    .to_string();
                let key = Key {
                    name,
                    start: first.start,
                    end: first.end,
                };
                Entry {
                    key: Some(key),
                    value: self.parse_value(),
                }
            } else {
                Entry {
                    key: None,
                    value: first,
                }
            };
            if self.pos == before {
                // Nothing consumed (a stray `:` or `=`): step over one character.
                let step = self.text[self.pos..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
                self.pos += step;
                continue;
            }
            entries.push(entry);
        }
        self.depth -= 1;
        Node {
            start,
            end: self.pos,
            name,
            open: Some((opener, open_at)),
            entries,
        }
    }
}
