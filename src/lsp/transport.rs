//! The server's end of standard input and output: messages framed by `Content-Length`
//! headers, read and written on threads of their own.
//!
//! Reading is bounded: a header line or a message larger than a client can have a reason to
//! send ends the conversation with an error instead of an allocation that fails, and a body
//! that is not a JSON-RPC message is skipped (its length is known, so the next one is found).

use std::io::{self, BufRead, Read, Write};
use std::thread::JoinHandle;

use lsp_server::{Connection, Message};

use crate::policy::MAX_FILE_BYTES;

/// The largest message read: a document of the largest policy file there is, every byte
/// escaped as `\u00XX` in JSON, and room for the rest of the message.
pub const MAX_MESSAGE_BYTES: u64 = 6 * MAX_FILE_BYTES + (1 << 20);

/// The longest header line read.
const MAX_HEADER_LINE: u64 = 4096;

/// The threads that move messages between the connection and standard input and output.
#[derive(Debug)]
pub struct Stdio {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

/// A connection over standard input and output.
pub fn stdio() -> io::Result<(Connection, Stdio)> {
    let (server, client) = Connection::memory();
    let Connection {
        sender: to_server,
        receiver: from_server,
    } = client;
    let reader = std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || {
            let mut input = io::stdin().lock();
            while let Some(msg) = read_message(&mut input)? {
                let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                if to_server.send(msg).is_err() || exit {
                    break;
                }
            }
            Ok(())
        })?;
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || {
            let mut output = io::stdout().lock();
            for msg in from_server {
                msg.write(&mut output)?;
            }
            output.flush()
        })?;
    Ok((server, Stdio { reader, writer }))
}

impl Stdio {
    /// Waits for the reader (which has stopped: its input ended, or `exit` came) and the writer
    /// (which stops once the server's connection is dropped). `Err` says what went wrong in
    /// either.
    pub fn join(self) -> Result<(), TransportError> {
        let reader = join(
            self.reader,
            TransportError::Read,
            TransportError::ReaderPanicked,
        );
        let writer = join(
            self.writer,
            TransportError::Write,
            TransportError::WriterPanicked,
        );
        reader.and(writer)
    }
}

/// What went wrong in the thread reading the client's messages or the one writing answers.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("reading the client's messages: {0}")]
    Read(#[source] io::Error),
    /// The reader stopped on an internal error (it panicked).
    #[error("reading the client's messages: an internal error")]
    ReaderPanicked,
    #[error("writing to the client: {0}")]
    Write(#[source] io::Error),
    /// The writer stopped on an internal error (it panicked).
    #[error("writing to the client: an internal error")]
    WriterPanicked,
}

fn join(
    handle: JoinHandle<io::Result<()>>,
    failed: fn(io::Error) -> TransportError,
    panicked: TransportError,
) -> Result<(), TransportError> {
    match handle.join() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(failed(e)),
        Err(_) => Err(panicked),
    }
}

/// Reads one message: `None` at the end of the input. A body that is not a JSON-RPC
/// message is skipped with a note on standard error.
pub fn read_message(input: &mut impl BufRead) -> io::Result<Option<Message>> {
    loop {
        let Some(body) = read_body(input)? else {
            return Ok(None);
        };
        match serde_json::from_slice::<Message>(&body) {
            Ok(msg) => return Ok(Some(msg)),
            Err(e) => eprintln!("harness9 lsp: skipped a message that is not JSON-RPC: {e}"),
        }
    }
}

/// The bytes of the next message's body, by its `Content-Length`.
fn read_body(input: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut length: Option<u64> = None;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        let n = input
            .by_ref()
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            if first {
                return Ok(None);
            }
            return Err(invalid("the input ended inside a message's headers"));
        }
        first = false;
        if line.last() != Some(&b'\n') {
            return Err(invalid(format!(
                "a header line longer than {MAX_HEADER_LINE} bytes"
            )));
        }
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\n', '\r']);
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(invalid(format!("a malformed header: {line:?}")));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value.trim().parse::<u64>().map_err(|_| {
                invalid(format!("a Content-Length that is not a number: {value:?}"))
            })?;
            length = Some(n);
        }
    }
    let length = length.ok_or_else(|| invalid("a message without a Content-Length header"))?;
    if length > MAX_MESSAGE_BYTES {
        return Err(invalid(format!(
            "a message of {length} bytes (at most {MAX_MESSAGE_BYTES} are read)"
        )));
    }
    let mut body = Vec::new();
    input.by_ref().take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Err(invalid(format!(
            "the input ended {} bytes into a message of {length}",
            body.len()
        )));
    }
    Ok(Some(body))
}

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8]) -> (Vec<Message>, Option<String>) {
        let mut r = input;
        let mut out = Vec::new();
        loop {
            match read_message(&mut r) {
                Ok(Some(m)) => out.push(m),
                Ok(None) => return (out, None),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn framed_messages_are_read_in_order_and_a_body_that_is_no_message_is_skipped() {
        let input = format!(
            "{}{}{}",
            frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
            frame("{oops"),
            frame(r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#)
        );
        let (msgs, err) = read_all(input.as_bytes());
        assert_eq!(err, None);
        assert_eq!(msgs.len(), 2);
        assert!(matches!(&msgs[1], Message::Request(r) if r.method == "shutdown"));
    }

    #[test]
    fn an_oversized_or_malformed_frame_is_an_error_not_an_allocation() {
        for (input, says) in [
            ("Content-Length: 18446744073709551615\r\n\r\n{}", "at most"),
            ("Content-Length: nine\r\n\r\n", "not a number"),
            ("hello\n\n", "malformed header"),
            ("Content-Type: x\r\n\r\n{}", "without a Content-Length"),
            ("Content-Length: 99\r\n\r\n{}", "ended 2 bytes into"),
            ("Content-Length: 2\r\n", "inside a message's headers"),
        ] {
            let (_, err) = read_all(input.as_bytes());
            let err = err.unwrap_or_default();
            assert!(err.contains(says), "{input:?}: {err}");
        }
        let long = format!("X-{}: 1\r\n\r\n", "a".repeat(10_000));
        assert!(read_all(long.as_bytes())
            .1
            .is_some_and(|e| e.contains("longer than")));
    }
}
