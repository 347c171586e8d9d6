//! Reading GUI input: lines of bytes, not of UTF-8 (binary garbage must not end the
//! engine), with a cap on line length so that endless input cannot exhaust memory.

use std::io::BufRead;

/// Longest line kept. A `position ... moves` line of a very long game is a few tens of kB;
/// anything past this is cut and reported.
pub const MAX_LINE: usize = 4 << 20;

/// One line of input.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// A line longer than [`MAX_LINE`], discarded; the length is what was read.
    TooLong(usize),
    Eof,
}

/// Reads the next line. Invalid UTF-8 is replaced, never an error; read errors are EOF.
pub fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> Line {
    buf.clear();
    let mut total = 0usize;
    loop {
        let (done, used) = match reader.fill_buf() {
            Ok([]) => {
                return if total == 0 {
                    Line::Eof
                } else if total > MAX_LINE {
                    Line::TooLong(total)
                } else {
                    Line::Text(String::from_utf8_lossy(buf).into_owned())
                };
            }
            Ok(chunk) => match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    if total + i <= MAX_LINE {
                        buf.extend_from_slice(&chunk[..i]);
                    }
                    (true, i + 1)
                }
                None => {
                    if total + chunk.len() <= MAX_LINE {
                        buf.extend_from_slice(chunk);
                    }
                    (false, chunk.len())
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Line::Eof,
        };
        reader.consume(used);
        total += used - usize::from(done);
        if done {
            return if total > MAX_LINE {
                Line::TooLong(total)
            } else {
                Line::Text(String::from_utf8_lossy(buf).into_owned())
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_bytes_and_limits() {
        let mut data: Vec<u8> = b"uci\r\n\xff\xfe garbage\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        data.extend(b"\nisready");
        let mut reader = std::io::BufReader::new(&data[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut reader, &mut buf), Line::Text("uci\r".into()));
        assert!(
            matches!(read_line(&mut reader, &mut buf), Line::Text(t) if t.ends_with("garbage"))
        );
        assert_eq!(
            read_line(&mut reader, &mut buf),
            Line::TooLong(MAX_LINE + 10)
        );
        assert_eq!(
            read_line(&mut reader, &mut buf),
            Line::Text("isready".into())
        );
        assert_eq!(read_line(&mut reader, &mut buf), Line::Eof);
    }
}
