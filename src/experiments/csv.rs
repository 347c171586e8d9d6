//! CSV rows as spreadsheets, `csv` readers and pandas read them (RFC 4180): fields joined
//! by commas, a field quoted when it holds a comma, a quote, a space or a line break,
//! and a quote inside a quoted field doubled.

use std::borrow::Cow;

/// One field, quoted if it must be. Spaces are quoted too although RFC 4180 does not
/// require it: some readers trim unquoted fields, which would change `am Bxh7 ` or an
/// id with a trailing space.
pub fn field(text: &str) -> Cow<'_, str> {
    if text.contains([',', '"', ' ', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", text.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(text)
    }
}

/// One line: the fields, each quoted if it must be, and a newline.
pub fn row<S: AsRef<str>>(fields: &[S]) -> String {
    let mut line = fields
        .iter()
        .map(|f| field(f.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_fields_stay_as_they_are() {
        assert_eq!(field("WAC.001"), "WAC.001");
        assert_eq!(field(""), "");
        assert_eq!(row(&["pvs", "Qg6", "true", "", "51"]), "pvs,Qg6,true,,51\n");
    }

    #[test]
    fn commas_quotes_spaces_and_newlines_are_quoted() {
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("am Bxh7"), "\"am Bxh7\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("\""), "\"\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(row(&["pvs Hash=64", "x,y"]), "\"pvs Hash=64\",\"x,y\"\n");
    }
}
